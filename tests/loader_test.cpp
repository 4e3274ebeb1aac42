// The schema-driven loader on small in-memory files: values, positions, arrays, second-pass rules.
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <string>
#include <string_view>

#include "engine/data/record_loader.hpp"

using perfcast::parse_record;
using perfcast::Record;
using perfcast::schema::Kind;

namespace {

const char* kLink = R"(schema_version = 1
name = "nvlink4"
display_name = "NVLink 4"
class = "scale-up"
bandwidth = { value = "900 GB/s bidirectional", source = "wp", note = "18 links" }
scope = "per-device"
links = { value = 18, source = "wp" }
per_link_bandwidth = { value = "25 GB/s per direction", source = "wp" }

[sources.wp]
title = "NVIDIA H100 whitepaper v1.04"
locator = "pp.47-50"
date = "2022"
kind = "whitepaper"
)";

std::string error_of(const std::string& text, const std::string& label, Kind kind) {
  try {
    parse_record(text, label, kind);
  } catch (const perfcast::InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a link's bidirectional headline is stored per direction, with its source and note") {
  Record r = parse_record(kLink, "interconnects/nvlink4.toml", Kind::interconnect);
  const perfcast::Entry* bw = r.find("bandwidth");
  REQUIRE(bw);
  CHECK(bw->number == doctest::Approx(450e9));  // 900 GB/s bidirectional -> 450e9 B/s per direction
  CHECK(bw->text == "900 GB/s bidirectional");
  CHECK(bw->note == "18 links");
  CHECK(r.source_of(*bw)->title == "NVIDIA H100 whitepaper v1.04");
  CHECK(bw->where.line == 5);
  CHECK(bw->where.column == 23);
  CHECK(r.number("links") == 18);
}

TEST_CASE("links x per-link bandwidth must agree with the total") {
  std::string text = kLink;
  text.replace(text.find("\"25 GB/s per direction\""), 23, "\"50 GB/s per direction\"");
  CHECK(error_of(text, "nvlink4.toml", Kind::interconnect) ==
        "nvlink4.toml:5:23: bandwidth: 900 GB/s bidirectional \u2260 links \u00d7 per_link_bandwidth = 900 GB/s per "
        "direction");
}

TEST_CASE("a measured ring busbw is stored per direction and may not exceed the link's rate (F-COLL-7)") {
  std::string text = kLink;
  text.insert(text.find("\n[sources.wp]"), "\nring_busbw = { value = \"370 GB/s per direction\", source = \"wp\" }");
  CHECK(parse_record(text, "nvlink4.toml", Kind::interconnect).number("ring_busbw") == doctest::Approx(370e9));
  text.replace(text.find("\"370 GB/s per direction\""), 24, "\"500 GB/s per direction\"");
  CHECK(error_of(text, "nvlink4.toml", Kind::interconnect) ==
        "nvlink4.toml:10:24: ring_busbw: a ring's busbw cannot exceed the link's 450 GB/s per direction");
}

TEST_CASE("power modes are read as an array with their own schema") {
  std::string text = R"(schema_version = 1
name = "orin"
display_name = "Orin"
vendor = "NVIDIA"
category = "edge-gpu"
[peak_dense]
int8 = { value = "30 TOP/s", source = "ds" }
[compute]
tpcs = { value = 4, source = "ds" }
boost_clock = { value = "918 MHz", source = "ds" }
[power]
tdp = { value = "25 W", source = "ds" }
[[power_modes]]
name = "10W"
power = { value = "10 W", source = "ds" }
gpu_max_clock = { value = "612 MHz", source = "ds" }
gpu_tpcs = { value = 2, source = "ds" }
[[power_modes]]
name = "15W"
default = true
power = { value = "15 W", source = "ds" }
[sources.ds]
title = "Jetson Orin NX data sheet"
date = "2023"
kind = "datasheet"
)";
  Record r = parse_record(text, "orin.toml", Kind::accelerator);
  CHECK(r.array_size("power_modes") == 2);
  CHECK(r.text("power_modes[0].name") == "10W");
  CHECK(r.number("power_modes[0].gpu_max_clock") == doctest::Approx(612e6));
  CHECK(r.flag("power_modes[1].default"));

  std::string too_fast = text;
  too_fast.replace(too_fast.find("612 MHz"), 7, "999 MHz");
  CHECK(error_of(too_fast, "orin.toml", Kind::accelerator) ==
        "orin.toml:16:27: power_modes[0].gpu_max_clock: 999 MHz is above compute.boost_clock 918 MHz");
  std::string over_tdp = text;
  over_tdp.replace(over_tdp.find("\"15 W\""), 6, "\"30 W\"");
  CHECK(error_of(over_tdp, "orin.toml", Kind::accelerator) ==
        "orin.toml:21:19: power_modes[1].power: mode power 30 W is above the device's power.tdp 25 W");
  std::string unknown = text;
  unknown.replace(unknown.find("default = true"), 14, "defualt = true");
  CHECK(error_of(unknown, "orin.toml", Kind::accelerator) ==
        "orin.toml:20:1: unknown key 'power_modes[1].defualt' (did you mean 'power_modes[1].default'?)");
}

