#pragma once
// `perfcast compare` as a table (best of each column marked), JSON and CSV.
#include <nlohmann/json.hpp>
#include <string>

#include "engine/sweep/compare.hpp"

namespace perfcast {

std::string compare_to_table(const CompareReport& r);
nlohmann::json compare_to_json(const CompareReport& r);
std::string compare_to_csv(const CompareReport& r);

}  // namespace perfcast
