#pragma once
// TensorRT-LLM `trtllm-bench ... throughput` reports: the "= REQUEST DETAILS", "= WORLD + RUNTIME
// INFORMATION" and "= PERFORMANCE OVERVIEW" blocks of `key: value` lines (the labels
// tensorrt_llm/bench/dataclasses/reporting.py prints). Logger prefixes before a label are ignored.
#include <optional>
#include <string>
#include <string_view>

namespace perfcast {

struct TrtllmBenchRun {
  std::string file, model, version, dtype;
  double requests = 0, concurrency = 0;      // "Number of concurrent requests" is an average
  double input_len = 0, output_len = 0;      // averages, tokens
  int tp = 1, pp = 1, ep = 1;
  double per_gpu_output_tokens_per_s = 0;    // "Per GPU Output Throughput (tps/gpu)"
  double avg_request_latency_s = 0;
  std::optional<double> avg_ttft_s;          // only with --streaming
};

TrtllmBenchRun parse_trtllm_bench(std::string_view text, const std::string& file);

}  // namespace perfcast
