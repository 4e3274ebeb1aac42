#pragma once
// Calibration: fit the models' named parameters (calibration_params()) to measured cases by
// maximum a posteriori least squares, and score predictions with a profile honestly.
//
// Residuals, in log space so that a case 10 % slow weighs as much as one 10 % fast:
//   case i:       ln(predicted_i / measured_i) / (tolerance_i sigma)   (a case's tolerance is its stated error)
//   parameter j:  ln(value_j / default_j) / prior_sd_j                (the prior at the sourced default)
// with sigma, the cases' common scatter in tolerances, estimated from their residuals (sigma^2 =
// chi^2 / dof, within [0.001, 1]: a fit closer than the tolerances lets the priors yield to the data).
// Minimised with Eigen's Levenberg-Marquardt over value_j = low + (high - low) * logistic(u_j), so no
// step leaves the bounds, from the defaults and from the best points of a Halton sequence over the
// bounds (the collective model is piecewise: the fastest of NCCL's algorithms and protocols), keeping
// the lowest chi^2/(2 sigma^2) + dof ln sigma + prior^2/2. Only parameters some case depends on (at a
// 5 % step, or a factor of 10 for one that binds only when moved, such as a latency floor) are
// fitted; the rest keep their defaults. The covariance of ln(value) is s^2 (J^T J)^-1 at the optimum
// (J: the residuals' Jacobian in ln(value), priors included; s^2 = max(1, chi^2 / sigma^2 / dof)), and the interval is
// value * exp(+-t * sd) with Student's t on dof = max(1, cases - fitted parameters) (Boost.Math).
// Leave-one-out refits without each case in turn and predicts it; with two or more sources,
// leave-one-source-out refits without each source's cases and predicts them.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/data/calibration_profile.hpp"
#include "engine/data/hardware_db.hpp"
#include "engine/validate/validation.hpp"

namespace perfcast {

struct CalibrationRequest {
  std::vector<std::filesystem::path> files;  // case files (validate's format; `perfcast ingest` writes them)
  std::optional<std::string> system;         // only cases on this system's accelerator
  std::string kind, source;                  // only cases of this kind / whose source contains this
  std::vector<std::string> parameters;       // fit only these (names of calibration_params()); all when empty
  int select_index = 0, select_of = 1;       // of those, the ones at positions i, i + N, i + 2N, ...
  double confidence = 0.90;
  bool leave_one_out = true;
  int threads = 0;                           // leave-one-out refits in parallel; 0 = every core
};

struct CalibrationCase {
  CaseScore before, after;                   // with the defaults and with the fitted parameters
  std::optional<double> leave_one_out;       // predicted by a fit without this case
  std::optional<double> leave_one_source_out;  // by a fit without every case of its source (two or more sources)
  double loo_error() const { return leave_one_out ? *leave_one_out / before.measured - 1 : 0; }
  double loso_error() const { return leave_one_source_out ? *leave_one_source_out / before.measured - 1 : 0; }
};

struct CalibrationResult {
  CalibrationProfile profile;
  std::vector<CalibrationCase> cases;        // the fitted cases
  std::vector<std::string> notes;            // cases left out and why; parameters no case informs
  int evaluations = 0;                       // scorings of the case set
};

// Throws InputError when no case is left to fit, or a file is malformed.
CalibrationResult calibrate(const CalibrationRequest& r, const HardwareDb& db);

// Validation with a profile: each case scored with the defaults (`before`) and with the profile
// (`after`) when it ran on a device the profile was fitted on. Cases the profile was fitted on are
// never held-out in `after` (used_for = "calibration").
struct CalibratedScores {
  std::vector<CaseScore> before, after;
  int fitted = 0, other_device = 0;          // cases excluded as fitted; cases scored with defaults
  std::vector<bool> on_other_device;         // per case, parallel to `after`
};
CalibratedScores score_with_profile(const std::vector<std::filesystem::path>& files, const HardwareDb& db,
                                    const CalibrationProfile& p);
// A file's cases as validate scores them without --calibration: with the defaults, except that a case
// naming its harness's profile (`calibration = "..."`) is scored with it as score_with_profile would:
// not held-out when the profile was fitted on it, with the defaults on a device it does not carry to.
// `detail` says which.
std::vector<CaseScore> score_file_with_case_profiles(const std::filesystem::path& file, const HardwareDb& db, std::string_view kind = {});
// The cases `wanted` accepts, with the counts recounted over them.
CalibratedScores keep_cases(const CalibratedScores& s, const std::function<bool(const CaseScore&)>& wanted);

}  // namespace perfcast
