#pragma once
// Memory reports as a terminal table, JSON (DESIGN.md "memory.{...}" names), CSV and an SVG
// stacked bar against the capacity.
#include <nlohmann/json.hpp>
#include <string>

#include "engine/predict/memory.hpp"

namespace perfcast {

std::string memory_to_table(const MemoryReport& r, bool detail);
nlohmann::json memory_to_json(const MemoryReport& r);
std::string memory_to_csv(const MemoryReport& r);
std::string memory_to_svg(const MemoryReport& r);

}  // namespace perfcast
