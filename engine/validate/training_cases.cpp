#include "engine/validate/training_cases.hpp"

#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/validate/case_features.hpp"
#include "engine/predict/training.hpp"

namespace perfcast {
namespace {

constexpr std::string_view kMetrics[] = {"step_time_s", "narayanan_tflops_per_device", "palm_tflops_per_device",
                                         "tokens_per_s_per_device", "layer_time_s"};

double predicted_value(TrainingMetric m, const TrainingPrediction& p) {
  switch (m) {
    case TrainingMetric::step_time: return p.step_time_s;
    case TrainingMetric::tokens_per_s_per_device: return p.tokens_per_s_per_device;
    case TrainingMetric::layer_time: return p.layer_time_s;
    case TrainingMetric::narayanan_tflops:
    case TrainingMetric::palm_tflops: {
      const std::string_view name = m == TrainingMetric::narayanan_tflops ? "narayanan_tflops_per_device" : "palm_mfu";
      for (const FlopConvention& c : p.conventions)
        if (c.name == name) return (c.per_device_rate ? c.value : c.value * p.peak_ops_per_s) / 1e12;
    }
  }
  return 0;
}

units::Dimension dimension_of(TrainingMetric m) {
  switch (m) {
    case TrainingMetric::step_time:
    case TrainingMetric::layer_time: return units::dim::seconds;
    case TrainingMetric::tokens_per_s_per_device: return units::dim::hertz;
    default: return units::dim::ops_per_second;
  }
}

}  // namespace

std::vector<TrainingCase> load_training_cases(CaseFile& f, const HardwareDb& db) {
  return read_cases(f, [&](TomlSection& t) { return read_scenario_case(t, kMetrics, "training", db); });
}

std::vector<CaseScore> score_training_cases(const std::vector<TrainingCase>& cases, const ModelParams& mp) {
  std::vector<CaseScore> scores;
  for (const TrainingCase& c : cases) {
    CaseScore s = score_of(c, "training");
    s.dimension = dimension_of(TrainingMetric(c.metric));
    const double scale = s.dimension == units::dim::ops_per_second ? 1e12 : 1;
    s.measured = c.measured * scale;
    s.detail = std::string(kMetrics[c.metric]);
    if (c.scenario) {
      s.subject = fmt::format("{} on {} × {}", c.scenario->workload.label(), c.scenario->hardware.count, c.scenario->hardware.accelerator);
      s.accelerator = c.scenario->hardware.accelerator;
      s.features = scenario_features(*c.scenario, "training", "step");
      if (c.skip.empty()) {
        const TrainingPrediction p = predict_training(*c.scenario, with_params(TrainingOptions{}, mp));
        s.set_prediction(predicted_value(TrainingMetric(c.metric), p) * scale);
        s.detail += fmt::format(" · {} · {}", p.layout, p.bottleneck.substr(0, p.bottleneck.find(':')));
      }
    }
    scores.push_back(s);
  }
  return scores;
}

std::span<const std::string_view> training_metric_names() { return kMetrics; }

}  // namespace perfcast
