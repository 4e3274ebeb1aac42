#include "engine/ingest/vllm_bench.hpp"

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/core/errors.hpp"

namespace perfcast {

VllmServingRun parse_vllm_serving(std::string_view text, const std::string& file) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers beyond a double (out_of_range)
    throw InputError({file, 0, 0}, fmt::format("vLLM benchmark: not JSON ({})", e.what()));
  }
  if (!j.is_object()) throw InputError({file, 0, 0}, "vLLM benchmark: expected the JSON object benchmark_serving.py --save-result writes");
  auto number = [&](const char* key, bool required) -> std::optional<double> {
    if (!j.contains(key) || j[key].is_null()) {
      if (required) throw InputError({file, 0, 0}, fmt::format("vLLM benchmark: no '{}' (is this a benchmark_serving.py result?)", key));
      return std::nullopt;
    }
    if (!j[key].is_number()) throw InputError({file, 0, 0}, fmt::format("vLLM benchmark: '{}' is not a number", key));
    return j[key].get<double>();
  };
  VllmServingRun r;
  r.file = file;
  if (j.contains("model_id") && j["model_id"].is_string()) r.model_id = j["model_id"].get<std::string>();
  if (j.contains("backend") && j["backend"].is_string()) r.backend = j["backend"].get<std::string>();
  r.completed = *number("completed", true);
  if (r.completed <= 0) throw InputError({file, 0, 0}, "vLLM benchmark: 'completed' is 0: no request finished");
  if (r.completed > 1e6 || r.completed != std::floor(r.completed))
    throw InputError({file, 0, 0}, fmt::format("vLLM benchmark: 'completed' {:g} is not a whole number from 1 to 1e6", r.completed));
  r.total_input_tokens = *number("total_input_tokens", true);
  r.total_output_tokens = *number("total_output_tokens", true);
  r.output_throughput = *number("output_throughput", true);
  r.mean_ttft_s = *number("mean_ttft_ms", true) / 1e3;
  if (auto e = number("mean_e2el_ms", false)) r.mean_e2el_s = *e / 1e3;
  for (auto [key, median] : {std::pair{"median_ttft_ms", &r.median_ttft_s}, std::pair{"median_tpot_ms", &r.median_tpot_s},
                             std::pair{"median_e2el_ms", &r.median_e2el_s}, std::pair{"median_itl_ms", &r.median_itl_s}})
    if (auto m = number(key, false)) {
      if (!(*m >= 0)) throw InputError({file, 0, 0}, fmt::format("vLLM benchmark: '{}' is negative", key));
      if (*m > 0) *median = *m / 1e3;  // 0: no request had the figure (one-token outputs have no TPOT)
    }
  r.max_concurrency = number("max_concurrency", false);
  if (!j.contains("request_rate")) throw InputError({file, 0, 0}, "vLLM benchmark: no 'request_rate'");
  const nlohmann::json& rate = j["request_rate"];
  r.all_at_once = (rate.is_string() && rate.get<std::string>() == "inf") ||
                  (rate.is_number() && !std::isfinite(rate.get<double>()));
  if (!r.all_at_once) {
    if (!rate.is_number() || !(rate.get<double>() > 0)) throw InputError({file, 0, 0}, "vLLM benchmark: 'request_rate' is neither inf nor a positive number");
    r.request_rate = rate.get<double>();
  }
  r.burstiness = number("burstiness", false);
  if (r.burstiness && !(*r.burstiness > 0)) throw InputError({file, 0, 0}, "vLLM benchmark: 'burstiness' must be positive");
  if (auto t = number("mean_tpot_ms", false)) r.mean_tpot_s = *t / 1e3;
  if (r.output_throughput <= 0 || r.mean_ttft_s <= 0 || r.total_output_tokens <= 0)
    throw InputError({file, 0, 0}, "vLLM benchmark: output_throughput, mean_ttft_ms and total_output_tokens must be positive");
  return r;
}

bool is_vllm_throughput(std::string_view text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  return j.is_object() && j.contains("elapsed_time") && !j.contains("completed");
}

VllmThroughputRun parse_vllm_throughput(std::string_view text, const std::string& file) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) throw InputError({file, 0, 0}, "vLLM throughput benchmark: not a JSON object");
  auto number = [&](const char* key, bool required) -> std::optional<double> {
    if (!j.contains(key) || !j[key].is_number()) {
      if (required) throw InputError({file, 0, 0}, fmt::format("vLLM throughput benchmark: no number '{}'", key));
      return std::nullopt;
    }
    return j[key].get<double>();
  };
  VllmThroughputRun r;
  r.file = file;
  r.elapsed_s = *number("elapsed_time", true);
  r.requests = *number("num_requests", true);
  r.total_tokens = *number("total_num_tokens", true);
  r.tokens_per_s = *number("tokens_per_second", true);
  r.total_output_tokens = number("total_output_tokens", false);
  if (r.elapsed_s <= 0 || r.requests <= 0 || r.total_tokens <= 0 || r.tokens_per_s <= 0)
    throw InputError({file, 0, 0}, "vLLM throughput benchmark: elapsed_time, num_requests, total_num_tokens and tokens_per_second must be positive");
  if (r.requests > 1e6 || r.requests != std::floor(r.requests))
    throw InputError({file, 0, 0}, fmt::format("vLLM throughput benchmark: num_requests {:g} is not a whole number from 1 to 1e6", r.requests));
  return r;
}

}  // namespace perfcast
