#include "engine/sweep/training_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <tuple>

#include "engine/predict/communication.hpp"
#include "engine/predict/economics.hpp"
#include "engine/core/errors.hpp"
#include "engine/predict/memory.hpp"
#include "engine/core/parallel.hpp"
#include "engine/sweep/ranking.hpp"
#include "engine/predict/roofline.hpp"
#include "engine/predict/training_step.hpp"
#include "engine/core/units.hpp"

namespace perfcast {
namespace {

constexpr std::array<MetricInfo, kSweepMetrics> kMetrics = {{
    {"time_to_train", units::dim::seconds, false}, {"step_time", units::dim::seconds, false}, {"tokens_per_s", units::dim::none, true},
    {"mfu", units::dim::none, true},                {"memory", units::dim::bytes, false},     {"usd", units::dim::usd, false},
    {"co2", units::dim::kg, false},                 {"energy", units::dim::joules, false},    {"tokens_per_dollar", units::dim::none, true},
}};

const MetricInfo& info(SweepMetric m) { return kMetrics.at(static_cast<std::size_t>(m)); }

// What a metric needs from the scenario beyond a training layout.
void require(SweepMetric m, const Scenario& s, std::string_view option) {
  const bool tokens = s.training && s.training->tokens;
  const bool job = m == SweepMetric::time_to_train || m == SweepMetric::usd || m == SweepMetric::co2 || m == SweepMetric::energy ||
                   m == SweepMetric::tokens_per_dollar;
  if (job && !tokens)
    throw InputError({s.file, 0, 0}, fmt::format("{}: {} is a whole-job figure and needs [training] tokens", option, name_of(m)));
  if ((m == SweepMetric::usd || m == SweepMetric::tokens_per_dollar) && !s.cost.any())
    throw InputError({s.file, 0, 0}, fmt::format("{}: {} needs a [cost] table (offer = \"...\" or purchase = true)", option, name_of(m)));
  if (m == SweepMetric::co2 && s.region.name.empty() && s.cost.offer.empty())
    throw InputError({s.file, 0, 0}, fmt::format("{}: co2 needs a [region] (or a cloud offer, whose region it takes)", option));
}

}  // namespace

double rank_key(const SweepRow& r, SweepMetric m) {
  const double v = r.figures.value(m);
  return higher_is_better(m) ? -v : v;
}

namespace {

using TopRows = TopK<SweepRow, SweepMetric>;
using Front = ParetoFront<SweepRow, SweepMetric>;

// Collective call times inside one unit (fixed placements): by group, collective and size.
class CallMemo {
 public:
  void clear() { std::memset(slots_, 0, sizeof slots_); }
  // The time of one call, computed by `time()` the first time (group, op, bytes) is asked for.
  template <class Time>
  double seconds(int group, int op, double bytes, Time&& time) {
    std::uint64_t bits;
    std::memcpy(&bits, &bytes, sizeof bits);
    const std::uint64_t hash = bits ^ (std::uint64_t(group) << 56) ^ (std::uint64_t(op) << 60);
    std::size_t i = std::size_t((hash * 0x9E3779B97F4A7C15ull) >> 56) & (kSlots - 1);
    for (std::size_t probe = 0; probe < kSlots; ++probe, i = (i + 1) & (kSlots - 1)) {
      Slot& s = slots_[i];
      if (!s.used) {
        s = {bits, group, op, time(), true};
        return s.seconds;
      }
      if (s.bytes_bits == bits && s.group == group && s.op == op) return s.seconds;
    }
    clear();  // full: start over (a unit has far fewer distinct calls than slots)
    return seconds(group, op, bytes, time);
  }

