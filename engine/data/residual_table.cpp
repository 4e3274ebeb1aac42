#include "engine/data/residual_table.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/core/input_file.hpp"

namespace perfcast {
namespace {

// 2: each case [id, source, profile, slowness], indices into the sources and the distinct feature
// profiles (a few dozen), which keeps the file small and quick to read on every prediction.
constexpr int kFormat = 2;

// The index of `value` in `seen`, appended to both when new.
template <class T>
std::size_t index_of(std::vector<T>& seen, nlohmann::json& out, const T& value) {
  auto it = std::find(seen.begin(), seen.end(), value);
  if (it != seen.end()) return std::size_t(it - seen.begin());
  seen.push_back(value), out.push_back(value);
  return seen.size() - 1;
}

}  // namespace

nlohmann::json residual_table_json(const ResidualTable& t) {
  nlohmann::json sources = nlohmann::json::array(), profiles = nlohmann::json::array(), cases = nlohmann::json::array();
  std::vector<std::string> seen_sources;
  std::vector<decltype(BandFeatures::values)> seen_profiles;
  for (const Residual& r : t.cases)
    cases.push_back({r.id, index_of(seen_sources, sources, r.source), index_of(seen_profiles, profiles, r.features.values), r.slowness});
  return {{"format", kFormat}, {"generated", t.generated}, {"features", kBandFeatureNames}, {"sources", sources},
          {"profiles", profiles}, {"cases", cases}};
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
  const nlohmann::json sources = j.value("sources", nlohmann::json()), profiles = j.value("profiles", nlohmann::json()),
                       cases = j.value("cases", nlohmann::json());
  if (!sources.is_array() || !profiles.is_array() || !cases.is_array()) fail("sources, profiles, cases", "expected arrays");
  std::vector<BandFeatures> features(profiles.size());
  for (std::size_t p = 0; p < profiles.size(); ++p) {
    if (!profiles[p].is_array() || profiles[p].size() != kBandFeatureNames.size()) fail(fmt::format("profiles[{}]", p), "expected one string a feature");
    for (std::size_t f = 0; f < kBandFeatureNames.size(); ++f) {
      if (!profiles[p][f].is_string()) fail(fmt::format("profiles[{}]", p), "expected strings");
      features[p].values[f] = profiles[p][f].get<std::string>();
    }
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const nlohmann::json& c = cases[i];
    const std::string key = fmt::format("cases[{}]", i);
    if (!c.is_array() || c.size() != 4 || !c[0].is_string() || !c[1].is_number_unsigned() || c[1].get<std::size_t>() >= sources.size() ||
        !sources[c[1].get<std::size_t>()].is_string() || !c[2].is_number_unsigned() || c[2].get<std::size_t>() >= profiles.size() ||
        !c[3].is_number())
      fail(key, "expected [id, source (an index into sources), profile (an index into profiles), slowness (a number)]");
    Residual r{c[0].get<std::string>(), sources[c[1].get<std::size_t>()].get<std::string>(), features[c[2].get<std::size_t>()], c[3].get<double>()};
    if (!std::isfinite(r.slowness) || std::fabs(r.slowness) > 10) fail(key, "slowness: not a finite ln of a ratio within e^±10");
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
