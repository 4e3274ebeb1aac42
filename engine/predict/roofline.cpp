#include "engine/predict/roofline.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <fmt/format.h>

#include "engine/core/edit_distance.hpp"
#include "engine/core/errors.hpp"
#include "engine/core/units.hpp"
#include "models/energy.hpp"
#include "models/memory.hpp"
#include "models/vision.hpp"

namespace perfcast {
namespace {

using models::Phase;

void require_peak(const AcceleratorSpec& a, Precision p) {
  if (!a.peak(p))
    throw InputError({}, fmt::format("{} has no dense {} peak in the hardware database (it has: {})", a.name, name_of(p),
                                     precision_list(a)));
}

std::string phase_name(Phase p) {
  switch (p) {
    case Phase::training: return "training step (forward, recompute, backward)";
    case Phase::prefill: return "prefill";
    case Phase::decode: return "decode step";
  }
  return "";
}

// Times every op; parameters beyond a DRAM-less NPU's on-chip SRAM stream over the host link
// each run (F-EDGE-3, MODELS-REFERENCE §14), and so do the input of the first op and the output of
// the last (t_host_io of F-EDGE-1: the host holds the frame and takes the result).
void time_sections(RooflineReport& r, const std::vector<models::OpGroup>& groups, const std::string& suffix) {
  double sram_left = r.ceilings.memory_Bps ? 0 : r.ceilings.on_chip_B.value_or(0);
  bool streams = !r.ceilings.memory_Bps;
  const models::Op* first = nullptr;
  const models::Op* last = nullptr;
  for (const models::OpGroup& g : groups)
    for (const models::Op& op : g.ops)
      if (op.pass == models::Pass::forward) {
        if (!first) first = &op;
        last = &op;
      }
  for (const models::OpGroup& g : groups) {
    RooflineSection s;
    s.title = g.repeats > 1 ? fmt::format("{} (x{}), {}", g.name, g.repeats, suffix) : fmt::format("{}, {}", g.name, suffix);
    s.repeats = g.repeats;
    for (const models::Op& op : g.ops) {
      RooflineRow row{op, {}, 0, 0, 0};
      if (streams && op.pass == models::Pass::forward) {
        // The group's repeats share the SRAM: cache what fits, stream the rest of each repeat.
        double all = op.weight_bytes * g.repeats;
        double cached = std::min(sram_left, all);
        sram_left -= cached;
        row.host_bytes = (all - cached) / g.repeats;
        // Once per run, not per repeat of the group.
        if (&op == first) row.host_io_bytes += (op.bytes_read - op.weight_bytes) / g.repeats;
        if (&op == last) row.host_io_bytes += op.bytes_written / g.repeats;
        row.host_bytes += row.host_io_bytes;
      }
      row.timing = models::time_op(op, r.ceilings, r.efficiency, row.host_bytes);
      s.time_s += row.timing.time_s;
      s.rows.push_back(std::move(row));
    }
    for (RooflineRow& row : s.rows) row.share = s.time_s > 0 ? row.timing.time_s / s.time_s : 0;
    r.sections.push_back(std::move(s));
  }
}

}  // namespace

void add_efficiency_assumptions(std::vector<std::string>& out, const models::Efficiency& e) {
  for (const models::EfficiencySource& src : models::efficiency_sources()) {
    const double v = e.*src.field;
    out.push_back(v == src.value ? fmt::format("efficiency {} = {:g} ({})", src.name, v, src.source)
                                 : fmt::format("efficiency {} = {:g} (calibrated; default {:g}: {})", src.name, v, src.value, src.source));
  }
}

void add_sustained_assumption(std::vector<std::string>& out, const ResolvedHardware& hw, Precision p) {
  const double r = hw.datasheet.sustained_ratio(p);
  if (const double share = hw.datasheet.reached_share(p); share != 1)
    out.push_back(fmt::format("{} tensor rate as measured, not as rated: {:.3f} of the datasheet's, burst and held ({}, hardware_db {})",
                              name_of(p), share, hw.datasheet.dense_reached_basis, hw.datasheet.name));
  if (hw.sustained && r < 1)
    out.push_back(fmt::format("{} tensor work held at the power limit: a long run holds {:.3f} of the burst rate the GEMM "
                              "efficiencies describe (hardware_db {}, {}; F-EN-5)",
                              name_of(p), r, hw.datasheet.name, hw.datasheet.sustained_basis(p)));
  if (hw.power_limit_W && hw.clock_ratio < 1)
    out.push_back(fmt::format("power limit {:.0f} W of {:.0f} W TDP: tensor-core work at {:.3f} of the rate held at TDP "
                              "(((limit − idle)/(TDP − idle))^(1/{:g}), the exponent measured on an H200 by the GPU kit's duty section; "
                              "F-EN-4), so the {} peak is {:.3f} of the datasheet's; memory-bound work keeps the full HBM rate",
                              *hw.power_limit_W, hw.datasheet.tdp_W.value_or(0), hw.clock_ratio, models::kTensorPowerExponent,
                              name_of(p), hw.clock_ratio * (hw.sustained ? r : 1) * hw.datasheet.reached_share(p)));
}

namespace {

RooflineReport base_report(const AcceleratorSpec& a, const std::optional<LinkSpec>& host_link, Precision p,
                           const models::Efficiency& e = models::default_efficiency()) {
  require_peak(a, p);
  RooflineReport r;
  r.accelerator = a.name;
  r.accelerator_display = a.display_name;
  r.precision = p;
  r.ceilings = ceilings_for(a, host_link);
  r.efficiency = e;
  r.peak_ops_per_s = *a.peak(p);
  if (r.ceilings.memory_Bps) {
    r.bandwidth_level = "device memory";
    r.bandwidth_Bps = *r.ceilings.memory_Bps;
  } else if (r.ceilings.host_link_Bps) {
    r.bandwidth_level = fmt::format("host link ({})", a.host_link);
    r.bandwidth_Bps = *r.ceilings.host_link_Bps;
  }
  r.compute_efficiency = models::gemm_efficiency(p, r.efficiency);
  r.bandwidth_efficiency = r.ceilings.memory_Bps ? r.efficiency.memory : r.efficiency.host_link;
  if (r.bandwidth_Bps > 0) {
    r.ridge = models::ridge_point(r.peak_ops_per_s, r.bandwidth_Bps);
    r.ridge_derated = models::ridge_point(r.compute_efficiency * r.peak_ops_per_s, r.bandwidth_efficiency * r.bandwidth_Bps);
  }
  add_efficiency_assumptions(r.assumptions, e);
  if (r.ceilings.compute_units > 0)
    r.assumptions.push_back(fmt::format("GEMM tile and wave quantisation over {} compute units (NVIDIA Matrix Multiplication "
                                        "Background User's Guide §3); stream-K style kernels that avoid wave "
                                        "quantisation are not modelled", r.ceilings.compute_units));
  else
    r.assumptions.push_back("compute-unit count unknown for this device: GEMM wave quantisation not modelled, tile padding only");
  if (!r.ceilings.memory_Bps)
    r.assumptions.push_back(fmt::format("no device DRAM: activations stay on chip; parameters beyond {} of on-chip SRAM stream "
                                        "over the host link every run (F-EDGE-3)",
                                        units::format(r.ceilings.on_chip_B.value_or(0), units::dim::bytes)));
  r.assumptions.push_back("L2/SMEM ceilings are not drawn: the hardware database has no sourced L2 bandwidth; every op's bytes are "
                          "device-memory traffic with each operand read once (F-ROOF-3)");
  return r;
}

// Transformer activations are 16-bit (FP32 for FP32/TF32 math) around FP8/INT8 GEMMs, whose inputs
// are quantised on the fly; an integer-only NPU keeps them in INT8. Quantised vision networks run
// INT8 end to end, so their activations take the math format.
double activation_bytes_for(const AcceleratorSpec& a, Precision p) {
  if (bytes_per_element(p) >= 4) return 4;
  return a.peak(Precision::bf16) || a.peak(Precision::fp16) ? 2 : std::min(2.0, bytes_per_element(p));
}

// Weights and KV cache are read as they are stored, block scales included (the formats the memory
// model counts, F-KV-4; F-ROOF-7): an NVFP4 weight is 0.5 + 1/16 bytes, not 0.5.
models::OpContext transformer_context(Phase phase, double batch, double seq, double context, int tp, Precision p,
                                      std::optional<Precision> weights, std::optional<Precision> kv, double wide, int hidden,
                                      Fp4Blocks fp4 = Fp4Blocks::nvfp4) {
  models::OpContext c;
  c.phase = phase;
  c.batch = batch;
  c.seq_len = seq;
  c.context_len = context;
  c.tp = tp;
  c.math = p;
  c.activation_bytes = wide;
  if (weights || phase != Phase::training)
    c.weight_bytes = models::weight_format(weights.value_or(p), hidden, fp4).bytes_per_element();
  else
    c.weight_bytes = std::min(2.0, bytes_per_element(p));
  c.kv_bytes = kv ? models::kv_format(*kv).bytes_per_element() : wide;
  return c;
}

// A quantised vision network runs in its math format end to end; weights default to it too.
void time_vision(RooflineReport& r, const models::VisionModel& m, double batch, std::optional<Precision> weights) {
  const double bytes = std::min(2.0, bytes_per_element(r.precision));
  models::VisionContext c{.batch = batch, .math = r.precision, .activation_bytes = bytes,
                          .weight_bytes = weights ? bytes_per_element(*weights) : bytes};
  time_sections(r, {models::OpGroup{"network", 1, models::vision_ops(m, c)}}, fmt::format("inference, batch {}", batch));
}


}  // namespace

models::Ceilings ceilings_for(const AcceleratorSpec& a, const std::optional<LinkSpec>& host_link) {
  models::Ceilings c;
  c.peak_ops_per_s = a.peak_dense_ops_per_s;
  c.memory_Bps = a.memory_bandwidth_Bps;
  if (host_link) c.host_link_Bps = host_link->bandwidth_per_direction_Bps;
  if (!c.memory_Bps) c.on_chip_B = a.sram_B;
  c.compute_units = a.gpu ? a.compute_units.value_or(0) : 0;
  c.gemm_tile_fixed_cost = a.architecture == GpuArchitecture::hopper;
  c.token_tiles_by_8 = a.architecture == GpuArchitecture::hopper || a.architecture == GpuArchitecture::blackwell;
  c.decode_attention_Bps = a.decode_attention_Bps;
  c.decode_attention_fp8_kv_share = a.decode_attention_fp8_kv_share.value_or(1);
  return c;
}

Precision default_precision(const AcceleratorSpec& a) {
  for (Precision p : {Precision::bf16, Precision::fp16, Precision::int8, Precision::fp8, Precision::fp32})
    if (a.peak(p)) return p;
  throw InputError({}, fmt::format("{} has no dense peak in bf16, fp16, int8, fp8 or fp32", a.name));
}

RooflineReport roofline_for_preset(const Workload& w, const ResolvedHardware& hw, const PresetRun& run, const models::Efficiency& e) {
  const AcceleratorSpec& a = hw.device;
  Precision p = run.precision.value_or(default_precision(a));
  RooflineReport r = base_report(a, hw.host_link, p, e);
  add_sustained_assumption(r.assumptions, hw, p);
  r.workload = w.label();
  if (w.is_transformer()) {
    const auto& m = w.transformer();
    if (m.heads % run.tp != 0) throw InputError({}, fmt::format("--tp {} does not divide the model's {} heads", run.tp, m.heads));
    auto c = transformer_context(run.phase, run.batch, run.seq_len, run.context_len, run.tp, p, std::nullopt, std::nullopt,
                                 activation_bytes_for(a, p), m.hidden);
    std::string suffix = run.phase == Phase::decode
                             ? fmt::format("decode step, batch {}, context {}", run.batch, run.context_len)
                             : fmt::format("{}, micro-batch {} x {} tokens", phase_name(run.phase), run.batch, run.seq_len);
    time_sections(r, models::transformer_ops(m, c), suffix);
    r.assumptions.push_back(fmt::format("attention mask causal (s_ctx = (s+1)/2), FlashAttention kernel, tp = {}", run.tp));
  } else {
    time_vision(r, w.vision(), run.batch, std::nullopt);
  }
  return r;
}

models::OpContext training_context(const Scenario& s, const AcceleratorSpec& a) {
  const TrainingSettings& t = *s.training;
  const Precision p = t.precision.value_or(default_precision(a));
  models::OpContext c = transformer_context(Phase::training, t.micro_batch, t.seq_len / s.parallelism.cp, 0, s.parallelism.tp, p,
                                            std::nullopt, std::nullopt, activation_bytes_for(a, p), s.workload.transformer().hidden);
  c.recompute = t.recompute;
  c.fp8_scaling = t.fp8_scaling;
  // Transformer Engine runs DotProductAttention in BF16 unless fp8_dpa is set (off by default in
  // Megatron-LM/NeMo FP8 recipes): only the linear layers' GEMMs run in FP8.
  if (quantised_training_format(p)) c.attention_math = Precision::bf16;
  c.mask = s.mask;
  c.kernel = s.attention_kernel;
  const models::StackTraits& stack = models::traits(t.stack);
  c.attention_impl = a.architecture == GpuArchitecture::hopper      ? stack.attention_hopper
                     : a.architecture == GpuArchitecture::blackwell ? stack.attention_blackwell
                                                                    : models::AttentionImpl::generic;
  c.op_level_selective = stack.op_level_selective;
  // F-GRAD-1: without gradient accumulation fusion the main gradient is FP16 in FP16 training (Megatron-LM's
  // --accumulate-allreduce-grads-in-fp32 off by default) and FP32 otherwise (forced for BF16).
  using models::GradAccumulation;
  c.separate_grad_accumulation = stack.grad_accumulation == GradAccumulation::separate ||
                                 (stack.grad_accumulation == GradAccumulation::fused_fp32_only && p == Precision::fp16);
  if (c.separate_grad_accumulation && p == Precision::fp16) c.grad_bytes = 2;
  const models::EagerModules& eager = stack.eager_modules;
  c.eager = {.blocks = eager.eager && !t.compile,
             .head = eager.eager && !(t.compile && eager.compile_covers_loss),
             .rmsnorm = eager.rmsnorm_as_ops};
  c.repeat_kv = eager.repeat_kv;
  c.torchao_float8 = stack.float8_torchao && p == Precision::fp8 && t.fp8_scaling == models::Fp8Scaling::current;
  c.ep = s.parallelism.ep;
  c.cp = s.parallelism.cp;
  c.sequence_parallel = s.parallelism.sequence_parallel;
  return c;
}

namespace {

// Serving engines' attention kernels take 8-bit inputs at the narrowest (TensorRT-LLM's attention
// backend: FP8 inputs/outputs and FP8 or NVFP4 KV cache read as FP8; vLLM's FlashAttention-3 with an
// FP8 KV cache computes in FP8): the attention core of a 4-bit model runs in FP8 where the device has
// an FP8 path, else in 16 bits (F-ROOF-7).
std::optional<Precision> inference_attention_math(const AcceleratorSpec& a, Precision p) {
  if (bytes_per_element(p) >= 1) return std::nullopt;
  if (a.peak(Precision::fp8)) return Precision::fp8;
  return a.peak(Precision::bf16) ? Precision::bf16 : Precision::fp16;
}

void add_inference_pass(RooflineReport& r, const Scenario& s, const AcceleratorSpec& a, Phase phase, double batch, double context) {
  const InferenceSettings& in = *s.inference;
  const ParallelismSettings& par = s.parallelism;
  const models::TransformerSpec& m = s.workload.transformer();
  const bool decode = phase == Phase::decode;
  models::OpContext c = transformer_context(phase, batch, decode ? 1 : in.input_len, decode ? context : 0, par.tp, r.precision,
                                            in.weight_dtype, in.kv_dtype, activation_bytes_for(a, r.precision), m.hidden,
                                            in.fp4_blocks);
  c.mask = s.mask;
  c.kernel = s.attention_kernel;
  c.decode_kv = s.decode_kv;
  c.attention_math = inference_attention_math(a, r.precision);
  // F-INF-6: quantised checkpoints keep the output layer 16-bit (the memory model counts it so); an
  // integer-only NPU, with no 16-bit path, runs it as the rest.
  if (c.weight_bytes < 2 && (a.peak(Precision::bf16) || a.peak(Precision::fp16)))
    c.head_math = bytes_per_element(r.precision) >= 2 ? r.precision : default_precision(a);  // BF16, else FP16
  if (in.expert_weight_dtype)
    c.expert_weight_bytes = models::weight_format(*in.expert_weight_dtype, m.hidden, in.fp4_blocks).bytes_per_element();
  c.ep = par.ep;
  c.sequence_parallel = par.sequence_parallel;
  time_sections(r, models::transformer_ops(m, c),
                decode ? fmt::format("decode step, batch {}, context {}", batch, context)
                       : fmt::format("prefill, batch {} x {} tokens", batch, in.input_len));
}

}  // namespace

RooflineReport roofline_for_pass(const Scenario& s, Phase phase, double batch, double context, const models::Efficiency& e) {
  const AcceleratorSpec& a = s.hw.device;
  RooflineReport r = base_report(a, s.hw.host_link, s.inference->compute_dtype.value_or(default_precision(a)), e);
  add_sustained_assumption(r.assumptions, s.hw, r.precision);
  r.workload = s.workload.label();
  if (s.workload.is_transformer())
    add_inference_pass(r, s, a, phase, batch, context);
  else
    time_vision(r, s.workload.vision(), batch, s.inference->weight_dtype);
  return r;
}

RooflineReport roofline_for_scenario(const Scenario& s, const ResolvedHardware* other, const models::Efficiency& e) {
  const ResolvedHardware& hw = other ? *other : s.hw;
  const AcceleratorSpec& a = hw.device;
  std::optional<Precision> asked = s.training ? s.training->precision : s.inference->compute_dtype;
  Precision p = asked.value_or(default_precision(a));
  RooflineReport r = base_report(a, hw.host_link, p, e);
  add_sustained_assumption(r.assumptions, hw, p);
  r.workload = s.workload.label();
  const auto& par = s.parallelism;
  if (!s.workload.is_transformer()) {
    time_vision(r, s.workload.vision(), s.inference->batch.value_or(1), s.inference->weight_dtype);
    return r;
  }
  const auto& m = s.workload.transformer();
  if (s.training) {
    const auto& t = *s.training;
    time_sections(r, models::transformer_ops(m, training_context(s, a)),
                  fmt::format("training, micro-batch {} x {} tokens per rank", t.micro_batch, t.seq_len / par.cp));
  } else {
    const auto& in = *s.inference;
    double batch = in.batch.value_or(1);
    add_inference_pass(r, s, a, Phase::prefill, batch, 0);
    if (in.output_len > 0) {
      add_inference_pass(r, s, a, Phase::decode, batch, in.input_len + in.output_len / 2);
      r.assumptions.push_back("decode shown at the mean context input_len + output_len/2");
    }
  }
  r.assumptions.push_back(fmt::format("attention mask {}, {} kernel; per rank of tp = {}, ep = {}",
                                      s.mask == models::AttentionMask::causal ? "causal (s_ctx = (s+1)/2)" : "full (s_ctx = s)",
                                      s.attention_kernel == models::AttentionKernel::flash ? "FlashAttention" : "materialised-scores",
                                      par.tp, par.ep));
  return r;
}

RooflineReport roofline_for_op(std::string_view spec, const ResolvedHardware& hw, const models::Efficiency& eff) {
  const AcceleratorSpec& a = hw.device;
  auto colon = spec.find(':');
  std::string kind(spec.substr(0, colon));
  if (kind != "gemm" && kind != "memory")
    throw InputError({}, fmt::format("--op '{}': unknown op kind '{}' (use gemm:M=..,N=..,K=..[,batch=..][,dtype=..][,out_dtype=..] "
                                     "or memory:read=<bytes>,write=<bytes>)", spec, kind));
  std::map<std::string, std::string> kv;
  std::string rest = colon == std::string_view::npos ? "" : std::string(spec.substr(colon + 1));
  std::size_t pos = 0;
  while (pos < rest.size()) {
    std::size_t end = rest.find(',', pos);
    std::string item = rest.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    auto eq = item.find('=');
    if (eq == std::string::npos) throw InputError({}, fmt::format("--op '{}': '{}' is not key=value", spec, item));
    kv[item.substr(0, eq)] = item.substr(eq + 1);
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  auto take = [&](const std::string& key) -> std::optional<std::string> {
    auto it = kv.find(key);
    if (it == kv.end()) return std::nullopt;
    std::string v = it->second;
    kv.erase(it);
    return v;
  };
  auto dimension = [&](const std::string& key, bool required) -> double {
    auto v = take(key);
    if (!v) {
      if (required) throw InputError({}, fmt::format("--op '{}': missing {}=<positive whole number>", spec, key));
      return 1;
    }
    long long n = 0;
    auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec != std::errc() || ptr != v->data() + v->size() || n <= 0)
      throw InputError({}, fmt::format("--op '{}': {}={} is not a positive whole number", spec, key, *v));
    return static_cast<double>(n);
  };
  auto precision = [&](const std::string& key, Precision fallback) {
    auto v = take(key);
    if (!v) return fallback;
    auto p = precision_from(*v);
    if (!p) {
      std::vector<std::string> names(kPrecisionNames.begin(), kPrecisionNames.end());
      throw InputError({}, fmt::format("--op '{}': unknown {} '{}'{}", spec, key, *v, did_you_mean(*v, names)));
    }
    return *p;
  };
  models::Op op;
  Precision p = precision("dtype", default_precision(a));
  if (kind == "gemm") {
    double M = dimension("M", true), N = dimension("N", true), K = dimension("K", true), batch = dimension("batch", false);
    Precision out = precision("out_dtype", bytes_per_element(p) < 2 ? Precision::bf16 : p);
    double in = bytes_per_element(p);
    op = models::gemm_op(fmt::format("gemm {}x{}x{}{}", M, N, K, batch > 1 ? fmt::format(" x{}", batch) : ""),
                         {M, N, K, batch}, p, in, in, bytes_per_element(out), false);
  } else {
    auto bytes = [&](const std::string& key) {
      auto v = take(key);
      if (!v) return 0.0;
      try {
        auto q = units::parse_quantity(*v);
        if (q.dimension != units::dim::bytes) throw UnitError("not a byte count");
        return q.value;
      } catch (const UnitError& e) {
        throw InputError({}, fmt::format("--op '{}': {}={}: {}", spec, key, *v, e.what()));
      }
    };
    double read = bytes("read"), write = bytes("write");
    if (read + write <= 0) throw InputError({}, fmt::format("--op '{}': give read=<bytes> and/or write=<bytes>", spec));
    op = models::memory_op("memory stream", read, write);
    op.precision = p;
  }
  if (!kv.empty()) throw InputError({}, fmt::format("--op '{}': unknown key '{}'", spec, kv.begin()->first));
  RooflineReport r = base_report(a, hw.host_link, p, eff);
  r.workload = std::string(spec);
  time_sections(r, {models::OpGroup{"op", 1, {op}}}, "one kernel");
  return r;
}

}  // namespace perfcast
