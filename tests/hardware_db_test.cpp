// The shipped hardware database: it loads, every item the foundation issue lists is there, and the
// figures that bite (dense vs sparse, GB vs GiB, per-direction links) have the values of their sources.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "engine/data/hardware_db.hpp"
#include "engine/data/hardware_resolution.hpp"
#include "tests/shipped_db.hpp"

using perfcast::HardwareDb;
using perfcast::Precision;

namespace {

// A copy of the shipped database with one file's text changed, for cross-file errors.
std::string load_error_with(const std::string& relative, const std::string& from, const std::string& to) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("perfcast-db-test-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::copy(PERFCAST_DEFAULT_HARDWARE_DB, dir, fs::copy_options::recursive);
  fs::path file = dir / relative;
  std::stringstream content;
  content << std::ifstream(file).rdbuf();
  std::string text = content.str();
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), to);
  std::ofstream(file, std::ios::trunc) << text;
  try {
    HardwareDb::load(dir);
  } catch (const perfcast::InputError& e) {
    std::string what = e.what();
    return what.substr(what.find(relative));
  }
  return "no error";
}

}  // namespace

TEST_CASE("every item the foundation issue names is in the database") {
  for (const char* name : {"a100-sxm-40gb", "a100-sxm-80gb", "h100-sxm", "h100-pcie", "h200", "b200", "gb200", "b300",
                           "l40s", "l4", "mi300x", "mi325x", "gaudi3", "tpu-v5e", "tpu-v5p", "tpu-v6e",
                           "jetson-agx-orin-64gb", "jetson-agx-orin-32gb", "jetson-orin-nx-16gb", "jetson-orin-nx-8gb",
                           "jetson-orin-nano-8gb", "coral-usb", "coral-m2", "coral-devboard", "hailo-8"}) {
    CAPTURE(name);
    CHECK_NOTHROW(shipped_db().accelerator(name));
  }
  for (const char* name : {"nvlink3", "nvlink4", "nvlink5", "nvswitch-gen3", "nvlink-switch-gen5", "pcie4-x16",
                           "pcie5-x16", "pcie6-x16", "ib-hdr", "ib-ndr", "ib-xdr", "roce-100g", "roce-200g",
                           "roce-400g", "roce-800g", "usb3-gen1"}) {
    CAPTURE(name);
    CHECK_NOTHROW(shipped_db().link(name));
  }
  for (const char* name : {"dgx-a100-80gb", "hgx-a100-80gb", "dgx-h100", "hgx-h100", "dgx-h200", "dgx-b200", "gb200-nvl72"}) {
    CAPTURE(name);
    CHECK_NOTHROW(shipped_db().system(name));
  }
  CHECK(shipped_db().records_of(perfcast::schema::Kind::offer).size() >= 10);
  CHECK(shipped_db().records_of(perfcast::schema::Kind::region).size() >= 10);
}

TEST_CASE("every figure in the database cites a source with a title and a date") {
  std::size_t figures = 0;
  for (const perfcast::Record& r : shipped_db().records()) {
    for (const perfcast::Entry& e : r.entries) {
      if (!perfcast::schema::is_figure(e.field->type)) continue;
      ++figures;
      const perfcast::Source* s = r.source_of(e);
      CAPTURE(r.name);
      CAPTURE(e.path);
      REQUIRE(s);
      CHECK(!s->title.empty());
      CHECK(!s->date.empty());
    }
  }
  CHECK(figures > 500);
}

TEST_CASE("H100 SXM: dense BF16, HBM bandwidth, and both memory capacities") {
  const perfcast::AcceleratorSpec& h100 = shipped_db().accelerator("h100-sxm");
  CHECK(h100.peak(Precision::bf16) == doctest::Approx(989.4e12));  // whitepaper Table 3, dense
  CHECK(h100.peak(Precision::fp8) == doctest::Approx(1978.9e12));
  CHECK_FALSE(h100.peak(Precision::int4).has_value());              // Hopper has no INT4 tensor path
  CHECK(h100.memory_bandwidth_Bps == doctest::Approx(3.35e12));
  CHECK(h100.memory_capacity_marketing_B == doctest::Approx(80e9));
  CHECK(h100.memory_capacity_usable_B == doctest::Approx(81559.0 * 1048576));  // nvidia-smi: 81,559 MiB
  CHECK(h100.memory_capacity_B() == h100.memory_capacity_usable_B);
  CHECK(h100.scale_up_bandwidth_per_direction_Bps == doctest::Approx(450e9));   // 900 GB/s bidirectional
}

