#pragma once
// `perfcast model show` and `perfcast model import`: a transformer workload's architecture and
// parameter counts as a table or JSON, and as a preset file (scenarios/workloads format).
#include <nlohmann/json.hpp>
#include <string>

#include "engine/spec/workload.hpp"

namespace perfcast {

std::string model_table(const Workload& w);
nlohmann::json model_json(const Workload& w);
// The preset TOML that loads back into `w` (its source, architecture and stored weight format in
// the notes); the [published] figures are the user's to add.
std::string model_preset_toml(const Workload& w);

}  // namespace perfcast
