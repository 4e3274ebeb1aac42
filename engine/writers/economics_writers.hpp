#pragma once
// Cost, energy and CO2e of a prediction: a table section and the DESIGN.md JSON objects
// `cost.{usd, usd_per_hour, usd_per_million_tokens, ...}` and `energy.{kwh, co2e_kg, ...}`.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/predict/economics.hpp"

namespace perfcast {

std::string economics_to_table(const Economics& e);
// Adds "cost" (with [cost]) and "energy" to `root`; absent fields stay absent.
void add_economics_json(const Economics& e, nlohmann::json& root);

// The prediction's assumptions followed by those of its cost and energy, when it has them.
std::vector<std::string> with_economics(std::vector<std::string> assumptions, const std::optional<Economics>& e);

}  // namespace perfcast
