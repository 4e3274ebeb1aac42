#include "engine/validate/scenario_case.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "engine/validate/validation.hpp"
#include "engine/data/workload_reader.hpp"

namespace perfcast {

ScenarioCase read_scenario_case(TomlSection& t, std::span<const std::string_view> metrics, std::string_view phase, const HardwareDb& db) {
  ScenarioCase c;
  c.id = t.require_string("id");
  c.source = t.require_string("source");
  auto metric = t.choice("metric", metrics);
  if (!metric) t.fail_here(fmt::format("missing required key '{}metric'", t.path()));
  c.metric = std::size_t(std::find(metrics.begin(), metrics.end(), std::string_view(*metric)) - metrics.begin());
  c.measured = t.require_number("measured", 0, false, kMaxMeasured);
  if (!std::isnormal(c.measured)) t.fail("measured", fmt::format("{:g} is a subnormal number, not a measurement", c.measured));
  read_shared_keys(t, c, 0.15);
  if (const auto profile = t.string("calibration")) {
    const std::filesystem::path at = std::filesystem::path(t.file()).parent_path() / *profile;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(at, ec))
      t.fail("calibration", fmt::format("'{}' is not a profile file (looked for {}; the path is from the case file's folder)", *profile,
                                        at.string()));
    c.calibration = at.lexically_normal().string();
  }
  if (auto sc = t.table("scenario")) c.scenario = read_scenario(*sc, t.file(), default_workloads_dir(), db);
  else if (c.skip.empty()) t.fail_here(fmt::format("case '{}' needs a [case.scenario] table (or a skip reason)", c.id));
  t.finish();
  const bool has = c.scenario && (phase == "training" ? c.scenario->training.has_value() : c.scenario->inference.has_value());
  if (c.scenario && !has)
    t.fail("scenario", fmt::format("{0} {1} case needs {0} [{1}] table in its scenario", phase == "inference" ? "an" : "a", phase));
  return c;
}

}  // namespace perfcast
