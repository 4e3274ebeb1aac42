#pragma once
// A scenario from TOML text, read against the shipped database and workloads as `test.toml`, and
// the one-line error such text gets ("" when it loads), and scenario texts several suites share.
#include <fmt/format.h>
#include <string>
#include <string_view>

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

// GPT-3 175B on 64 A100 as Korthikanti et al. Table 3, with the [parallelism] block given.
inline std::string gpt3_64(const std::string& parallelism, const std::string& training_extra = "", std::string_view recompute = "selective",
                           int global_batch = 64) {
  return fmt::format(R"(
[model]
preset = "gpt3-175b"
[hardware]
system = "dgx-a100-80gb"
nodes = 8
[training]
seq_len = 2048
global_batch = {}
micro_batch = 1
recompute = "{}"
{}
[parallelism]
{}
)", global_batch, recompute, training_extra, parallelism);
}

}  // namespace perfcast::test
