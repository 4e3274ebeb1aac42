#pragma once
// Workload presets (scenarios/workloads/<name>.toml): a transformer ([model], optionally based on
// another preset) or a vision op list ([[layer]]), with the published figures the tests check.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/toml_section.hpp"
#include "engine/spec/workload.hpp"

namespace perfcast {

// Where presets live: $PERFCAST_WORKLOADS, else the source tree's scenarios/workloads.
std::filesystem::path default_workloads_dir();
std::vector<std::string> preset_names(const std::filesystem::path& dir);

// Loads a preset by name, with a "did you mean" for unknown names.
Workload load_preset(const std::filesystem::path& dir, const std::string& name);
Workload load_workload_file(const std::filesystem::path& file, const std::filesystem::path& dir);
// The same from text; `label` names the file in messages and its stem must equal `name`.
Workload parse_workload(std::string_view content, const std::string& label, const std::filesystem::path& dir);

// Reads a [model] table: `preset = "<name>"` (resolved in `dir`) and/or inline fields, which
// override the preset's. Validates the architecture. Used by presets (`name` = the preset's own
// name) and scenarios (`name` empty: the workload keeps the preset's name).
// `vision_alone`: a vision preset is accepted when it is the table's only key (scenarios).
Workload read_model_table(TomlSection& model, const std::filesystem::path& dir, const std::string& name,
                          bool vision_alone = false);

}  // namespace perfcast
