#pragma once
// Reads a scenario file (DESIGN.md "The scenario format"): validates every key and the layout
// against the model (TP dividing heads, ...), and resolves every hardware name once.
#include <filesystem>
#include <optional>
#include <string>

#include "engine/core/toml_section.hpp"
#include "engine/data/hardware_db.hpp"
#include "engine/data/workload_reader.hpp"
#include "engine/spec/scenario.hpp"

namespace perfcast {

// [training]-style keys shared with the validation cases: an optimizer recipe name (unknown names
// fail at the key with a suggestion) and an offload mode ("none", "optimizer", "optimizer+params").
std::optional<std::string> read_recipe(TomlSection& t, std::string_view key);
std::optional<models::Offload> read_offload(TomlSection& t, std::string_view key);

// Loads and validates a scenario; presets resolve in `workloads`, hardware names in `db`.
Scenario load_scenario(const std::filesystem::path& file, const std::filesystem::path& workloads, const HardwareDb& db);
Scenario parse_scenario(std::string_view content, const std::string& label, const std::filesystem::path& workloads,
                        const HardwareDb& db);
// The same from an already parsed table (a validation case's [case.scenario]). `layout_searched`:
// a search (perfcast plan) supplies the layout, so the default one is not held to the layout rules.
Scenario read_scenario(TomlSection& root, const std::string& label, const std::filesystem::path& workloads, const HardwareDb& db,
                       bool layout_searched = false);
// [hardware]: a system (and nodes) or an accelerator (and count), resolved names checked, the
// device count derived. InputError naming the key otherwise.
HardwareChoice read_hardware(TomlSection& t, const HardwareDb& db);
// A scenario file states its format version (schema_version = 1); the text forms above are
// embedded scenarios and tests, whose enclosing document carries it.
void require_schema_version(const TomlSection& root);

}  // namespace perfcast
