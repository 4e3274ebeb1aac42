#include "models/cost.hpp"

#include <cmath>

namespace perfcast::models {

double capital_recovery_factor(double rate, double years) {
  if (rate == 0) return 1 / years;
  return rate / (1 - std::pow(1 + rate, -years));
}

TcoYear tco_per_year(const TcoInputs& in) {
  return {.capital = in.capex_usd * capital_recovery_factor(in.discount_rate, in.lifetime_years),
          .energy = in.it_power_W * in.pue * kSecondsPerYear * in.usd_per_J,
          .maintenance = in.maintenance_fraction * in.capex_usd,
          .facility = in.facility_usd_per_W_year * in.provisioned_W,
          .staff = in.staff_usd_per_year};
}

double break_even_allocation(double fixed_usd_year, double energy_full_usd_year, double devices, double cloud_usd_per_device_s) {
  const double cloud_full = devices * kSecondsPerYear * cloud_usd_per_device_s;
  return cloud_full > energy_full_usd_year ? fixed_usd_year / (cloud_full - energy_full_usd_year) : -1;
}

}  // namespace perfcast::models
