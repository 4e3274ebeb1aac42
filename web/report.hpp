#pragma once
// `perfcast report SCENARIO -o report.html`: one HTML file that opens anywhere without a network —
// the prediction, its charts (Chart.js inline), the assumptions, the hardware figures with their
// sources, and the measured error of that kind of prediction — to attach to a proposal.
#include <string>

#include "engine/data/hardware_db.hpp"
#include "engine/spec/scenario.hpp"

namespace perfcast::web {

// The report of a scenario read from `scenario_file`; what the commands would print goes in as JSON.
std::string report_html(const Scenario& s, const std::string& scenario_file, const HardwareDb& db);

}  // namespace perfcast::web
