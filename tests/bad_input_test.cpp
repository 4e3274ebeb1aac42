// The bad-input catalogue: every file under tests/data/bad/ and the exact one-line message it must give.
// Each accelerator case differs from tests/data/good/accelerators/test-gpu.toml in one way.
#include <doctest/doctest.h>

#include <string>

#include "engine/data/record_loader.hpp"

namespace {

struct BadCase {
  const char* file;  // under tests/data/bad/
  perfcast::schema::Kind kind;
  const char* message;  // what() after "<path>:"
};

using perfcast::schema::Kind;
const BadCase kCases[] = {
    {"accelerators/ambiguous-flops.toml", Kind::accelerator,
     "9:18: peak_dense.bf16: ambiguous unit 'TFLOPs': write 'TFLOP' for a count or 'TFLOP/s' for a rate"},
    {"accelerators/ambiguous-kilobyte.toml", Kind::accelerator,
     "15:22: memory.capacity: ambiguous unit 'KB': write 'kB' (1000) or 'KiB' (1024)"},
    {"accelerators/bad-choice.toml", Kind::accelerator,
     "5:12: category: 'datacenter-gpus' is not one of: datacenter-gpu, datacenter-accelerator, edge-gpu, edge-npu, cpu (did you mean 'datacenter-gpu'?)"},
    {"accelerators/bad-date.toml", Kind::accelerator,
     "38:8: sources.smi.date: '2024-13' is not a date (write YYYY, YYYY-MM or YYYY-MM-DD)"},
    {"accelerators/bare-number.toml", Kind::accelerator,
     "17:23: memory.bandwidth: bare number 3.35 has no unit; expected a bandwidth (B/s) as a string such as \"10 TB/s\""},
    {"accelerators/binary-garbage.toml", Kind::accelerator,
     "1:1: not a text file (contains NUL bytes)"},
    {"accelerators/broken-toml.toml", Kind::accelerator,
     "14:8: TOML syntax error: Error while parsing table header: expected ']', saw '\\n'"},
    {"accelerators/count-not-integer.toml", Kind::accelerator,
     "20:19: compute.units: expected an integer count, got a number"},
    {"accelerators/dense-above-sparse.toml", Kind::accelerator,
     "9:18: peak_dense.bf16: dense 2100 TFLOP/s is above the sparse headline 1979 TFLOP/s"},
    {"accelerators/direction-on-memory.toml", Kind::accelerator,
     "17:23: memory.bandwidth: '3.35 TB/s bidirectional': a direction does not apply to this figure"},
    {"accelerators/empty.toml", Kind::accelerator,
     "1:1: empty file: expected an accelerator description starting with schema_version = 1"},
    {"accelerators/huge-number.toml", Kind::accelerator,
     "17:23: memory.bandwidth: '1e400 TB/s' is out of the representable range"},
    {"accelerators/implausible-power.toml", Kind::accelerator,
     "23:17: power.tdp: 7 GW is outside the plausible range (at most 10 kW)"},
    {"accelerators/invalid-utf8.toml", Kind::accelerator,
     "2:8: TOML syntax error: Encountered invalid utf-8 sequence"},
    {"accelerators/misplaced-key.toml", Kind::accelerator,
     "7:1: unknown key 'bandwidth' (did you mean 'memory.bandwidth'?)"},
    {"accelerators/missing-display-name.toml", Kind::accelerator,
     "1:1: missing required key 'display_name' (the vendor's name for the item)"},
    {"accelerators/name-mismatch.toml", Kind::accelerator,
     "2:8: name: 'h100' does not match the file name 'name-mismatch'"},
    {"accelerators/nan-value.toml", Kind::accelerator,
     "17:23: memory.bandwidth: 'nan TB/s' does not start with a number"},
    {"accelerators/bandwidth-kilobytes.toml", Kind::accelerator,
     "17:23: memory.bandwidth: 1 kB/s is below the plausible minimum 10 MB/s: a unit slip (kB/s or MB/s written for GB/s?)"},
    {"accelerators/decode-attention-above-peak.toml", Kind::accelerator,
     "18:40: memory.decode_attention_bandwidth: 6.7 TB/s is above memory.bandwidth 3.35 TB/s: a measured kernel cannot exceed "
     "the peak (GB/GiB or a benchmark's bytes/ms/2^20 'GB/s'?)"},
    {"accelerators/negative-bandwidth.toml", Kind::accelerator,
     "17:23: memory.bandwidth: must be positive, got -3.35 TB/s"},
    {"accelerators/no-peak.toml", Kind::accelerator,
     "1:1: peak_dense: at least one precision's dense peak is required"},
    {"accelerators/no-source.toml", Kind::accelerator,
     "17:13: memory.bandwidth: figure has no source: write bandwidth = { value = \"3.35 TB/s\", source = \"<id>\" }"},
    {"accelerators/peak-subnormal.toml", Kind::accelerator,
     "9:18: peak_dense.bf16: 4.9e-324 TFLOP/s is a subnormal number: not a figure any datasheet prints"},
    {"accelerators/schema-version-2.toml", Kind::accelerator,
     "1:18: unsupported schema_version 2 (this perfcast reads version 1)"},
    {"accelerators/schema-version-missing.toml", Kind::accelerator,
     "1:1: missing required key 'schema_version' (write schema_version = 1)"},
    {"accelerators/sparse-as-dense.toml", Kind::accelerator,
     "9:18: peak_dense.bf16: 1979 TFLOP/s equals the 2:4-sparse headline (1979 TFLOP/s): give the dense peak (usually half)"},
    {"accelerators/sparse-tf32.toml", Kind::accelerator,
     "8:18: peak_dense.tf32: 989 TFLOP/s looks like the sparse TF32 headline: dense TF32 is half of dense BF16 (989.4 TFLOP/s) on every tensor-core generation"},
    {"accelerators/thousands-separator.toml", Kind::accelerator,
     "17:23: memory.bandwidth: '3,350 GB/s': thousands separators are not allowed"},
    {"accelerators/typo-key.toml", Kind::accelerator,
     "17:1: unknown key 'memory.bandwith' (did you mean 'memory.bandwidth'?)"},
    {"accelerators/undefined-source.toml", Kind::accelerator,
     "23:35: power.tdp: source 'pages' is not defined in [sources] (did you mean 'page'?)"},
    {"accelerators/unit-missing.toml", Kind::accelerator,
     "17:23: memory.bandwidth: '3.35' has no unit; expected a bandwidth (B/s), e.g. \"10 TB/s\""},
    {"accelerators/unknown-unit.toml", Kind::accelerator,
     "17:23: memory.bandwidth: unknown unit 'sec'"},
    {"accelerators/unused-source.toml", Kind::accelerator,
     "36:1: sources.extra: defined but no figure cites it"},
    {"accelerators/usable-mib-kib.toml", Kind::accelerator,
     "16:29: memory.usable_capacity: 81559 KiB is not within 80–110% of the vendor capacity 80 GB: GB/GiB or MiB/MB mix-up?"},
    {"accelerators/wrong-dimension.toml", Kind::accelerator,
     "17:23: memory.bandwidth: '3.35 TW' is a power (W); expected a bandwidth (B/s)"},
    {"accelerators/zero-power.toml", Kind::accelerator,
     "23:17: power.tdp: must be positive, got 0 W"},
    {"interconnects/link-without-direction.toml", Kind::interconnect,
     "5:23: bandwidth: '900 GB/s' must say 'per direction' or 'bidirectional' (vendor link headlines are usually both directions summed)"},
    {"offers/spot-above-on-demand.toml", Kind::offer,
     "10:18: spot: spot $60/h is above on-demand $55.04/h"},
    {"regions/pue-below-one.toml", Kind::region,
     "8:17: pue: 0.9 is below the minimum 1"},
    {"regions/pue-nan.toml", Kind::region,
     "8:17: pue: nan is not a finite number"},
    {"systems/domain-not-divisor.toml", Kind::system,
     "6:29: scale_up_domain: 3 neither divides nor is a multiple of devices_per_node 8"},
};

}  // namespace

TEST_CASE("the bad-input catalogue has at least 25 files, each with its exact message") {
  CHECK(std::size(kCases) >= 25);
  for (const BadCase& c : kCases) {
    std::string path = std::string(PERFCAST_TEST_DATA) + "/bad/" + c.file;
    CAPTURE(path);
    bool threw = false;
    try {
      perfcast::load_record(path, c.kind);
    } catch (const perfcast::InputError& e) {
      threw = true;
      CHECK(std::string(e.what()) == path + ":" + c.message);
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
    }
    CHECK_MESSAGE(threw, "no error for " << c.file);
  }
}

TEST_CASE("the catalogue's template itself is valid") {
  perfcast::Record r = perfcast::load_record(std::string(PERFCAST_TEST_DATA) + "/good/accelerators/test-gpu.toml",
                                             perfcast::schema::Kind::accelerator);
  CHECK(r.name == "test-gpu");
  CHECK(r.number("memory.bandwidth") == doctest::Approx(3.35e12));
}
