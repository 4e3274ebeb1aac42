#include "engine/predict/economics.hpp"

#include <cmath>

#include <fmt/format.h>

#include "engine/core/errors.hpp"

namespace perfcast {
namespace {

using models::kJoulesPerKwh;
constexpr double kSecondsPerHour = 3600;
constexpr double kSecondsPerDay = 86400;

// Server useful life: Meta 5 years (10-K, Q4 2022) and Amazon 5 years for AI servers from 2025
// (2024 10-K); Microsoft and Alphabet use 6 (hardware_reference.md §6, filings quoted secondarily).
constexpr double kDefaultLifetimeYears = 5;
// Share of the cluster's life it is allocated to paying work: aiinframap's 5-year H100/H200/B200
// TCO example assumes 70 % (hardware_reference.json tco_assumptions, secondary).
constexpr double kDefaultAllocation = 0.7;
// When a device has no idle figure: 20 % of TDP, the ratio of H100's 140 W at P0 with a context
// and 0 % utilisation to its 700 W TDP (nvidia-smi in wilicc/gpu-burn issue #114, 2024).
constexpr double kIdleFractionOfTdp = 140.0 / 700.0;

void add_energy(Economics& e, const Scenario& s, const Consumption& c) {
  const AcceleratorSpec& a = s.hw.datasheet;
  const std::optional<PowerMode>& mode = s.hw.power_mode;
  if (mode) {
    e.tdp_W = mode->power_W;
    e.assumptions.push_back(fmt::format("device power: the {} power mode's {} W budget stands for TDP", mode->name, mode->power_W));
  } else if (s.hw.power_limit_W) {
    e.tdp_W = *s.hw.power_limit_W;
    e.assumptions.push_back(fmt::format("device power: the {:.0f} W power limit stands for TDP ({:.0f} W)", e.tdp_W,
                                        a.tdp_W.value_or(0)));
  } else if (a.tdp_W) {
    e.tdp_W = *a.tdp_W;
  } else {
    throw InputError({s.file, 0, 0}, fmt::format("energy: {} has no power.tdp in the database", a.name));
  }
  if (a.idle_W && !mode) {
    e.idle_W = *a.idle_W;
  } else {
    e.idle_W = kIdleFractionOfTdp * e.tdp_W;
    e.assumptions.push_back(fmt::format("idle power {:.0f} W: no measured figure for {}, so 20 % of its power budget "
                                        "(H100: 140 W of 700 W at P0, 0 % utilisation, gpu-burn #114)", e.idle_W, a.name));
  }
  const models::PowerLevels u;
  e.assumptions.push_back(fmt::format("power by activity (F-EN-1, P = P_idle + u·(TDP − P_idle)): compute u = {:.2f}, "
                                      "memory-bound u = {:.2f} (H200 decode, 516.9 W), exposed communication and "
                                      "bubbles at idle power", u.compute, u.memory));
  const double span = c.activity.total_s();
  e.device_power_W = models::device_energy_J(c.activity, e.tdp_W, e.idle_W, u) / span;
  if (const std::optional<SystemSpec>& sys = s.hw.node_system; sys && sys->node_power_W) {
    // The node's power was specified for devices at their TDP, not at a lower limit.
    const double device_budget_W = s.hw.power_limit_W ? a.tdp_W.value_or(e.tdp_W) : e.tdp_W;
    e.node_factor = models::node_factor(*sys->node_power_W, sys->devices_per_node, device_budget_W);
    e.hosts_counted = true;
    e.assumptions.push_back(fmt::format("hosts, NICs and fans: node factor {:.2f} = {}'s {:.1f} kW / ({} × {:.0f} W), "
                                        "scaled with device power", e.node_factor, sys->name, *sys->node_power_W / 1e3,
                                        sys->devices_per_node, device_budget_W));
  } else {
    e.assumptions.push_back("hosts, NICs and fans not counted: no system with a node power for this device");
  }
  e.it_power_W = e.device_power_W * e.node_factor * c.devices;
  e.tokens_per_s = c.tokens_per_span / span;

  if (s.region.name.empty() && s.hw.offer && s.hw.region)
    e.assumptions.push_back(fmt::format("region {}: the offer's own", s.hw.region->name));
  double facility_W = e.it_power_W;
  if (s.hw.region) {
    const RegionSpec& r = *s.hw.region;
    e.region = r.name;
    e.pue = s.region.pue ? *s.region.pue : r.pue.value_or(1.0);
    if (!s.region.pue)
      e.assumptions.push_back(fmt::format("PUE {:.2f}: {}'s default; set [region] pue for the facility's own", *e.pue, r.name));
    e.grid_kg_per_J = r.grid_kg_per_J;
    e.market_kg_per_J = s.region.market_kg_per_J;
    facility_W = models::facility_energy_J(e.it_power_W, *e.pue);
  }
  e.tokens_per_s_per_kW = e.tokens_per_s / (facility_W / 1e3);
  e.joules_per_token = facility_W / e.tokens_per_s;
  e.kwh_per_million_tokens = e.joules_per_token * 1e6 / kJoulesPerKwh;
  if (e.grid_kg_per_J) e.co2e_kg_per_million_tokens = e.joules_per_token * 1e6 * *e.grid_kg_per_J;
  if (c.job_s) {
    e.job_it_kwh = e.it_power_W * *c.job_s / kJoulesPerKwh;
    if (e.pue) {
      e.job_kwh = *e.job_it_kwh * *e.pue;
      e.co2e_kg = models::operational_co2e_kg(*e.job_kwh * kJoulesPerKwh, *e.grid_kg_per_J);
      if (e.market_kg_per_J) e.co2e_market_kg = models::operational_co2e_kg(*e.job_kwh * kJoulesPerKwh, *e.market_kg_per_J);
    }
    const double life_s = s.cost.lifetime_years.value_or(kDefaultLifetimeYears) * models::kSecondsPerYear;
    if (a.embodied_kg) {
      e.embodied_kg = models::embodied_co2e_kg(*a.embodied_kg, c.devices, *c.job_s, life_s);
      e.assumptions.push_back(fmt::format("embodied CO2e: {:.1f} kg per {} (database figure; see its note for what it "
                                          "covers) amortised over {:g} years (F-EN-3)", *a.embodied_kg, a.name,
                                          life_s / models::kSecondsPerYear));
    } else {
      e.assumptions.push_back(fmt::format("embodied CO2e not counted: no sourced figure for {}", a.name));
    }
  }
}

void add_cloud_cost(Economics& e, const Scenario& s, const Consumption& c) {
  const OfferSpec& o = *s.hw.offer;
  e.offer = o.name;
  const int instances = (c.devices + o.devices - 1) / o.devices;
  const double billed_devices = double(instances) * o.devices;
  if (billed_devices > c.devices)
    e.assumptions.push_back(fmt::format("{} instances of {} devices billed for {} devices", instances, o.devices, c.devices));
  double rate = o.on_demand_usd_per_device_s;
  double stretch = 1;  // billed wall time per on-demand wall second (spot: 1/u)
  e.mode = "on-demand";
  if (s.cost.reserved_discount) {
    rate *= 1 - *s.cost.reserved_discount;
    e.mode = "reserved";
  }
  if (s.cost.spot) {
    // F-COST-2: u = 1 − λ_p·(L_lost + R_s) with L_lost = half the checkpoint interval.
    const double lambda = *s.cost.spot_preemptions_per_day / kSecondsPerDay;
    const double lost = c.checkpoint_interval_s / 2;
    e.spot_useful_fraction = models::spot_useful_fraction(lambda, lost, c.restart_s);
    if (*e.spot_useful_fraction <= 0)
      throw InputError({s.file, 0, 0}, fmt::format("cost.spot: at {} preemptions a day, each losing {:.0f} s of work and {:.0f} s "
                                                   "of restart, the job never finishes", *s.cost.spot_preemptions_per_day, lost, c.restart_s));
    rate = *o.spot_usd_per_device_s;
    stretch = 1 / *e.spot_useful_fraction;
    e.mode = "spot";
    e.assumptions.push_back(fmt::format("spot (F-COST-2): each preemption loses half a checkpoint interval ({:.0f} s) and a "
                                        "{:.0f} s restart; useful fraction {:.4f}", lost, c.restart_s, *e.spot_useful_fraction));
  }
  e.assumptions.push_back(fmt::format("price: {} {} at ${:.2f} per device-hour ({}, as of {})", o.name, e.mode,
                                      rate * kSecondsPerHour, o.cloud_region, o.as_of));
  e.usd_per_device_hour = rate * stretch * kSecondsPerHour;
  e.usd_per_hour = billed_devices * rate * kSecondsPerHour;
  if (c.job_s) {
    e.job_wall_s = *c.job_s * stretch;
    e.usd = models::cloud_cost_usd(billed_devices * *e.job_wall_s, rate);
  }
}

void add_onprem_cost(Economics& e, const Scenario& s, const Consumption& c) {
  e.mode = "on-prem";
  const AcceleratorSpec& a = s.hw.datasheet;
  const SystemSpec* sys = s.hw.node_system ? &*s.hw.node_system : nullptr;
  const int per_node = sys ? sys->devices_per_node : s.hardware.devices_per_node;
  const int nodes = (c.devices + per_node - 1) / per_node;
  double capex = 0;
  if (s.cost.capex_usd) {
    capex = *s.cost.capex_usd;
  } else if (sys && sys->price_usd) {
    capex = *sys->price_usd * nodes;
    e.assumptions.push_back(fmt::format("CapEx: {} × {} at ${:.0f} (database price)", nodes, sys->name, *sys->price_usd));
  } else if (a.price_usd) {
    capex = *a.price_usd * c.devices;
    e.assumptions.push_back(fmt::format("CapEx: {} × {} at ${:.0f}, accelerators only (no system price: hosts excluded)",
                                        c.devices, a.name, *a.price_usd));
  } else {
    throw InputError({s.file, 0, 0}, fmt::format("cost.purchase: no purchase price for {} or its system; give [cost] capex_usd", a.name));
  }
  if (s.cost.network_usd_per_node) capex += *s.cost.network_usd_per_node * nodes;
  else e.assumptions.push_back("scale-out network and storage CapEx not included: set [cost] network_usd_per_node, storage_usd");
  capex += s.cost.storage_usd.value_or(0);
  e.capex_usd = capex;

  double usd_per_kwh = 0;
  if (s.cost.usd_per_kwh) {
    usd_per_kwh = *s.cost.usd_per_kwh;
  } else if (s.hw.region && s.hw.region->electricity_usd_per_J) {
    usd_per_kwh = *s.hw.region->electricity_usd_per_J * kJoulesPerKwh;
    e.assumptions.push_back(fmt::format("electricity ${:.4f}/kWh: {}'s tariff", usd_per_kwh, e.region));
  } else {
    throw InputError({s.file, 0, 0}, fmt::format("cost.purchase: region '{}' has no electricity price; set [cost] usd_per_kwh",
                                                 e.region.empty() ? "(none)" : e.region));
  }
  const double allocation = s.cost.utilisation.value_or(kDefaultAllocation);
  e.allocation = allocation;
  if (!s.cost.utilisation) e.assumptions.push_back("allocation 70 % of the cluster's life (aiinframap TCO example); set [cost] utilisation");
  const double idle_cluster_W = e.idle_W * e.node_factor * c.devices;
  const double pue = e.pue.value_or(1.0);
  models::TcoInputs in{.capex_usd = capex,
                       .lifetime_years = s.cost.lifetime_years.value_or(kDefaultLifetimeYears),
                       .discount_rate = s.cost.discount_rate.value_or(0),
                       .it_power_W = allocation * e.it_power_W + (1 - allocation) * idle_cluster_W,
                       .pue = pue,
                       .usd_per_J = usd_per_kwh / kJoulesPerKwh,
                       .maintenance_fraction = s.cost.maintenance_fraction.value_or(0),
                       .facility_usd_per_W_year = s.cost.facility_usd_per_kw_month.value_or(0) * 12 / 1e3,
                       .provisioned_W = e.tdp_W * e.node_factor * c.devices,
                       .staff_usd_per_year = s.cost.staff_usd_per_year.value_or(0)};
  if (!s.cost.lifetime_years) e.assumptions.push_back("lifetime 5 years (Meta, Amazon filings; Microsoft and Alphabet use 6)");
  if (!s.cost.discount_rate) e.assumptions.push_back("straight-line depreciation (discount rate 0); set [cost] discount_rate");
  if (!s.cost.maintenance_fraction && !s.cost.facility_usd_per_kw_month && !s.cost.staff_usd_per_year)
    e.assumptions.push_back("maintenance, facility and staff not included: set [cost] maintenance_fraction, "
                            "facility_usd_per_kw_month, staff_usd_per_year");
  e.tco_year = models::tco_per_year(in);
  const double per_device_s = models::usd_per_device_s(e.tco_year->total(), c.devices, allocation);
  e.usd_per_device_hour = per_device_s * kSecondsPerHour;
  e.usd_per_hour = per_device_s * c.devices * kSecondsPerHour;
  if (c.job_s) {
    e.job_wall_s = *c.job_s;
    e.usd = per_device_s * c.devices * *c.job_s;
  }
  if (const std::optional<OfferSpec>& o = s.hw.cheapest_offer) {
    e.cloud_alternative = o->name;
    e.cloud_alternative_usd_per_hour = o->on_demand_usd_per_device_s * c.devices * kSecondsPerHour;
    if (c.job_s) e.cloud_alternative_usd = o->on_demand_usd_per_device_s * c.devices * *c.job_s;
    const double energy_per_W_year = pue * models::kSecondsPerYear * in.usd_per_J;
    const double fixed = e.tco_year->capital + e.tco_year->maintenance + e.tco_year->facility + e.tco_year->staff +
                         idle_cluster_W * energy_per_W_year;
    const double variable = (e.it_power_W - idle_cluster_W) * energy_per_W_year;
    e.break_even_allocation = models::break_even_allocation(fixed, variable, c.devices, o->on_demand_usd_per_device_s);
  }
}

}  // namespace

Economics economics(const Scenario& s, const Consumption& c) {
  Economics e;
  add_energy(e, s, c);
  if (!s.cost.offer.empty()) add_cloud_cost(e, s, c);
  if (s.cost.purchase) add_onprem_cost(e, s, c);
  if (e.usd_per_hour) {
    const double usd_per_s = *e.usd_per_hour / kSecondsPerHour;
    e.usd_per_million_tokens = models::usd_per_million_tokens(usd_per_s * (e.spot_useful_fraction ? 1 / *e.spot_useful_fraction : 1),
                                                              e.tokens_per_s);
    e.tokens_per_usd = 1e6 / *e.usd_per_million_tokens;
  }
  return e;
}

std::optional<Economics> economics_if_known(const Scenario& s, const Consumption& c) {
  const bool asked = s.cost.any() || !s.region.name.empty();
  if (!asked && !s.hw.datasheet.tdp_W && !s.hw.power_mode) return std::nullopt;
  if (c.activity.total_s() <= 0 || c.tokens_per_span <= 0) return std::nullopt;
  return economics(s, c);
}

}  // namespace perfcast
