#pragma once
// `perfcast sweep` (DESIGN.md "Speed"): every layout of a training scenario's space, rejected by
// the layout rules first, then by memory, then timed with the same numeric core as `predict`
// (training_step.hpp) and ranked by an objective under constraints. Streaming: each thread keeps
// its top k and its Pareto front, so memory stays flat in the size of the space. Shards split the
// units of the space deterministically (unit index mod N); merge_sweeps combines them into what
// one run gives.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/sweep/ranking.hpp"
#include "engine/spec/scenario.hpp"
#include "engine/sweep/sweep_space.hpp"
#include "engine/predict/economics.hpp"
#include "engine/predict/training.hpp"
#include "engine/core/units.hpp"

namespace perfcast {

enum class SweepMetric { time_to_train, step_time, tokens_per_s, mfu, memory, usd, co2, energy, tokens_per_dollar };
constexpr int kSweepMetrics = int(SweepMetric::tokens_per_dollar) + 1;
std::string_view name_of(SweepMetric m);
bool higher_is_better(SweepMetric m);
// The metric an --objective or --pareto word names: time (time_to_train with [training] tokens,
// else tokens_per_s), cost (usd), co2, tokens_per_dollar, or any metric name.
SweepMetric sweep_metric(std::string_view word, const Scenario& s, std::string_view option);

// "time_to_train<=60d", "usd<=5e6", "memory<=70GiB", "mfu>=0.4": a bound on a metric, in its
// unit (SI, or any unit of the same dimension). The training and inference sweeps each have
// their own metrics.
template <class Metric>
struct MetricBound {
  Metric metric{};
  bool at_most = true;
  double bound = 0;
  std::string text;
  bool holds(double value) const { return at_most ? value <= bound : value >= bound; }
};
using SweepConstraint = MetricBound<SweepMetric>;
SweepConstraint parse_constraint(const std::string& text, const Scenario& s);

// A metric's name, unit and direction, as both sweeps list them.
struct MetricInfo {
  std::string_view name;
  units::Dimension dimension;
  bool higher_better;
};
// The index of `word` in `metrics`, or InputError naming `option` and listing `also` (the
// objective words) and every name.
std::size_t metric_index(std::span<const MetricInfo> metrics, std::string_view word, std::string_view option, std::string_view also,
                         std::string_view kind);

// The parts of any "NAME<=VALUE" / "NAME>=VALUE" bound; the value is checked against `want`
// (a bare number is in the metric's SI unit). InputError naming --constraint otherwise.
struct BoundText {
  std::string name, value;
  bool at_most = true;
};
BoundText split_bound(const std::string& text);
double bound_value(const std::string& text, const std::string& value, units::Dimension want, std::string_view metric);

// One layout's figures, SI. time_to_train_s is the expected wall time with failures (0 without
// [training] tokens); usd, co2e_kg (operational + embodied), energy_J (facility when a region is
// known) and tokens_per_usd are 0 unless the search needs them.
struct SweepFigures {
  double step_s = 0, tokens_per_s = 0, mfu = 0, memory_B = 0, time_to_train_s = 0;
  double usd = 0, co2e_kg = 0, energy_J = 0, tokens_per_usd = 0;
  double value(SweepMetric m) const;
};

struct SweepRow {
  std::uint64_t id = 0;   // position in the space: ties break on it
  SweepLayout layout;
  SweepFigures figures;
};

// Lower is better: the metric's value, negated when higher is better (engine/sweep/ranking.hpp).
double rank_key(const SweepRow& r, SweepMetric m);

// What a sweep judged and why it dropped what it dropped (training and inference alike).
struct SweepCounts {
  std::uint64_t combinations = 0;   // ids this run covered
  std::uint64_t repeats = 0;        // training: not distinct (a schedule other than plain 1F1B without pp)
  std::array<std::uint64_t, kLayoutRules> rule{};
  std::uint64_t memory = 0;         // over the device's usable memory
  std::vector<std::uint64_t> constraint;  // per constraint, the first one a layout breaks
  std::uint64_t timed = 0, feasible = 0;
  std::uint64_t better_than_baseline = 0;  // feasible layouts strictly better than the scenario's own
  void add(const SweepCounts& o);
};

// Whether `f` meets every bound; the first one it breaks is counted in `counts.constraint`.
template <class Metric, class Figures>
bool meets(const std::vector<MetricBound<Metric>>& bounds, const Figures& f, SweepCounts& counts) {
  for (std::size_t k = 0; k < bounds.size(); ++k)
    if (!bounds[k].holds(f.value(bounds[k].metric))) {
      ++counts.constraint[k];
      return false;
    }
  return true;
}

// What a sweep keeps of the layouts that pass: the counts, the best k by the objective, the
// Pareto front, and how many beat the scenario's own layout. One per thread, merged at the end.
template <class Row, class Metric>
class Ranking {
 public:
  Ranking(int k, Metric objective, std::vector<Metric> pareto, std::size_t constraints, double baseline_key)
      : top_(k, objective), front_(std::move(pareto)), objective_(objective), baseline_key_(baseline_key) {
    counts.constraint.assign(constraints, 0);
  }
  SweepCounts counts;
  // A layout that fits and meets every constraint.
  void keep(const Row& r) {
    ++counts.feasible;
    if (rank_key(r, objective_) < baseline_key_) ++counts.better_than_baseline;
    top_.offer(r);
    front_.offer(r);
  }
  void merge(const Ranking& o) {
    counts.add(o.counts);
    for (const Row& r : o.top_.sorted()) top_.offer(r);
    for (const Row& r : o.front_.sorted()) front_.offer(r);
  }
  std::vector<Row> best() const { return top_.sorted(); }
  std::vector<Row> front() const { return front_.sorted(); }

