#pragma once
// What `perfcast plan` ranks its rows by (training and serving alike): the objective, and the
// Pareto front of two or three metrics, lower better on each. A row type gives value(PlanMetric).
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/spec/plan_space.hpp"

namespace perfcast {

enum class PlanMetric { time, cost, co2 };
std::string_view name_of(PlanMetric m);
// "time", "cost", "co2"; InputError naming `option` otherwise.
PlanMetric plan_metric(std::string_view word, std::string_view option);

// The `top` rows lowest in `m`; ties keep the order of the search.
template <class Row>
std::vector<Row> best_rows(std::vector<Row> rows, PlanMetric m, int top) {
  std::stable_sort(rows.begin(), rows.end(), [m](const Row& a, const Row& b) { return a.value(m) < b.value(m); });
  if (rows.size() > std::size_t(top)) rows.resize(std::size_t(top));
  return rows;
}

// The rows no other row dominates (at least as good on every metric, better on one), by the first
// metric. O(n²): plans price hundreds of rows, not millions.
template <class Row>
std::vector<Row> pareto_rows(const std::vector<Row>& rows, const std::vector<PlanMetric>& metrics) {
  auto dominates = [&](const Row& a, const Row& b) {
    bool better = false;
    for (PlanMetric m : metrics) {
      if (a.value(m) > b.value(m)) return false;
      if (a.value(m) < b.value(m)) better = true;
    }
    return better;
  };
  std::vector<Row> front;
  if (metrics.empty()) return front;
  for (const Row& row : rows)
    if (std::none_of(rows.begin(), rows.end(), [&](const Row& other) { return dominates(other, row); })) front.push_back(row);
  const int size = int(front.size());
  return best_rows(std::move(front), metrics.front(), size);
}

// Candidates dropped on their way through a plan's stages (numbered in the order a candidate meets
// them): counted by reason, and the reason furthest along remembered, which is named when no row is left.
struct PlanFunnel {
  ReasonCounts dropped;
  std::string last_removed_by;
  int furthest = 0;
  void drop(int stage, const std::string& reason, long n = 1) {
    if (n <= 0) return;
    if (stage >= furthest) furthest = stage, last_removed_by = reason;
    count_reason(dropped, reason, n);
  }
};

}  // namespace perfcast
