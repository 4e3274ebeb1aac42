#include "engine/writers/plan_writers.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/writers/plan_columns.hpp"
#include "engine/writers/sweep_columns.hpp"
#include "engine/writers/text_table.hpp"
#include "models/pipeline.hpp"
#include "models/transformer_ops.hpp"

namespace perfcast {
namespace {

std::string devices_text(const PlanRow& x) {
  return fmt::format("{} × {} ({} {})", x.nodes, x.system, x.devices, x.accelerator);
}

// A figure's P10-P90 from the row's band ("-" without one).
std::string band_text(const PlanRow& x, double point, std::string (*text)(double)) {
  if (!x.slowness) return "-";
  return text(x.at(point, &StepSlowness::p10)) + " - " + text(x.at(point, &StepSlowness::p90));
}

std::string rows_table(const std::vector<PlanRow>& rows) {
  TextTable t({"#", "hardware", "layout", "paid as", "region", "wall time", "P10 - P90", "cost", "P10 - P90", "capex", "CO2e", "MFU", "binds"});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const PlanRow& x = rows[i];
    t.add_row({std::to_string(i + 1), devices_text(x), layout_label(x.layout), x.payment, x.region, duration_text(x.wall_s),
               band_text(x, x.wall_s, duration_text), usd_text(x.usd), band_text(x, x.usd, usd_text),
               x.capex_usd > 0 ? usd_text(x.capex_usd) : "-", x.co2_known ? mass_text(x.co2e_kg) : "-", percent_text(x.mfu), x.binds});
  }
  return t.render();
}

// Where the bands come from, and what --risk p90 did with them.
std::string bands_note(const PlanReport& r) {
  const PlanRow* banded = nullptr;
  for (const PlanRow& x : r.best)
    if (x.slowness) banded = &x;
  if (!banded) return "";
  std::string out = fmt::format("P10 - P90: where reality fell on held-out validated training cases like each row (docs/models.md F-UNC-2; "
                                "e.g. {} cases from {} sources for the last row); CO2e moves with them.\n",
                                banded->slowness->cases, banded->slowness->sources);
  if (r.request.risk_p90)
    out += "--risk p90: ranked, and held to the deadline and budget, at each row's P90 (a purchase's capex is paid whatever the time).\n";
  return out;
}

std::string metric_list(const std::vector<PlanMetric>& ms) {
  std::vector<std::string_view> names;
  for (PlanMetric m : ms) names.push_back(name_of(m));
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string bounds_text(const PlanRequest& q) {
  std::vector<std::string> b;
  if (q.deadline_s) b.push_back("deadline " + duration_text(*q.deadline_s));
  if (q.budget_usd) b.push_back("budget " + usd_text(*q.budget_usd));
  if (q.max_devices) b.push_back(fmt::format("at most {} devices", *q.max_devices));
  return b.empty() ? "no bound" : fmt::format("{}", fmt::join(b, ", "));
}

std::string bounds_text(const ServingPlanRequest& q) {
  std::vector<std::string> b;
  if (q.budget_usd_per_hour) b.push_back("budget " + usd_text(*q.budget_usd_per_hour) + "/h");
  if (q.max_devices) b.push_back(fmt::format("at most {} devices", *q.max_devices));
  return b.empty() ? "no bound" : fmt::format("{}", fmt::join(b, ", "));
}

std::string slo_text(const models::Slo& slo) {
  std::vector<std::string> b;
  if (slo.ttft_s) b.push_back(fmt::format("p{:g} TTFT ≤ {}", slo.percentile * 100, duration_text(*slo.ttft_s)));
  if (slo.tpot_s) b.push_back(fmt::format("p{:g} TPOT ≤ {}", slo.percentile * 100, duration_text(*slo.tpot_s)));
  return fmt::format("{}", fmt::join(b, ", "));
}

std::string dropped_text(const ReasonCounts& dropped, std::string_view what) {
  if (dropped.empty()) return "";
  std::string out = fmt::format("Dropped (candidates: {}):\n", what);
  for (const auto& [why, n] : dropped) out += fmt::format("  {:>9}  {}\n", n, why);
  return out;
}

std::string fleet_table(const std::vector<ServingPlanRow>& rows, const models::Slo& slo) {
  const std::string p = fmt::format("p{:g}", slo.percentile * 100);
  TextTable t({"#", "fleet", "replica", "paid as", "region", "$/h", "$/Mtok", "capex", "CO2e/h", "TTFT " + p, "TPOT " + p, "E2E " + p,
               "binds", "at P90"});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ServingPlanRow& x = rows[i];
    const ServeLayout& l = x.replica;
    std::string replica = fmt::format("tp {} · pp {}{} · {}/{}", l.tp, l.pp, l.ep > 1 ? fmt::format(" · ep {}", l.ep) : "", name_of(l.weights),
                                      name_of(l.kv));
    t.add_row({std::to_string(i + 1),
               fmt::format("{} × {} ({} replicas, {} {})", x.units, x.kind == Payment::purchase ? x.system : x.offer, x.replicas, x.devices,
                           x.accelerator),
               replica, x.payment, x.region, usd_text(x.usd_per_hour), usd_text(x.usd_per_million_tokens),
               x.capex_usd > 0 ? usd_text(x.capex_usd) : "-", x.co2_known ? mass_text(x.co2e_kg_per_hour) : "-", duration_text(x.point.ttft_p_s),
               duration_text(x.point.tpot_p_s), duration_text(x.point.e2e_p_s), x.binds,
               x.slowness ? fmt::format("{} replicas, {}", x.replicas_p90, usd_text(x.usd_per_hour_p90)) : "-"});
  }
  return t.render();
}

template <class Row>
void add_outcome(nlohmann::json& j, const std::vector<PlanColumn<Row>>& columns, const ReasonCounts& dropped,
                 const std::string& last_removed_by, int last_removed_stage, const std::vector<Row>& best, const std::vector<Row>& front) {
  j["dropped"] = nlohmann::json::array();
  for (const auto& [why, n] : dropped) j["dropped"].push_back({{"reason", why}, {"count", n}});
  j["last_removed_by"] = last_removed_by;
  j["last_removed_stage"] = last_removed_stage;
  j["best"] = nlohmann::json::array();
  for (const Row& x : best) j["best"].push_back(plan_row_json(columns, x));
  j["front"] = nlohmann::json::array();
  for (const Row& x : front) j["front"].push_back(plan_row_json(columns, x));
}

// The best rows and the front, one CSV line each, the columns in declaration order.
template <class Row>
std::string rows_csv(const std::vector<PlanColumn<Row>>& columns, const std::vector<Row>& best, const std::vector<Row>& front) {
  std::string out = "set";
  for (const PlanColumn<Row>& c : columns) out += "," + c.key;
  out += "\n";
  auto add = [&](std::string_view set, const Row& x) {
    out += std::string(set);
    for (const PlanColumn<Row>& c : columns) out += "," + csv_cell(c.get(x));
    out += "\n";
  };
  for (const Row& x : best) add("best", x);
  for (const Row& x : front) add("front", x);
  return out;
}

// What both kinds of plan write about the search and the request.
template <class Report>
void add_search(nlohmann::json& j, const Report& r) {
  const auto& q = r.request;
  j["pareto"] = nlohmann::json::array();
  for (PlanMetric m : q.pareto) j["pareto"].push_back(name_of(m));
  j["top"] = q.top;
  j["max_devices"] = q.max_devices ? nlohmann::json(*q.max_devices) : nlohmann::json(nullptr);
  j["calibration"] = q.calibration;
  j["payments"] = nlohmann::json::array();
  for (Payment p : r.space.payments) j["payments"].push_back(name_of(p));
  j["regions"] = r.space.regions;
  j["accelerators"] = r.space.accelerators;
  j["accelerators_without_system"] = r.without_system;
}

// The accelerators the search could not place: a plan rents or buys whole nodes.
std::string without_system_text(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  return fmt::format("Not searched: {} accelerator(s) no system in the database is built from, so none to rent or buy ({})\n", names.size(),
                     fmt::join(names, ", "));
}

}  // namespace