 private:
  TopK<Row, Metric> top_;
  ParetoFront<Row, Metric> front_;
  Metric objective_;
  double baseline_key_;
};

struct SweepRequest {
  std::vector<int> devices;            // empty: the scenario's count
  std::string objective = "time";
  std::vector<std::string> constraints;
  std::vector<std::string> pareto;     // two or more metric words; empty: no front
  int top = 20;
  int shard = 0, shards = 1;
  int threads = 0;                     // 0: every core
  bool predict_own_layout = true;      // false: no baseline (`perfcast plan` sweeps layouts, not the scenario's own)
  // Called about ten times a second from the calling thread: units done, units in all.
  std::function<void(std::uint64_t, std::uint64_t)> progress;
};

struct SweepResult {
  std::string scenario_file, scenario, workload, accelerator;
  std::string stack;                   // the training stack whose rules dropped layouts
  SweepSpace space;
  SweepMetric objective = SweepMetric::time_to_train;
  std::vector<SweepConstraint> constraints;
  std::vector<SweepMetric> pareto;
  int top = 20, shard = 0, shards = 1;
  bool job = false;                    // [training] tokens: time_to_train is known
  bool economics = false;              // usd, co2, energy and tokens_per_dollar were computed
  double capacity_B = 0;
  SweepCounts counts;
  std::vector<SweepRow> best;          // by the objective, then id
  std::vector<SweepRow> front;         // Pareto front, by its first metric, then id
  SweepRow baseline;                   // the scenario's own layout (id unused)
  bool baseline_fits = true;
  double seconds = 0;
  int threads = 1;
};

SweepResult sweep(const Scenario& s, const SweepRequest& r, const TrainingOptions& o = {});

// One layout through the sweep's evaluator (memory and layout rules not enforced): what the
// sweep would rank it by. The tests hold it equal to predict_training.
SweepFigures sweep_figures(const Scenario& s, const SweepLayout& l, bool economics, const TrainingOptions& o = {});

// Writes a priced layout's cost, emissions (operational + embodied), facility energy and tokens per
// dollar into `f`, as the sweep ranks them; `tokens`: the job's ([training] tokens).
void add_economics(SweepFigures& f, const Economics& e, std::optional<double> tokens);

// One layout's figures without cost, and what it consumes (engine/predict/economics): what pricing
// the same layout under many offers and regions needs, timed once.
struct LayoutUse {
  SweepFigures figures;
  Consumption use;
};
LayoutUse layout_use(const Scenario& s, const SweepLayout& l, const TrainingOptions& o = {});

// `predict(scenario)` on `s` with each row's layout applied (apply_layout), in the rows' order.
template <class Row, class Predict>
auto predict_layouts(const Scenario& s, const std::vector<Row>& rows, Predict predict) {
  std::vector<decltype(predict(s))> out;
  Scenario x = s;
  for (const Row& row : rows) {
    apply_layout(x, row.layout);
    out.push_back(predict(x));
  }
  return out;
}

// The full predictions of `rows` (predict_training on each layout).
std::vector<TrainingPrediction> predict_rows(const Scenario& s, const std::vector<SweepRow>& rows,
                                             const TrainingOptions& o = {});

// Combines the shards of one sweep (same scenario, space, objective, constraints and front; every
// shard i of N once). InputError naming the file otherwise.
SweepResult merge_sweeps(const std::vector<SweepResult>& shards, const std::vector<std::string>& files);

}  // namespace perfcast
