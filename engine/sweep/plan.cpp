#include "engine/sweep/plan.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/predict/economics.hpp"
#include "engine/sweep/training_sweep.hpp"

namespace perfcast {
namespace {

// The funnel a candidate passes, in order: the reason named when nothing is left is the one
// furthest along that removed any.
enum Stage { kCandidate, kDeviceCap, kLayout, kOffer, kPrice, kDeadline, kBudget };

// The candidate's scenario paid for as `p`, at the count and layout of `l`.
Scenario priced(Scenario x, const PlanPayment& p, const SweepLayout& l) {
  apply_layout(x, l);
  return paid_as(std::move(x), p);
}

// The bound nearest to binding, as a share of it.
std::string binding(const PlanRow& row, const PlanRequest& r) {
  std::pair<double, std::string> worst{row.capacity_B > 0 ? row.memory_B / row.capacity_B : 0, "memory"};
  if (r.deadline_s) worst = std::max(worst, {row.risked(row.wall_s) / *r.deadline_s, "deadline"});
  if (r.budget_usd) worst = std::max(worst, {row.outlay_usd() / *r.budget_usd, "budget"});
  if (r.max_devices) worst = std::max(worst, {double(row.devices) / *r.max_devices, "device cap"});
  return fmt::format("{} {:.0f}%", worst.second, 100 * worst.first);
}

}  // namespace

std::string_view name_of(PlanMetric m) {
  switch (m) {
    case PlanMetric::time: return "time";
    case PlanMetric::cost: return "cost";
    case PlanMetric::co2: return "co2";
  }
  return "?";
}

void check_pareto(const std::vector<PlanMetric>& pareto) {
  if (pareto.size() == 1) throw InputError({}, "--pareto: give two or more of time, cost, co2");
  for (std::size_t i = 0; i < pareto.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (pareto[i] == pareto[k])
        throw InputError({}, fmt::format("--pareto: '{}' twice; a front is of two or more different metrics", name_of(pareto[i])));
}

PlanMetric plan_metric(std::string_view word, std::string_view option) {
  for (PlanMetric m : {PlanMetric::time, PlanMetric::cost, PlanMetric::co2})
    if (word == name_of(m)) return m;
  throw InputError({}, fmt::format("{} '{}': give time, cost or co2", option, word));
}

double PlanRow::value(PlanMetric m) const {
  switch (m) {
    case PlanMetric::time: return risked(wall_s);
    case PlanMetric::cost: return risked(usd);
    case PlanMetric::co2: return co2_known ? risked(co2e_kg) : std::numeric_limits<double>::infinity();
  }
  return 0;
}

PlanReport plan(const PlanCandidates& candidates, const std::string& scenario_file, const std::vector<int>& nodes, const PlanRequest& r,
                const TrainingOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  if (r.shards < 1 || r.shard < 0 || r.shard >= r.shards) throw InputError({}, fmt::format("--shard {}/{}: give i/N with 0 <= i < N", r.shard, r.shards));
  if (r.top < 0) throw InputError({}, "--top: must not be negative");
  check_pareto(r.pareto);
  PlanReport out{.scenario_file = scenario_file, .request = r, .space = candidates.space,
                 .without_system = candidates.without_system, .nodes = nodes};
  const bool counts_candidates = r.shard == 0;
  PlanFunnel funnel = PlanFunnel::of_candidates(candidates.dropped, r.shard);

  PlanRanking<PlanRow> kept(r.objective, r.top, r.pareto);
  std::uint64_t unit = 0;
  for (const PlanHardware& h : candidates.hardware) {
    if (!h.scenario) {
      if (counts_candidates) funnel.drop(kCandidate, fmt::format("{}: {}", h.system, h.error));
      continue;
    }
    const Scenario& s = *h.scenario;
    if (out.scenario.empty()) {
      out.scenario = s.name, out.workload = s.workload.label();
      out.stack = std::string(models::name_of(s.training->stack));
    }
    if (!s.training->tokens) throw InputError({scenario_file, 0, 0}, "plan needs [training] tokens: the job whose time, cost and CO2e it ranks");
    out.systems.push_back(h.system);
    if (h.payments.empty()) continue;
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      const std::uint64_t this_unit = unit++;
      if (this_unit % std::uint64_t(r.shards) != std::uint64_t(r.shard)) continue;
      const int devices = nodes[k] * h.devices_per_node;
      if (r.max_devices && devices > *r.max_devices) {
        funnel.drop(kDeviceCap, "more devices than --max-devices", long(h.payments.size()));
        continue;
      }
      if (nodes[k] > 1 && !s.hw.scale_out) {
        funnel.drop(kDeviceCap, "more than one node of a system with no scale-out network in the database", long(h.payments.size()));
        continue;
      }
      ++out.units;
      SweepRequest q{.devices = {devices}, .objective = "time", .top = 1, .threads = r.threads, .predict_own_layout = false};
      SweepResult swept;
      try {
        swept = sweep(s, q, o);
      } catch (const InputError& e) {
        funnel.drop(kLayout, fmt::format("{}: {}", h.system, e.message()), long(h.payments.size()));
        continue;
      }
      out.layouts += swept.counts.combinations - swept.counts.repeats;
      out.timed += swept.counts.timed;
      if (swept.best.empty()) {
        funnel.drop(kLayout, swept.counts.memory > 0 ? "no layout the stack runs fits in device memory" : "no layout the stack runs divides the job",
             long(h.payments.size()));
        continue;
      }
      const SweepLayout& layout = swept.best.front().layout;
      const LayoutUse use = layout_use(s, layout, o);
      // The band of the step at this count and layout: every payment's wall time, cost and CO2e move with it.
      std::optional<StepSlowness> slowness;
      if (r.slowness) {
        Scenario at = s;
        apply_layout(at, layout);
        slowness = r.slowness(at);
      }
      if (r.risk_p90 && !slowness) {
        funnel.drop(kDeadline, "no empirical band to size at P90 (--risk p90)", long(h.payments.size()));
        continue;
      }
      for (std::size_t pi = 0; pi < h.payments.size(); ++pi) {
        const PlanPayment& p = h.payments[pi];
        if (!p.misfit[k].empty()) {
          funnel.drop(kOffer, "the offer cannot hold the devices (" + p.misfit[k] + ")");
          continue;
        }
        std::optional<Economics> e;
        try {
          e = economics_if_known(priced(s, p, layout), use.use);
        } catch (const InputError& err) {
          funnel.drop(kPrice, fmt::format("{} {}: {}", h.system, p.label, err.message()));
          continue;
        }
        ++out.priced;
        if (!e || !e->usd) {
          funnel.drop(kPrice, fmt::format("{} {}: no cost known", h.system, p.label));
          continue;
        }
        PlanRow row{.id = plan_row_id(this_unit, pi), .system = h.system, .accelerator = h.accelerator, .payment = p.label, .offer = p.cost.offer, .region = p.region.name,
                    .kind = p.kind, .nodes = nodes[k], .devices = devices, .layout = layout};
        SweepFigures f = use.figures;
        add_economics(f, *e, s.training->tokens);
        row.wall_s = e->job_wall_s.value_or(f.time_to_train_s);
        row.usd = f.usd;
        if (p.kind == Payment::purchase) row.capex_usd = e->capex_usd.value_or(0);
        row.co2e_kg = f.co2e_kg;
        row.co2_known = e->co2e_kg.has_value();
        row.energy_J = f.energy_J;
        row.tokens_per_s = f.tokens_per_s;
        row.mfu = f.mfu;
        row.memory_B = f.memory_B;
        row.capacity_B = swept.capacity_B;
        row.slowness = slowness;
        row.at_p90 = r.risk_p90;
        if (r.deadline_s && row.risked(row.wall_s) > *r.deadline_s) {
          funnel.drop(kDeadline, r.risk_p90 ? "misses the deadline at P90" : "misses the deadline");
          continue;
        }
        if (r.budget_usd && row.outlay_usd() > *r.budget_usd) {
          funnel.drop(kBudget, r.risk_p90 && row.capex_usd <= 0 ? "over the budget at P90" : "over the budget");
          continue;
        }
        row.binds = binding(row, r);
        kept.offer(row);
      }
    }
  }

  out.best = kept.best.sorted();
  out.front = kept.front.sorted();
  out.dropped = std::move(funnel.dropped);
  if (kept.offered == 0) out.last_removed_by = std::move(funnel.last_removed_by), out.last_removed_stage = funnel.furthest;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

Scenario row_scenario(const PlanCandidates& candidates, const PlanRow& row) {
  for (const PlanHardware& h : candidates.hardware) {
    if (h.system != row.system || !h.scenario) continue;
    for (const PlanPayment& p : h.payments)
      if (p.label == row.payment && p.region.name == row.region) return priced(*h.scenario, p, row.layout);
  }
  throw InputError({}, fmt::format("plan: no candidate {} paid as {} in {}", row.system, row.payment, row.region));
}

}  // namespace perfcast
