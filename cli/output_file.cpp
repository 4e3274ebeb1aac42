#include "cli/output_file.hpp"

#include <fmt/format.h>
#include <fstream>

#include "engine/core/errors.hpp"

namespace perfcast::cli {

void write_output_file(const std::string& path, std::string_view content, std::string_view what) {
  std::ofstream out(path);
  if (!out) throw InputError({path, 0, 0}, fmt::format("cannot write the {}", what));
  out << content;
}

}  // namespace perfcast::cli