std::string plan_to_table(const PlanReport& r) {
  const PlanRequest& q = r.request;
  std::string out = fmt::format("Plan for {} ({}), stack {}: objective {}, {}\n", r.workload, r.scenario, r.stack, name_of(q.objective), bounds_text(q));
  out += fmt::format("Searched {} system(s) ({}) at {} node count(s) ({}–{} nodes){}: {} units swept, {} layouts judged, {} timed, {} priced\n",
                     r.systems.size(), fmt::join(r.systems, ", "), r.nodes.size(), r.nodes.front(), r.nodes.back(),
                     q.shards > 1 ? fmt::format(", shard {}/{}", q.shard, q.shards) : "", r.units, r.layouts, r.timed, r.priced);
  out += without_system_text(r.without_system);
  out += dropped_text(r.dropped, "system x node count x payment");
  if (r.best.empty()) {
    out += fmt::format("\nNo candidate is left{}.\n", r.last_removed_by.empty() ? "" : fmt::format(": the last were removed by '{}'", r.last_removed_by));
  } else {
    out += fmt::format("\nBest {} by {}:\n", r.best.size(), name_of(q.objective)) + rows_table(r.best);
    if (!r.front.empty()) out += fmt::format("\nPareto front of {} ({} rows):\n", metric_list(q.pareto), r.front.size()) + rows_table(r.front);
  }
  out += "\nEach row: the layout the stack runs fastest on that hardware and count (at one price, cost grows with time); wall time "
         "after failures, as billed (spot preemptions stretch it). Cost: rented device-hours, or for a purchase the job's share of the "
         "TCO (capex over the lifetime at the allocation assumed, power at the region's price; perfcast predict --detail lists them), "
         "with the capex paid up front beside it. CO2e: operational (location-based) plus embodied.\n";
  out += bands_note(r);
  out += fmt::format("Plan took {:.3g} s.\n", r.seconds);
  return out;
}

