#pragma once
// Cost (MODELS-REFERENCE §12, F-COST-1..4): cloud hours × rate, spot with preemptions, on-prem TCO
// with capital recovery, unit economics. SI units: USD, s, W, J; rates are USD per device-second.
namespace perfcast::models {

// F-COST-1: cloud cost of `device_s` device-seconds at `usd_per_device_s`.
constexpr double cloud_cost_usd(double device_s, double usd_per_device_s) { return device_s * usd_per_device_s; }

// F-COST-2: the useful fraction of spot time, u = 1 − λ_p·(L_lost + R_s), with λ_p preemptions per
// second, L_lost the work lost per preemption and R_s the restart/reprovision time. ≤ 0 means the
// job never finishes: callers report it.
constexpr double spot_useful_fraction(double preemptions_per_s, double lost_s, double restart_s) {
  return 1 - preemptions_per_s * (lost_s + restart_s);
}

// F-COST-3 capital recovery factor AF(r, n) = r / (1 − (1 + r)^−n); straight line 1/n when r = 0.
double capital_recovery_factor(double rate, double years);

struct TcoInputs {
  double capex_usd = 0;               // systems + network + storage, bought up front
  double lifetime_years = 0;
  double discount_rate = 0;           // per year; 0 = straight-line depreciation
  double it_power_W = 0;              // average IT power over the year (allocation included)
  double pue = 1;
  double usd_per_J = 0;               // electricity
  double maintenance_fraction = 0;    // of CapEx per year
  double facility_usd_per_W_year = 0; // colocation / facility charge per provisioned W
  double provisioned_W = 0;
  double staff_usd_per_year = 0;
};

struct TcoYear {
  double capital = 0, energy = 0, maintenance = 0, facility = 0, staff = 0;
  double total() const { return capital + energy + maintenance + facility + staff; }
};

// F-COST-3: TCO per year = CapEx·AF + P_IT·PUE·8760 h·price + maint%·CapEx + facility + staff.
TcoYear tco_per_year(const TcoInputs& in);

constexpr double kSecondsPerYear = 8760.0 * 3600;  // F-COST-3 counts 8,760 h per year

// F-COST-3: $/device-second = TCO_yr / (devices · 8760 h · allocation).
constexpr double usd_per_device_s(double tco_year_usd, double devices, double allocation) {
  return tco_year_usd / (devices * kSecondsPerYear * allocation);
}

// The allocation at which on-prem $/device-hour equals the cloud rate, when the year's cost is
// fixed + allocation × energy-at-full-allocation: a* = fixed / (devices·8760 h·rate − energy_full).
// Returns ≤ 0 or > 1 when on-prem never breaks even within full allocation.
double break_even_allocation(double fixed_usd_year, double energy_full_usd_year, double devices, double cloud_usd_per_device_s);

// F-COST-4: $ per million tokens = cost per second / tokens per second × 10^6.
constexpr double usd_per_million_tokens(double usd_per_s, double tokens_per_s) { return usd_per_s / tokens_per_s * 1e6; }

}  // namespace perfcast::models
