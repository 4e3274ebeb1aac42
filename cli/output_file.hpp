#pragma once
// Writing a command's side output (an --svg chart) to a file.
#include <string>
#include <string_view>

namespace perfcast::cli {

// Writes `content` to `path`; throws InputError "<path>: cannot write the <what>" on failure.
void write_output_file(const std::string& path, std::string_view content, std::string_view what);

}  // namespace perfcast::cli
