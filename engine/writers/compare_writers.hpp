#pragma once
// `perfcast compare` as a table (best of each column marked), JSON and CSV; `bands` (parallel to the
// rows, may be empty) the rows' empirical bands (compare_bands), as P10-P90 of time and cost.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/calibrate/headline_bands.hpp"
#include "engine/sweep/compare.hpp"

namespace perfcast {

std::string compare_to_table(const CompareReport& r, const std::vector<HeadlineBands>& bands = {});
nlohmann::json compare_to_json(const CompareReport& r, const std::vector<HeadlineBands>& bands = {});
std::string compare_to_csv(const CompareReport& r, const std::vector<HeadlineBands>& bands = {});

}  // namespace perfcast