nlohmann::json plan_to_json(const PlanReport& r) {
  const PlanRequest& q = r.request;
  nlohmann::json j{{"kind", "training"}, {"scenario_file", r.scenario_file}, {"scenario", r.scenario}, {"workload", r.workload}, {"stack", r.stack},
                   {"objective", name_of(q.objective)}, {"nodes", r.nodes}, {"systems", r.systems}, {"units", r.units},
                   {"layouts", r.layouts}, {"timed", r.timed}, {"priced", r.priced}, {"shard", q.shard}, {"shards", q.shards},
                   {"seconds", r.seconds}};
  add_search(j, r);
  j["deadline_s"] = q.deadline_s ? nlohmann::json(*q.deadline_s) : nlohmann::json(nullptr);
  j["budget_usd"] = q.budget_usd ? nlohmann::json(*q.budget_usd) : nlohmann::json(nullptr);
  j["risk"] = q.risk_p90 ? "p90" : "p50";
  add_outcome(j, training_plan_columns(), r.dropped, r.last_removed_by, r.last_removed_stage, r.best, r.front);
  return {{"plan", j}};
}

std::string plan_to_csv(const PlanReport& r) { return rows_csv(training_plan_columns(), r.best, r.front); }

std::string plan_to_table(const ServingPlanReport& r) {
  const ServingPlanRequest& q = r.request;
  std::string out = fmt::format("Serving plan for {} ({}): {:g} requests/s of {:g} + {:g} tokens, {}; objective {}, {}\n", r.workload,
                                r.scenario, r.rate, r.input_len, r.output_len, slo_text(r.slo), name_of(q.objective), bounds_text(q));
  out += fmt::format("Searched {} system(s) ({}){}: {} replica layouts judged, {} simulated, {} fleets priced\n", r.systems.size(),
                     fmt::join(r.systems, ", "), q.shards > 1 ? fmt::format(", shard {}/{}", q.shard, q.shards) : "", r.layouts, r.simulated,
                     r.priced);
  out += without_system_text(r.without_system);
  out += dropped_text(r.dropped, "replica layout x payment");
  if (r.best.empty()) {
    out += fmt::format("\nNo fleet is left{}.\n", r.last_removed_by.empty() ? "" : fmt::format(": the last were removed by '{}'", r.last_removed_by));
  } else {
    out += fmt::format("\nBest {} by {}:\n", r.best.size(), name_of(q.objective)) + fleet_table(r.best, r.slo);
    if (!r.front.empty()) out += fmt::format("\nPareto front of {} ({} rows):\n", metric_list(q.pareto), r.front.size()) + fleet_table(r.front, r.slo);
  }
  out += "\nAssumptions:\n";
  for (const std::string& a : r.assumptions) out += "  - " + a + "\n";
  const auto banded = std::find_if(r.best.begin(), r.best.end(), [](const ServingPlanRow& x) { return x.slowness.has_value(); });
  if (banded != r.best.end())
    out += fmt::format("At P90: the fleet if each replica sustains only e^-P90 of its predicted SLO rate, the slow end of the empirical band of "
                       "held-out serving throughput cases like it (docs/models.md F-UNC-2; e.g. {} cases from {} sources for row {}): replicas "
                       "x e^P90 rounded up, packed alike, the cost per hour with the units.\n",
                       banded->slowness->cases, banded->slowness->sources, banded - r.best.begin() + 1);
  if (q.risk_p90) out += "--risk p90: ranked, and held to the budget, by the P90 fleet's cost and CO2e per hour.\n";
  out += fmt::format("Plan took {:.3g} s.\n", r.seconds);
  return out;
}

