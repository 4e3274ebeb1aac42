#pragma once
// Writing a command's side output (an --svg chart) to a file, and reading back a shard it wrote.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast::cli {

// Writes `content` to `path` (a regular file through a temporary renamed over it once written and
// checked); throws InputError "<path>: cannot write the <what>..." on failure, and refuses a path that
// is one of the command's `inputs` or empty.
void write_output_file(const std::string& path, std::string_view content, std::string_view what,
                       const std::vector<std::string>& inputs = {});

// The JSON of a shard file (`what`: "sweep shard"); InputError "<path>: not JSON: <hint>" otherwise.
nlohmann::json read_shard_json(const std::string& path, std::string_view what, std::string_view hint);

}  // namespace perfcast::cli
