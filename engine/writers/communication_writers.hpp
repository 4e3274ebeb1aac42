#pragma once
// `perfcast comm` output: placement of the groups, traffic items and per-group totals, as a
// terminal table, JSON and CSV (one row per traffic item).
#include <nlohmann/json.hpp>
#include <string>

#include "engine/predict/communication.hpp"

namespace perfcast {

std::string communication_to_table(const CommunicationReport& r);
nlohmann::json communication_to_json(const CommunicationReport& r);
std::string communication_to_csv(const CommunicationReport& r);

}  // namespace perfcast
