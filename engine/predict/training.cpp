#include "engine/predict/training.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "engine/predict/communication.hpp"
#include "engine/core/errors.hpp"
#include "engine/layout/partition.hpp"
#include "engine/predict/roofline.hpp"
#include "engine/predict/training_step.hpp"
#include "models/pipeline.hpp"
#include "models/traffic.hpp"

namespace perfcast {
namespace {

// Which kernel times the attention core, and from what.
std::string attention_assumption(const models::OpContext& c) {
  if (c.kernel == models::AttentionKernel::materialised) return "attention core: materialised scores (two batched GEMMs and a softmax pass)";
  if (c.attention_impl == models::AttentionImpl::generic)
    return "attention core: a fused kernel at the scalar attention efficiencies below (the stack's kernel on this GPU is not sourced)";
  return fmt::format("attention core: {} (the stack's kernel on this GPU), at its measured H100 efficiency for the head dimension and "
                     "{:g}-token calls (FlashAttention-3 paper Figs. 5-6, docs/models.md F-ATT-1)",
                     models::name_of(c.attention_impl), c.seq_len);
}

// Which low-precision recipe casts the GEMM inputs, and what it costs.
std::string low_precision_assumption(const models::OpContext& c) {
  if (c.math == Precision::fp4)
    return "; NVFP4: linear-layer GEMMs in FP4 at the 8-bit GEMM efficiency (no FP4 training GEMM measurement), each input after an "
           "amax pass cast to E2M1 with an E4M3 scale per 16 values, twice (row- and column-wise); the random Hadamard transform "
           "of the weight-gradient inputs and stochastic rounding are not modelled";
  if (c.math != Precision::fp8) return "";
  if (c.torchao_float8)
    return c.eager.blocks ? "; FP8: torchao's Float8Linear, six tensorwise casts per linear layer and micro-batch as eager torch kernels "
                            "and column-major copies for torch._scaled_mm (F-LP-2)"
                          : "; FP8: torchao's Float8Linear, six tensorwise casts per linear layer and micro-batch, each an amax "
                            "pass and one cast pass under torch.compile (F-LP-2)";
  switch (c.fp8_scaling) {
    case models::Fp8Scaling::current: return "; FP8 current scaling: an amax pass over each GEMM input before its cast";
    case models::Fp8Scaling::mxfp8: return "; MXFP8: each GEMM input cast with an E8M0 scale per 32 values, row- and column-wise";
    case models::Fp8Scaling::delayed: break;
  }
  return "; FP8 delayed scaling: the cast kernel updates the amax history";
}

// How the norms, RoPE, activation and loss run (F-EAGER-1).
std::string elementwise_assumption(const models::OpContext& c) {
  const models::OpContext::Eager& e = c.eager;
  std::string text = !e.blocks && !e.head ? "elementwise ops: one fused pass per module each way (fused kernels or torch.compile)"
                     : e.blocks          ? fmt::format("elementwise ops: eager PyTorch kernels (torch.compile off): RMSNorm {}, complex RoPE in "
                                                       "float32, SwiGLU in two kernels, cross-entropy over float32 logits (F-EAGER-1)",
                                                       e.rmsnorm ? "in eight torch ops" : "as one fused kernel")
                                : "elementwise ops: transformer blocks fused by torch.compile; the final norm and the loss outside them eager "
                                  "(cross-entropy over float32 logits, F-EAGER-1)";
  if (c.repeat_kv) text += "; GQA K and V copied once per query head before the attention kernel (repeat_kv)";
  return text;
}

// Per-group exposure of one rank for the report: each item takes its share of its overlap class's
// exposed time (`totals`, overlap_exposure's class totals, are what the step uses).
struct Exposure {
  std::vector<GroupExposure> groups;
  OverlapExposure totals;
};

Exposure expose(const CommunicationPhase& phase, const PassTimes& t, double m, double window, int compute_units) {
  std::vector<models::TrafficItem> items;
  std::vector<double> times;
  for (const TrafficTiming& x : phase.items) items.push_back(x.item), times.push_back(x.time_s);
  Exposure e{.totals = overlap_exposure(items, times, t, m, window, compute_units)};
  const OverlapExposure& o = e.totals;
  for (const TrafficTiming& x : phase.items) {
    const int c = int(x.item.overlap);
    const bool mb = repeats_every_microbatch(x.item, m);
    const double sum = mb ? o.sum_mb[c] : o.sum_step[c];
    const double exposed = sum > 0 ? x.time_s / sum * (mb ? o.exposed_mb[c] : o.exposed_step[c]) : 0;
    const std::string group(models::name_of(x.item.group));
    auto g = std::find_if(e.groups.begin(), e.groups.end(), [&](const GroupExposure& ge) { return ge.group == group; });
    if (g == e.groups.end()) {
      e.groups.push_back({.group = group});
      g = e.groups.end() - 1;
    }
    g->time_s += x.time_s;
    g->exposed_s += exposed;
    g->hidden_s += x.time_s - exposed;
    g->per_microbatch = mb;
  }
  return e;
}

std::string percent(double x) { return fmt::format("{:.0f}%", 100 * x); }

std::string advice_for(const std::string& name, const TrainingPrediction& p, const Scenario& s) {
  const auto& par = s.parallelism;
  if (name == "bubble")
    return fmt::format("raise micro-batches per step (m = {:g}) or vp (= {}), or use a zero-bubble schedule", p.microbatches, par.vp);
  if (name == "comm_tp") return fmt::format("lower tp (= {}) or keep it inside the scale-up domain; sequence parallelism lets backward collectives overlap", par.tp);
  if (name == "comm_dp") return "more micro-batches per step give the gradient reduction a longer backward to hide under; a faster scale-out or ZeRO-1 reduce-scatter halves the bytes";
  if (name == "comm_edp") return "expert gradients reduce over expert-DP after the backward; raise ep or micro-batches";
  if (name == "comm_ep") return fmt::format("EP all-to-all is on the critical path: lower ep (= {}) or keep it inside the scale-up domain", par.ep);
  if (name == "comm_cp") return fmt::format("the K/V ring outruns attention: lower cp (= {}) or lengthen the sequence per rank", par.cp);
  if (name == "comm_pp") return "pipeline sends are blocking in 1F1B: interleave (vp > 1) to overlap them";
  if (name == "recompute") return "full recomputation repeats the forward: use selective if memory allows";
  if (name == "optimizer") return "the optimizer step is memory-bound: shard it with ZeRO-1 (distributed optimizer)";
  if (name == "memory_bound") return "memory-bound kernels (norms, activations, residuals, loss): fusion would shorten them";
  if (name == "data_loading") return "the input pipeline outruns the step: more loader workers or faster storage";
  if (name == "kernel_overhead") return "many small kernels: larger micro-batches or CUDA graphs";
  if (name == "contention")
    return "hidden communication takes SMs from the compute beside it: fewer or smaller collectives (larger micro-batches, "
           "a smaller dp or tp group), or kernels that use fewer SMs (userbuffers, NCCL_MAX_CTAS)";
  return "";
}

std::string bottleneck_text(const TrainingPrediction& p, const Scenario& s) {
  const BreakdownItem* worst = nullptr;
  for (const BreakdownItem& b : p.breakdown)
    if (b.name != "compute" && (!worst || b.seconds > worst->seconds)) worst = &b;
  const double compute = p.breakdown.front().seconds / p.step_time_s;
  if (!worst || worst->seconds / p.step_time_s < 0.10)
    return fmt::format("compute-bound: GEMMs and attention take {} of the step at {} MFU; nothing else exceeds 10%", percent(compute),
                       percent(p.mfu));
  std::string what = worst->name == "bubble"            ? "pipeline bubble"
                     : worst->name.starts_with("comm_") ? fmt::format("exposed {} communication", worst->name.substr(5))
                                                        : worst->name;
  std::replace(what.begin(), what.end(), '_', ' ');
  return fmt::format("{}: {} of the step; {}", what, percent(worst->seconds / p.step_time_s), advice_for(worst->name, p, s));
}

void add_conventions(TrainingPrediction& p, const Scenario& s) {
  const models::TransformerSpec& m = s.workload.transformer();
  const TrainingSettings& t = *s.training;
  const double B = t.global_batch, sq = t.seq_len, l = m.layers, h = m.hidden, V = m.vocab, n = p.devices, step = p.step_time_s;
  const double narayanan = 96 * B * sq * l * h * h * (1 + sq / (6 * h) + V / (16 * l * h));
  const double korthikanti = 72 * B * sq * l * h * h * (1 + sq / (6 * h) + V / (12 * l * h));
  const models::ParameterCount pc = models::count_parameters(m);
  const double palm = (6 * pc.active + 12 * l * m.heads * m.head_dim * sq) * B * sq;
  p.conventions = {
      {"narayanan_tflops_per_device",
       "Narayanan et al. 2021 Eq. 3: 96·B·s·l·h²·(1 + s/6h + V/16lh) per step (full recompute counted, full s×s attention) / step / devices",
       narayanan / step / n, true},
      {"korthikanti_mfu", "Korthikanti et al. 2022 Eq. 7 model FLOPs 72·B·s·l·h²·(1 + s/6h + V/12lh) / (step · devices · peak)",
       korthikanti / (step * n * p.peak_ops_per_s), false},
      {"palm_mfu", "PaLM App. B: (6N + 12·L·H·Q·T) per token, N = active parameters incl. embeddings, T = seq_len / (devices · peak)",
       palm / (step * n * p.peak_ops_per_s), false},
  };
}

}  // namespace

TrainingPrediction predict_training(const Scenario& s, const TrainingOptions& o) {
  if (!s.training) throw InputError({s.file, 0, 0}, "predict: only training scenarios are predicted so far; this one has [inference]");
  const models::TransformerSpec& m = s.workload.transformer();
  const TrainingSettings& tr = *s.training;
  const ParallelismSettings& par = s.parallelism;
  const AcceleratorSpec& a = s.hw.device;  // the power mode's clocks and bandwidth, a power limit's sustained clock
  const models::OpContext ctx = training_context(s, a);
  const models::Ceilings ceilings = ceilings_for(a, s.hw.host_link);
  const models::Efficiency& eff = o.efficiency;

  TrainingPrediction p;
  p.scenario = s.name;
  p.workload = s.workload.label();
  p.accelerator = a.name;
  p.accelerator_display = a.display_name;
  p.devices = s.hardware.count;
  p.dp = data_parallel(par, p.devices);
  p.layout = layout_text(par, p.dp);
  p.schedule = std::string(models::name_of(par.schedule, par.vp));
  p.precision = std::string(name_of(ctx.math));
  p.microbatches = tr.global_batch / (p.dp * tr.micro_batch);
  p.tokens_per_step = tr.global_batch * tr.seq_len;
  const double mb = p.microbatches;
  p.peak_ops_per_s = s.hw.rated_peak(ctx.math).value_or(0);
  if (p.peak_ops_per_s <= 0)
    throw InputError({s.file, 0, 0}, fmt::format("{} has no dense {} peak to train in", a.name, name_of(ctx.math)));

  // Ops of one micro-batch on one tp x cp rank, timed once per group.
  const LayerPassTimes layer = layer_pass_times(models::transformer_ops(m, ctx), ceilings, eff);
  const Topology topology = topology_of(s);
  const std::vector<ParallelDim> order = o.order.empty() ? *parse_order(default_order()) : o.order;
  const std::vector<GroupPlacement> placements = place_groups(topology, par, p.devices, order);
  const ShardPlan plan = shard_plan(s);
  const models::OptimizerRecipe& recipe = *models::find_recipe(tr.optimizer);

  // One computation per class of identical pipeline ranks; the report lists every rank.
  std::vector<RankStep> steps;
  std::vector<Exposure> exposures;
  std::vector<int> class_of_rank;
  for (const RankClass& c : rank_classes(m, par)) {
    const int r = c.stage;
    const PassTimes t = stage_pass_times(layer, c.layers, r, par.pp);
    const CommunicationPhase phase = time_traffic("training step", models::training_traffic(m, training_layout(s, r)), placements, o.collective);
    Exposure e = expose(phase, t, mb, eff.overlap_window, ceilings.compute_units);
    const double local = local_parameters(m, c.layers, r, plan).total();
    const RankStep step =
        rank_step(c.count, t, e.totals, optimizer_seconds(recipe, local, par.zero, double(p.dp) * par.cp, tr.offload, ceilings, eff));
    for (int i = 0; i < c.count; ++i) {
      RankTiming rt;
      rt.stage = r + i;
      rt.layers = c.layers.total();
      rt.forward_s = t.forward, rt.backward_input_s = t.backward_input, rt.backward_weight_s = t.backward_weight;
      rt.recompute_s = t.recompute, rt.memory_bound_s = t.memory_bound, rt.overhead_s = t.overhead;
      rt.comm_s = step.comm_s, rt.exposed_per_microbatch_s = step.exposed_per_microbatch_s, rt.exposed_tail_s = step.exposed_tail_s;
      rt.contention_s = step.contention_per_microbatch_s + step.contention_tail_s;
      rt.optimizer_s = step.optimizer_s;
      rt.total_per_microbatch_s = step.per_microbatch_s(mb);
      p.ranks.push_back(rt);
      class_of_rank.push_back(int(steps.size()));
    }
    steps.push_back(step);
    exposures.push_back(std::move(e));
  }

  const StepTotals totals = step_totals(par.schedule, par.vp, mb, steps, tr.data_loading_s);
  const models::PipelineTime& pipe = totals.pipe;
  const double data = totals.data_s;
  p.step_time_s = totals.step_s;
  p.slowest_rank = int(std::find(class_of_rank.begin(), class_of_rank.end(), totals.slowest) - class_of_rank.begin());
  const RankTiming& k = p.ranks[p.slowest_rank];
  const RankStep& tail = steps[totals.tail];
  const PassTimes whole_model = model_pass_times(layer, m);  // one micro-batch through every layer (FLOP counts)

  const double fb = mb * (k.forward_s + k.backward_input_s + k.backward_weight_s);
  p.breakdown = {{"compute", fb - mb * (k.memory_bound_s + k.overhead_s)},
                 {"memory_bound", mb * k.memory_bound_s},
                 {"kernel_overhead", mb * k.overhead_s},
                 {"recompute", mb * k.recompute_s}};
  auto add_comm = [&](const Exposure& e, bool per_microbatch) {
    for (const GroupExposure& g : e.groups) {
      if (g.per_microbatch != per_microbatch) continue;
      const std::string name = "comm_" + g.group;
      auto it = std::find_if(p.breakdown.begin(), p.breakdown.end(), [&](const BreakdownItem& b) { return b.name == name; });
      if (it == p.breakdown.end()) p.breakdown.push_back({name, g.exposed_s});
      else it->seconds += g.exposed_s;
    }
  };
  add_comm(exposures[totals.slowest], true);
  p.breakdown.push_back({"bubble", pipe.bubble_s});
  add_comm(exposures[totals.tail], false);
  p.breakdown.push_back({"contention", steps[totals.slowest].contention_per_microbatch_s + tail.contention_tail_s});
  p.breakdown.push_back({"optimizer", tail.optimizer_s});
  if (tr.data_loading_s) p.breakdown.push_back({"data_loading", data});
  p.communication = exposures[totals.slowest].groups;
  if (m.dense_layers() > 0 && k.layers > 0)
    p.layer_time_s = layer.dense.forward + layer.dense.backward_input + layer.dense.backward_weight + layer.dense.recompute +
                     (k.exposed_per_microbatch_s + steps[totals.slowest].contention_per_microbatch_s) / mb / k.layers;
  p.bubble_fraction = pipe.bubble_s / p.step_time_s;

  p.tokens_per_s = p.tokens_per_step / p.step_time_s;
  p.tokens_per_s_per_device = p.tokens_per_s / p.devices;
  const double rank_copies = double(par.tp) * par.cp * p.dp * mb;
  p.model_flops_per_step = whole_model.model_flops * rank_copies;
  p.hardware_flops_per_step = whole_model.flops * rank_copies;
  p.mfu = p.model_flops_per_step / (p.step_time_s * p.devices * p.peak_ops_per_s);
  p.hfu = p.hardware_flops_per_step / (p.step_time_s * p.devices * p.peak_ops_per_s);
  add_conventions(p, s);
  p.bottleneck = bottleneck_text(p, s);

  // Memory, and the checkpoint it implies.
  p.memory = memory_for_scenario(s);
  if (!p.memory.fits) p.bottleneck = "memory: " + p.memory.verdict + " — the times below assume it fit; " + p.bottleneck;
  double state_bytes = 0;
  for (const MemoryComponent& c : p.memory.components)
    if (c.name == "weights" || c.name == "optimizer") state_bytes += c.bytes;
  const JobFigures job = job_figures(s.file, s.reliability, p.devices, state_bytes, p.tokens_per_s, tr.tokens);
  p.device_mtbf_s = job.device_mtbf_s, p.job_mtbf_s = job.job_mtbf_s, p.checkpoint_write_s = job.checkpoint_write_s;
  p.restart_s = job.restart_s, p.checkpoint_interval_s = job.checkpoint_interval_s, p.goodput_fraction = job.goodput_fraction;
  p.time_to_train_s = job.time_to_train_s, p.expected_wall_s = job.expected_wall_s, p.expected_failures = job.expected_failures;
  if (tr.tokens) {
    p.tokens = *tr.tokens;
    p.device_hours = *job.expected_wall_s * p.devices / 3600;
  }

  const models::StackTraits& stack = models::traits(tr.stack);
  const DataParallelBytes dp_bytes = data_parallel_bytes(tr);
  p.assumptions = {
      fmt::format("{} schedule, {} micro-batches of {:g} × {:g} tokens per replica; bubble per F-PIPE-1..3 with the slowest rank in steady state",
                  p.schedule, mb, tr.micro_batch, tr.seq_len),
      "ops per micro-batch and tp×cp rank timed by the roofline (perfcast roofline); backward = input-gradient + weight-gradient GEMMs",
      fmt::format("training stack {} (perfcast stacks): {}; optimizer recipe {}{}", stack.name, stack.description, tr.optimizer,
                  low_precision_assumption(ctx)),
      fmt::format("overlap model (models/traffic.cpp): TP collectives {}, CP ring under attention, EP all-to-all exposed, PP sends "
                  "blocking unless interleaved, DP reduction under the last micro-batch's backward, ZeRO gathers under forward{}",
                  tr.tp_overlap == models::TpOverlap::exposed    ? "all exposed"
                  : tr.tp_overlap == models::TpOverlap::backward ? "forward exposed, backward under the wgrad/dgrad GEMMs"
                  : par.sequence_parallel                        ? "pipelined with the GEMMs they feed, forward and backward"
                                                                 : "backward under the wgrad/dgrad GEMMs (pipelining needs SP)",
                  stack.gather.bucket_params > 0 ? fmt::format(" (ZeRO-3 in buckets of {:g} parameters)", stack.gather.bucket_params)
                                                 : " (ZeRO-3 one layer at a time)"),
      fmt::format("data-parallel traffic: gradients reduced in {:g} B per parameter ({}), parameters gathered in {:g} B{}",
                  dp_bytes.gradient, tr.grad_reduce_dtype ? "[training] grad_reduce_dtype" : "the optimizer recipe's gradients",
                  dp_bytes.parameter, tr.fp8_param_gather ? " (FP8 parameter gather)" : ""),
      fmt::format("SM contention: hidden communication slows the compute beside it by hidden time × SMs its kernels take / {} SMs "
                  "(NCCL: {:g}, measured beside a GEMM on H100, NVIDIA forum thread 337991{}); HBM contention not modelled",
                  ceilings.compute_units, models::kNcclOverlapSms,
                  stack.userbuffers.backward_scatter > 0 && tr.tp_overlap == models::TpOverlap::pipelined && par.sequence_parallel
                      ? "; TP on Transformer Engine userbuffers: Megatron-Bridge's H100 settings, 1-20 SMs per collective"
                      : ""),
      attention_assumption(ctx),
      elementwise_assumption(ctx),
      "optimizer: fused Adam, memory-bound, 2 × recipe bytes per updated parameter at the achievable HBM rate",
      fmt::format("MFU/HFU: op-level model FLOPs (no recomputation, {} attention) / executed FLOPs, over the dense {} peak {:.4g} TFLOP/s",
                  s.mask == models::AttentionMask::causal ? "causal" : "full", p.precision, p.peak_ops_per_s / 1e12),
      fmt::format("device MTBF {:.0f} h ({}), checkpoint write {:.3g} s ({}), restart {:.0f} s ({})", p.device_mtbf_s / 3600,
                  s.reliability.device_mtbf_s ? "scenario" : "Llama 3: 16,384 GPUs × 54 days / 419 unexpected interruptions",
                  p.checkpoint_write_s,
                  s.reliability.checkpoint_write_s ? "scenario" : "weights + optimizer states at 427 MB/s per device (Llama 3 storage 7 TB/s / 16,384)",
                  p.restart_s, s.reliability.restart_s ? "scenario" : "assumed, MODELS-REFERENCE E7 example"),
  };
  add_efficiency_assumptions(p.assumptions, eff);
  add_sustained_assumption(p.assumptions, s.hw, ctx.math);

  // Energy over the expected wall time at the step's average power: restarts and recomputed work
  // are counted as if they were steps (an upper bound on restarts, which idle).
  p.activity = step_activity(totals, steps, mb);
  const Consumption use{.devices = p.devices, .activity = p.activity, .tokens_per_span = p.tokens_per_step,
                        .job_s = p.expected_wall_s, .checkpoint_interval_s = p.checkpoint_interval_s, .restart_s = p.restart_s};
  p.economics = economics_if_known(s, use);
  return p;
}

}  // namespace perfcast
