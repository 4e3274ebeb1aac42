#pragma once
// Reads one TOML data file against its kind's schema. Pass 1: syntax, unknown keys (with a
// "did you mean"), missing keys, types and units. Pass 2: value ranges, source use, and the kind's
// cross-field rules. Throws InputError naming file:line:column and the key.
#include <filesystem>
#include <string>
#include <string_view>

#include "engine/data/record.hpp"

namespace perfcast {

Record load_record(const std::filesystem::path& file, schema::Kind kind);

// The same from text; `file_label` names the file in messages and gives the expected `name`.
Record parse_record(std::string_view content, const std::string& file_label, schema::Kind kind);

}  // namespace perfcast
