#pragma once
// A case file's text scored as `perfcast validate --cases` would: written to a temporary file
// named `name`, scored (or its InputError caught), then removed.
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "engine/core/errors.hpp"
#include "engine/validate/validation.hpp"
#include "tests/shipped_db.hpp"

inline std::vector<perfcast::CaseScore> score_case_text(const std::string& text, const std::string& name) {
  const auto path = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".toml");
  std::ofstream(path) << text;
  struct Remove {
    std::filesystem::path p;
    ~Remove() { std::filesystem::remove(p); }
  } remove{path};
  return perfcast::score_file(path, shipped_db());
}

// The one-line error scoring `text` raises, or "" when it scores.
inline std::string case_text_error(const std::string& text, const std::string& name) {
  try {
    score_case_text(text, name);
  } catch (const perfcast::InputError& e) {
    return e.what();
  }
  return "";
}