 private:
  static constexpr std::size_t kSlots = 256;
  struct Slot {
    std::uint64_t bytes_bits;  // the whole key is compared: the hash alone can collide
    int group, op;
    double seconds;
    bool used;
  };
  Slot slots_[kSlots];
};

struct ComputeEntry {
  LayerPassTimes layer;
  PassTimes whole;
  ActivationFootprint footprint;
};

// Which of a unit's inner choices are real: without pipeline parallelism every schedule is plain
// 1F1B, and without data-parallel replicas to shard over (dp x cp = 1) every ZeRO stage is ZeRO-0.
bool schedules_distinct(const SweepLayout& l) { return l.pp > 1; }
bool zero_stages_distinct(const SweepLayout& l) { return l.devices / (l.tp * l.pp) != 1; }

// Not a distinct layout: a schedule other than plain 1F1B, or a ZeRO stage other than 0, where
// those choices are not real.
bool repeat(const SweepLayout& l) {
  return (!schedules_distinct(l) && (l.vp > 1 || l.schedule != models::Schedule::one_f_one_b)) ||
         (!zero_stages_distinct(l) && l.zero > 0);
}

// The memory a layout's peak is held against: the device's, or its on-chip SRAM when it has no DRAM.
double usable_capacity(const AcceleratorSpec& a) { return a.memory_capacity_B().value_or(a.sram_B.value_or(0)); }

// The sweep's evaluator: one per thread, with its own copy of the scenario that each layout is
// written into, and caches keyed by what each model input depends on.
class Evaluator {
 public:
  Evaluator(const Scenario& s, const TrainingOptions& o, bool economics, bool keep_use = false)
      : s_(s), a_(s_.hw.device), o_(o), economics_(economics), keep_use_(keep_use) {
    ceilings_ = ceilings_for(a_, s.hw.host_link);
    topology_ = topology_of(s);
    order_ = o.order.empty() ? *parse_order(default_order()) : o.order;
    recipe_ = models::find_recipe(s.training->optimizer);
    const Precision math = training_context(s, a_).math;
    peak_ = s_.hw.rated_peak(math).value_or(0);
    if (peak_ <= 0) throw InputError({s.file, 0, 0}, fmt::format("{} has no dense {} peak to train in", a_.name, name_of(math)));
    capacity_ = usable_capacity(a_);
  }

  // Every layout of unit `u`: counts what is dropped and why, hands the rest to `sink`. The
  // inner dimensions nest in the order SweepSpace::layout decodes them (the schedule fastest), so
  // ids follow the loop.
  template <class Sink>
  void unit(const SweepSpace& space, std::uint64_t u, const std::vector<SweepConstraint>& constraints, SweepCounts& counts, Sink&& sink) {
    const std::uint64_t size = space.unit_size();
    std::uint64_t id = u * size;
    counts.combinations += size;
    SweepLayout l = space.layout(id);
    apply_layout(s_, l);
    // The repeats of the unit: all but the first schedule (plain 1F1B) and the first ZeRO stage
    // (0) where those choices are not real.
    const std::uint64_t pipes = space.pipeline.size(), zeros = space.zero.size();
    const std::uint64_t distinct =
        size / (pipes * zeros) * (schedules_distinct(l) ? pipes : 1) * (zero_stages_distinct(l) ? zeros : 1);
    const std::uint64_t repeats = size - distinct;
    if (const auto rule = broken_layout_rule(s_.workload, s_.parallelism, l.devices, s_.training)) {
      // A rule on the unit's own dimensions: every layout of the unit breaks it (the rules on vp
      // and SP come last), except the repeats, which are not layouts.
      counts.repeats += repeats;
      counts.rule[std::size_t(*rule)] += size - repeats;
      return;
    }
    enter_unit(l);
    for (models::Recompute recompute : space.recompute) {
      for (bool sp : space.sequence_parallel) {
        l.recompute = recompute, l.sequence_parallel = sp;
        const ComputeEntry* entry = nullptr;
        for (int zero : space.zero) {
          for (const PipelineChoice& pipe : space.pipeline) {
            l.zero = zero, l.schedule = pipe.schedule, l.vp = pipe.vp;
            const std::uint64_t this_id = id++;
            if (repeat(l)) {
              ++counts.repeats;
              continue;
            }
            apply_layout(s_, l);
            if (const auto rule = broken_layout_rule(s_.workload, s_.parallelism, l.devices, s_.training)) {
              ++counts.rule[std::size_t(*rule)];
              continue;
            }
            if (!entry) entry = &compute(l);
            const StageMemory peak = training_memory_peak(s_, a_, entry->footprint, overheads_);
            if (peak.total > capacity_) {
              ++counts.memory;
              continue;
            }
            ++counts.timed;
            SweepRow row{this_id, l, figures(*entry, peak)};
            if (!meets(constraints, row.figures, counts)) continue;
            sink(row);
          }
        }
      }
    }
  }

  const Consumption& last_use() const { return use_; }

