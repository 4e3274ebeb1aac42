#include "cli/output_file.hpp"

#include <fmt/format.h>
#include <fstream>

#include "engine/core/errors.hpp"
#include "engine/core/input_file.hpp"

namespace perfcast::cli {

void write_output_file(const std::string& path, std::string_view content, std::string_view what) {
  std::ofstream out(path);
  if (!out) throw InputError({path, 0, 0}, fmt::format("cannot write the {}", what));
  out << content;
}

nlohmann::json read_shard_json(const std::string& path, std::string_view what, std::string_view hint) {
  const std::string text = read_input_file(path, what);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw InputError({path, 0, 0}, fmt::format("not JSON: {}", hint));
  }
}

}  // namespace perfcast::cli
