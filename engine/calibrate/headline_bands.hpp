#pragma once
// The empirical band (F-UNC-2) of each headline figure of a prediction: the figure, what kind of
// validated case it is judged by, its P10/P50/P90, and the cases behind the band.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/calibrate/empirical_bands.hpp"
#include "engine/calibrate/uncertainty.hpp"
#include "engine/predict/capacity.hpp"
#include "engine/predict/inference.hpp"
#include "engine/predict/training.hpp"
#include "engine/sweep/compare.hpp"
#include "engine/sweep/inference_sweep.hpp"
#include "engine/sweep/training_sweep.hpp"
#include "engine/sweep/plan_ranking.hpp"

namespace perfcast {

struct HeadlineBand {
  std::string name;                  // --uncertainty's figure name; a serving figure its validate metric (serving_ttft_mean_s)
  units::Dimension dimension = units::dim::none;
  double point = 0;
  FigureBand band;
  EmpiricalBand basis;
};

struct HeadlineBands {
  std::vector<HeadlineBand> figures;
  std::vector<std::string> without;  // "<figure>: why it has no band"
};

// Training: step time, tokens/s, MFU, time to train, cost and CO2e, each judged by the training cases.
HeadlineBands training_bands(const Scenario& s, const TrainingPrediction& p, std::span<const Residual> table);
// Inference: the static batch's TTFT, TPOT, latency and throughput (inference cases), and under
// [serving] the steady state's TTFT, TPOT, end-to-end latency and output rate (serving cases).
HeadlineBands inference_bands(const Scenario& s, const InferencePrediction& p, std::span<const Residual> table);

// Capacity: the rate one replica sustains within the SLO and at saturation (serving throughput cases),
// the closed loop's TTFT, TPOT and output rate, and the replicas a target rate needs at each of the
// SLO rate's percentiles (P90: the replicas that hold the SLO when reality is at the band's slow end).
HeadlineBands capacity_bands(const Scenario& s, const CapacityReport& c, std::span<const Residual> table);
// Compare: a row's figures under its JSON names (wall time or token rate, cost, energy, CO2e, tokens per
// dollar and per kW), all judged as predict judges the step (training) or the static batch's throughput.
HeadlineBands compare_bands(const Scenario& s, const CompareRow& row, std::span<const Residual> table);

// Sweep: each best row's headline bands, as predict gives them on the row's layout (`best` its predictions).
std::vector<HeadlineBands> sweep_bands(const Scenario& s, const std::vector<SweepRow>& rows, const std::vector<TrainingPrediction>& best,
                                       std::span<const Residual> table);
std::vector<HeadlineBands> sweep_bands(const Scenario& s, const std::vector<ServeRow>& rows, const std::vector<InferencePrediction>& best,
                                       std::span<const Residual> table);

// Plan: each row's step band, as the training cases judge predict's step, and each serving replica's rate
// band, as the serving throughput cases judge capacity's SLO rate (`table` must outlive them).
SlownessOf training_step_slowness(std::span<const Residual> table);
SlownessOf serving_rate_slowness(std::span<const Residual> table);

// capacity --risk p90: the report's replicas and devices become the band's P90 count, with an assumption
// saying so, which it returns; InputError without a target rate or a band to size by.
std::string size_for_risk(CapacityReport& c, const HeadlineBands& b);

// --uncertainty without a calibration profile: the bands as its intervals, and the parameters' prior
// spread (`draws`) for the figures no validated case judges.
UncertaintyReport empirical_uncertainty(const HeadlineBands& b, const UncertaintyReport& draws);

}  // namespace perfcast