namespace {

// A minimal accelerator: its BF16 peak, then `tables`, then the one source every figure cites.
std::string minimal_gpu(std::string_view tables) {
  return fmt::format(R"(schema_version = 1
name = "gpu"
display_name = "GPU"
vendor = "NVIDIA"
category = "datacenter-gpu"
[peak_dense]
bf16 = {{ value = "989 TFLOP/s", source = "ds" }}
{}[sources.ds]
title = "data sheet"
date = "2024"
kind = "datasheet"
)", tables);
}

}  // namespace

TEST_CASE("a board's default power limit must lie between its idle power and its TDP") {
  const std::string text = minimal_gpu(R"([power]
tdp = { value = "700 W", source = "ds" }
idle = { value = "140 W", source = "ds" }
default_limit = { value = "500 W", source = "ds" }
)");
  CHECK(parse_record(text, "gpu.toml", Kind::accelerator).number("power.default_limit") == doctest::Approx(500));
  std::string above = text;
  above.replace(above.find("\"500 W\""), 7, "\"800 W\"");
  CHECK(error_of(above, "gpu.toml", Kind::accelerator) ==
        "gpu.toml:11:27: power.default_limit: 800 W is not between power.idle 140 W and power.tdp 700 W");
  std::string no_idle = text;
  no_idle.erase(no_idle.find("idle = "), no_idle.find("default_limit") - no_idle.find("idle = "));
  CHECK(error_of(no_idle, "gpu.toml", Kind::accelerator).find("power.default_limit needs power.tdp and power.idle") != std::string::npos);
}

TEST_CASE("a sustained dense rate is a measured fraction of the burst rate, above 0 and at most 1, per precision (F-EN-5)") {
  const std::string text = minimal_gpu("[sustained_dense]\nbf16 = { value = 0.9, source = \"ds\" }\n");
  CHECK(parse_record(text, "gpu.toml", Kind::accelerator).number("sustained_dense.bf16") == doctest::Approx(0.9));
  for (const std::string bad : {"1.2", "0", "-0.5", "nan"}) {
    std::string t = text;
    t.replace(t.find("0.9,"), 3, bad);
    CAPTURE(bad);
    CHECK(error_of(t, "gpu.toml", Kind::accelerator).starts_with("gpu.toml:9:"));
  }
  std::string unknown = text;
  unknown.replace(unknown.find("bf16 = { value = 0.9"), 4, "bf61");
  CHECK(error_of(unknown, "gpu.toml", Kind::accelerator).find("unknown key 'sustained_dense.bf61'") != std::string::npos);
}

TEST_CASE("a figure without a value, or a source table without its keys, is refused") {
  std::string text = kLink;
  text.replace(text.find("value = 18, "), 12, "");
  CHECK(error_of(text, "nvlink4.toml", Kind::interconnect) == "nvlink4.toml:7:9: links: missing 'value'");
  std::string no_title = kLink;
  no_title.replace(no_title.find("title = \"NVIDIA H100 whitepaper v1.04\"\n"), 38, "");
  CHECK(error_of(no_title, "nvlink4.toml", Kind::interconnect) ==
        "nvlink4.toml:10:1: missing required key 'sources.wp.title'");
}