TEST_CASE("the known traps carry the right values") {
  // B300 collapses FP64 and INT8, and its dense FP4 is not half the sparse figure.
  const auto& b300 = shipped_db().accelerator("b300");
  CHECK(b300.peak(Precision::fp64) == doctest::Approx(1.2e12));
  CHECK(b300.peak(Precision::int8) == doctest::Approx(153.5e12));
  CHECK(b300.peak(Precision::fp4) == doctest::Approx(14e15));
  // Orin's 275 TOPS is sparse GPU+DLA; the GPU's dense INT8 is 85 TOP/s and the DLAs are separate.
  const auto& orin = shipped_db().accelerator("jetson-agx-orin-64gb");
  CHECK(orin.peak(Precision::int8) == doctest::Approx(85e12));
  CHECK(orin.dla_int8_ops_per_s == doctest::Approx(52.5e12));
  CHECK(orin.power_modes.size() == 4);
  // TPU v4 memory is 32 GiB, not 32 GB.
  CHECK(shipped_db().accelerator("tpu-v4").memory_capacity_marketing_B == doctest::Approx(32.0 * 1073741824));
  // PCIe 5.0 x16 is 63 GB/s per direction (vendors' 128 GB/s is both directions).
  CHECK(shipped_db().link("pcie5-x16").bandwidth_per_direction_Bps == doctest::Approx(63e9));
  CHECK(shipped_db().link("ib-ndr").bandwidth_per_direction_Bps == doctest::Approx(50e9));  // 400 Gb/s
  CHECK(shipped_db().link("nvlink5").bandwidth_per_direction_Bps == doctest::Approx(900e9));
}

TEST_CASE("systems, offers and regions resolve to typed specs in SI units") {
  const auto& nvl72 = shipped_db().system("gb200-nvl72");
  CHECK(nvl72.scale_up_domain == 72);
  CHECK(nvl72.accelerator == "gb200");
  const auto& p5 = shipped_db().offer("aws-p5.48xlarge");
  CHECK(p5.on_demand_usd_per_device_s * 3600 == doctest::Approx(55.04 / 8));  // $55.04/h for 8 GPUs
  CHECK(p5.network_per_instance_Bps == doctest::Approx(400e9));               // 3,200 Gb/s EFA
  const auto& quebec = shipped_db().region("ca-quebec");
  CHECK(quebec.grid_kg_per_J * 3.6e9 == doctest::Approx(5.48));  // g/kWh
  CHECK(shipped_db().region("us-iowa").electricity_usd_per_J.value() * 3.6e6 == doctest::Approx(0.0679));
}

TEST_CASE("unknown names suggest the closest one") {
  CHECK_THROWS_WITH(shipped_db().record("h100"), "no hardware named 'h100' (did you mean 'h200'?) (perfcast hw list shows them all)");
  CHECK_THROWS_WITH(shipped_db().accelerator("dgx-h100"), "'dgx-h100' is an system, not an accelerator");
}

TEST_CASE("cross-file errors: dangling references, wrong link classes, duplicate names, a cpu_vendor outside its choices") {
  CHECK(load_error_with("systems/dgx-h100.toml", "accelerator = \"h100-sxm\"", "accelerator = \"h100-sxn\"") ==
        "systems/dgx-h100.toml:4:15: accelerator: no accelerator named 'h100-sxn' in the database (did you mean "
        "'h100-sxm'?)");
  CHECK(load_error_with("systems/dgx-h100.toml", "scale_out = \"ib-ndr\"", "scale_out = \"nvlink4\"") ==
        "systems/dgx-h100.toml:9:13: scale_out: 'nvlink4' is a scale-up interconnect; expected a scale-out one");
  CHECK(load_error_with("systems/dgx-a100-80gb.toml", "cpu_vendor = \"amd\"", "cpu_vendor = \"AMD EPYC\"") ==
        "systems/dgx-a100-80gb.toml:13:14: cpu_vendor: 'AMD EPYC' is not one of: intel, amd, arm");
  CHECK(load_error_with("offers/runpod-h100-sxm.toml", "devices = { value = 1,", "devices = { value = 16,") ==
        "offers/runpod-h100-sxm.toml:7:21: devices: 16 devices is more than system 'dgx-h100' has per node (8)");
}

