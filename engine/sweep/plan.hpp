#pragma once
// `perfcast plan`: the purchase question in one search. For each system of the database that can
// run the scenario's training job, each node count, and each way of paying for it (a cloud offer on
// demand or spot, or a purchase in a region), the layout the job's stack runs fastest at that count
// (the training sweep), its wall time after failures, cost and CO2e; ranked by an objective under a
// deadline, a budget and a device cap, with the Pareto front of time, cost and CO2e.
//
// One sweep per system and node count serves every payment: at a fixed count a layout's cost grows
// with its time for every offer and purchase (device-hours at one price), so the fastest layout is
// also the cheapest; its energy, and so its CO2e, is taken at that layout.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/spec/plan_space.hpp"
#include "engine/sweep/plan_ranking.hpp"
#include "engine/predict/training.hpp"
#include "engine/sweep/sweep_space.hpp"

namespace perfcast {

struct PlanRequest {
  std::optional<double> deadline_s, budget_usd;
  SlownessOf slowness;        // each row's band (none: rows carry no band)
  bool risk_p90 = false;      // deadline, budget and ranking at the band's P90 (the slow end)
  std::optional<int> max_devices;
  PlanMetric objective = PlanMetric::cost;
  std::vector<PlanMetric> pareto = {PlanMetric::time, PlanMetric::cost, PlanMetric::co2};
  int top = 20;
  int shard = 0, shards = 1;  // units (system × node count) whose index mod shards is shard
  int threads = 0;            // per layout sweep (0: every core)
  std::string calibration;    // the profile the options carry ("" none): written out, so shards of one plan agree
};

struct PlanRow {
  std::uint64_t id = 0;      // its place in the search (ties rank by it)
  std::string system, accelerator, payment, offer, region;
  Payment kind = Payment::cloud;
  int nodes = 0, devices = 0;
  SweepLayout layout;
  double wall_s = 0;       // expected wall time after failures, as billed (spot preemptions stretch it)
  double usd = 0;          // the job's cost: rented device-hours, or (purchase) its share of the TCO
  double capex_usd = 0;    // purchase: the systems' price, paid up front
  double co2e_kg = 0, energy_J = 0, tokens_per_s = 0, mfu = 0, memory_B = 0, capacity_B = 0;
  bool co2_known = true;   // false: no region, so no grid intensity (co2 then ranks last)
  std::string binds;       // the bound nearest to binding: "deadline 97%", "budget 40%", "memory 88%"
  std::optional<StepSlowness> slowness;  // the band of its step: wall time, cost and CO2e move with it
  bool at_p90 = false;     // ranked and bounded at the band's P90 (--risk p90)
  // A figure of the row at the step's P10/P50/P90 (no band: the point).
  double at(double point, double StepSlowness::*q) const { return slowness ? point * std::exp((*slowness).*q) : point; }
  // What ranks and bounds it: the point, or with at_p90 the band's P90.
  double risked(double point) const { return at_p90 ? at(point, &StepSlowness::p90) : point; }
  double value(PlanMetric m) const;
  // The money paid out, which --budget bounds: the rent, or a purchase's capex (paid whatever the time).
  double outlay_usd() const { return capex_usd > 0 ? capex_usd : risked(usd); }
};
inline double rank_key(const PlanRow& r, PlanMetric m) { return r.value(m); }

struct PlanReport {
  std::string scenario_file, scenario, workload, stack;
  PlanRequest request;
  PlanSpace space;                          // accelerators, payments and regions asked
  std::vector<std::string> without_system;  // accelerators not searched: no system in the database is built from them
  std::vector<int> nodes;
  std::vector<std::string> systems;          // searched
  std::uint64_t units = 0, layouts = 0, timed = 0, priced = 0;  // system × count units swept, layouts judged and timed, rows priced
  ReasonCounts dropped;                      // by reason, in the order met
  std::string last_removed_by;               // no row left: the reason that removed the last ones
  int last_removed_stage = 0;                // how far along the search that reason is (a merge keeps the furthest)
  std::vector<PlanRow> best;                 // by the objective
  std::vector<PlanRow> front;                // Pareto front of request.pareto, by its first metric
  double seconds = 0;
};

PlanReport plan(const PlanCandidates& candidates, const std::string& scenario_file, const std::vector<int>& nodes, const PlanRequest& r,
                const TrainingOptions& o = {});

// The row's scenario: the candidate's scenario with the row's count, layout, payment and region, as
// `predict` reads it (the tests hold its prediction equal to the row).
Scenario row_scenario(const PlanCandidates& candidates, const PlanRow& row);

}  // namespace perfcast
