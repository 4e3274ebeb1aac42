#include "engine/validate/carbon_cases.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/validate/case_features.hpp"
#include "engine/predict/training.hpp"
#include "engine/data/workload_reader.hpp"
#include "models/energy.hpp"

namespace perfcast {
namespace {

constexpr std::string_view kMetrics[] = {"energy_mwh", "co2e_t", "device_hours"};
constexpr double kJoulesPerMwh = 1000 * models::kJoulesPerKwh;

CarbonCase read_case(TomlSection& t, const HardwareDb& db) {
  CarbonCase c;
  c.id = t.require_string("id");
  c.source = t.require_string("source");
  auto metric = t.choice("metric", kMetrics);
  if (!metric) t.fail_here(fmt::format("missing required key '{}metric'", t.path()));
  c.metric = CarbonMetric(std::find(std::begin(kMetrics), std::end(kMetrics), std::string_view(*metric)) - std::begin(kMetrics));
  c.measured = t.require_number("measured", 0, false, 1e12);
  read_shared_keys(t, c, 0.05);
  c.device_hours = t.number("device_hours", 0, false, 1e12);
  c.power_W = t.number("power_w", 0, false, 1e5);
  c.pue = t.number("pue", 1, true, 3);
  if (auto g = t.number("grid_g_per_kwh", 0, true, 2000)) c.grid_kg_per_J = models::grid_kg_per_J(*g);
  if (auto sc = t.table("scenario")) c.scenario = read_scenario(*sc, t.file(), default_workloads_dir(), db);
  t.finish();
  if (c.skip.empty() && !c.scenario && (!c.device_hours || !c.power_W || !c.pue))
    t.fail_here(fmt::format("case '{}' needs device_hours, power_w and pue (published hours) or a [case.scenario] (predicted)", c.id));
  if (c.skip.empty() && !c.scenario && c.metric == CarbonMetric::co2e_t && !c.grid_kg_per_J)
    t.fail("metric", "a co2e_t case from published hours needs grid_g_per_kwh");
  if (c.scenario && (!c.scenario->training || !c.scenario->training->tokens || c.scenario->region.name.empty()))
    t.fail("scenario", "a predicted carbon case needs [training] tokens and a [region]");
  return c;
}

double published_value(const CarbonCase& c) {
  const double facility_J = models::facility_energy_J(*c.device_hours * 3600 * *c.power_W, *c.pue);
  if (c.metric == CarbonMetric::energy_mwh) return facility_J / kJoulesPerMwh;
  if (c.metric == CarbonMetric::co2e_t) return models::operational_co2e_kg(facility_J, *c.grid_kg_per_J) / 1e3;
  return *c.device_hours;
}

}  // namespace

std::vector<CarbonCase> load_carbon_cases(CaseFile& f, const HardwareDb& db) {
  return read_cases(f, [&](TomlSection& t) { return read_case(t, db); });
}

std::vector<CaseScore> score_carbon_cases(const std::vector<CarbonCase>& cases) {
  std::vector<CaseScore> scores;
  for (const CarbonCase& c : cases) {
    CaseScore s = score_of(c, c.scenario ? "carbon_predicted" : "carbon");
    s.features = kernel_features(s.kind, "", "");
    s.measured = c.measured;
    s.detail = std::string(kMetrics[static_cast<int>(c.metric)]);
    if (!c.skip.empty()) {
      scores.push_back(s);
      continue;
    }
    if (!c.scenario) {
      s.subject = fmt::format("{:.4g} device-hours at {:g} W", *c.device_hours, *c.power_W);
      s.set_prediction(published_value(c));
      s.detail += " · from the source's own hours, power, PUE and grid factor";
    } else {
      const TrainingPrediction p = predict_training(*c.scenario);
      s.subject = fmt::format("{} on {} × {}", c.scenario->workload.label(), p.devices, c.scenario->hardware.accelerator);
      const Economics& e = *p.economics;
      const double value = c.metric == CarbonMetric::device_hours ? *p.device_hours
                           : c.metric == CarbonMetric::energy_mwh ? *e.job_kwh / 1e3
                                                                  : *e.co2e_kg / 1e3;
      s.set_prediction(value);
      s.detail += fmt::format(" · predicted: {:.4g} device-hours, {:.0f} W per device with host {:.0f} W, {}", *p.device_hours,
                              e.device_power_W, e.device_power_W * e.node_factor, p.layout);
    }
    scores.push_back(s);
  }
  return scores;
}

}  // namespace perfcast
