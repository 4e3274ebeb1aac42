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
  double requests = 0;
  std::optional<double> concurrency;         // "Number of concurrent requests": an average (not in every version)
  double input_len = 0, output_len = 0;      // averages, tokens
  int tp = 1, pp = 1, ep = 1;
  std::optional<double> max_batch_size, max_num_tokens;  // "Max Runtime Batch Size" / "Max Runtime Tokens"
  // "Issue Rate (req/sec)": the requests over the time from the first submission to the last
  // (statistics.issue_rate_ns). Every request queued at once (the default) gives ~1e14; a run held to
  // --concurrency C submits its last request near the end, at about the request throughput.
  std::optional<double> issue_rate;
  std::optional<double> request_throughput;  // "Request Throughput (req/sec)"
  double per_gpu_output_tokens_per_s = 0;    // "Per GPU Output Throughput (tps/gpu)" or "(tokens/sec/gpu)"
  double avg_request_latency_s = 0;
  std::optional<double> avg_ttft_s;          // only with --streaming

  // The dataset was queued at once (trtllm-bench throughput without --concurrency): the issue rate
  // is at least ten times the completion rate, or not reported.
  bool all_at_once() const;
};

TrtllmBenchRun parse_trtllm_bench(std::string_view text, const std::string& file);

}  // namespace perfcast
