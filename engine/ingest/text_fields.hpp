#pragma once
// Reading fields out of the text other tools print (nccl-tests tables, logs, summaries, CSV).
#include <optional>
#include <string>
#include <string_view>

namespace perfcast {

// `s` without the whitespace at both ends.
std::string trim(std::string_view s);
// The whole of `text`, whitespace at both ends aside, as a finite number; nullopt otherwise.
std::optional<double> parse_number(std::string_view text);

}  // namespace perfcast
