#pragma once
// Roofline reports as a terminal table, JSON, CSV and an SVG chart.
#include <nlohmann/json.hpp>
#include <string>

#include "engine/predict/roofline.hpp"

namespace perfcast {

std::string roofline_to_table(const RooflineReport& r);
nlohmann::json roofline_to_json(const RooflineReport& r);
std::string roofline_to_csv(const RooflineReport& r);
// Log-log roofline: compute ceilings (peak and achievable), the bandwidth slopes, the ridge
// points, and every op with FLOPs placed at (intensity, achieved FLOP/s) with its label.
std::string roofline_to_svg(const RooflineReport& r);

}  // namespace perfcast