nlohmann::json plan_to_json(const ServingPlanReport& r) {
  const ServingPlanRequest& q = r.request;
  nlohmann::json j{{"kind", "serving"}, {"scenario_file", r.scenario_file}, {"scenario", r.scenario}, {"workload", r.workload},
                   {"engine", r.engine}, {"rate", r.rate}, {"input_len", r.input_len}, {"output_len", r.output_len},
                   {"objective", name_of(q.objective)}, {"systems", r.systems}, {"layouts", r.layouts}, {"simulated", r.simulated},
                   {"priced", r.priced}, {"shard", q.shard}, {"shards", q.shards}, {"seconds", r.seconds}, {"assumptions", r.assumptions}};
  j["slo"] = {{"ttft_s", r.slo.ttft_s ? nlohmann::json(*r.slo.ttft_s) : nlohmann::json(nullptr)},
              {"tpot_s", r.slo.tpot_s ? nlohmann::json(*r.slo.tpot_s) : nlohmann::json(nullptr)},
              {"percentile", r.slo.percentile * 100}};
  add_search(j, r);
  j["budget_usd_per_hour"] = q.budget_usd_per_hour ? nlohmann::json(*q.budget_usd_per_hour) : nlohmann::json(nullptr);
  j["risk"] = q.risk_p90 ? "p90" : "p50";
  j["dtypes"] = nlohmann::json::array();
  for (Precision p : q.weight_dtypes) j["dtypes"].push_back(name_of(p));
  add_outcome(j, serving_plan_columns(), r.dropped, r.last_removed_by, r.last_removed_stage, r.best, r.front);
  return {{"plan", j}};
}

std::string plan_to_csv(const ServingPlanReport& r) { return rows_csv(serving_plan_columns(), r.best, r.front); }

}  // namespace perfcast
