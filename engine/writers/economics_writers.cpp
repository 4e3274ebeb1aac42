#include "engine/writers/economics_writers.hpp"

#include <fmt/format.h>

#include "engine/writers/text_table.hpp"

namespace perfcast {
namespace {


}  // namespace

std::string economics_to_table(const Economics& e) {
  TextTable t({"cost, energy, carbon", "value"});
  t.add_row({"device power (average)", fmt::format("{:.0f} W of {:.0f} W TDP (idle {:.0f} W)", e.device_power_W, e.tdp_W, e.idle_W)});
  t.add_row({"IT power, all devices and hosts", fmt::format("{:.4g} kW (node factor {:.2f})", e.it_power_W / 1e3, e.node_factor)});
  if (e.pue) t.add_row({"region", fmt::format("{} · PUE {:.2f} · {:.4g} gCO2e/kWh", e.region, *e.pue, *e.grid_kg_per_J / models::grid_kg_per_J(1))});
  t.add_row({"energy per token", fmt::format("{:.4g} J ({})", e.joules_per_token, e.pue ? "facility" : "IT, no region")});
  if (e.co2e_kg_per_million_tokens) t.add_row({"CO2e per million tokens", mass_text(*e.co2e_kg_per_million_tokens)});
  t.add_row({"tokens/s per kW", fmt::format("{:.4g}", e.tokens_per_s_per_kW)});
  if (e.job_kwh) t.add_row({"energy, whole job", fmt::format("{:.4g} MWh ({:.4g} MWh IT)", *e.job_kwh / 1e3, *e.job_it_kwh / 1e3)});
  else if (e.job_it_kwh) t.add_row({"energy, whole job (IT)", fmt::format("{:.4g} MWh", *e.job_it_kwh / 1e3)});
  if (e.co2e_kg) t.add_row({"CO2e operational (location-based)", mass_text(*e.co2e_kg)});
  if (e.co2e_market_kg) t.add_row({"CO2e operational (market-based)", mass_text(*e.co2e_market_kg)});
  if (e.embodied_kg) t.add_row({"CO2e embodied (amortised)", mass_text(*e.embodied_kg)});
  if (!e.mode.empty()) {
    t.add_row({"paid as", e.offer.empty() ? e.mode : fmt::format("{} {}", e.offer, e.mode)});
    t.add_row({"$ per device-hour", fmt::format("${:.3f}", *e.usd_per_device_hour)});
    t.add_row({"$ per hour, all devices", usd_text(*e.usd_per_hour)});
    t.add_row({"$ per million tokens", fmt::format("${:.4g}", *e.usd_per_million_tokens)});
    t.add_row({"tokens per $", fmt::format("{:.4g}", *e.tokens_per_usd)});
    if (e.spot_useful_fraction) t.add_row({"spot useful fraction", percent_text(*e.spot_useful_fraction)});
    if (e.usd) t.add_row({"cost, whole job", fmt::format("{} over {}", usd_text(*e.usd), duration_text(*e.job_wall_s))});
    if (e.tco_year) {
      t.add_row({"CapEx", usd_text(*e.capex_usd)});
      t.add_row({"TCO per year", fmt::format("{} (capital {}, energy {}, maintenance {}, facility {}, staff {})", usd_text(e.tco_year->total()),
                                             usd_text(e.tco_year->capital), usd_text(e.tco_year->energy), usd_text(e.tco_year->maintenance),
                                             usd_text(e.tco_year->facility), usd_text(e.tco_year->staff))});
      t.add_row({"allocation over the life", percent_text(*e.allocation)});
    }
    if (!e.cloud_alternative.empty()) {
      t.add_row({"cloud alternative", fmt::format("{} on-demand: {}/h{}", e.cloud_alternative, usd_text(*e.cloud_alternative_usd_per_hour),
                                                  e.cloud_alternative_usd ? ", " + usd_text(*e.cloud_alternative_usd) + " for the job" : "")});
      const double a = e.break_even_allocation.value_or(-1);
      t.add_row({"break-even allocation", a > 0 && a <= 1 ? fmt::format("{} (on-prem is cheaper above it)", percent_text(a))
                                                          : "never: on-prem costs more even fully allocated"});
    }
  }
  return t.render();
}

std::vector<std::string> with_economics(std::vector<std::string> assumptions, const std::optional<Economics>& e) {
  if (e) assumptions.insert(assumptions.end(), e->assumptions.begin(), e->assumptions.end());
  return assumptions;
}

void add_economics_json(const Economics& e, nlohmann::json& root) {
  nlohmann::json energy{{"device_power_w", e.device_power_W}, {"device_tdp_w", e.tdp_W}, {"device_idle_w", e.idle_W},
                        {"node_factor", e.node_factor}, {"it_power_w", e.it_power_W}, {"joules_per_token", e.joules_per_token},
                        {"kwh_per_million_tokens", *e.kwh_per_million_tokens}, {"tokens_per_s_per_kw", e.tokens_per_s_per_kW}};
  if (e.pue) {
    energy["region"] = e.region;
    energy["pue"] = *e.pue;
    energy["grid_g_per_kwh"] = *e.grid_kg_per_J / models::grid_kg_per_J(1);
  }
  if (e.co2e_kg_per_million_tokens) energy["co2e_kg_per_million_tokens"] = *e.co2e_kg_per_million_tokens;
  if (e.job_it_kwh) energy["it_kwh"] = *e.job_it_kwh;
  if (e.job_kwh) energy["kwh"] = *e.job_kwh;
  if (e.co2e_kg) energy["co2e_kg"] = *e.co2e_kg;
  if (e.co2e_market_kg) energy["co2e_market_kg"] = *e.co2e_market_kg;
  if (e.embodied_kg) energy["embodied_co2e_kg"] = *e.embodied_kg;
  root["energy"] = energy;
  if (e.mode.empty()) return;
  nlohmann::json cost{{"mode", e.mode}, {"usd_per_device_hour", *e.usd_per_device_hour}, {"usd_per_hour", *e.usd_per_hour},
                      {"usd_per_million_tokens", *e.usd_per_million_tokens}, {"tokens_per_usd", *e.tokens_per_usd}};
  if (!e.offer.empty()) cost["offer"] = e.offer;
  if (e.usd) {
    cost["usd"] = *e.usd;
    cost["wall_s"] = *e.job_wall_s;
  }
  if (e.spot_useful_fraction) cost["spot_useful_fraction"] = *e.spot_useful_fraction;
  if (e.tco_year) {
    cost["capex_usd"] = *e.capex_usd;
    cost["allocation"] = *e.allocation;
    cost["tco_per_year_usd"] = {{"total", e.tco_year->total()}, {"capital", e.tco_year->capital}, {"energy", e.tco_year->energy},
                                {"maintenance", e.tco_year->maintenance}, {"facility", e.tco_year->facility}, {"staff", e.tco_year->staff}};
  }
  if (!e.cloud_alternative.empty()) {
    nlohmann::json alt{{"offer", e.cloud_alternative}, {"usd_per_hour", *e.cloud_alternative_usd_per_hour}};
    if (e.cloud_alternative_usd) alt["usd"] = *e.cloud_alternative_usd;
    const double a = e.break_even_allocation.value_or(-1);
    if (a > 0 && a <= 1) alt["break_even_allocation"] = a;
    cost["cloud_alternative"] = alt;
  }
  root["cost"] = cost;
}

}  // namespace perfcast
