#pragma once
// The parameters `perfcast calibrate` may fit, with their bounds and prior spreads, and the
// calibration profile it writes (profile.toml) that predict, sweep and validate take with
// --calibration. Every value in a profile is in log space around the parameter's default: the
// fit, the confidence intervals and the uncertainty sampling all work on ln(value).
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/spec/model_params.hpp"

namespace perfcast {

struct CalibrationParam {
  std::string_view name;
  double models::Efficiency::*efficiency = nullptr;        // one of the two is set
  double models::CollectiveParams::*collective = nullptr;
  double low = 0, high = 1;       // the fit never leaves [low, high]
  double prior_sd = 0;            // of ln(value) before calibration
  std::string_view what, spread_source;
  bool host_side = false;         // the host's launch path, not the device: carries to any device

  double get(const ModelParams& p) const;
  void set(ModelParams& p, double v) const;
  double default_value() const;
};

std::span<const CalibrationParam> calibration_params();
// The parameter named `name`, or nullptr.
const CalibrationParam* find_calibration_param(std::string_view name);

struct ProfileParam {
  std::string name;
  double value = 0, default_value = 0;
  double sd_log = 0;              // posterior (or prior, when not informed) sd of ln(value)
  double low = 0, high = 0;       // the confidence interval
  bool informed = false;          // some fitted case depends on it
};

struct CalibrationProfile {
  std::string file;                          // where it was read from; empty when built in memory
  std::optional<std::string> system;         // --system of calibrate
  std::vector<std::string> accelerators;     // the devices of the cases it was fitted on
  std::vector<std::string> cases;            // ids of the cases used for calibration
  std::vector<std::string> case_files;
  double confidence = 0.90;
  int degrees_of_freedom = 0;
  double residual_scale = 1;                 // RMS of the fitted cases' residuals / tolerance
  std::vector<ProfileParam> params;          // one per calibration_params(), in that order
  std::vector<std::vector<double>> covariance;  // of ln(value), same order

  ModelParams model_params() const;
  bool used_for_fit(std::string_view case_id) const;
  // Fitted on that device, or on host-side parameters alone (which carry to any device).
  bool fitted_on(std::string_view accelerator) const;
};

// Every parameter at its default with its prior spread: what --uncertainty samples without a profile.
CalibrationProfile prior_profile();

// Reads and checks a profile: known parameters, each within its bounds, a symmetric covariance
// with a positive diagonal. Errors name the file and key.
CalibrationProfile load_calibration_profile(const std::filesystem::path& file);
// The parameters of the profile in `file`, or the defaults when `file` is empty (--calibration).
ModelParams profile_params(const std::string& file);
std::string profile_toml(const CalibrationProfile& p);

// Parameter samples for --uncertainty: `n` draws of ln(value) from N(ln value, covariance),
// clamped to each parameter's bounds, from a fixed seed (the same draws every run).
std::vector<ModelParams> sample_params(const CalibrationProfile& p, int n);

}  // namespace perfcast
