#pragma once
// Training validation cases (validation/training.toml): a published run as a scenario and the
// figure the source reports, derived from our prediction with that source's own convention
// (Narayanan's Eq. 3 TFLOP/s, an iteration time, tokens/s per GPU, a layer's time).
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/data/hardware_db.hpp"
#include "engine/spec/model_params.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/validate/scenario_case.hpp"
#include "engine/validate/validation.hpp"

namespace perfcast {

enum class TrainingMetric { step_time, narayanan_tflops, palm_tflops, tokens_per_s_per_device, layer_time };

using TrainingCase = ScenarioCase;  // metric: a TrainingMetric

std::vector<TrainingCase> load_training_cases(CaseFile& f, const HardwareDb& db);
std::vector<CaseScore> score_training_cases(const std::vector<TrainingCase>& cases,
                                        const ModelParams& params = {});

// The metric names a training case may give (`metric = "..."`).
std::span<const std::string_view> training_metric_names();

}  // namespace perfcast