TEST_CASE("a part takes the measured parts' held rates it names (sustained_dense.from) for what it has not measured itself, refused in one line when it cannot") {
  const perfcast::AcceleratorSpec& b200 = shipped_db().accelerator("b200");
  const perfcast::AcceleratorSpec& gb200 = shipped_db().accelerator("gb200");
  const perfcast::AcceleratorSpec& h100 = shipped_db().accelerator("h100-sxm");
  const perfcast::AcceleratorSpec& h200 = shipped_db().accelerator("h200");
  CHECK(gb200.sustained_ratio(Precision::bf16) == doctest::Approx((0.896 + 0.843) / 2));
  CHECK(gb200.sustained_basis(Precision::bf16) ==
        "sustained_dense.from: not measured on this device; the mean of the held rates perfcast measured on h100-sxm (0.896) and h200 (0.843)");
  // B200's own BF16 figure (FlashAttention-4 held back to back, flashinfer PR #2899: 1,237 / 1,450) stands beside its `from`,
  // which fills FP8; FP16 and FP4 take their classes' after the transfer.
  CHECK(b200.sustained_ratio(Precision::bf16) == doctest::Approx(0.853));
  CHECK(b200.sustained_basis(Precision::bf16).starts_with("sustained_dense.bf16: an attention kernel, not a GEMM"));
  CHECK(b200.sustained_ratio(Precision::fp16) == b200.sustained_ratio(Precision::bf16));
  CHECK(b200.sustained_ratio(Precision::fp8) == doctest::Approx((h100.sustained_ratio(Precision::fp8) + h200.sustained_ratio(Precision::fp8)) / 2));
  CHECK(b200.sustained_ratio(Precision::fp4) == b200.sustained_ratio(Precision::fp8));
  CHECK(shipped_db().accelerator("h100-sxm-hbm2e").sustained_ratio(Precision::bf16) == h100.sustained_ratio(Precision::bf16));
  const std::string file = "accelerators/b200.toml";
  const std::string from = "from = [\"h100-sxm\", \"h200\"]";
  CHECK(load_error_with(file, from, "from = [\"h100-smx\"]").find("sustained_dense.from: no accelerator named 'h100-smx' in the database (did you mean 'h100-sxm'") !=
        std::string::npos);
  CHECK(load_error_with(file, from, "from = [\"gb200\"]").find("'gb200' takes its held rates from other parts itself; name measured parts") !=
        std::string::npos);
  CHECK(load_error_with(file, from, "from = [\"a100-sxm-80gb\"]").find("sustained_dense.from: a100-sxm-80gb share no measured held rate") !=
        std::string::npos);
  CHECK(load_error_with(file, from, "from = []").find("sustained_dense.from: name at least one measured accelerator") != std::string::npos);
  CHECK(load_error_with(file, from, "from = \"h100-sxm\"").find("sustained_dense.from: expected an array of strings") != std::string::npos);
}

TEST_CASE("a part whose datasheet rates a clock it does not reach takes a same-die part's rates times the measured ratio (F-ROOF-8)") {
  const perfcast::AcceleratorSpec& b200 = shipped_db().accelerator("b200");
  const perfcast::AcceleratorSpec& gb200 = shipped_db().accelerator("gb200");
  // MAMF: GB200 over B200, BF16 1822.0 / 1745.0 and FP8 3615.6 / 3432.5, mean 1.049; B200's datasheet is 9/10 of GB200's.
  for (Precision p : {Precision::tf32, Precision::bf16, Precision::fp8, Precision::fp4, Precision::int8})
    CHECK(gb200.reached_share(p) * *gb200.peak(p) == doctest::Approx(1.049 * *b200.peak(p)));
  CHECK(gb200.reached_share(Precision::fp4) == doctest::Approx(1.049 * 0.9));
  CHECK(gb200.reached_share(Precision::fp64) == 1);  // not what the benchmark measured
  CHECK(b200.reached_share(Precision::fp8) == 1);
  CHECK(gb200.dense_reached_basis == "dense_reached: 1.049 x b200's datasheet dense rates, the ratio a benchmark measured on both (F-ROOF-8)");
  // Timing reaches the measured rate, burst and held; MFU still counts the datasheet's.
  const perfcast::ResolvedHardware burst = perfcast::resolve_accelerator(shipped_db(), "gb200");
  CHECK(*burst.device.peak(Precision::fp4) == doctest::Approx(1.049 * 9e15));
  CHECK(*burst.rated_peak(Precision::fp4) == doctest::Approx(10e15));
  perfcast::ResolvedHardware held = burst;
  perfcast::hold_at_power_limit(held);
  CHECK(*held.device.peak(Precision::fp8) == doctest::Approx(1.049 * 4.5e15 * gb200.sustained_ratio(Precision::fp8)));
  CHECK(*held.rated_peak(Precision::fp8) == doctest::Approx(5e15));
  const std::string file = "accelerators/gb200.toml";
  const std::string die = "die_of = \"b200\"";
  CHECK(load_error_with(file, die, "die_of = \"gb200\"").find("dense_reached.die_of: 'gb200' takes its rates from another part itself") !=
        std::string::npos);
  CHECK(load_error_with(file, die, "die_of = \"b2000\"").find("no accelerator named 'b2000'") != std::string::npos);
  CHECK(load_error_with(file, "ratio = { value = 1.049", "ratio = { value = 2.5").find("dense_reached.ratio") != std::string::npos);
  CHECK(load_error_with(file, "ratio = { value = 1.049", "ratio = { value = -1").find("dense_reached.ratio") != std::string::npos);
  CHECK(load_error_with(file, "ratio = { value = 1.049", "retio = { value = 1.049").find("retio") != std::string::npos);
}

