#pragma once
// A scenario given as JSON (a Python dict, a web request) instead of a TOML file: the same tables
// and keys as the file, read by the same reader, so every check and error message is the file's,
// naming `label` where a file name would stand.
#include <nlohmann/json.hpp>
#include <string>
#include <toml++/toml.h>

#include "engine/data/hardware_db.hpp"
#include "engine/spec/scenario.hpp"

namespace perfcast {

// Whether the scenario may name files: a local caller's dict may (`model.hf_config` as a path), a
// web request may not (it gives the config.json's content as a table instead).
enum class FilePaths { allowed, refused };

// The scenario's tables as TOML, before any key is read. InputError naming `label` and the key: a
// null (kept only inside an inline config.json, where it means the field is absent), a nesting
// deeper than a scenario's, or a file path where `paths` refuses one.
toml::table scenario_table_from_json(const nlohmann::json& j, const std::string& label, FilePaths paths);

// The scenario read: InputError as above, or anything the scenario reader refuses.
Scenario scenario_from_json(const nlohmann::json& j, const std::string& label, const HardwareDb& db,
                            FilePaths paths = FilePaths::allowed);

}  // namespace perfcast
