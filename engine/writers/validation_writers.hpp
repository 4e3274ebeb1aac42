#pragma once
// `perfcast validate` results as a terminal table, JSON, CSV and markdown (docs/validation.md): each
// case's prediction against its measurement, then the held-out error by suite and by source.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/calibrate/empirical_bands.hpp"
#include "engine/validate/validation.hpp"

namespace perfcast {

struct ValidationReport {
  std::vector<std::filesystem::path> files;
  std::vector<CaseScore> scores;
  // With a calibration profile: its file, the defaults' scores of the same cases, and what it excluded.
  std::optional<std::string> profile;
  std::vector<CaseScore> before;
  int fitted = 0, other_device = 0;
};

std::string validation_to_table(const ValidationReport& r);
nlohmann::json validation_to_json(const ValidationReport& r);
std::string validation_to_csv(const ValidationReport& r);
std::string validation_to_markdown(const ValidationReport& r);

// validate --coverage: the share of held-out cases inside the empirical band their features get from
// the other sources (F-UNC-2), pooled, by kind and by source.
std::string coverage_to_table(const CoverageReport& c);
nlohmann::json coverage_to_json(const CoverageReport& c);
std::string coverage_to_markdown(const CoverageReport& c);

}  // namespace perfcast
