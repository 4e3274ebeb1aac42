#pragma once
// `perfcast calibrate` output: the fitted parameters with their intervals, each case's error
// with the defaults, fitted and left out (leave-one-out), and the notes; as text or JSON.
#include <nlohmann/json.hpp>
#include <string>

#include "engine/calibrate/calibration.hpp"
#include "engine/calibrate/headline_bands.hpp"
#include "engine/calibrate/uncertainty.hpp"

namespace perfcast {

std::string calibration_text(const CalibrationResult& r);
nlohmann::json calibration_json(const CalibrationResult& r);

// Median |error| over a result's cases: with the defaults, fitted, and leave-one-out.
struct CalibrationErrors {
  double before = 0, after = 0, leave_one_out = 0, leave_one_source_out = 0;
  bool has_leave_one_out = false, has_leave_one_source_out = false;
};
CalibrationErrors calibration_errors(const CalibrationResult& r);

// --uncertainty: the point prediction and P10/P50/P90 of each figure.
std::string uncertainty_text(const UncertaintyReport& u);
nlohmann::json uncertainty_json(const UncertaintyReport& u);
// `title`: what the draws are ("Uncertainty", "Parameter spread").
std::string uncertainty_text(const UncertaintyReport& u, std::string_view title);

// The headline figures' empirical bands (F-UNC-2): each figure's P10/P50/P90 and the cases behind it.
std::string bands_text(const HeadlineBands& b);
nlohmann::json bands_json(const HeadlineBands& b);

// The assumption line of a prediction made with a profile, warning when the scenario's device is
// not one the profile was fitted on.
std::string profile_assumption(const CalibrationProfile& p, std::string_view accelerator);

}  // namespace perfcast
