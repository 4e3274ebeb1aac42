#pragma once
// Checks of option values shared by commands, as CLI11 validators.
#include <cmath>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

namespace perfcast::cli {

// A request rate: a positive, finite number of requests/s.
inline CLI::Validator positive_rate() {
  return CLI::Validator(
      [](std::string& text) {
        try {
          std::size_t used = 0;
          const double v = std::stod(text, &used);
          if (used == text.size() && v > 0 && std::isfinite(v)) return std::string();
        } catch (const std::exception&) {
        }
        return "'" + text + "': give a positive number of requests/s, e.g. 200";
      },
      "RATE");
}

// An output path: not empty (an empty -o would otherwise read as "not given" and print to stdout).
inline CLI::Validator output_path() {
  return CLI::Validator([](std::string& text) { return text.empty() ? std::string("an empty path: name the file to write") : std::string(); },
                        "PATH");
}

// A workload preset's name: what `preset = "..."` can load from scenarios/workloads/<name>.toml:
// letters, digits, '.', '_' and '-', not starting with '.', at most 100 characters.
inline CLI::Validator preset_name() {
  return CLI::Validator(
      [](std::string& text) {
        const bool ok = !text.empty() && text.size() <= 100 && text[0] != '.' &&
                        text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == std::string::npos;
        return ok ? std::string()
                  : "'" + text + "': a preset name is 1 to 100 letters, digits, '.', '_' or '-' (not starting with '.'), as its file's stem";
      },
      "NAME");
}

}  // namespace perfcast::cli
