#include "engine/sweep/plan_merge.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "engine/core/errors.hpp"

namespace perfcast {
namespace {

bool same_space(const PlanSpace& a, const PlanSpace& b) {
  return a.accelerators == b.accelerators && a.payments == b.payments && a.regions == b.regions;
}

// What both kinds of plan must share to be shards of one: the scenario, the search and the ranking.
template <class Report>
bool same_search(const Report& a, const Report& b) {
  const auto &p = a.request, &q = b.request;
  return a.scenario_file == b.scenario_file && a.scenario == b.scenario && a.workload == b.workload && a.systems == b.systems &&
         a.without_system == b.without_system &&
         same_space(a.space, b.space) && p.objective == q.objective && p.pareto == q.pareto && p.top == q.top &&
         p.max_devices == q.max_devices && p.calibration == q.calibration;
}

bool same_plan(const PlanReport& a, const PlanReport& b) {
  return same_search(a, b) && a.stack == b.stack && a.nodes == b.nodes && a.request.deadline_s == b.request.deadline_s &&
         a.request.budget_usd == b.request.budget_usd && a.request.risk_p90 == b.request.risk_p90;
}

bool same_plan(const ServingPlanReport& a, const ServingPlanReport& b) {
  return same_search(a, b) && a.rate == b.rate && a.input_len == b.input_len && a.output_len == b.output_len &&
         a.slo.ttft_s == b.slo.ttft_s && a.slo.tpot_s == b.slo.tpot_s && a.slo.percentile == b.slo.percentile &&
         a.request.budget_usd_per_hour == b.request.budget_usd_per_hour && a.request.weight_dtypes == b.request.weight_dtypes &&
         a.request.risk_p90 == b.request.risk_p90;
}

void zero_counts(PlanReport& r) { r.units = r.layouts = r.timed = r.priced = 0; }
void zero_counts(ServingPlanReport& r) { r.layouts = r.simulated = r.priced = 0; }

void add_counts(PlanReport& out, const PlanReport& x) {
  out.units += x.units, out.layouts += x.layouts, out.timed += x.timed;
}

void add_counts(ServingPlanReport& out, const ServingPlanReport& x) {
  out.layouts += x.layouts, out.simulated += x.simulated;
  // A shard that simulated nothing does not know the engine its assumptions name.
  if (out.engine.empty() && !x.engine.empty()) out.engine = x.engine, out.assumptions = x.assumptions;
}

template <class Report>
Report merge(const std::vector<Report>& shards, const std::vector<std::string>& files) {
  if (shards.empty()) throw InputError({}, "plan-merge: give the shard files");
  const Report& first = shards.front();
  std::vector<int> seen(std::size_t(first.request.shards), 0);
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const Report& x = shards[i];
    const FilePosition where{files[i], 0, 0};
    if (x.request.shards != first.request.shards)
      throw InputError(where, fmt::format("shard of {}, but {} is a shard of {}", x.request.shards, files[0], first.request.shards));
    if (!same_plan(x, first))
      throw InputError(where, fmt::format("not a shard of the same plan as {} (scenario, systems, payments, regions, bounds, objective, "
                                          "--pareto, --top and calibration must match)", files[0]));
    if (seen[std::size_t(x.request.shard)]++) throw InputError(where, fmt::format("shard {}/{} given twice", x.request.shard, x.request.shards));
  }
  for (std::size_t i = 0; i < seen.size(); ++i)
    if (!seen[i]) throw InputError({}, fmt::format("plan-merge: shard {}/{} is missing", i, first.request.shards));

  // In shard order, so the reasons dropped are listed as one run meets them.
  std::vector<const Report*> ordered;
  for (const Report& x : shards) ordered.push_back(&x);
  std::sort(ordered.begin(), ordered.end(), [](const Report* a, const Report* b) { return a->request.shard < b->request.shard; });

  Report out = first;
  out.request.shard = 0, out.request.shards = 1;
  zero_counts(out);
  out.dropped.clear();
  out.last_removed_by.clear();
  out.last_removed_stage = 0;
  out.seconds = 0;
  using Row = typename decltype(out.best)::value_type;
  std::map<std::uint64_t, Row> rows;  // by id: a row in both its shard's best and front is offered once
  for (const Report* shard : ordered) {
    const Report& x = *shard;
    add_counts(out, x);
    out.priced += x.priced;
    for (const auto& [why, n] : x.dropped) count_reason(out.dropped, why, n);
    if (!x.last_removed_by.empty() && x.last_removed_stage >= out.last_removed_stage)
      out.last_removed_by = x.last_removed_by, out.last_removed_stage = x.last_removed_stage;
    out.seconds = std::max(out.seconds, x.seconds);
    for (const Row& row : x.best) rows.emplace(row.id, row);
    for (const Row& row : x.front) rows.emplace(row.id, row);
  }
  PlanRanking<Row> kept(first.request.objective, first.request.top, first.request.pareto);
  for (const auto& [id, row] : rows) kept.offer(row);
  out.best = kept.best.sorted();
  out.front = kept.front.sorted();
  if (!out.best.empty() || !out.front.empty()) out.last_removed_by.clear(), out.last_removed_stage = 0;
  return out;
}

}  // namespace

PlanReport merge_plans(const std::vector<PlanReport>& shards, const std::vector<std::string>& files) { return merge(shards, files); }

ServingPlanReport merge_plans(const std::vector<ServingPlanReport>& shards, const std::vector<std::string>& files) {
  return merge(shards, files);
}

}  // namespace perfcast
