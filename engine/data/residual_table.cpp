#include "engine/data/residual_table.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/core/input_file.hpp"

namespace perfcast {
namespace {

constexpr int kFormat = 1;

}  // namespace

nlohmann::json residual_table_json(const ResidualTable& t) {
  nlohmann::json sources = nlohmann::json::array(), cases = nlohmann::json::array();
  std::vector<std::string> seen;
  for (const Residual& r : t.cases) {
    auto it = std::find(seen.begin(), seen.end(), r.source);
    if (it == seen.end()) it = seen.insert(seen.end(), r.source), sources.push_back(r.source);
    cases.push_back({{"id", r.id}, {"source", it - seen.begin()}, {"features", r.features.values}, {"slowness", r.slowness}});
  }
  return {{"format", kFormat}, {"generated", t.generated}, {"features", kBandFeatureNames}, {"sources", sources}, {"cases", cases}};
}

ResidualTable load_residual_table(const std::filesystem::path& file) {
  const std::string name = file.string();
  auto fail = [&](std::string_view key, std::string_view what) -> void { throw InputError({name, 0, 0}, fmt::format("{}: {}", key, what)); };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_input_file(file, "validation residuals"));
  } catch (const nlohmann::json::exception& e) {
    throw InputError({name, 0, 0}, fmt::format("not JSON: {}", e.what()));
  }
  if (!j.is_object()) fail("(top level)", "expected an object");
  if (j.value("format", 0) != kFormat) fail("format", fmt::format("expected {} (rewrite it with perfcast validate --write-residuals)", kFormat));
  if (j.value("features", nlohmann::json()) != nlohmann::json(kBandFeatureNames)) fail("features", "not the features this perfcast matches on");
  ResidualTable t;
  t.generated = j.value("generated", "");
  const nlohmann::json& sources = j.value("sources", nlohmann::json());
  const nlohmann::json& cases = j.value("cases", nlohmann::json());
  if (!sources.is_array() || !cases.is_array()) fail("sources, cases", "expected arrays");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const nlohmann::json& c = cases[i];
    const std::string key = fmt::format("cases[{}]", i);
    if (!c.is_object() || !c.contains("id") || !c["id"].is_string() || !c.contains("source") || !c["source"].is_number_unsigned() ||
        c["source"].get<std::size_t>() >= sources.size() || !sources[c["source"].get<std::size_t>()].is_string() ||
        !c.contains("slowness") || !c["slowness"].is_number() || !c.contains("features") || !c["features"].is_array() ||
        c["features"].size() != kBandFeatureNames.size())
      fail(key, "expected id, source (an index into sources), features (one string each) and slowness (a number)");
    Residual r{c["id"].get<std::string>(), sources[c["source"].get<std::size_t>()].get<std::string>(), {}, c["slowness"].get<double>()};
    for (std::size_t f = 0; f < kBandFeatureNames.size(); ++f) {
      if (!c["features"][f].is_string()) fail(key + ".features", "expected strings");
      r.features.values[f] = c["features"][f].get<std::string>();
    }
    if (!std::isfinite(r.slowness) || std::fabs(r.slowness) > 10) fail(key + ".slowness", "not a finite ln of a ratio within e^±10");
    t.cases.push_back(std::move(r));
  }
  return t;
}

std::filesystem::path shipped_residuals_file() { return shipped_data(PERFCAST_DEFAULT_VALIDATION, "validation") / "residuals.json"; }

const ResidualTable& shipped_residuals() {
  static const ResidualTable table = [] {
    const std::filesystem::path file = shipped_residuals_file();
    std::error_code ec;
    return std::filesystem::is_regular_file(file, ec) ? load_residual_table(file) : ResidualTable{};
  }();
  return table;
}

}  // namespace perfcast
