#include "engine/core/input_file.hpp"

#include <fmt/format.h>
#include <fstream>
#include <system_error>

#include "engine/core/errors.hpp"

namespace perfcast {

std::string read_input_file(const std::filesystem::path& file, std::string_view what) {
  const FilePosition at{file.string(), 0, 0};
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status)) throw InputError(at, fmt::format("cannot open {}: no such file", what));
  // A device (/dev/zero), a FIFO or a socket never ends or blocks the reader: only regular files.
  if (std::filesystem::is_directory(status)) throw InputError(at, fmt::format("cannot open {}: it is a directory", what));
  if (!std::filesystem::is_regular_file(status))
    throw InputError(at, fmt::format("cannot open {}: not a regular file (a device, FIFO or socket)", what));
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  if (ec) throw InputError(at, fmt::format("cannot open {}: {}", what, ec.message()));
  if (size > kMaxInputFileBytes)
    throw InputError(at, fmt::format("{} is {:.1f} MiB, above the {} MiB limit for input files", what, double(size) / (1 << 20),
                                     kMaxInputFileBytes >> 20));
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(at, fmt::format("cannot open {}", what));
  std::string content(size, '\0');
  in.read(content.data(), static_cast<std::streamsize>(size));
  content.resize(static_cast<std::size_t>(in.gcount()));
  return content;
}

std::filesystem::path shipped_data(const std::filesystem::path& build_tree, std::string_view relative) {
  std::error_code ec;
  if (std::filesystem::is_directory(build_tree, ec)) return build_tree;
  const std::filesystem::path installed = std::filesystem::path(PERFCAST_INSTALLED_DATA) / relative;
  return std::filesystem::is_directory(installed, ec) ? installed : build_tree;
}

}  // namespace perfcast
