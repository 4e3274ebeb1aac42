#pragma once
// `perfcast collective` output: an nccl-tests-shaped table, JSON and CSV.
#include <nlohmann/json.hpp>
#include <string>

#include "engine/predict/collective.hpp"

namespace perfcast {

std::string collective_to_table(const CollectiveSweep& s);
nlohmann::json collective_to_json(const CollectiveSweep& s);
std::string collective_to_csv(const CollectiveSweep& s);

}  // namespace perfcast
