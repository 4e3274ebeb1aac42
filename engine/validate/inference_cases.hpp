#pragma once
// Inference validation cases (validation/inference.toml): a published serving or edge benchmark
// as a scenario and the figure it reports (output tokens/s of the replica or per device, TTFT,
// latency per frame, a checkpoint's weight bytes). LLM cases score as kind "inference", vision cases as
// kind "edge", weight bytes as kind "weights".
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

// serving_*: the replica's steady state under [serving] concurrency (closed loop) or arrival_rate.
enum class InferenceMetric {
  tokens_per_s, tokens_per_s_per_device, ttft, latency,
  serving_tokens_per_s, serving_ttft_mean, serving_tpot_mean, serving_e2e_mean,
  serving_ttft_p50, serving_tpot_p50, serving_e2e_p50,  // medians, as a rate sweep's tables give them
  serving_itl_p50,  // the median gap between streamed chunks over every gap (a benchmark's median ITL)
  weights_bytes     // the weights one device holds, as the memory model counts them (a published checkpoint size)
};

using InferenceCase = ScenarioCase;  // metric: a InferenceMetric

std::vector<InferenceCase> load_inference_cases(CaseFile& f, const HardwareDb& db);
std::vector<CaseScore> score_inference_cases(const std::vector<InferenceCase>& cases,
                                        const ModelParams& params = {});

// The kind a case scores as: "edge" (a vision model), "serving" (a serving_* metric), "weights" or "inference".
std::string_view inference_case_kind(const InferenceCase& c);

// The metric names a inference case may give (`metric = "..."`).
std::span<const std::string_view> inference_metric_names();

}  // namespace perfcast
