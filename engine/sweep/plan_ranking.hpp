#pragma once
// What `perfcast plan` ranks its rows by (training and serving alike): the objective, and the
// Pareto front of two or three metrics, lower better on each.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/spec/plan_space.hpp"
#include "engine/spec/scenario.hpp"
#include "engine/sweep/ranking.hpp"

namespace perfcast {

// A row's empirical band (docs/models.md F-UNC-2): P10/P50/P90 of ln(reality / prediction) for a
// training step, or of ln(predicted / measured) rate for a serving replica, with the cases behind it;
// given per scenario by a caller above sweep/ (calibrate's bands).
struct StepSlowness {
  double p10 = 0, p50 = 0, p90 = 0;
  int cases = 0, sources = 0;
};
using SlownessOf = std::function<std::optional<StepSlowness>(const Scenario&)>;

enum class PlanMetric { time, cost, co2 };
std::string_view name_of(PlanMetric m);
// "time", "cost", "co2"; InputError naming `option` otherwise.
PlanMetric plan_metric(std::string_view word, std::string_view option);
// --pareto: none, or two or three different metrics; InputError otherwise.
void check_pareto(const std::vector<PlanMetric>& pareto);

// The rows a plan keeps, through the sweep's streaming TopK and ParetoFront: the best `top` by the
// objective and the front of the Pareto metrics, lower better on each (a row type has
// rank_key(row, PlanMetric)). Each row's id is its place in the whole search, set by the plan
// (plan_row_id): it breaks ties, so shards merged rank as one run does.
template <class Row>
struct PlanRanking {
  TopK<Row, PlanMetric> best;
  ParetoFront<Row, PlanMetric> front;
  std::uint64_t offered = 0;
  PlanRanking(PlanMetric objective, int top, const std::vector<PlanMetric>& pareto) : best(top, objective), front(pareto) {}
  void offer(const Row& row) {
    ++offered;
    best.offer(row);
    front.offer(row);
  }
};

// A row's place in the whole search: the unit it was judged in (a system and node count, or a
// replica layout), counted over every shard, and the payment within the unit.
inline std::uint64_t plan_row_id(std::uint64_t unit, std::size_t payment) { return unit << 20 | std::uint64_t(payment); }

// Candidates dropped on their way through a plan's stages (numbered in the order a candidate meets
// them): counted by reason, and the reason furthest along remembered, which is named when no row is left.
struct PlanFunnel {
  ReasonCounts dropped;
  std::string last_removed_by;
  int furthest = 0;
  // A plan's funnel, starting from what no candidate could be made of: counted in shard 0 only, so
  // merged shards count it once.
  static PlanFunnel of_candidates(const ReasonCounts& dropped, int shard) {
    PlanFunnel f;
    if (shard == 0) f.dropped = dropped;
    if (!f.dropped.empty()) f.last_removed_by = f.dropped.back().first;
    return f;
  }
  void drop(int stage, const std::string& reason, long n = 1) {
    if (n <= 0) return;
    if (stage >= furthest) furthest = stage, last_removed_by = reason;
    count_reason(dropped, reason, n);
  }
};

}  // namespace perfcast
