#pragma once
// Writing a command's side output (an --svg chart) to a file, and reading back a shard it wrote.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace perfcast::cli {

// Writes `content` to `path`; throws InputError "<path>: cannot write the <what>" on failure.
void write_output_file(const std::string& path, std::string_view content, std::string_view what);

// The JSON of a shard file (`what`: "sweep shard"); InputError "<path>: not JSON: <hint>" otherwise.
nlohmann::json read_shard_json(const std::string& path, std::string_view what, std::string_view hint);

}  // namespace perfcast::cli
