#include "engine/core/input_file.hpp"

#include <fstream>
#include <sstream>

#include "engine/core/errors.hpp"

namespace perfcast {

std::string read_input_file(const std::filesystem::path& file, std::string_view what) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError({file.string(), 0, 0}, "cannot open " + std::string(what));
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace perfcast
