#pragma once
// Reads an input file (data file, preset, scenario, validation cases) whole, as bytes.
#include <filesystem>
#include <string>
#include <string_view>

namespace perfcast {

// Throws InputError "<file>: cannot open <what>" when the file cannot be read.
std::string read_input_file(const std::filesystem::path& file, std::string_view what);

}  // namespace perfcast