  // One layout, no rules or memory enforced.
  SweepFigures single(const SweepLayout& l) {
    apply_layout(s_, l);
    enter_unit(l);
    const ComputeEntry& entry = compute(l);
    return figures(entry, training_memory_peak(s_, a_, entry.footprint, overheads_));
  }

 private:
  void enter_unit(const SweepLayout& l) {
    placements_ = place_groups(topology_, s_.parallelism, l.devices, order_);
    for (int g = 0; g < 6; ++g) {
      fabrics_[g] = nullptr;
      for (const GroupPlacement& p : placements_)
        if (p.group == models::name_of(models::TrafficGroup(g))) fabrics_[g] = &p.fabric;
    }
    memo_.clear();
    classes_.clear();
  }

  const ComputeEntry& compute(const SweepLayout& l) {
    const auto key = std::tuple{l.tp, l.cp, l.ep, l.micro_batch, int(l.recompute), l.sequence_parallel};
    auto it = compute_.find(key);
    if (it != compute_.end()) return it->second;
    const models::TransformerSpec& m = s_.workload.transformer();
    ComputeEntry e;
    e.layer = layer_pass_times(models::transformer_ops(m, training_context(s_, a_)), ceilings_, o_.efficiency);
    e.whole = model_pass_times(e.layer, m);
    e.footprint = activation_footprint(m, activation_context(s_));
    return compute_.emplace(key, e).first->second;
  }

  const std::vector<RankClass>& classes(int vp) {
    for (auto& [v, c] : classes_)
      if (v == vp) return c;
    classes_.emplace_back(vp, rank_classes(s_.workload.transformer(), s_.parallelism));
    return classes_.back().second;
  }

  // The step (training_step.hpp, as predict_training assembles it), then the job and its cost.
  SweepFigures figures(const ComputeEntry& entry, const StageMemory& peak) {
    const models::TransformerSpec& m = s_.workload.transformer();
    const TrainingSettings& tr = *s_.training;
    const ParallelismSettings& par = s_.parallelism;
    const int devices = s_.hardware.count;
    const int dp = data_parallel(par, devices);
    const double mb = tr.global_batch / (dp * tr.micro_batch);
    const ShardPlan plan = shard_plan(s_);
    steps_.clear();
    for (const RankClass& c : classes(par.vp)) {
      const PassTimes t = stage_pass_times(entry.layer, c.layers, c.stage, par.pp);
      models::training_traffic(m, training_layout(s_, c.stage), traffic_);
      items_.clear(), times_.clear();
      for (const models::TrafficItem& item : traffic_) {
        const models::Fabric* f = fabrics_[int(item.group)];
        if (!f) continue;
        const double call = memo_.seconds(int(item.group), int(item.op), item.bytes,
                                          [&] { return models::best_collective_time(item.op, item.bytes, *f, o_.collective)->time_s; });
        items_.push_back(item), times_.push_back(item.calls * call);
      }
      const OverlapExposure e = overlap_exposure(items_, times_, t, mb, o_.efficiency.overlap_window, ceilings_.compute_units);
      const double local = local_parameters(m, c.layers, c.stage, plan).total();
      steps_.push_back(rank_step(c.count, t, e,
                                 optimizer_seconds(*recipe_, local, par.zero, double(dp) * par.cp, tr.offload, ceilings_, o_.efficiency)));
    }
    const StepTotals totals = step_totals(par.schedule, par.vp, mb, steps_, tr.data_loading_s);
    SweepFigures f;
    f.step_s = totals.step_s;
    f.tokens_per_s = tr.global_batch * tr.seq_len / f.step_s;
    const double rank_copies = double(par.tp) * par.cp * dp * mb;
    f.mfu = entry.whole.model_flops * rank_copies / (f.step_s * devices * peak_);
    f.memory_B = peak.total;
    const JobFigures job = job_figures(s_.file, s_.reliability, devices, peak.checkpoint_bytes(), f.tokens_per_s, tr.tokens);
    if (job.expected_wall_s) f.time_to_train_s = *job.expected_wall_s;
    if (economics_ || keep_use_) {
      const Consumption use{.devices = devices, .activity = step_activity(totals, steps_, mb), .tokens_per_span = tr.global_batch * tr.seq_len,
                            .job_s = job.expected_wall_s, .checkpoint_interval_s = job.checkpoint_interval_s, .restart_s = job.restart_s};
      if (economics_)
        if (const std::optional<Economics> e = economics_if_known(s_, use)) add_economics(f, *e, tr.tokens);
      use_ = use;
    }
    return f;
  }

