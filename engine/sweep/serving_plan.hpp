#pragma once
// `perfcast plan` on a serving scenario: the cheapest fleet that serves a request rate within its
// TTFT and TPOT SLOs. For each system of the database, each replica size (TP within a node, PP
// across nodes), each weight precision the device runs, and each way of paying for it (a cloud
// offer on demand, or a purchase in a region): the replicas `perfcast capacity` sizes for the rate
// (F-SRV-2's engine simulation at the SLO percentile), packed into whole instances or nodes, and
// the fleet's cost and CO2e per hour at that load; ranked by an objective under a budget per hour
// and a device cap, with the Pareto front of latency, cost and CO2e.
//
// The simulation is per replica layout and serves every payment and region: a replica's latency
// does not depend on its price.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/spec/plan_space.hpp"
#include "engine/sweep/inference_sweep.hpp"
#include "engine/sweep/plan_ranking.hpp"
#include "models/serving.hpp"

namespace perfcast {

struct ServingPlanRequest {
  std::optional<double> rate;                    // requests/s over the fleet; default [serving] arrival_rate
  std::optional<double> ttft_slo_s, tpot_slo_s;  // default [serving] ttft_slo_s / tpot_slo_s
  std::optional<double> percentile;              // default [serving] slo_percentile
  std::vector<Precision> weight_dtypes;          // empty: the scenario's own and each lower one the device computes in
  std::optional<double> budget_usd_per_hour;
  std::optional<int> max_devices;
  PlanMetric objective = PlanMetric::cost;
  std::vector<PlanMetric> pareto = {PlanMetric::time, PlanMetric::cost, PlanMetric::co2};
  int top = 20;
  int shard = 0, shards = 1;  // replica layouts whose index mod shards is shard
  int threads = 0;            // 0: every core
  std::string calibration;    // the profile the options carry ("" none): written out, so shards of one plan agree
  SlownessOf slowness;        // each replica's serving-rate band (none: rows carry no band)
  bool risk_p90 = false;      // cost, CO2e and the budget at the band's P90 fleet
};

struct ServingPlanRow {
  std::uint64_t id = 0;      // its place in the search (ties rank by it)
  std::string system, accelerator, payment, offer, region;
  Payment kind = Payment::cloud;
  ServeLayout replica;         // one replica: devices = tp × pp, its dtypes (batch unused)
  Precision compute = Precision::bf16;
  int replicas = 0;            // the fewest `capacity` finds meeting the SLOs at the rate
  int units = 0;               // instances rented or nodes bought holding them
  int devices = 0;             // devices paid for (whole instances or nodes)
  double rate_per_replica = 0; // requests/s each replica takes
  models::ServingPoint point;  // one replica at that rate (TTFT, TPOT, E2E at the SLO percentile)
  double usd_per_hour = 0;     // rented device-hours, or (purchase) the fleet's share of its TCO
  double usd_per_million_tokens = 0;  // output tokens
  double capex_usd = 0;        // purchase: the systems' price, up front
  double co2e_kg_per_hour = 0, power_W = 0;  // operational (location-based) plus embodied; facility power
  bool co2_known = true;       // false: no region, so no grid intensity (co2 then ranks last)
  std::string binds;           // the bound nearest to binding: "tpot 97%", "budget 40%"
  // The replica's rate band and the fleet at its slow end: each replica sustaining e^-P90 of its
  // predicted SLO rate, replicas x e^P90 rounded up, packed as the point's, the cost per hour with the units.
  std::optional<StepSlowness> slowness;
  int replicas_p90 = 0, units_p90 = 0;
  double usd_per_hour_p90 = 0;
  bool at_p90 = false;         // ranked and bounded as the P90 fleet (--risk p90)
  double units_share() const { return at_p90 && units > 0 ? double(units_p90) / units : 1; }
  // time: the E2E latency at the SLO percentile; cost: USD per hour; co2: kg CO2e per hour.
  double value(PlanMetric m) const;
};
inline double rank_key(const ServingPlanRow& r, PlanMetric m) { return r.value(m); }

struct ServingPlanReport {
  std::string scenario_file, scenario, workload, engine;
  ServingPlanRequest request;  // rate and SLOs as applied
  PlanSpace space;                          // accelerators, payments and regions asked
  std::vector<std::string> without_system;  // accelerators not searched: no system in the database is built from them
  models::Slo slo;
  double rate = 0, input_len = 0, output_len = 0;
  std::vector<std::string> systems;                     // searched
  std::uint64_t layouts = 0, simulated = 0, priced = 0; // replica layouts judged, simulated (fit and met the SLOs' lone request), rows priced
  ReasonCounts dropped;
  std::string last_removed_by;
  int last_removed_stage = 0;  // how far along the search that reason is (a merge keeps the furthest)
  std::vector<ServingPlanRow> best, front;
  std::vector<std::string> assumptions;
  double seconds = 0;
};

// Throws InputError without a rate or an SLO, or for a scenario that is not an LLM served at a rate.
ServingPlanReport serving_plan(const PlanCandidates& candidates, const std::string& scenario_file, const ServingPlanRequest& r,
                               const InferenceOptions& o = {});

// The row's scenario: one replica of its layout on the candidate's system, paid for as the row is,
// with [serving] arrival_rate and the SLOs set — `perfcast capacity` on it sizes the row's fleet
// (the tests hold it equal to the row).
Scenario serving_row_scenario(const PlanCandidates& candidates, const ServingPlanReport& report, const ServingPlanRow& row);

}  // namespace perfcast