TEST_CASE("a part without a decode-attention measurement takes a measured part's share of memory bandwidth (decode_attention_from)") {
  const perfcast::AcceleratorSpec& b200 = shipped_db().accelerator("b200");
  const perfcast::AcceleratorSpec& gb200 = shipped_db().accelerator("gb200");
  REQUIRE(gb200.decode_attention_Bps);
  // B200's trtllm-gen kernel: 6.11 of 7.7 TB/s (0.794), at GB200's 8 TB/s: 6.35 TB/s.
  CHECK(*gb200.decode_attention_Bps == doctest::Approx(6.11e12 / 7.7e12 * 8e12));
  CHECK(gb200.decode_attention_basis ==
        "memory.decode_attention_from: not measured on this device; b200's measured kernel rate, 0.794 of its memory bandwidth, at this part's");
  CHECK(b200.decode_attention_basis == "memory.decode_attention_bandwidth");
  // F-ATT-4: the measured kernel's 8-bit-cache share comes with it.
  REQUIRE(b200.decode_attention_fp8_kv_share);
  CHECK(*b200.decode_attention_fp8_kv_share == doctest::Approx(0.926));
  CHECK(gb200.decode_attention_fp8_kv_share == b200.decode_attention_fp8_kv_share);
  CHECK_FALSE(shipped_db().accelerator("h100-sxm").decode_attention_fp8_kv_share);
  CHECK(load_error_with("accelerators/b200.toml", "decode_attention_fp8_kv_share = { value = 0.926", "decode_attention_fp8_kv_share = { value = 1.4")
            .find("memory.decode_attention_fp8_kv_share") != std::string::npos);
  const std::string h100_bandwidth = "bandwidth = { value = \"3.35 TB/s\", source = \"h100-page\"";
  CHECK(load_error_with("accelerators/h100-sxm.toml", h100_bandwidth,
                        "decode_attention_fp8_kv_share = { value = 0.9, source = \"h100-page\" }\n" + h100_bandwidth)
            .find("memory.decode_attention_fp8_kv_share qualifies a measured memory.decode_attention_bandwidth beside it") !=
        std::string::npos);
  const std::string file = "accelerators/gb200.toml";
  const std::string from = "decode_attention_from = \"b200\"";
  CHECK(load_error_with(file, from, "decode_attention_from = \"h100-sxm\"")
            .find("memory.decode_attention_from: 'h100-sxm' has no measured memory.decode_attention_bandwidth") != std::string::npos);
  CHECK(load_error_with(file, from, "decode_attention_from = \"gb200\"")
            .find("memory.decode_attention_from: name another accelerator, one measured") != std::string::npos);
  CHECK(load_error_with(file, from, "decode_attention_from = \"b2000\"").find("no accelerator named 'b2000'") != std::string::npos);
  CHECK(load_error_with(file, from, from + "\ndecode_attention_bandwidth = { value = \"6 TB/s\", source = \"blackwell-page\" }")
            .find("gives memory.decode_attention_bandwidth itself; give one") != std::string::npos);
}
