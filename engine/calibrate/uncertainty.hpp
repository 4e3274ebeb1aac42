#pragma once
// --uncertainty: a prediction's spread from its parameters' uncertainty. The parameters are drawn
// from a calibration profile's covariance of ln(value) (or, uncalibrated, from each parameter's
// prior spread around its sourced default: prior_profile()), every draw is predicted in full, and
// the headline figures' P10/P50/P90 over the draws are reported beside the point prediction.
// Only the model parameters vary: the scenario, hardware figures, prices and grid intensity are
// taken as given.
#include <string>
#include <vector>

#include "engine/data/calibration_profile.hpp"
#include "engine/predict/inference.hpp"
#include "engine/predict/training.hpp"
#include "engine/core/units.hpp"

namespace perfcast {

struct FigureInterval {
  std::string name;
  units::Dimension dimension = units::dim::none;
  double point = 0, p10 = 0, p50 = 0, p90 = 0;
};

struct UncertaintyReport {
  int samples = 0;
  std::string basis;                    // where the parameters' spread comes from
  std::vector<FigureInterval> figures;
};

// Training: step time, tokens/s, MFU, time to train (expected wall time with failures), cost and
// CO2e when the scenario prices them. `o` carries the order and the point parameters.
UncertaintyReport training_uncertainty(const Scenario& s, const TrainingOptions& o,
                                       const CalibrationProfile& p, int samples);
// Inference: TTFT, TPOT, end-to-end latency, throughput per device, $/M tokens and CO2e/M tokens.
UncertaintyReport inference_uncertainty(const Scenario& s, const InferenceOptions& o,
                                        const CalibrationProfile& p, int samples);

// The nearest-rank-interpolated quantile q in [0, 1] of `values` (sorted here).
double quantile(std::vector<double> values, double q);

}  // namespace perfcast
