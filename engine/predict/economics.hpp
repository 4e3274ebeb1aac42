#pragma once
// Cost, energy and carbon of a prediction (MODELS-REFERENCE §12–§13): what one device does over a
// span (a training step, a batch of requests) becomes power by activity, energy with the node
// factor and PUE, CO2e with the region's grid and the hardware's embodied carbon, and dollars from
// the scenario's [cost]: a cloud offer (on-demand, reserved, spot) or on-prem TCO.
#include <optional>
#include <string>
#include <vector>

#include "engine/spec/scenario.hpp"
#include "models/cost.hpp"
#include "models/energy.hpp"

namespace perfcast {

// What a prediction consumed, in the terms cost and energy need.
struct Consumption {
  int devices = 0;               // every device the scenario pays for
  models::Activity activity;     // one device over one span
  double tokens_per_span = 0;    // tokens processed by all `devices` in the span
  std::optional<double> job_s;   // wall time of the whole job (training with [training] tokens)
  double checkpoint_interval_s = 0, restart_s = 0;  // what a spot preemption loses
};

struct Economics {
  // Power and energy
  double tdp_W = 0, idle_W = 0, node_factor = 1;
  bool hosts_counted = false;  // a node power gave the hosts, NICs and fans (node_factor); else devices alone
  double device_power_W = 0;     // average over the span
  double it_power_W = 0;         // all devices with their hosts
  double tokens_per_s = 0;       // all devices
  std::string region;            // empty: no region, so no facility energy or CO2e
  std::optional<double> pue, grid_kg_per_J, market_kg_per_J;
  double joules_per_token = 0;   // facility energy when a region is known, else IT energy
  std::optional<double> job_it_kwh, job_kwh, co2e_kg, co2e_market_kg, embodied_kg;
  std::optional<double> kwh_per_million_tokens, co2e_kg_per_million_tokens;
  // Cost (present with [cost])
  std::string mode;              // "on-demand", "reserved", "spot", "on-prem"
  std::string offer;
  std::optional<double> usd_per_device_hour, usd_per_hour, usd, usd_per_million_tokens;
  std::optional<double> job_wall_s;        // the job's wall time as billed (spot stretches it)
  std::optional<double> spot_useful_fraction;
  std::optional<double> capex_usd, allocation;
  std::optional<models::TcoYear> tco_year;
  std::string cloud_alternative;           // on-prem: the cheapest on-demand offer for the same devices
  std::optional<double> cloud_alternative_usd, cloud_alternative_usd_per_hour, break_even_allocation;
  std::optional<double> tokens_per_usd;    // perf/$
  double tokens_per_s_per_kW = 0;          // perf/W, facility power when a region is known
  std::vector<std::string> assumptions;
};

// Throws InputError when [cost] cannot be priced (no purchase price, no electricity price).
Economics economics(const Scenario& s, const Consumption& c);

// The same, or nothing when the device has no power figure and the scenario asks for no [cost] or
// [region] (energy is then unknown rather than an error).
std::optional<Economics> economics_if_known(const Scenario& s, const Consumption& c);


}  // namespace perfcast
