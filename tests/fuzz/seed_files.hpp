#pragma once
// The files a fuzz target's corpus starts from (its seed globs, matched under the source directory)
// and the inputs kept from its findings (tests/fuzz/regressions/<target>/).
#include <algorithm>
#include <filesystem>
#include <fnmatch.h>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_targets.hpp"

namespace perfcast::fuzz {

inline std::vector<std::filesystem::path> seed_files(const Target& t, const std::filesystem::path& source_dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(source_dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string relative = std::filesystem::relative(entry.path(), source_dir).generic_string();
    for (std::string_view glob : t.seed_globs)
      if (fnmatch(std::string(glob).c_str(), relative.c_str(), FNM_PATHNAME) == 0) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<std::filesystem::path> regression_files(const Target& t, const std::filesystem::path& source_dir) {
  std::vector<std::filesystem::path> out;
  const std::filesystem::path dir = source_dir / "tests/fuzz/regressions" / std::string(t.name);
  if (std::filesystem::is_directory(dir))
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.is_regular_file()) out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace perfcast::fuzz
