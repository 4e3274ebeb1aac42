#pragma once
// A validation case that is a scenario plus one published figure (the training and inference
// suites): id, source, metric (one of the suite's names), measured, tolerance, used_for, skip,
// notes, calibration and the [case.scenario] tables, read and checked in one place.
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/data/hardware_db.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/core/toml_section.hpp"

namespace perfcast {

// A measured figure beyond this, in the metric's SI unit, is no measurement (1e12 tokens/s, 1e12 s):
// the case reader and ingest refuse it alike.
inline constexpr double kMaxMeasured = 1e12;

struct ScenarioCase {
  std::string id, source, notes, used_for, skip;
  std::size_t metric = 0;             // index into the suite's metric names
  std::optional<Scenario> scenario;   // absent only for skipped cases
  double measured = 0;                // in the metric's unit
  double tolerance = 0.15;
  // `calibration`: the profile (perfcast calibrate -o) of the harness the case was measured on, which
  // validate scores it with unless given another. Written relative to the case file's folder; held resolved.
  std::string calibration;
};

// `phase` is "training" or "inference": the table the case's scenario must have.
ScenarioCase read_scenario_case(TomlSection& t, std::span<const std::string_view> metrics, std::string_view phase, const HardwareDb& db);

}  // namespace perfcast