  Scenario s_;
  const AcceleratorSpec& a_;
  TrainingOptions o_;
  bool economics_, keep_use_;
  Consumption use_;  // the last layout's, when keep_use_
  models::Ceilings ceilings_;
  Topology topology_;
  std::vector<ParallelDim> order_;
  const models::OptimizerRecipe* recipe_ = nullptr;
  double peak_ = 0, capacity_ = 0;
  MemoryOverheads overheads_;
  std::map<std::tuple<int, int, int, double, int, bool>, ComputeEntry> compute_;
  std::vector<GroupPlacement> placements_;
  const models::Fabric* fabrics_[6] = {};
  CallMemo memo_;
  std::vector<std::pair<int, std::vector<RankClass>>> classes_;
  std::vector<RankStep> steps_;
  std::vector<models::TrafficItem> traffic_, items_;
  std::vector<double> times_;
};

SweepFigures figures_of(const TrainingPrediction& p, std::optional<double> tokens) {
  SweepFigures f;
  f.step_s = p.step_time_s;
  f.tokens_per_s = p.tokens_per_s;
  f.mfu = p.mfu;
  f.memory_B = p.memory.per_device_B;
  f.time_to_train_s = p.expected_wall_s.value_or(0);
  if (p.economics) add_economics(f, *p.economics, tokens);
  return f;
}

bool same_space(const SweepSpace& a, const SweepSpace& b) {
  return a.devices == b.devices && a.tp == b.tp && a.cp == b.cp && a.pp == b.pp && a.ep == b.ep && a.micro_batch == b.micro_batch &&
         a.recompute == b.recompute && a.sequence_parallel == b.sequence_parallel && a.zero == b.zero && a.pipeline == b.pipeline;
}

}  // namespace

std::string_view name_of(SweepMetric m) { return info(m).name; }
bool higher_is_better(SweepMetric m) { return info(m).higher_better; }

std::size_t metric_index(std::span<const MetricInfo> metrics, std::string_view word, std::string_view option, std::string_view also,
                         std::string_view kind) {
  auto it = std::find_if(metrics.begin(), metrics.end(), [&](const MetricInfo& i) { return i.name == word; });
  if (it != metrics.end()) return std::size_t(it - metrics.begin());
  std::string names(also);
  for (const MetricInfo& i : metrics) names += ", " + std::string(i.name);
  throw InputError({}, fmt::format("{} '{}': not {} (one of: {})", option, word, kind, names));
}

SweepMetric sweep_metric(std::string_view word, const Scenario& s, std::string_view option) {
  SweepMetric m;
  if (word == "time") m = s.training && s.training->tokens ? SweepMetric::time_to_train : SweepMetric::tokens_per_s;
  else if (word == "cost") m = SweepMetric::usd;
  else m = SweepMetric(metric_index(kMetrics, word, option, "time, cost", "a metric"));
  require(m, s, option);
  return m;
}

BoundText split_bound(const std::string& text) {
  const std::size_t at = text.find_first_of("<>");
  if (at == std::string::npos || at == 0 || at + 1 >= text.size() || text[at + 1] != '=')
    throw InputError({}, fmt::format("--constraint '{}': write METRIC<=VALUE or METRIC>=VALUE, e.g. time_to_train<=60d", text));
  return {text.substr(0, at), text.substr(at + 2), text[at] == '<'};
}

double bound_value(const std::string& text, const std::string& value, units::Dimension want, std::string_view metric) {
  const std::string option = fmt::format("--constraint '{}'", text);
  units::Quantity q;
  try {
    q = units::parse_quantity(value);
  } catch (const UnitError& e) {
    throw InputError({}, fmt::format("{}: {}", option, e.what()));
  }
  if (q.dimension != want && q.dimension != units::dim::none)
    throw InputError({}, fmt::format("{}: {} is in {}, not {}", option, metric, units::describe(want), units::describe(q.dimension)));
  if (!std::isfinite(q.value) || q.value < 0) throw InputError({}, fmt::format("{}: the bound must be a finite, non-negative number", option));
  return q.value;
}

SweepConstraint parse_constraint(const std::string& text, const Scenario& s) {
  const BoundText b = split_bound(text);
  if (b.name == "time" || b.name == "cost")
    throw InputError({}, fmt::format("--constraint '{}': name the metric (time_to_train, step_time, usd, ...)", text));
  SweepConstraint c;
  c.text = text;
  c.at_most = b.at_most;
  c.metric = sweep_metric(b.name, s, fmt::format("--constraint '{}'", text));
  c.bound = bound_value(text, b.value, info(c.metric).dimension, name_of(c.metric));
  return c;
}

double SweepFigures::value(SweepMetric m) const {
  switch (m) {
    case SweepMetric::time_to_train: return time_to_train_s;
    case SweepMetric::step_time: return step_s;
    case SweepMetric::tokens_per_s: return tokens_per_s;
    case SweepMetric::mfu: return mfu;
    case SweepMetric::memory: return memory_B;
    case SweepMetric::usd: return usd;
    case SweepMetric::co2: return co2e_kg;
    case SweepMetric::energy: return energy_J;
    case SweepMetric::tokens_per_dollar: return tokens_per_usd;
  }
  return 0;
}

void SweepCounts::add(const SweepCounts& o) {
  combinations += o.combinations, repeats += o.repeats, memory += o.memory, timed += o.timed, feasible += o.feasible;
  better_than_baseline += o.better_than_baseline;
  for (std::size_t i = 0; i < rule.size(); ++i) rule[i] += o.rule[i];
  constraint.resize(std::max(constraint.size(), o.constraint.size()));
  for (std::size_t i = 0; i < o.constraint.size(); ++i) constraint[i] += o.constraint[i];
}

SweepResult sweep(const Scenario& s, const SweepRequest& r, const TrainingOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  if (r.shards < 1 || r.shard < 0 || r.shard >= r.shards)
    throw InputError({}, fmt::format("--shard {}/{}: give i/N with 0 <= i < N", r.shard, r.shards));
  if (r.top < 0) throw InputError({}, "--top: must not be negative");
  SweepResult out;
  out.scenario_file = s.file;
  out.stack = std::string(models::name_of(s.training->stack));
  out.scenario = s.name;
  out.workload = s.workload.label();
  out.accelerator = s.hardware.accelerator;
  out.space = training_space(s, r.devices);
  out.objective = sweep_metric(r.objective, s, "--objective");
  for (const std::string& c : r.constraints) out.constraints.push_back(parse_constraint(c, s));
  if (r.pareto.size() == 1) throw InputError({}, "--pareto: give two or more metrics, e.g. time,cost");
  for (const std::string& p : r.pareto) out.pareto.push_back(sweep_metric(p, s, "--pareto"));
  out.top = r.top, out.shard = r.shard, out.shards = r.shards;

  bool economics = false;
  auto needs_money = [](SweepMetric m) {
    return m == SweepMetric::usd || m == SweepMetric::co2 || m == SweepMetric::energy || m == SweepMetric::tokens_per_dollar;
  };
  economics |= needs_money(out.objective);
  for (const SweepConstraint& c : out.constraints) economics |= needs_money(c.metric);
  for (SweepMetric m : out.pareto) economics |= needs_money(m);
  out.economics = economics;
  out.job = s.training->tokens.has_value();

  // The scenario's own layout, predicted in full (this also surfaces [cost] errors up front).
  double baseline_key = std::numeric_limits<double>::infinity();
  if (r.predict_own_layout) {
    const TrainingPrediction own = predict_training(s, o);
    out.baseline = {0, layout_of(s), figures_of(own, s.training->tokens)};
    out.baseline_fits = own.memory.fits;
    out.capacity_B = own.memory.capacity_B;  // what every layout's memory is held against
    baseline_key = rank_key(out.baseline, out.objective);
  } else {
    out.baseline = {0, layout_of(s), {}};
    out.capacity_B = usable_capacity(s.hw.device);
  }

  const std::uint64_t units = out.space.units();
  const std::uint64_t mine = units > std::uint64_t(r.shard) ? (units - std::uint64_t(r.shard) + std::uint64_t(r.shards) - 1) / std::uint64_t(r.shards) : 0;
  const int threads = thread_count(r.threads, mine);
  out.threads = threads;

  struct Worker {
    Ranking<SweepRow, SweepMetric> ranking;
    std::unique_ptr<Evaluator> evaluator;
  };
  const Ranking<SweepRow, SweepMetric> empty(r.top, out.objective, out.pareto, out.constraints.size(), baseline_key);
  std::vector<Worker> workers;
  for (int t = 0; t < threads; ++t) workers.push_back({empty, nullptr});
  for_each_item(threads, mine, r.progress, [&](int t, std::uint64_t k) {
    Worker& w = workers[std::size_t(t)];
    if (!w.evaluator) w.evaluator = std::make_unique<Evaluator>(s, o, economics);
    const std::uint64_t u = std::uint64_t(r.shard) + k * std::uint64_t(r.shards);
    w.evaluator->unit(out.space, u, out.constraints, w.ranking.counts, [&](const SweepRow& row) { w.ranking.keep(row); });
  });
  Ranking<SweepRow, SweepMetric> all = empty;
  for (const Worker& w : workers) all.merge(w.ranking);
  out.counts = all.counts;
  out.best = all.best();
  out.front = all.front();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

SweepFigures sweep_figures(const Scenario& s, const SweepLayout& l, bool economics, const TrainingOptions& o) {
  Evaluator ev(s, o, economics);
  return ev.single(l);
}

void add_economics(SweepFigures& f, const Economics& e, std::optional<double> tokens) {
  f.usd = e.usd.value_or(0);
  f.co2e_kg = e.co2e_kg.value_or(0) + e.embodied_kg.value_or(0);
  f.energy_J = e.job_kwh.value_or(e.job_it_kwh.value_or(0)) * models::kJoulesPerKwh;
  f.tokens_per_usd = f.usd > 0 && tokens ? *tokens / f.usd : 0;
}

LayoutUse layout_use(const Scenario& s, const SweepLayout& l, const TrainingOptions& o) {
  Evaluator ev(s, o, false, true);
  LayoutUse out;
  out.figures = ev.single(l);
  out.use = ev.last_use();
  return out;
}

std::vector<TrainingPrediction> predict_rows(const Scenario& s, const std::vector<SweepRow>& rows,
                                             const TrainingOptions& o) {
  return predict_layouts(s, rows, [&](const Scenario& x) { return predict_training(x, o); });
}

SweepResult merge_sweeps(const std::vector<SweepResult>& shards, const std::vector<std::string>& files) {
  if (shards.empty()) throw InputError({}, "sweep-merge: give the shard files");
  const SweepResult& first = shards.front();
  std::vector<int> seen(std::size_t(std::max(1, first.shards)), 0);
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const SweepResult& x = shards[i];
    const FilePosition where{files[i], 0, 0};
    auto same_constraints = [&] {
      if (x.constraints.size() != first.constraints.size()) return false;
      for (std::size_t c = 0; c < x.constraints.size(); ++c)
        if (x.constraints[c].text != first.constraints[c].text) return false;
      return true;
    };
    if (x.scenario_file != first.scenario_file || x.scenario != first.scenario || x.stack != first.stack || !same_space(x.space, first.space) ||
        x.objective != first.objective || x.pareto != first.pareto || x.top != first.top || !same_constraints())
      throw InputError(where, fmt::format("not a shard of the same sweep as {} (scenario, space, objective, constraints, --pareto and "
                                          "--top must match)", files[0]));
    if (x.shards != first.shards) throw InputError(where, fmt::format("shard of {}, but {} is a shard of {}", x.shards, files[0], first.shards));
    if (seen[std::size_t(x.shard)]++) throw InputError(where, fmt::format("shard {}/{} given twice", x.shard, x.shards));
  }
  for (std::size_t i = 0; i < seen.size(); ++i)
    if (!seen[i]) throw InputError({}, fmt::format("sweep-merge: shard {}/{} is missing", i, first.shards));

  SweepResult out = first;
  out.shard = 0, out.shards = 1;
  out.counts = {};
  out.counts.constraint.assign(first.constraints.size(), 0);
  out.seconds = 0, out.threads = 0;
  TopRows top(first.top, first.objective);
  Front front(first.pareto);
  for (const SweepResult& x : shards) {
    out.counts.add(x.counts);
    out.seconds = std::max(out.seconds, x.seconds);
    out.threads += x.threads;
    for (const SweepRow& row : x.best) top.offer(row);
    for (const SweepRow& row : x.front) front.offer(row);
  }
  out.best = top.sorted();
  out.front = front.sorted();
  return out;
}

}  // namespace perfcast
