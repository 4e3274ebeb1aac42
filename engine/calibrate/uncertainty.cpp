#include "engine/calibrate/uncertainty.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <optional>

namespace perfcast {
namespace {

template <class Prediction>
using Reader = std::optional<double> (*)(const Prediction&);

template <class Prediction, class Predict>
UncertaintyReport spread(const CalibrationProfile& p, int samples, const Prediction& point, Predict predict,
                         const std::vector<std::tuple<std::string, units::Dimension, Reader<Prediction>>>& figures) {
  UncertaintyReport out;
  out.samples = samples;
  out.basis = p.cases.empty()
                  ? "uncalibrated: each parameter drawn around its sourced default with its prior spread, sd of ln(value) 0.19 for the "
                    "efficiencies and 0.69 for the kernel overhead (engine/data/calibration_profile.cpp names the sources)"
                  : fmt::format("calibration profile {} ({} fitted cases): its covariance of ln(value)", p.file.empty() ? "(in memory)" : p.file,
                                p.cases.size());
  std::vector<std::vector<double>> values(figures.size());
  for (const ModelParams& m : sample_params(p, samples)) {
    const Prediction x = predict(m);
    for (std::size_t f = 0; f < figures.size(); ++f)
      if (std::optional<double> v = std::get<2>(figures[f])(x); v && std::isfinite(*v)) values[f].push_back(*v);
  }
  for (std::size_t f = 0; f < figures.size(); ++f) {
    const std::optional<double> v = std::get<2>(figures[f])(point);
    if (!v || values[f].empty()) continue;
    out.figures.push_back({std::get<0>(figures[f]), std::get<1>(figures[f]), *v, quantile(values[f], 0.1), quantile(values[f], 0.5),
                           quantile(values[f], 0.9)});
  }
  return out;
}

}  // namespace

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double at = q * double(values.size() - 1);
  const std::size_t lo = std::size_t(std::floor(at)), hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (at - double(lo)) * (values[hi] - values[lo]);
}

UncertaintyReport training_uncertainty(const Scenario& s, const TrainingOptions& o, const CalibrationProfile& p,
                                       int samples) {
  using P = TrainingPrediction;
  const P point = predict_training(s, o);
  auto predict = [&](const ModelParams& m) { return predict_training(s, with_params(o, m)); };
  return spread<P>(p, samples, point, predict,
                   {{"step_time", units::dim::seconds, [](const P& x) -> std::optional<double> { return x.step_time_s; }},
                    {"tokens_per_s", units::dim::hertz, [](const P& x) -> std::optional<double> { return x.tokens_per_s; }},
                    {"mfu", units::dim::none, [](const P& x) -> std::optional<double> { return x.mfu; }},
                    {"time_to_train", units::dim::seconds, [](const P& x) { return x.expected_wall_s ? x.expected_wall_s : x.time_to_train_s; }},
                    {"usd", units::dim::usd, [](const P& x) { return x.economics ? x.economics->usd : std::nullopt; }},
                    {"co2e", units::dim::kg, [](const P& x) { return x.economics ? x.economics->co2e_kg : std::nullopt; }}});
}

UncertaintyReport inference_uncertainty(const Scenario& s, const InferenceOptions& o, const CalibrationProfile& p,
                                        int samples) {
  using P = InferencePrediction;
  const P point = predict_inference(s, o);
  InferenceOptions headline = o;
  headline.extras = false;  // the intervals are of the headline figures
  headline.require_fit = false;
  auto predict = [&](const ModelParams& m) { return predict_inference(s, with_params(headline, m)); };
  return spread<P>(p, samples, point, predict,
                   {{"ttft", units::dim::seconds, [](const P& x) -> std::optional<double> { return x.ttft_s; }},
                    {"tpot", units::dim::seconds, [](const P& x) -> std::optional<double> { return x.tpot_s; }},
                    {"e2e", units::dim::seconds, [](const P& x) -> std::optional<double> { return x.e2e_s; }},
                    {"tokens_per_s_per_device", units::dim::hertz,
                     [](const P& x) -> std::optional<double> { return x.output_tokens_per_s_per_device; }},
                    {"usd_per_million_tokens", units::dim::usd,
                     [](const P& x) { return x.economics ? x.economics->usd_per_million_tokens : std::nullopt; }},
                    {"co2e_kg_per_million_tokens", units::dim::kg,
                     [](const P& x) { return x.economics ? x.economics->co2e_kg_per_million_tokens : std::nullopt; }}});
}

}  // namespace perfcast
