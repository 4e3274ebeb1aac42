#include "engine/predict/communication.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/layout/partition.hpp"

namespace perfcast {
namespace {

std::string order_text(std::span<const ParallelDim> order) {
  std::string s;
  for (ParallelDim d : order) s += (s.empty() ? "" : "-") + std::string(name_of(d));
  return s;
}


// Bytes per element of the gradient reduction: the recipe's gradient tensor.
double gradient_bytes(const models::OptimizerRecipe& r) {
  for (const models::StateTensor& t : r.tensors)
    if (t.component == models::StateComponent::gradients) return t.bytes_per_param;
  return 2;
}

}  // namespace

std::string layout_text(const ParallelismSettings& p, int dp) {
  std::string s = fmt::format("tp {} · pp {}", p.tp, p.pp);
  if (p.vp > 1) s += fmt::format(" (vp {})", p.vp);
  if (p.first_stage_layers || p.last_stage_layers)  // uneven split: the given end stages' layer counts
    s += fmt::format(" (layers {} | … | {})", p.first_stage_layers ? std::to_string(*p.first_stage_layers) : "even",
                     p.last_stage_layers ? std::to_string(*p.last_stage_layers) : "even");
  if (p.cp > 1) s += fmt::format(" · cp {}", p.cp);
  if (p.ep > 1) s += fmt::format(" · ep {}", p.ep);
  s += fmt::format(" · dp {}", dp);
  if (p.sequence_parallel) s += " · SP";
  if (p.zero > 0) s += fmt::format(" · ZeRO-{}", p.zero);
  return s;
}

CommunicationPhase time_traffic(std::string name, const std::vector<models::TrafficItem>& items,
                                const std::vector<GroupPlacement>& placements, const models::CollectiveParams& params) {
  CommunicationPhase phase;
  phase.name = std::move(name);
  for (const models::TrafficItem& item : items) {
    const std::string_view group = models::name_of(item.group);
    auto g = std::find_if(placements.begin(), placements.end(), [&](const GroupPlacement& p) { return p.group == group; });
    if (g == placements.end()) continue;
    TrafficTiming t;
    t.item = item;
    t.call = *models::best_collective_time(item.op, item.bytes, g->fabric, params);
    t.sent_per_call_B = item.bytes * models::bus_factor(item.op, g->fabric.ranks);
    t.time_s = item.calls * t.call.time_s;
    phase.items.push_back(t);
    auto gc = std::find_if(phase.groups.begin(), phase.groups.end(), [&](const GroupCommunication& c) { return c.group == group; });
    if (gc == phase.groups.end()) {
      phase.groups.push_back({.group = std::string(group)});
      gc = phase.groups.end() - 1;
    }
    gc->sent_B += item.calls * t.sent_per_call_B;
    gc->time_s += t.time_s;
    (item.overlap == models::OverlapWith::nothing ? gc->exposed_s : gc->overlappable_s) += t.time_s;
    phase.time_s += t.time_s;
    if (item.overlap == models::OverlapWith::nothing) phase.exposed_s += t.time_s;
  }
  return phase;
}

DataParallelBytes data_parallel_bytes(const TrainingSettings& tr) {
  const Precision precision = tr.precision.value_or(Precision::bf16);
  const double activation = precision == Precision::fp32 || precision == Precision::tf32 ? 4 : 2;
  return {.gradient = tr.grad_reduce_dtype ? bytes_per_element(*tr.grad_reduce_dtype) : gradient_bytes(*models::find_recipe(tr.optimizer)),
          .parameter = tr.fp8_param_gather ? bytes_per_element(Precision::fp8) : activation};
}

models::TrainingLayout training_layout(const Scenario& s, int stage) {
  const models::TransformerSpec& m = s.workload.transformer();
  const ParallelismSettings& p = s.parallelism;
  const TrainingSettings& tr = *s.training;
  const int dp = data_parallel(p, s.hardware.count);
  const ShardPlan plan = shard_plan(s);
  const StageLayers st = stage_layers(m, p, stage);
  const LocalParams lp = local_parameters(m, st, stage, plan);
  const Precision precision = tr.precision.value_or(Precision::bf16);
  models::TrainingLayout l;
  l.tp = p.tp, l.cp = p.cp, l.ep = p.ep, l.etp = plan.etp, l.pp = p.pp, l.vp = p.vp, l.zero = p.zero;
  l.dp = dp * p.cp;
  l.edp = p.ep > 1 ? p.tp * p.cp * dp / (p.ep * plan.etp) : 1;
  l.sequence_parallel = p.sequence_parallel;
  l.tp_overlap = tr.tp_overlap;
  l.gather = models::traits(tr.stack).gather;
  l.grad_reduce_overlapped = models::traits(tr.stack).grad_reduce_overlapped;
  l.userbuffers = models::traits(tr.stack).userbuffers;
  l.fp8 = quantised_training_format(precision);  // Bridge's userbuffer settings name only BF16 and FP8
  l.recompute = tr.recompute;
  l.micro_batch = tr.micro_batch;
  l.seq_len = tr.seq_len;
  l.micro_batches = tr.global_batch / (dp * tr.micro_batch);
  l.activation_bytes = precision == Precision::fp32 || precision == Precision::tf32 ? 4 : 2;
  l.dispatch_bytes = precision == Precision::fp8 ? 1 : l.activation_bytes;  // DeepSeek-V3: fp8 dispatch
  l.combine_bytes = l.activation_bytes;
  const DataParallelBytes dp_bytes = data_parallel_bytes(tr);
  l.gradient_bytes = dp_bytes.gradient;
  l.parameter_bytes = dp_bytes.parameter;
  l.dense_parameters = lp.total() - lp.expert;
  l.expert_parameters = lp.expert;
  l.dense_layers = st.dense;
  l.moe_layers = st.moe;
  l.first_stage = stage == 0;
  l.last_stage = stage == p.pp - 1;
  return l;
}

CommunicationReport communication_for_scenario(const Scenario& s,
                                               std::span<const ParallelDim> order,
                                               const models::CollectiveParams& params) {
  if (!s.workload.is_transformer())
    throw InputError({s.file, 0, 0}, fmt::format("communication: '{}' is not a transformer; a single-device vision model "
                                                  "has no parallel traffic", s.workload.name));
  const models::TransformerSpec& m = s.workload.transformer();
  const ParallelismSettings& p = s.parallelism;
  CommunicationReport r;
  r.scenario = s.name;
  r.devices = s.hardware.count;
  r.order = order_text(order);
  r.topology = topology_of(s);
  const int dp = data_parallel(p, s.hardware.count);
  r.layout = layout_text(p, dp);
  r.placements = place_groups(r.topology, p, s.hardware.count, order);

  const StageLayers st = stage_layers(m, p, 0);
  if (s.training) {
    const models::TrainingLayout l = training_layout(s, 0);
    r.phases.push_back(time_traffic("training step", models::training_traffic(m, l), r.placements, params));
  } else if (s.inference) {
    const InferenceSettings& in = *s.inference;
    const Precision compute = in.compute_dtype.value_or(Precision::bf16);
    models::InferenceLayout l;
    l.tp = p.tp, l.ep = p.ep, l.pp = p.pp;
    l.activation_bytes = compute == Precision::fp32 ? 4 : 2;
    l.dispatch_bytes = l.combine_bytes = l.activation_bytes;
    l.dense_layers = st.dense;
    l.moe_layers = st.moe;
    const double batch = in.batch.value_or(1);
    l.tokens = batch * in.input_len;
    r.phases.push_back(time_traffic("prefill pass", models::inference_traffic(m, l), r.placements, params));
    l.tokens = batch;
    r.phases.push_back(time_traffic("decode step", models::inference_traffic(m, l), r.placements, params));
  }
  return r;
}

}  // namespace perfcast
