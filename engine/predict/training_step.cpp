#include "engine/predict/training_step.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <span>

#include "engine/core/errors.hpp"
#include "engine/core/quantity_text.hpp"
#include "models/reliability.hpp"

namespace perfcast {
namespace {

using models::Op;
using models::OverlapWith;

template <class Keep>
PassTimes time_ops(const std::vector<Op>& ops, const models::Ceilings& c, const models::Efficiency& e, Keep keep) {
  PassTimes t;
  for (const Op& op : ops) {
    if (!keep(op)) continue;
    const models::OpTiming timing = models::time_op(op, c, e);
    t.model_flops += op.model_flops;
    t.flops += op.flops;
    switch (op.pass) {
      case models::Pass::forward: t.forward += timing.time_s; break;
      case models::Pass::recompute: t.recompute += timing.time_s; continue;
      case models::Pass::backward:
        (op.name.ends_with(".wgrad") ? t.backward_weight : t.backward_input) += timing.time_s;
        break;
    }
    if (models::is_attention_core(op)) t.attention += timing.time_s;
    if (timing.bound == models::Bound::memory) t.memory_bound += timing.time_s - timing.overhead_s;
    t.overhead += timing.overhead_s;
  }
  return t;
}

const models::OpGroup* find_group(const std::vector<models::OpGroup>& groups, std::string_view name) {
  for (const models::OpGroup& g : groups)
    if (g.name == name) return &g;
  return nullptr;
}

// Compute time that can hide communication, by pass: forward, recompute, dgrad, wgrad (seconds,
// already x the overlap window share). Attention draws on forward, recompute and dgrad alike.
class Window {
 public:
  Window(const PassTimes& t, double m, double share)
      : left_{share * m * t.forward, share * m * t.recompute, share * m * t.backward_input, share * m * t.backward_weight},
        attention_(share * m * t.attention) {}

  // Hides up to `seconds` of a class's traffic in what is left of its window; returns what it hid.
  double hide(OverlapWith o, double seconds) {
    if (seconds <= 0) return 0;
    double pieces_left = 0;
    for (int piece : pieces(o)) pieces_left += left_[piece];
    const double room = o == OverlapWith::attention ? std::min(pieces_left, attention_) : pieces_left;
    const double hidden = std::min(seconds, room);
    if (hidden <= 0) return 0;
    for (int piece : pieces(o)) left_[piece] -= hidden * left_[piece] / pieces_left;
    if (o == OverlapWith::attention) attention_ -= hidden;
    return hidden;
  }

  // The step's once-per-step traffic overlaps the last microbatch only.
  void limit_to_one_microbatch(double m) {
    for (double& l : left_) l /= std::max(m, 1.0);
    attention_ /= std::max(m, 1.0);
  }

