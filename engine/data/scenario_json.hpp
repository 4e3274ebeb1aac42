#pragma once
// A scenario given as JSON (a Python dict, a web request) instead of a TOML file: the same tables
// and keys as the file, read by the same reader, so every check and error message is the file's,
// naming `label` where a file name would stand.
#include <nlohmann/json.hpp>
#include <string>

#include "engine/data/hardware_db.hpp"
#include "engine/spec/scenario.hpp"

namespace perfcast {

// InputError naming `label` and the key: a null, a nesting deeper than a scenario's, or anything
// the scenario reader refuses.
Scenario scenario_from_json(const nlohmann::json& j, const std::string& label, const HardwareDb& db);

}  // namespace perfcast
