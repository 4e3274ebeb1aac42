#include "engine/validate/case_features.hpp"

#include "engine/predict/roofline.hpp"
#include "models/precision.hpp"

namespace perfcast {
namespace {

// Whether the scenario sets any of the engine's scheduling flags, as a tuned benchmark does; a user who
// names only the engine runs its defaults.
bool engine_flags_set(const Scenario& s) {
  const ServingSettings& v = s.serving;
  return v.max_concurrency || v.max_batched_tokens || v.chunked_prefill || v.mixed_prefill || v.overlap_scheduling ||
         v.cuda_graph_padding || !v.cuda_graph_batch_sizes.empty() || v.scheduler_steps || (s.inference && s.inference->memory_utilization);
}

// A stack as it is today and its earlier releases are one family ("megatron-lm-2021" is Megatron-LM):
// the bands judge a stack by its family's cases.
std::string stack_family(std::string_view stack) {
  const std::size_t n = stack.size();
  const bool dated = n > 5 && stack[n - 5] == '-' && stack.substr(n - 4, 2) == "20";
  return std::string(dated ? stack.substr(0, n - 5) : stack);
}

}  // namespace

std::string scale_bucket(int devices) {
  if (devices <= 1) return "1";
  if (devices <= 8) return "2-8";
  if (devices <= 64) return "9-64";
  if (devices <= 512) return "65-512";
  return "513+";
}

BandFeatures scenario_features(const Scenario& s, std::string_view kind, std::string_view figure) {
  BandFeatures f;
  auto& v = f.values;
  v[0] = kind, v[1] = figure, v[3] = s.hw.device.vendor;
  if (s.training) {
    v[2] = stack_family(models::name_of(s.training->stack));
    v[5] = name_of(s.training->precision.value_or(Precision::bf16));
  } else if (s.inference) {
    const InferenceSettings& in = *s.inference;
    // Under load an unstated engine is the one simulated, vLLM; a static table's may be any.
    const std::optional<models::ServingEngine> engine = kind == "serving" ? in.engine.value_or(models::ServingEngine::vllm) : in.engine;
    v[2] = engine ? std::string(models::kServingEngineKeys[static_cast<std::size_t>(*engine)]) : "unstated";
    v[5] = name_of(in.weight_dtype.value_or(in.compute_dtype.value_or(default_precision(s.hw.device))));
    if (kind == "serving") v[4] = engine_flags_set(s) ? "engine flags set" : "engine defaults";
  }
  if (s.workload.is_transformer()) v[6] = s.workload.transformer().moe ? "moe" : "dense";
  v[7] = scale_bucket(s.hardware.count);
  return f;
}

BandFeatures kernel_features(std::string_view kind, std::string_view vendor, std::string_view precision) {
  BandFeatures f;
  f.values[0] = kind, f.values[1] = kind, f.values[3] = vendor, f.values[5] = precision;
  return f;
}

}  // namespace perfcast
