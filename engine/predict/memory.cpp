#include "engine/predict/memory.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>

#include "engine/layout/partition.hpp"
#include "engine/predict/roofline.hpp"
#include "engine/core/units.hpp"

namespace perfcast {
namespace {

using models::ActivationContext;
using models::SavedTensor;
using models::TransformerSpec;

std::string size_text(double bytes) { return units::format_binary_bytes(bytes, 1); }

double sum(const std::vector<MemoryComponent>& c) {
  double total = 0;
  for (const MemoryComponent& x : c) total += x.bytes;
  return total;
}

double sum(const std::vector<SavedTensor>& t) {
  double total = 0;
  for (const SavedTensor& x : t) total += x.bytes;
  return total;
}

// NCCL communicators a rank belongs to with more than one member; each holds send and receive
// buffers per channel.
double communication_buffers(const ParallelismSettings& p, int dp, const MemoryOverheads& o, int* groups) {
  const int sizes[] = {p.tp, p.pp, p.cp, p.ep, dp};
  int n = 0;
  for (int size : sizes) n += size > 1;
  *groups = n;
  return n * 2 * o.nccl_channels * o.nccl_buffer_B;
}

bool has_cuda_context(const AcceleratorSpec& a) { return a.vendor == "NVIDIA"; }

std::string stage_name(int stage, int pp) {
  if (pp == 1) return "only";
  if (stage == 0) return fmt::format("first of {}", pp);
  if (stage == pp - 1) return fmt::format("last of {}", pp);
  return fmt::format("{} of {}", stage + 1, pp);
}

struct Evaluation {
  std::vector<MemoryComponent> components;
  std::vector<SavedTensor> layer_tensors;
  std::string stage;
  double total = 0;
};

}  // namespace

ActivationContext activation_context(const Scenario& s) {
  const TrainingSettings& tr = *s.training;
  const ParallelismSettings& p = s.parallelism;
  const Precision precision = tr.precision.value_or(Precision::bf16);
  ActivationContext c;
  c.micro_batch = tr.micro_batch;
  c.seq_len = tr.seq_len;
  c.tp = p.tp;
  c.cp = p.cp;
  c.etp = expert_tensor_parallel(p, data_parallel(p, s.hardware.count));
  c.sequence_parallel = p.sequence_parallel;
  c.recompute = tr.recompute;
  c.kernel = s.attention_kernel;
  c.activation_bytes = precision == Precision::fp32 || precision == Precision::tf32 ? 4 : 2;
  c.gemm_input_bytes = quantised_training_format(precision) ? bytes_per_element(precision) : c.activation_bytes;
  return c;
}

ActivationFootprint activation_footprint(const TransformerSpec& m, const ActivationContext& c) {
  ActivationFootprint f;
  f.dense_layer_B = models::layer_activation_bytes(m, c, false);
  if (m.moe) f.moe_layer_B = models::layer_activation_bytes(m, c, true);
  f.embedding_B = sum(models::embedding_activations(m, c));
  f.output_B = sum(models::output_activations(m, c));
  // An MTP module runs a layer of the model's last kind and its own output head and loss.
  if (m.mtp_layers > 0)
    f.mtp_module_B = sum(models::mtp_input_activations(m, c)) + (m.moe ? f.moe_layer_B : f.dense_layer_B) + f.output_B;
  return f;
}

StageMemory training_stage_memory(const Scenario& s, const AcceleratorSpec& a, int stage, const ActivationFootprint& f,
                                  const MemoryOverheads& o) {
  const TransformerSpec& m = s.workload.transformer();
  const TrainingSettings& tr = *s.training;
  const ParallelismSettings& p = s.parallelism;
  const ShardPlan plan = shard_plan(s);
  const int dp = plan.dp;
  const StageLayers st = stage_layers(m, p, stage);
  const LocalParams lp = local_parameters(m, st, stage, plan);
  const models::OptimizerRecipe& recipe = *models::find_recipe(tr.optimizer);

  // Dense parameters shard over the data-parallel ranks of each CP slice (Megatron's distributed
  // optimizer uses the dp x cp group); routed experts over expert-DP = tp·cp·dp / (ep·etp).
  StageMemory x;
  x.dense_group = double(dp) * p.cp;
  const double expert_group = double(p.tp) * p.cp * dp / (double(p.ep) * plan.etp);
  x.dense = models::model_states(recipe, lp.total() - lp.expert, lp.largest_unit, p.zero, x.dense_group, tr.offload);
  x.expert = models::model_states(recipe, lp.expert, 0, p.zero, expert_group, tr.offload);
  x.params = lp.total(), x.expert_params = lp.expert, x.largest_unit = lp.largest_unit;

  const double layers_here = st.dense + st.moe;
  const bool moe_layers = m.moe && st.moe > 0;
  x.per_layer = (st.dense * f.dense_layer_B + (moe_layers ? st.moe * f.moe_layer_B : 0)) / layers_here;
  x.chunk_layers = layers_here / p.vp;
  const double microbatches = tr.global_batch / (dp * tr.micro_batch);
  x.chunks = models::in_flight_chunks(p.schedule, p.pp, p.vp, microbatches, stage);
  x.activations = x.chunks * x.chunk_layers * x.per_layer;
  if (stage == 0) x.io += x.chunks / p.vp * f.embedding_B;
  // The last stage's micro-batch in flight holds its loss and the MTP modules' (Megatron-Core
  // builds them on the last stage).
  if (stage == p.pp - 1) x.io += f.output_B + m.mtp_layers * f.mtp_module_B;
  if (has_cuda_context(a)) x.cuda_context = o.cuda_context_B;
  x.communication = communication_buffers(p, dp, o, &x.communicators);
  x.fragmentation = o.fragmentation * (x.activations + x.io + x.dense.gather);
  // The order the report lists the components in, so that both sums agree to the last bit.
  x.total = x.dense.weights + x.expert.weights;
  x.total += x.dense.gradients + x.expert.gradients;
  x.total += x.dense.optimizer + x.expert.optimizer;
  if (p.zero >= 3) x.total += x.dense.gather;
  x.total += x.activations;
  if (x.io > 0) x.total += x.io;
  if (x.cuda_context > 0) x.total += x.cuda_context;
  if (x.communication > 0) x.total += x.communication;
  x.total += x.fragmentation;
  return x;
}

namespace {

// With an uneven split (given or balanced) the second stage, the middle one with the most
// micro-batches in flight, may hold more layers than the first. Training is transformer-only.
bool second_stage_may_bind(const Scenario& s) {
  return s.parallelism.pp > 2 && !even_split(s.workload.transformer(), s.parallelism);
}

}  // namespace

StageMemory training_memory_peak(const Scenario& s, const AcceleratorSpec& a, const ActivationFootprint& f, const MemoryOverheads& o) {
  const ParallelismSettings& p = s.parallelism;
  StageMemory worst = training_stage_memory(s, a, 0, f, o);
  if (p.pp == 1) return worst;
  const int others[] = {p.pp - 1, second_stage_may_bind(s) ? 1 : -1};
  for (int stage : others) {
    if (stage < 0) continue;
    StageMemory x = training_stage_memory(s, a, stage, f, o);
    if (x.total > worst.total) worst = x;
  }
  return worst;
}

namespace {

// ---- Training -------------------------------------------------------------------------------------

Evaluation training_stage(const Scenario& s, const AcceleratorSpec& a, int stage, const MemoryOverheads& o) {
  const TransformerSpec& m = s.workload.transformer();
  const ParallelismSettings& p = s.parallelism;
  const models::OptimizerRecipe& recipe = *models::find_recipe(s.training->optimizer);
  const ActivationContext c = activation_context(s);
  const StageMemory x = training_stage_memory(s, a, stage, activation_footprint(m, c), o);
  const StageLayers st = stage_layers(m, p, stage);
  const bool moe_layers = m.moe && st.moe > 0;
  Evaluation ev;
  ev.layer_tensors = models::layer_activations(m, c, moe_layers && st.dense == 0);

  const std::string sharded = p.zero > 0 ? fmt::format(", ZeRO-{} over {:g} ranks", p.zero, x.dense_group) : "";
  auto& out = ev.components;
  out.push_back({"weights", x.dense.weights + x.expert.weights,
                 fmt::format("{:.4g}B parameters on this device ({:.4g}B routed-expert){}; {}", x.params / 1e9, x.expert_params / 1e9,
                             sharded, recipe.name)});
  out.push_back({"gradients", x.dense.gradients + x.expert.gradients, std::string(recipe.name)});
  out.push_back({"optimizer", x.dense.optimizer + x.expert.optimizer,
                 fmt::format("master weights and Adam states, {:g} B/param before sharding", recipe.bytes_per_param())});
  if (p.zero >= 3)
    out.push_back({"zero3_gather", x.dense.gather, fmt::format("largest layer gathered: {:.4g}B parameters", x.largest_unit / 1e9)});
  out.push_back({"activations", x.activations,
                 fmt::format("{:g} chunk(s) in flight x {:g} layer(s) x {} per layer", x.chunks, x.chunk_layers, size_text(x.per_layer))});
  if (x.io > 0)
    out.push_back({"embedding_and_loss", x.io,
                   fmt::format("{}{}{}", stage == 0 ? (m.dropout > 0 ? "token ids, embedding dropout mask; " : "token ids; ") : "",
                               stage == p.pp - 1 ? "final norm, LM-head input, fp32 logits" : "",
                               stage == p.pp - 1 && m.mtp_layers > 0 ? fmt::format("; {} MTP module(s): inputs, layer, loss", m.mtp_layers)
                                                                     : "")});
  if (x.cuda_context > 0) out.push_back({"cuda_context", x.cuda_context, "PyTorch CUDA context, lazy loading"});
  if (x.communication > 0) out.push_back({"communication_buffers", x.communication, fmt::format("{} NCCL communicator(s)", x.communicators)});
  out.push_back({"fragmentation", x.fragmentation, fmt::format("{:.0f}% of activation-like memory", 100 * o.fragmentation)});
  ev.stage = stage_name(stage, p.pp);
  ev.total = sum(out);
  return ev;
}

// The pipeline stage needing the most memory: the first (most micro-batches in flight, embedding)
// or the last (LM head and logits); with an uneven split also the second, the middle stage with
// the most in flight, when it holds more layers than the first.
Evaluation training_memory(const Scenario& s, const AcceleratorSpec& a, const MemoryOverheads& o) {
  const ParallelismSettings& p = s.parallelism;
  Evaluation worst = training_stage(s, a, 0, o);
  if (p.pp == 1) return worst;
  std::vector<int> others = {p.pp - 1};
  if (second_stage_may_bind(s)) others.push_back(1);
  for (int stage : others) {
    Evaluation e = training_stage(s, a, stage, o);
    if (e.total > worst.total) worst = std::move(e);
  }
  return worst;
}

// ---- Inference ------------------------------------------------------------------------------------

struct InferenceDtypes {
  Precision weights, kv, compute;
};

InferenceDtypes inference_dtypes(const InferenceSettings& in, const AcceleratorSpec& a) {
  const Precision compute = in.compute_dtype.value_or(default_precision(a));
  const Precision sixteen = bytes_per_element(compute) >= 2 ? compute : Precision::bf16;
  return {in.weight_dtype.value_or(compute), in.kv_dtype.value_or(default_precision(a) == Precision::int8 ? Precision::int8 : sixteen), compute};
}

struct InferenceShape {
  double fixed = 0;          // bytes that do not grow with the batch
  double per_sequence = 0;   // bytes per concurrent sequence
  double kv_per_token = 0;
  double kv_per_prompt = 0;  // one prompt of input_len tokens
  Evaluation eval;           // at the batch asked for
};

InferenceShape transformer_inference(const Scenario& s, const AcceleratorSpec& a, double batch, const MemoryOverheads& o) {
  const TransformerSpec& m = s.workload.transformer();
  const InferenceSettings& in = *s.inference;
  const ParallelismSettings& p = s.parallelism;
  const ShardPlan plan = shard_plan(s);
  const InferenceDtypes dt = inference_dtypes(in, a);
  const Fp4Blocks fp4 = in.fp4_blocks;
  const models::QuantFormat wf = models::weight_format(dt.weights, m.hidden, fp4);
  const models::QuantFormat kf = models::kv_format(dt.kv);
  const double block = in.kv_block.value_or(o.kv_block_tokens);
  const double beta = dt.compute == Precision::fp32 ? 4 : 2;
  const double T = in.input_len, h = m.hidden, tp = p.tp;

  InferenceShape best;
  for (int stage : {0, p.pp - 1}) {
    ParallelismSettings plain = p;  // interleaving changes which layers a stage holds, not how many
    plain.vp = 1;
    const StageLayers st = stage_layers(m, plain, stage);
    const LocalParams lp = local_parameters(m, st, stage, plan);
    // Non-linear parameters (embeddings, norms, routers) stay 16-bit.
    const double other_bytes = std::max(2.0, std::min(4.0, bytes_per_element(dt.compute)));
    const models::QuantFormat ef = in.expert_weight_dtype ? models::weight_format(*in.expert_weight_dtype, m.hidden, fp4) : wf;
    // Routed experts as their own format says where a checkpoint quantises only them; their
    // biases stay 16-bit (gpt-oss stores only the experts' weight blocks in MXFP4).
    const double expert_matrices = lp.expert - lp.expert_biases;
    const double weights = (lp.linear - lp.expert) * wf.bytes_per_element() + expert_matrices * ef.bytes_per_element() +
                           (lp.other + lp.expert_biases) * other_bytes;
    const double kv_token = models::kv_bytes_per_token(m, kf, p.tp, int(st.dense + st.moe));
    const double kv_sequence =
        models::kv_cache_bytes(m, kf, p.tp, st.dense + st.moe, models::paged_tokens(in.input_len + in.output_len, block));
    // Prefill of one prompt at a time: the residual stream and norm output, plus the wider of the
    // attention block (QKV, and the score matrix when not fused) and the MLP intermediates.
    const double gated = m.mlp == models::MlpKind::swiglu ? 3 : 2;
    double mlp = gated * beta * T * m.ffn_hidden / tp;
    if (m.moe && st.moe > 0) {
      const models::MoeSpec& e = *m.moe;
      const double rows = e.top_k * T / p.ep;
      mlp = std::max(mlp, gated * beta * (rows * e.expert_ffn_hidden / plan.etp + T * double(e.shared_experts) * e.shared_ffn_hidden / tp));
    }
    double attention = beta * T * (m.q_width() + 2.0 * m.kv_width()) / tp;
    if (s.attention_kernel == models::AttentionKernel::materialised) attention += beta * (m.heads / tp) * T * T;
    const double prefill = 2 * beta * T * h + std::max(mlp, attention);
    const double logits = 4.0 * m.vocab / tp;  // fp32 logits of the sampled position, per sequence

    Evaluation ev;
    auto& out = ev.components;
    out.push_back({"weights", weights,
                   fmt::format("{:.4g}B parameters; projections {} at {:.4g} B/param ({}){}, the rest {:g}-byte", lp.total() / 1e9,
                               storage_name(dt.weights, fp4), wf.bytes_per_element(), wf.source,
                               in.expert_weight_dtype ? fmt::format(" but the routed experts {} at {:.4g} B/param ({})",
                                                                    storage_name(*in.expert_weight_dtype, fp4), ef.bytes_per_element(), ef.source)
                                                      : std::string(),
                               other_bytes)});
    const std::string window = m.sliding_share() > 0
                                   ? fmt::format("; {:g} of {} layers keep at most their {}-token window", m.sliding_share() * m.layers,
                                                 m.layers, m.sliding_window)
                                   : "";
    out.push_back({"kv_cache", batch * kv_sequence,
                   fmt::format("{:g} sequences x {:g} tokens (paged, blocks of {:g}) x {:.6g} B/token, {} ({}){}", batch,
                               models::paged_tokens(in.input_len + in.output_len, block), block, kv_token, name_of(dt.kv), kf.source,
                               window)});
    out.push_back({"activations", prefill + batch * logits, fmt::format("one {:g}-token prefill + fp32 logits per sequence", T)});
    double fixed = weights + prefill;
    if (has_cuda_context(a)) {
      out.push_back({"cuda_context", o.cuda_context_B, "PyTorch CUDA context, lazy loading"});
      fixed += o.cuda_context_B;
    }
    int groups = 0;
    const double comm = communication_buffers(p, 1, o, &groups);
    if (comm > 0) {
      out.push_back({"communication_buffers", comm, fmt::format("{} NCCL communicator(s)", groups)});
      fixed += comm;
    }
    ev.stage = stage_name(stage, p.pp);
    ev.total = sum(out);
    if (best.eval.components.empty() || ev.total > best.eval.total) {
      best.fixed = fixed;
      best.per_sequence = kv_sequence + logits;
      best.kv_per_token = kv_token;
      best.kv_per_prompt = models::kv_cache_bytes(m, kf, p.tp, st.dense + st.moe, in.input_len);
      best.eval = std::move(ev);
    }
  }
  return best;
}

Evaluation vision_inference(const Scenario& s, const AcceleratorSpec& a, const MemoryOverheads& o) {
  const models::VisionModel& v = s.workload.vision();
  const InferenceDtypes dt = inference_dtypes(*s.inference, a);
  const double batch = s.inference->batch.value_or(1);
  const double act = bytes_per_element(dt.compute);
  double widest = 0;
  for (const models::VisionLayer& l : v.layers)
    widest = std::max(widest, double(l.in_h) * l.in_w * l.in_c + double(l.out_h()) * l.out_w() * l.out_c());
  Evaluation ev;
  ev.components.push_back({"weights", v.parameters() * bytes_per_element(dt.weights),
                           fmt::format("{:.4g}M parameters, {}", v.parameters() / 1e6, name_of(dt.weights))});
  ev.components.push_back({"activations", batch * widest * act, "the widest layer's input + output, per image"});
  if (has_cuda_context(a)) ev.components.push_back({"cuda_context", o.cuda_context_B, "CUDA context, lazy loading"});
  ev.stage = "only";
  ev.total = sum(ev.components);
  return ev;
}

// ---- Verdicts and fixes ---------------------------------------------------------------------------

std::string binding_component(const std::vector<MemoryComponent>& c) {
  return std::max_element(c.begin(), c.end(), [](const auto& x, const auto& y) { return x.bytes < y.bytes; })->name;
}

// Largest micro-batch dividing the replica's share of the global batch that fits.
std::optional<double> largest_micro_batch(Scenario s, const AcceleratorSpec& a, double capacity, const MemoryOverheads& o) {
  const int dp = data_parallel(s.parallelism, s.hardware.count);
  const double per_replica = s.training->global_batch / dp;
  std::optional<double> best;
  for (double b = 1; b <= per_replica; ++b) {
    if (std::fmod(per_replica, b) != 0) continue;
    s.training->micro_batch = b;
    if (training_memory(s, a, o).total > capacity) break;  // activations grow with b
    best = b;
  }
  return best;
}

struct Change {
  std::string label;
  std::function<void(Scenario&)> apply;
};

// The single changes that fit, in the order listed; when none does, the pairs that do.
std::vector<std::string> fitting_changes(const Scenario& s, const std::vector<Change>& changes,
                                         const std::function<double(const Scenario&)>& needs, double capacity) {
  auto fits = [&](std::initializer_list<const Change*> picked) {
    Scenario c = s;
    for (const Change* x : picked) x->apply(c);
    if (layout_problem(c.workload, c.parallelism, c.hardware.count, c.training)) return false;
    return needs(c) <= capacity;
  };
  std::vector<std::string> fixes;
  for (const Change& x : changes)
    if (fits({&x})) fixes.push_back(x.label);
  for (std::size_t i = 0; fixes.empty() && i < changes.size(); ++i)
    for (std::size_t j = i + 1; j < changes.size(); ++j)
      if (fits({&changes[i], &changes[j]})) fixes.push_back(changes[i].label + " with " + changes[j].label);
  return fixes;
}

std::vector<std::string> training_fixes(const Scenario& s, const AcceleratorSpec& a, double capacity, const MemoryOverheads& o,
                                        std::optional<double> max_micro_batch) {
  std::vector<Change> changes;
  const ParallelismSettings& p = s.parallelism;
  for (int z = p.zero + 1; z <= 3; ++z) changes.push_back({fmt::format("ZeRO-{}", z), [z](Scenario& c) { c.parallelism.zero = z; }});
  if (s.training->recompute == models::Recompute::none)
    changes.push_back({"selective recompute", [](Scenario& c) { c.training->recompute = models::Recompute::selective; }});
  if (s.training->recompute != models::Recompute::full)
    changes.push_back({"full recompute", [](Scenario& c) { c.training->recompute = models::Recompute::full; }});
  if (p.tp > 1 && !p.sequence_parallel)
    changes.push_back({"sequence parallel", [](Scenario& c) { c.parallelism.sequence_parallel = true; }});
  for (int tp = p.tp * 2; tp <= std::max(s.hardware.devices_per_node, 1); tp *= 2)
    changes.push_back({fmt::format("TP={}", tp), [tp](Scenario& c) { c.parallelism.tp = tp; c.parallelism.dp.reset(); }});
  for (int pp = p.pp * 2; pp <= p.pp * 4; pp *= 2)
    changes.push_back({fmt::format("PP={}", pp), [pp](Scenario& c) { c.parallelism.pp = pp; c.parallelism.dp.reset(); }});
  if (s.training->offload == models::Offload::none)
    changes.push_back({"optimizer offload to host", [](Scenario& c) { c.training->offload = models::Offload::optimizer; }});
  std::vector<std::string> fixes =
      fitting_changes(s, changes, [&](const Scenario& c) { return training_memory(c, a, o).total; }, capacity);
  if (s.training->micro_batch > 1 && max_micro_batch) fixes.insert(fixes.begin(), fmt::format("micro_batch={:g}", *max_micro_batch));
  return fixes;
}

std::vector<std::string> inference_fixes(const Scenario& s, const AcceleratorSpec& a, double capacity, const MemoryOverheads& o,
                                         std::optional<double> max_batch) {
  std::vector<Change> changes;
  const InferenceDtypes dt = inference_dtypes(*s.inference, a);
  if (bytes_per_element(dt.kv) > 1) changes.push_back({"kv_dtype=fp8", [](Scenario& c) { c.inference->kv_dtype = Precision::fp8; }});
  const Precision narrow = a.peak(Precision::fp8) ? Precision::fp8 : Precision::int4;
  if (bytes_per_element(dt.weights) > bytes_per_element(narrow))
    changes.push_back({fmt::format("weight_dtype={}", name_of(narrow)), [narrow](Scenario& c) { c.inference->weight_dtype = narrow; }});
  for (int tp = s.parallelism.tp * 2; tp <= s.parallelism.tp * 4; tp *= 2) {
    changes.push_back({fmt::format("TP={}", tp), [tp](Scenario& c) { c.parallelism.tp = tp; c.parallelism.dp.reset(); }});
    const int devices = s.hardware.count * tp / s.parallelism.tp;
    changes.push_back({fmt::format("TP={} on {} devices", tp, devices), [devices, tp](Scenario& c) {
                         c.hardware.count = devices;
                         c.parallelism.tp = tp;
                         c.parallelism.dp.reset();
                       }});
  }
  std::vector<std::string> fixes = fitting_changes(
      s, changes, [&](const Scenario& c) { return transformer_inference(c, a, c.inference->batch.value_or(1), o).eval.total; }, capacity);
  if (max_batch && *max_batch >= 1) fixes.insert(fixes.begin(), fmt::format("batch={:g}", *max_batch));
  return fixes;
}

std::string join_fixes(const std::vector<std::string>& fixes) {
  std::string text;
  const std::size_t n = std::min<std::size_t>(fixes.size(), 3);
  for (std::size_t i = 0; i < n; ++i) text += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + fixes[i];
  return text;
}

}  // namespace

MemoryReport memory_for_scenario(const Scenario& s, const MemoryOverheads& o) {
  const AcceleratorSpec& a = s.hw.datasheet;
  MemoryReport r;
  r.scenario = s.name;
  r.workload = s.workload.label();
  r.accelerator = a.name;
  r.accelerator_display = a.display_name;
  r.phase = s.training ? "training" : "inference";
  const std::optional<double> device = a.memory_capacity_B();
  double capacity = device.value_or(a.sram_B.value_or(0));
  r.capacity_label = a.memory_capacity_usable_B ? "usable device memory" : device ? "device memory" : "on-chip SRAM";

  Evaluation ev;
  if (s.training) {
    ev = training_memory(s, a, o);
    r.max_batch = largest_micro_batch(s, a, capacity, o);
    r.assumptions.push_back(fmt::format("optimizer recipe {}: {} [{}]", s.training->optimizer, models::find_recipe(s.training->optimizer)->description,
                                        models::find_recipe(s.training->optimizer)->source));
    r.assumptions.push_back("activations: tensors each layer saves (MODELS-REFERENCE F-MEM-5; Korthikanti et al. 2022 in the GPT case)");
    r.assumptions.push_back("in flight: Narayanan et al. 2021 1F1B warm-up (interleaved: first stage L(1 + (p-1)/(pv)) layers); GPipe all micro-batches");
  } else if (s.workload.is_transformer()) {
    // vLLM's 0.9 (and TensorRT-LLM's free fraction); SGLang's mem_fraction_static by device and ranks.
    const bool sglang = s.inference->engine == models::ServingEngine::sglang;
    const double block = s.inference->kv_block.value_or(o.kv_block_tokens);
    const double util = s.inference->memory_utilization.value_or(
        sglang && device ? models::sglang_mem_fraction_static(*device / 1048576, s.parallelism.tp * s.parallelism.pp) : o.memory_utilization);
    InferenceShape shape = transformer_inference(s, a, 1, o);
    // vLLM (and the default): the server may use `util` of the device, weights included. TensorRT-LLM:
    // the KV cache takes free_gpu_memory_fraction of what the weights and buffers leave
    // (../shared/reference/serving-engines.md §1.3, "How to Change KV Cache Behavior").
    const bool of_free = s.inference->engine == models::ServingEngine::trtllm;
    capacity = of_free ? shape.fixed + util * std::max(0.0, capacity - shape.fixed) : capacity * util;
    r.capacity_label = of_free ? fmt::format("{}: the weights and buffers, and {:.0f}% of what they leave (TensorRT-LLM "
                                             "free_gpu_memory_fraction)",
                                             r.capacity_label, 100 * util)
                               : fmt::format("{} at {:.0f}% utilisation", r.capacity_label, 100 * util);
    const double room = capacity - shape.fixed;
    r.max_batch = room > 0 ? std::floor(room / shape.per_sequence) : 0;
    r.kv_pool_tokens = room > 0 ? block * std::floor(room / shape.per_sequence * models::paged_tokens(s.inference->input_len + s.inference->output_len, block) / block) : 0;
    r.batch = s.inference->batch.value_or(std::max(1.0, *r.max_batch));
    ev = transformer_inference(s, a, *r.batch, o).eval;
    r.kv_bytes_per_token = shape.kv_per_token;
    r.kv_bytes_per_prompt = shape.kv_per_prompt;
    r.assumptions.push_back(of_free ? fmt::format("KV cache: {:.2f} of the memory the weights and buffers leave (TensorRT-LLM "
                                                  "KvCacheConfig.free_gpu_memory_fraction, default 0.9)",
                                                  util)
                                    : sglang && !s.inference->memory_utilization
                                        ? fmt::format("memory utilisation target {:.3f} (SGLang's default mem_fraction_static for this device and "
                                                      "tp x pp, server_args.py v0.5.3; the KV pool is that share of the device less the weights "
                                                      "and buffers)",
                                                      util)
                                        : fmt::format("memory utilisation target {:.2f} (vLLM --gpu-memory-utilization default 0.9)", util));
    r.assumptions.push_back(fmt::format("paged KV cache, blocks of {:g} tokens (vLLM default block size 16)", block));
  } else {
    ev = vision_inference(s, a, o);
  }
  r.components = std::move(ev.components);
  r.layer_tensors = std::move(ev.layer_tensors);
  r.stage = ev.stage;
  r.per_device_B = ev.total;
  r.capacity_B = capacity;
  r.fits = r.per_device_B <= capacity;
  r.binding = binding_component(r.components);
  r.assumptions.push_back(fmt::format("CUDA context {:g} MB (pytorch/pytorch#107667); NCCL buffers {} MiB x 2 x {:g} channels per communicator "
                                      "(NCCL_BUFFSIZE default; channel count assumed); fragmentation {:.0f}% (assumed, MODELS-REFERENCE §7.4)",
                                      o.cuda_context_B / 1e6, o.nccl_buffer_B / 1048576, o.nccl_channels, 100 * o.fragmentation));

  if (r.fits) {
    r.verdict = fmt::format("fits: {} of {} {} ({:.0f}% headroom)", size_text(r.per_device_B), size_text(capacity), r.capacity_label,
                            100 * (1 - r.per_device_B / capacity));
    return r;
  }
  if (!s.workload.is_transformer()) {
    r.verdict = fmt::format("does not fit: {} > {} {}; the excess streams from the host every inference", size_text(r.per_device_B),
                            size_text(capacity), r.capacity_label);
    return r;
  }
  r.fixes = s.training ? training_fixes(s, a, capacity, o, r.max_batch) : inference_fixes(s, a, capacity, o, r.max_batch);
  r.verdict = fmt::format("needs {} > {} {} ({} is the largest part): {}", size_text(r.per_device_B), size_text(capacity), r.capacity_label, r.binding,
                          r.fixes.empty() ? "no single change fits; add devices or combine changes" : join_fixes(r.fixes) + " would fit");
  return r;
}

}  // namespace perfcast
