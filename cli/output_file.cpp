#include "cli/output_file.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <system_error>
#include <unistd.h>

#include "engine/core/errors.hpp"
#include "engine/core/input_file.hpp"

namespace perfcast::cli {

OutputFile::OutputFile(std::string path, std::string_view what, const std::vector<std::string>& inputs)
    : path_(std::move(path)), what_(what) {
  namespace fs = std::filesystem;
  if (path_.empty()) throw InputError({"-o", 0, 0}, fmt::format("an empty path for the {}", what_));
  std::error_code ec;
  for (const std::string& input : inputs)
    if (fs::equivalent(path_, input, ec))
      throw InputError({path_, 0, 0}, fmt::format("is this command's input: the {} would overwrite it", what_));
  const fs::file_status status = fs::status(path_, ec);
  in_place_ = fs::exists(status) && !fs::is_regular_file(status);
  target_ = in_place_ ? path_ : path_ + fmt::format(".perfcast-{}.tmp", ::getpid());
  out_.open(target_, std::ios::binary);
  if (!out_) throw InputError({path_, 0, 0}, fmt::format("cannot write the {}", what_));
}

OutputFile::~OutputFile() {
  if (committed_ || in_place_) return;
  out_.close();
  std::error_code ec;
  std::filesystem::remove(target_, ec);
}

void OutputFile::commit(std::string_view content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  out_.write(content.data(), std::streamsize(content.size()));
  out_.close();
  if (!out_) throw InputError({path_, 0, 0}, fmt::format("cannot write the {}: the write failed (device full?)", what_));
  if (!in_place_) {
    fs::rename(target_, path_, ec);
    if (ec) throw InputError({path_, 0, 0}, fmt::format("cannot write the {}: {}", what_, ec.message()));
  }
  committed_ = true;
}

void write_output_file(const std::string& path, std::string_view content, std::string_view what,
                       const std::vector<std::string>& inputs) {
  OutputFile(path, what, inputs).commit(content);
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
