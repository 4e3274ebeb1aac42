#pragma once
// A scenario from TOML text, read against the shipped database and workloads as `test.toml`, and
// the one-line error such text gets ("" when it loads).
#include <string>

#include "engine/core/errors.hpp"
#include "engine/data/scenario_reader.hpp"
#include "tests/shipped_db.hpp"

namespace perfcast::test {

inline Scenario scenario(const std::string& text) { return parse_scenario(text, "test.toml", PERFCAST_DEFAULT_WORKLOADS, shipped_db()); }

inline std::string scenario_error(const std::string& text) {
  try {
    scenario(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace perfcast::test
