#pragma once
// Carbon validation cases (validation/carbon.toml): a published training run's energy, CO2e or
// device-hours. Two bases: "published_hours" recomputes the source's figure from its own
// device-hours, power per device, PUE and grid factor (F-EN-1/2: the accounting); "predicted"
// derives it from our own predicted time and power model for the run's model, tokens and hardware.
#include <optional>
#include <string>
#include <vector>

#include "engine/data/hardware_db.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/validate/validation.hpp"

namespace perfcast {

enum class CarbonMetric { energy_mwh, co2e_t, device_hours };

struct CarbonCase {
  std::string id, source, notes, used_for, skip;
  CarbonMetric metric = CarbonMetric::co2e_t;
  double measured = 0, tolerance = 0.05;
  // published_hours
  std::optional<double> device_hours, power_W, pue, grid_kg_per_J;
  // predicted
  std::optional<Scenario> scenario;
};

std::vector<CarbonCase> load_carbon_cases(CaseFile& f, const HardwareDb& db);
std::vector<CaseScore> score_carbon_cases(const std::vector<CarbonCase>& cases);

}  // namespace perfcast
