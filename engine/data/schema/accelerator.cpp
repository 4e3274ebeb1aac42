// Accelerators: dense peaks per precision, memory, on-chip SRAM, power, links, price, power modes.
#include <fmt/format.h>

#include "engine/data/record.hpp"
#include "engine/data/schema/kinds.hpp"

namespace perfcast::schema {
namespace {

using namespace units::dim;
constexpr double kMaxPeak = 1e17;  // 100 PFLOP/s per device: above any accelerator in the database

// Integer operations share the FLOP/s dimension but are shown as OP/s.
constexpr Field integer_rate(std::string_view key, std::string_view help) {
  Field f = quantity(key, ops_per_second, kMaxPeak, help);
  f.unit_symbol = "OP/s";
  return f;
}

constexpr std::string_view kPrecisions[] = {"fp64", "fp64_tensor", "fp32", "tf32", "bf16", "fp16",
                                            "fp8",  "fp6",         "fp4",  "int8", "int4"};

constexpr Field kPeaks[] = {
    quantity("fp64", ops_per_second, kMaxPeak, "FP64 vector (non-tensor) peak"),
    quantity("fp64_tensor", ops_per_second, kMaxPeak, "FP64 matrix/tensor peak"),
    quantity("fp32", ops_per_second, kMaxPeak, "FP32 vector (non-tensor) peak"),
    quantity("tf32", ops_per_second, kMaxPeak, "TF32 tensor peak, dense"),
    quantity("bf16", ops_per_second, kMaxPeak, "BF16 tensor/matrix peak, dense"),
    quantity("fp16", ops_per_second, kMaxPeak, "FP16 tensor/matrix peak, dense"),
    quantity("fp8", ops_per_second, kMaxPeak, "FP8 tensor peak, dense"),
    quantity("fp6", ops_per_second, kMaxPeak, "FP6 tensor peak, dense"),
    quantity("fp4", ops_per_second, kMaxPeak, "FP4 tensor peak, dense"),
    integer_rate("int8", "INT8 tensor peak, dense"),
    integer_rate("int4", "INT4 tensor peak, dense"),
};

// F-EN-5: a dense tensor rate held for seconds at the power limit over the same GEMM's first tens of
// milliseconds (the burst the GEMM efficiency defaults come from), per precision.
constexpr Field sustained(std::string_view key, std::string_view help) {
  return Field{.key = key, .type = FieldType::ratio, .help = help, .min = 0, .min_inclusive = false, .max = 1};
}
constexpr Field kSustained[] = {
    sustained("bf16", "BF16 dense tensor rate held at the power limit, over its burst rate"),
    sustained("fp16", "FP16 dense tensor rate held at the power limit, over its burst rate"),
    sustained("fp8", "FP8 dense tensor rate held at the power limit, over its burst rate"),
    Field{.key = "from", .type = FieldType::text_list,
          .help = "accelerators whose measured held rates this part takes for each precision it has no figure of its own for: "
                  "their mean (an assumption the predictions state; F-EN-5)"},
};

// F-ROOF-8: a part whose datasheet quotes its dense rates at a clock a benchmark run on it does not
// reach, measured against a part of the same die: its rates are that part's datasheet rates times
// the ratio the benchmark measured between the two.
constexpr Field kDenseReached[] = {
    reference("die_of", "accelerator", "a part of the same die whose datasheet dense rates this part's are measured against", true),
    Field{.key = "ratio", .type = FieldType::ratio,
          .help = "this part's best measured dense GEMM rate over the die_of part's, on the same benchmark", .required = true,
          .min = 0, .min_inclusive = false, .max = 2},
};

constexpr Field kMemory[] = {
    text("type", "memory technology: HBM3, HBM3e, LPDDR5, GDDR6 ..."),
    Field{.key = "capacity", .type = FieldType::quantity,
          .help = "vendor's marketing capacity, as printed (decimal GB unless stated)", .dimension = bytes,
          .max = 2e12, .basis = "marketing"},
    Field{.key = "usable_capacity", .type = FieldType::quantity,
          .help = "capacity the driver reports (nvidia-smi total), what allocations can use", .dimension = bytes,
          .max = 2e12, .basis = "usable"},
    quantity("bandwidth", bytes_per_second, 1e14, "peak memory bandwidth (device memory, not a link)"),
    quantity("decode_attention_bandwidth", bytes_per_second, 1e14,
             "best measured rate of a decode-attention kernel over a paged KV cache (Q, K and V bytes per second); "
             "times decode attention in place of bandwidth x efficiency.memory"),
    Field{.key = "decode_attention_fp8_kv_share", .type = FieldType::ratio,
          .help = "the rate per byte the same decode kernel reaches over an 8-bit KV cache, over its rate over a 16-bit one "
                  "(the cache's bytes halve, its time does not quite: the kernel converts each element; F-ATT-4)",
          .min = 0, .min_inclusive = false, .max = 1},
    reference("decode_attention_from", "accelerator",
              "an accelerator whose measured decode-attention rate this part, which has none of its own, takes as the same "
              "fraction of its memory bandwidth (the same kernel on the same die: an assumption the predictions state; F-ATT-2)"),
};

constexpr Field kOnChip[] = {
    quantity("l2", bytes, 1e11, "last-level cache on the die, as the vendor states it"),
    quantity("sram", bytes, 1e11, "software-managed on-chip SRAM (parameter cache on edge NPUs)"),
};

constexpr Field kCompute[] = {
    count("units", 1e6, "streaming multiprocessors / compute units / cores, as the vendor counts them"),
    count("tpcs", 1e4, "texture processing clusters (Jetson power modes gate whole TPCs)"),
    quantity("boost_clock", hertz, 1e10, "clock at which the tensor peaks are quoted"),
};

constexpr Field kPower[] = {
    quantity("tdp", watts, 1e4, "maximum board/module power as specified (TDP/TGP)"),
    quantity("idle", watts, 1e4, "power drawn with a context open and nothing running (energy model's floor)"),
    quantity("default_limit", watts, 1e4, "the power limit the board ships with when it is below the TDP (F-EN-4)"),
};

constexpr Field kEmbodied[] = {
    quantity("carbon", kg, 1e5, "embodied (manufacturing) CO2e of one device, with what it covers in `note`", true),
};

constexpr Field kScaleUp[] = {
    reference("link", "interconnect", "scale-up link technology", true),
    link_bandwidth("bandwidth", "scale-up bandwidth of one device over all its links", true),
    count("links", 1e3, "number of links per device"),
};

constexpr Field kHost[] = {
    reference("link", "interconnect", "link to the host CPU", true),
};

constexpr Field kDla[] = {
    count("count", 64, "deep-learning accelerator engines beside the GPU", true),
    Field{.key = "int8", .type = FieldType::quantity, .help = "INT8 peak of all DLA engines together, dense",
          .required = true, .dimension = ops_per_second, .max = kMaxPeak, .unit_symbol = "OP/s"},
};

constexpr Field kPrice[] = {
    quantity("purchase", usd, 1e8, "purchase price of one device (or its share of a system)", true),
};

constexpr Field kPowerMode[] = {
    text("name", "nvpmodel mode name", true),
    quantity("power", watts, 1e4, "module power budget of the mode", true),
    Field{.key = "default", .type = FieldType::flag, .help = "the mode the device boots in"},
    quantity("gpu_max_clock", hertz, 1e10, "GPU clock cap of the mode"),
    count("gpu_tpcs", 1e4, "TPCs left powered in the mode"),
    quantity("memory_bandwidth", bytes_per_second, 1e14, "memory bandwidth the mode's EMC clock cap allows"),
};

constexpr std::string_view kCategories[] = {"datacenter-gpu", "datacenter-accelerator", "edge-gpu", "edge-npu", "cpu"};

constexpr Field kAccelerator[] = {
    text("vendor", "manufacturer", true),
    choice("category", kCategories, "what class of device this is", true),
    text("form_factor", "SXM5, PCIe, OAM, module, USB stick ..."),
    text("architecture", "the vendor's architecture generation (hopper, blackwell ...): which kernels a stack runs on it"),
    table("peak_dense", kPeaks, "dense peak rates per precision (never the 2:4-sparse headline)", true),
    table("sparse_headline", kPeaks, "the vendor's 2:4-sparse headline figures, kept to catch mix-ups"),
    table("sustained_dense", kSustained, "dense tensor rates held at the power limit over their burst rates, measured (or, where a note says so, taken from measured parts; F-EN-5)"),
    table("dense_reached", kDenseReached, "dense tensor rates as a benchmark run beside a part of the same die measures them, in place of "
                                          "datasheet rates quoted at a clock the part does not reach (F-ROOF-8)"),
    table("memory", kMemory, "device memory"),
    table("on_chip", kOnChip, "on-chip SRAM and caches"),
    table("compute", kCompute, "compute units and clocks"),
    table("power", kPower, "power"),
    table("scale_up", kScaleUp, "scale-up link (NVLink, Infinity Fabric, ICI)"),
    table("host", kHost, "host link"),
    table("dla", kDla, "deep-learning accelerators beside the GPU (Jetson)"),
    table("price", kPrice, "price"),
    table("embodied", kEmbodied, "embodied carbon"),
    Field{.key = "power_modes", .type = FieldType::table_array, .help = "power modes (Jetson nvpmodel)",
          .children = kPowerMode},
};

}  // namespace

std::span<const Field> accelerator_fields() { return kAccelerator; }

// Second pass: rules that look at several figures at once.
void check_accelerator(const Record& r) {
  bool any_peak = false;
  for (std::string_view p : kPrecisions) {
    std::string dense_path = fmt::format("peak_dense.{}", p);
    const Entry* dense = r.find(dense_path);
    if (!dense) continue;
    any_peak = true;
    if (const Entry* sparse = r.find(fmt::format("sparse_headline.{}", p))) {
      if (dense->number > sparse->number * 1.001)
        throw r.error(*dense, fmt::format("dense {} is above the sparse headline {}", dense->text, sparse->text));
      // Dense is usually half the sparse headline, but not always (Blackwell Ultra FP4: 14 vs 18 PF),
      // so only a dense figure equal to the headline is certainly the mix-up.
      if (dense->number > sparse->number * 0.98)
        throw r.error(*dense, fmt::format("{} equals the 2:4-sparse headline ({}): give the dense peak "
                                          "(usually half)", dense->text, sparse->text));
    }
  }
  if (!any_peak) throw r.error("peak_dense: at least one precision's dense peak is required");
  const Entry* tf32 = r.find("peak_dense.tf32");
  const Entry* bf16 = r.find("peak_dense.bf16");
  if (tf32 && bf16 && tf32->number > 0.6 * bf16->number)
    throw r.error(*tf32, fmt::format("{} looks like the sparse TF32 headline: dense TF32 is half of dense BF16 "
                                     "({}) on every tensor-core generation", tf32->text, bf16->text));

  const Entry* capacity = r.find("memory.capacity");
  const Entry* usable = r.find("memory.usable_capacity");
  const Entry* bandwidth = r.find("memory.bandwidth");
  if (capacity && !bandwidth) throw r.error(*capacity, "memory.bandwidth is required when a capacity is given");
  if (usable && !capacity) throw r.error(*usable, "give memory.capacity (the vendor figure) beside the usable one");
  if (usable && capacity && (usable->number > 1.1 * capacity->number || usable->number < 0.8 * capacity->number))
    throw r.error(*usable, fmt::format("{} is not within 80–110% of the vendor capacity {}: GB/GiB or MiB/MB mix-up?",
                                       usable->text, capacity->text));
  // A kernel cannot stream faster than the memory it reads; a figure above the peak is a unit slip
  // (benchmarks that print bytes/ms/2^20 as "GB/s", GB against GiB).
  if (const Entry* from = r.find("memory.decode_attention_from")) {
    if (!bandwidth) throw r.error(*from, "memory.decode_attention_from needs memory.bandwidth beside it");
    if (r.find("memory.decode_attention_bandwidth"))
      throw r.error(*from, "memory.decode_attention_from: the record gives memory.decode_attention_bandwidth itself; give one");
    if (from->text == r.name) throw r.error(*from, "memory.decode_attention_from: name another accelerator, one measured");
  }
  if (const Entry* share = r.find("memory.decode_attention_fp8_kv_share"); share && !r.find("memory.decode_attention_bandwidth"))
    throw r.error(*share, "memory.decode_attention_fp8_kv_share qualifies a measured memory.decode_attention_bandwidth beside it "
                          "(a part that takes another's kernel with decode_attention_from takes its share too)");
  if (const Entry* decode = r.find("memory.decode_attention_bandwidth")) {
    if (!bandwidth) throw r.error(*decode, "memory.decode_attention_bandwidth needs memory.bandwidth beside it");
    if (decode->number > bandwidth->number)
      throw r.error(*decode, fmt::format("{} is above memory.bandwidth {}: a measured kernel cannot exceed the peak "
                                         "(GB/GiB or a benchmark's bytes/ms/2^20 'GB/s'?)", decode->text, bandwidth->text));
  }

  const Entry* tdp = r.find("power.tdp");
  if (const Entry* idle = r.find("power.idle"); idle && tdp && idle->number >= tdp->number)
    throw r.error(*idle, fmt::format("idle power {} is not below power.tdp {}", idle->text, tdp->text));
  if (const Entry* limit = r.find("power.default_limit")) {
    const Entry* idle = r.find("power.idle");
    if (!tdp || !idle) throw r.error(*limit, "power.default_limit needs power.tdp and power.idle (F-EN-4 scales between them)");
    if (limit->number >= tdp->number || limit->number <= idle->number)
      throw r.error(*limit, fmt::format("{} is not between power.idle {} and power.tdp {}", limit->text, idle->text, tdp->text));
  }
  int defaults = 0;
  for (std::size_t i = 0; i < r.array_size("power_modes"); ++i) {
    const Entry* power = r.find(fmt::format("power_modes[{}].power", i));
    if (tdp && power && power->number > tdp->number * 1.001)
      throw r.error(*power, fmt::format("mode power {} is above the device's power.tdp {}", power->text, tdp->text));
    if (r.flag(fmt::format("power_modes[{}].default", i))) ++defaults;
    const Entry* clock = r.find(fmt::format("power_modes[{}].gpu_max_clock", i));
    const Entry* boost = r.find("compute.boost_clock");
    if (clock && boost && clock->number > boost->number * 1.001)
      throw r.error(*clock, fmt::format("{} is above compute.boost_clock {}", clock->text, boost->text));
    const Entry* tpcs = r.find(fmt::format("power_modes[{}].gpu_tpcs", i));
    const Entry* all_tpcs = r.find("compute.tpcs");
    if (tpcs && (!all_tpcs || tpcs->number > all_tpcs->number))
      throw r.error(*tpcs, "gpu_tpcs needs compute.tpcs and must not exceed it");
  }
  if (defaults > 1) throw r.error("power_modes: more than one mode has default = true");
}

}  // namespace perfcast::schema