 private:
  static constexpr int kForward = 0, kRecompute = 1, kDgrad = 2, kWgrad = 3;
  static std::span<const int> pieces(OverlapWith o) {
    static constexpr int none[] = {0}, wgrad[] = {kWgrad}, dgrad[] = {kDgrad}, attention[] = {kForward, kRecompute, kDgrad},
                         backward[] = {kDgrad, kWgrad}, forward[] = {kForward}, all[] = {kForward, kRecompute, kDgrad, kWgrad};
    switch (o) {
      case OverlapWith::nothing: return std::span(none, 0);
      case OverlapWith::wgrad: return wgrad;
      case OverlapWith::dgrad: return dgrad;
      case OverlapWith::attention: return attention;
      case OverlapWith::backward: return backward;
      case OverlapWith::forward: return forward;
      case OverlapWith::other_microbatch: return all;
    }
    return std::span(none, 0);
  }
  double left_[4];
  double attention_;
};

// Most specific window first: a class with a narrow window has nowhere else to hide.
constexpr int kAllocationOrder[] = {int(OverlapWith::attention), int(OverlapWith::wgrad),    int(OverlapWith::dgrad),
                                    int(OverlapWith::forward),   int(OverlapWith::backward), int(OverlapWith::other_microbatch),
                                    int(OverlapWith::nothing)};

}  // namespace

PassTimes& PassTimes::add(const PassTimes& o, double k) {
  forward += k * o.forward, recompute += k * o.recompute, backward_input += k * o.backward_input;
  backward_weight += k * o.backward_weight, attention += k * o.attention;
  memory_bound += k * o.memory_bound, overhead += k * o.overhead;
  model_flops += k * o.model_flops, flops += k * o.flops;
  return *this;
}

LayerPassTimes layer_pass_times(const std::vector<models::OpGroup>& groups, const models::Ceilings& c, const models::Efficiency& e) {
  LayerPassTimes l;
  const models::OpGroup* head = find_group(groups, "embedding and LM head");
  l.embedding = time_ops(head->ops, c, e, [](const Op& op) { return op.name.starts_with("embed."); });
  l.output = time_ops(head->ops, c, e, [](const Op& op) { return !op.name.starts_with("embed."); });
  const auto all = [](const Op&) { return true; };
  if (const models::OpGroup* g = find_group(groups, "dense layer")) l.dense = time_ops(g->ops, c, e, all);
  if (const models::OpGroup* g = find_group(groups, "MoE layer")) l.moe = time_ops(g->ops, c, e, all);
  if (const models::OpGroup* g = find_group(groups, "MTP module")) l.mtp.add(time_ops(g->ops, c, e, all), g->repeats);
  return l;
}

PassTimes stage_pass_times(const LayerPassTimes& l, const StageLayers& st, int stage, int pp) {
  PassTimes t;
  t.add(l.dense, st.dense).add(l.moe, st.moe);
  if (stage == 0) t.add(l.embedding, 1);
  if (stage == pp - 1) t.add(l.output, 1).add(l.mtp, 1);
  return t;
}

PassTimes model_pass_times(const LayerPassTimes& l, const models::TransformerSpec& m) {
  PassTimes t;
  t.add(l.embedding, 1).add(l.output, 1).add(l.mtp, 1).add(l.dense, m.dense_layers()).add(l.moe, m.moe_layers());
  return t;
}

std::vector<RankClass> rank_classes(const models::TransformerSpec& m, const ParallelismSettings& p) {
  std::vector<RankClass> out;
  auto same_ends = [&](int a, int b) { return (a == 0) == (b == 0) && (a == p.pp - 1) == (b == p.pp - 1); };
  for (int r = 0; r < p.pp; ++r) {
    const StageLayers st = stage_layers(m, p, r);
    if (!out.empty() && same_ends(out.back().stage, r) && out.back().layers.dense == st.dense && out.back().layers.moe == st.moe)
      ++out.back().count;
    else
      out.push_back({r, 1, st});
  }
  return out;
}

bool repeats_every_microbatch(const models::TrafficItem& x, double m) {
  const bool dp_once = (x.group == models::TrafficGroup::dp || x.group == models::TrafficGroup::edp) && x.calls < 1.5;
  return !dp_once && x.calls >= m - 1e-9;
}

OverlapExposure overlap_exposure(std::span<const models::TrafficItem> items, std::span<const double> times, const PassTimes& t,
                                 double m, double window, int compute_units) {
  OverlapExposure e;
  double sm_seconds_mb[kOverlapClasses] = {}, sm_seconds_step[kOverlapClasses] = {};  // sums of time x SMs
  for (std::size_t i = 0; i < items.size(); ++i) {
    const bool mb = repeats_every_microbatch(items[i], m);
    (mb ? e.sum_mb : e.sum_step)[int(items[i].overlap)] += times[i];
    (mb ? sm_seconds_mb : sm_seconds_step)[int(items[i].overlap)] += times[i] * items[i].sms;
    e.total_s += times[i];
  }
  // The hidden share of a class slows the compute by the class's time-weighted share of the SMs.
  auto contention = [&](double sum, double exposed, double sm_seconds) {
    if (compute_units <= 0 || sum <= 0) return 0.0;
    return (sum - exposed) * std::min(1.0, sm_seconds / sum / compute_units);
  };
  // Classes draw on one pool of compute time, most specific window first, so that two classes
  // never hide under the same compute (which made a faster GPU slower: faster compute shrank every
  // window at once). Per-microbatch classes draw on all m microbatches' passes, then the step's
  // once-per-step traffic on what is left of one microbatch's. At most `window` of each second of
  // compute hides communication, so less compute never means a shorter step.
  Window pool(t, m, window);
  for (int c : kAllocationOrder) {
    e.exposed_mb[c] = e.sum_mb[c] - pool.hide(OverlapWith(c), e.sum_mb[c]);
    e.per_microbatch_s += e.exposed_mb[c];
    e.contention_per_microbatch_s += contention(e.sum_mb[c], e.exposed_mb[c], sm_seconds_mb[c]);
  }
  pool.limit_to_one_microbatch(m);
  for (int c : kAllocationOrder) {
    e.exposed_step[c] = e.sum_step[c] - pool.hide(OverlapWith(c), e.sum_step[c]);
    e.tail_s += e.exposed_step[c];
    e.contention_tail_s += contention(e.sum_step[c], e.exposed_step[c], sm_seconds_step[c]);
  }
  return e;
}

double optimizer_bytes(const models::OptimizerRecipe& r, double local_params, int zero, double shard) {
  double bytes = 0;
  for (const models::StateTensor& t : r.tensors) bytes += 2 * t.bytes_per_param * (zero >= t.sharded_from_stage ? local_params / shard : local_params);
  return bytes;
}

double optimizer_seconds(const models::OptimizerRecipe& r, double local_params, int zero, double shard, models::Offload offload,
                         const models::Ceilings& c, const models::Efficiency& e) {
  if (offload != models::Offload::none && c.host_link_Bps) return 2 * local_params * 2 / (*c.host_link_Bps * e.host_link);
  return optimizer_bytes(r, local_params, zero, shard) / (*c.memory_Bps * e.memory);
}

RankStep rank_step(int count, const PassTimes& t, const OverlapExposure& e, double optimizer_s) {
  return {.count = count, .t = t, .exposed_per_microbatch_s = e.per_microbatch_s, .exposed_tail_s = e.tail_s, .comm_s = e.total_s,
          .contention_per_microbatch_s = e.contention_per_microbatch_s, .contention_tail_s = e.contention_tail_s,
          .optimizer_s = optimizer_s};
}

models::StageTime stage_time(const RankStep& r, double m) {
  const PassTimes& t = r.t;
  const double compute = t.compute();
  const double comm = (r.exposed_per_microbatch_s + r.contention_per_microbatch_s) / m;
  const double fwd_share = compute > 0 ? t.forward / compute : 0.5;
  return {t.forward + fwd_share * comm, t.backward_input + t.recompute + (1 - fwd_share) * comm, t.backward_weight};
}

StepTotals step_totals(models::Schedule s, int vp, double m, std::span<const RankStep> classes, std::optional<double> data_loading_s) {
  constexpr std::size_t kInline = 8;
  std::array<models::StageTime, kInline> inline_stages;
  std::array<int, kInline> inline_counts;
  std::vector<models::StageTime> many_stages;
  std::vector<int> many_counts;
  std::span<models::StageTime> stages = inline_stages;
  std::span<int> counts = inline_counts;
  if (classes.size() > kInline) {
    many_stages.resize(classes.size()), many_counts.resize(classes.size());
    stages = many_stages, counts = many_counts;
  }
  stages = stages.first(classes.size()), counts = counts.first(classes.size());
  StepTotals out;
  for (std::size_t i = 0; i < classes.size(); ++i) {
    stages[i] = stage_time(classes[i], m);
    counts[i] = classes[i].count;
    if (classes[i].per_microbatch_s(m) > classes[std::size_t(out.slowest)].per_microbatch_s(m)) out.slowest = int(i);
    if (classes[i].tail_s() > classes[std::size_t(out.tail)].tail_s()) out.tail = int(i);
  }
  out.pipe = models::pipeline_time(s, vp, m, stages, counts);
  const double before_data = out.pipe.step_s() + classes[std::size_t(out.tail)].tail_s();
  out.data_s = std::max(0.0, data_loading_s.value_or(0) - before_data);
  out.step_s = before_data + out.data_s;
  return out;
}

models::Activity step_activity(const StepTotals& totals, std::span<const RankStep> classes, double m) {
  const RankStep& k = classes[std::size_t(totals.slowest)];
  const RankStep& tail = classes[std::size_t(totals.tail)];
  const PassTimes& t = k.t;
  models::Activity a;
  a.compute_s = m * (t.forward + t.backward_input + t.backward_weight) - m * (t.memory_bound + t.overhead) + m * t.recompute +
                k.contention_per_microbatch_s + tail.contention_tail_s;
  a.memory_s = m * t.memory_bound + tail.optimizer_s;
  a.communication_s = k.exposed_per_microbatch_s + tail.exposed_tail_s;
  a.idle_s = m * t.overhead + totals.pipe.bubble_s + totals.data_s;
  return a;
}

JobFigures job_figures(const std::string& file, const ReliabilitySettings& r, int devices, double state_bytes, double tokens_per_s,
                       std::optional<double> tokens) {
  const ReliabilityDefaults rd;
  JobFigures j;
  j.device_mtbf_s = r.device_mtbf_s.value_or(models::llama3_device_mtbf_s());
  j.job_mtbf_s = models::job_mtbf_s(j.device_mtbf_s, devices);
  j.checkpoint_write_s = r.checkpoint_write_s.value_or(state_bytes / rd.storage_write_Bps_per_device);
  j.restart_s = r.restart_s.value_or(rd.restart_s);
  j.checkpoint_interval_s = j.checkpoint_write_s > 0 ? models::daly_interval_s(j.checkpoint_write_s, j.job_mtbf_s) : 1.0;
  j.goodput_fraction = j.checkpoint_interval_s / models::daly_wall_time_s(j.checkpoint_interval_s, j.checkpoint_interval_s,
                                                                          j.checkpoint_write_s, j.restart_s, j.job_mtbf_s);
  if (tokens) {
    j.time_to_train_s = *tokens / tokens_per_s;
    const models::Goodput g = models::goodput(*j.time_to_train_s, j.checkpoint_write_s, j.restart_s, j.job_mtbf_s);
    j.expected_wall_s = g.wall_s;
    j.goodput_fraction = g.fraction;
    j.expected_failures = g.failures;
  }
  // Failures faster than a checkpoint can be written and restarted from: Daly's expected wall time
  // overflows and the job never completes. Refused, rather than printed as an infinite time.
  const bool finishes = std::isfinite(j.goodput_fraction) && j.goodput_fraction > 0 &&
                        (!j.expected_wall_s || (std::isfinite(*j.expected_wall_s) && std::isfinite(j.expected_failures.value_or(0))));
  if (!finishes)
    throw InputError({file, 0, 0}, fmt::format("reliability: a failure every {} across {} devices (device MTBF {}) against a {} checkpoint write and "
                                     "a {} restart: the job never completes",
                                     duration_text(j.job_mtbf_s), devices, duration_text(j.device_mtbf_s), duration_text(j.checkpoint_write_s),
                                     duration_text(j.restart_s)));
  return j;
}

}  // namespace perfcast
