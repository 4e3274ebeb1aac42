#include "engine/writers/plan_writers.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/writers/text_table.hpp"
#include "models/pipeline.hpp"
#include "models/transformer_ops.hpp"

namespace perfcast {
namespace {

std::string devices_text(const PlanRow& x) {
  return fmt::format("{} × {} ({} {})", x.nodes, x.system, x.devices, x.accelerator);
}

std::string rows_table(const std::vector<PlanRow>& rows) {
  TextTable t({"#", "hardware", "layout", "paid as", "region", "wall time", "cost", "capex", "CO2e", "MFU", "binds"});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const PlanRow& x = rows[i];
    t.add_row({std::to_string(i + 1), devices_text(x), layout_label(x.layout), x.payment, x.region, duration_text(x.wall_s), usd_text(x.usd),
               x.capex_usd > 0 ? usd_text(x.capex_usd) : "-", mass_text(x.co2e_kg), percent_text(x.mfu), x.binds});
  }
  return t.render();
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

// One row's fields: into the JSON (nlohmann::json) and, in declaration order, the CSV (ordered_json).
template <class Json>
Json row_json(const PlanRow& x) {
  const SweepLayout& l = x.layout;
  return {{"system", x.system},
          {"accelerator", x.accelerator},
          {"nodes", x.nodes},
          {"devices", x.devices},
          {"layout", layout_label(l)},
          {"tp", l.tp},
          {"pp", l.pp},
          {"vp", l.vp},
          {"cp", l.cp},
          {"ep", l.ep},
          {"zero", l.zero},
          {"micro_batch", l.micro_batch},
          {"sequence_parallel", l.sequence_parallel},
          {"recompute", models::kRecomputeKeys[std::size_t(l.recompute)]},
          {"schedule", models::name_of(l.schedule, l.vp)},
          {"payment", name_of(x.kind)},
          {"paid_as", x.payment},
          {"offer", x.offer},
          {"region", x.region},
          {"wall_s", x.wall_s},
          {"usd", x.usd},
          {"capex_usd", x.capex_usd},
          {"co2e_kg", x.co2e_kg},
          {"energy_J", x.energy_J},
          {"tokens_per_s", x.tokens_per_s},
          {"mfu", x.mfu},
          {"memory_bytes", x.memory_B},
          {"binds", x.binds}};
}

}  // namespace

std::string plan_to_table(const PlanReport& r) {
  const PlanRequest& q = r.request;
  std::string out = fmt::format("Plan for {} ({}), stack {}: objective {}, {}\n", r.workload, r.scenario, r.stack, name_of(q.objective), bounds_text(q));
  out += fmt::format("Searched {} system(s) ({}) at {} node count(s) ({}–{} nodes){}: {} units swept, {} layouts judged, {} timed, {} priced\n",
                     r.systems.size(), fmt::join(r.systems, ", "), r.nodes.size(), r.nodes.front(), r.nodes.back(),
                     q.shards > 1 ? fmt::format(", shard {}/{}", q.shard, q.shards) : "", r.units, r.layouts, r.timed, r.priced);
  if (!r.dropped.empty()) {
    out += "Dropped (candidates: system x node count x payment):\n";
    for (const auto& [why, n] : r.dropped) out += fmt::format("  {:>9}  {}\n", n, why);
  }
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
  out += fmt::format("Plan took {:.3g} s.\n", r.seconds);
  return out;
}

nlohmann::json plan_to_json(const PlanReport& r) {
  const PlanRequest& q = r.request;
  nlohmann::json j{{"scenario_file", r.scenario_file}, {"scenario", r.scenario}, {"workload", r.workload}, {"stack", r.stack},
                   {"objective", name_of(q.objective)}, {"nodes", r.nodes}, {"systems", r.systems}, {"units", r.units},
                   {"layouts", r.layouts}, {"timed", r.timed}, {"priced", r.priced}, {"shard", q.shard}, {"shards", q.shards},
                   {"seconds", r.seconds}};
  j["pareto"] = nlohmann::json::array();
  for (PlanMetric m : q.pareto) j["pareto"].push_back(name_of(m));
  j["deadline_s"] = q.deadline_s ? nlohmann::json(*q.deadline_s) : nlohmann::json(nullptr);
  j["budget_usd"] = q.budget_usd ? nlohmann::json(*q.budget_usd) : nlohmann::json(nullptr);
  j["max_devices"] = q.max_devices ? nlohmann::json(*q.max_devices) : nlohmann::json(nullptr);
  j["dropped"] = nlohmann::json::array();
  for (const auto& [why, n] : r.dropped) j["dropped"].push_back({{"reason", why}, {"count", n}});
  j["last_removed_by"] = r.last_removed_by;
  j["best"] = nlohmann::json::array();
  for (const PlanRow& x : r.best) j["best"].push_back(row_json<nlohmann::json>(x));
  j["front"] = nlohmann::json::array();
  for (const PlanRow& x : r.front) j["front"].push_back(row_json<nlohmann::json>(x));
  return {{"plan", j}};
}

std::string plan_to_csv(const PlanReport& r) {
  std::string out;
  std::vector<std::string> keys;
  auto add = [&](std::string_view set, const PlanRow& x) {
    const auto j = row_json<nlohmann::ordered_json>(x);
    if (keys.empty()) {
      for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
      out += "set";
      for (const std::string& k : keys) out += "," + k;
      out += "\n";
    }
    out += std::string(set);
    for (const std::string& k : keys) {
      const nlohmann::ordered_json& v = j[k];
      out += "," + csv_field(v.is_string() ? v.get<std::string>() : v.dump());
    }
    out += "\n";
  };
  for (const PlanRow& x : r.best) add("best", x);
  for (const PlanRow& x : r.front) add("front", x);
  return out;
}

}  // namespace perfcast
