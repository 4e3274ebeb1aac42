#pragma once
// NVIDIA's client-side LLM benchmarks' aggregated JSON: AIPerf's profile_export_aiperf.json and
// GenAI-Perf's profile_export_genai_perf.json (the tool NIM's benchmarking guide measures with). Both
// write each metric as {"unit", "avg", "p50", …} under the same names (time_to_first_token,
// inter_token_latency, request_latency, output_token_throughput, input/output_sequence_length) and
// the run's settings under "input_config": AIPerf nests the load in "loadgen", GenAI-Perf keeps its
// command-line arguments flat.
#include <optional>
#include <string>
#include <string_view>

namespace perfcast {

struct AiperfStat {
  double mean_s = 0;              // latencies in seconds, whatever unit the file gives
  std::optional<double> p50_s;
};

struct AiperfRun {
  std::string file, tool, model;               // tool: "AIPerf" or "GenAI-Perf"
  std::optional<double> concurrency;           // a closed loop of this many clients
  std::optional<double> request_rate;          // requests/s, otherwise
  bool constant_rate = false;                  // AIPerf's request_rate_mode "constant" (else Poisson)
  std::optional<double> requests;              // requests measured (none: GenAI-Perf's measurement windows)
  double input_tokens = 0, output_tokens = 0;  // mean per request
  std::optional<double> output_tokens_std;
  double output_tokens_per_s = 0;              // of the server
  std::optional<AiperfStat> ttft, itl;         // streamed runs only
  AiperfStat latency;                          // request latency
};

// InputError (one line naming the file and the key) for anything else: not JSON, a missing or
// non-numeric metric, an unknown time unit, a cancelled run or failed requests, a load that is
// neither a concurrency nor a rate, or both at once (a rate capped by a concurrency).
AiperfRun parse_aiperf_export(std::string_view text, const std::string& file);

}  // namespace perfcast
