#include "cli/output_file.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <system_error>
#include <unistd.h>

#include "engine/core/errors.hpp"
#include "engine/core/input_file.hpp"

namespace perfcast::cli {

void write_output_file(const std::string& path, std::string_view content, std::string_view what,
                       const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  if (path.empty()) throw InputError({"-o", 0, 0}, fmt::format("an empty path for the {}", what));
  std::error_code ec;
  for (const std::string& input : inputs)
    if (fs::equivalent(path, input, ec))
      throw InputError({path, 0, 0}, fmt::format("is this command's input: the {} would overwrite it", what));
  const fs::file_status status = fs::status(path, ec);
  // A device or pipe (/dev/stdout, /dev/full, a FIFO) is written in place; a regular file through a
  // temporary beside it, renamed over it once every byte is written, so a failed write leaves the
  // old file whole.
  const bool in_place = fs::exists(status) && !fs::is_regular_file(status);
  const std::string target = in_place ? path : path + fmt::format(".perfcast-{}.tmp", ::getpid());
  {
    std::ofstream out(target, std::ios::binary);
    if (!out) throw InputError({path, 0, 0}, fmt::format("cannot write the {}", what));
    out.write(content.data(), std::streamsize(content.size()));
    out.close();
    if (!out) {
      if (!in_place) fs::remove(target, ec);
      throw InputError({path, 0, 0}, fmt::format("cannot write the {}: the write failed (device full?)", what));
    }
  }
  if (!in_place) {
    fs::rename(target, path, ec);
    if (ec) {
      fs::remove(target, ec);
      throw InputError({path, 0, 0}, fmt::format("cannot write the {}: {}", what, ec.message()));
    }
  }
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
