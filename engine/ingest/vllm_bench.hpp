#pragma once
// vLLM `benchmarks/benchmark_serving.py --save-result` JSON (also `vllm bench serve`): the
// request count and concurrency, token totals, output throughput, and mean TTFT and end-to-end
// latency. perfcast's inference model runs static batches, so only runs with every request sent at
// once (request_rate inf) map onto it: a batch of max_concurrency (or all the prompts) sequences.
#include <optional>
#include <string>
#include <string_view>

namespace perfcast {

struct VllmServingRun {
  std::string file, model_id, backend;
  double completed = 0;                      // requests that finished
  std::optional<double> max_concurrency;
  bool all_at_once = false;                  // request_rate "inf"
  std::optional<double> request_rate;        // requests/s when finite
  std::optional<double> burstiness;          // gamma shape of the gaps (1: Poisson)
  std::optional<double> mean_tpot_s;
  double total_input_tokens = 0, total_output_tokens = 0;
  double output_throughput = 0;              // output tokens/s of the server
  double mean_ttft_s = 0;
  std::optional<double> mean_e2el_s;         // absent in older versions
  // Medians, as the result prints them (median_ttft_ms, median_tpot_ms, median_e2el_ms, median_itl_ms: the gaps
  // between streamed chunks); each may be absent.
  std::optional<double> median_ttft_s, median_tpot_s, median_e2el_s, median_itl_s;
};

VllmServingRun parse_vllm_serving(std::string_view text, const std::string& file);

// vLLM `benchmarks/benchmark_throughput.py --output-json` (also `vllm bench throughput`): offline,
// every request queued at once. It records the totals, not the lengths, which come from the scenario.
struct VllmThroughputRun {
  std::string file;
  double elapsed_s = 0, requests = 0, total_tokens = 0, tokens_per_s = 0;  // prompt + output tokens
  std::optional<double> total_output_tokens;                               // newer versions only
};

// Whether a JSON text is a benchmark_throughput result (elapsed_time, no 'completed').
bool is_vllm_throughput(std::string_view text);
VllmThroughputRun parse_vllm_throughput(std::string_view text, const std::string& file);

}  // namespace perfcast
