#include "engine/ingest/trtllm_bench.hpp"

#include <cmath>
#include <fmt/format.h>
#include <map>

#include "engine/core/errors.hpp"
#include "engine/ingest/text_fields.hpp"

namespace perfcast {
namespace {

// The labels read, as reporting.py prints them.
constexpr std::string_view kLabels[] = {
    "Number of requests",   "Number of concurrent requests", "Average Input Length (tokens)", "Average Output Length (tokens)",
    "TP Size",              "PP Size",                       "EP Size",
    "Per GPU Output Throughput (tps/gpu)", "Per GPU Output Throughput (tokens/sec/gpu)", "Average request latency (ms)",
    "Average time-to-first-token [TTFT] (ms)", "Max Runtime Batch Size", "Max Runtime Tokens", "Issue Rate (req/sec)",
    "Request Throughput (req/sec)",
    "Model",                "TensorRT LLM Version",          "TensorRT-LLM Version",          "Dtype"};

struct Field {
  std::string value;
  int line = 0;
};

}  // namespace

TrtllmBenchRun parse_trtllm_bench(std::string_view text, const std::string& file) {
  std::map<std::string_view, Field> fields;
  int line_no = 0;
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    ++line_no;
    pos = end + 1;
    for (std::string_view label : kLabels) {
      const std::size_t at = line.find(label);
      if (at == std::string_view::npos) continue;
      std::string_view rest = line.substr(at + label.size());
      if (rest.empty() || rest.front() != ':') continue;
      if (!fields.count(label)) fields[label] = {std::string(trim(rest.substr(1))), line_no};
    }
    if (end == text.size()) break;
  }
  auto number = [&](std::string_view label, bool required) -> std::optional<double> {
    auto it = fields.find(label);
    if (it == fields.end()) {
      if (required)
        throw InputError({file, 0, 0}, fmt::format("trtllm-bench: no '{}' line (is this the report of trtllm-bench throughput?)", label));
      return std::nullopt;
    }
    const std::optional<double> v = parse_number(it->second.value);
    if (!v || !std::isfinite(*v) || *v < 0)
      throw InputError({file, it->second.line, 1}, fmt::format("trtllm-bench: '{}': '{}' is not a non-negative number", label, it->second.value));
    return v;
  };
  auto text_of = [&](std::string_view label) { return fields.count(label) ? fields[label].value : std::string(); };
  TrtllmBenchRun r;
  r.file = file;
  r.model = text_of("Model");
  r.version = text_of("TensorRT LLM Version").empty() ? text_of("TensorRT-LLM Version") : text_of("TensorRT LLM Version");
  r.dtype = text_of("Dtype");
  // Counts and sizes: whole numbers from 1 to `most` a real run could have (written `most_text` in the
  // message), checked before any cast to int; none where an optional line is absent.
  auto whole = [&](std::string_view label, bool required, double most, std::string_view most_text) {
    const std::optional<double> v = number(label, required);
    if (v && (*v < 1 || *v > most || *v != std::floor(*v)))
      throw InputError({file, fields[label].line, 1}, fmt::format("trtllm-bench: '{}': '{}' is not a whole number from 1 to {}", label,
                                                              fields[label].value, most_text));
    return v;
  };
  r.requests = *whole("Number of requests", true, 1e6, "1e6");
  r.concurrency = number("Number of concurrent requests", false);
  r.input_len = *number("Average Input Length (tokens)", true);
  r.output_len = *number("Average Output Length (tokens)", true);
  r.tp = int(whole("TP Size", false, 1e6, "1e6").value_or(1));
  r.pp = int(whole("PP Size", false, 1e6, "1e6").value_or(1));
  r.ep = int(whole("EP Size", false, 1e6, "1e6").value_or(1));
  // The per-GPU label changed between releases: "(tps/gpu)" (1.1) and "(tokens/sec/gpu)" (1.0's docs).
  const std::string_view per_gpu =
      fields.count("Per GPU Output Throughput (tps/gpu)") ? "Per GPU Output Throughput (tps/gpu)" : "Per GPU Output Throughput (tokens/sec/gpu)";
  r.per_gpu_output_tokens_per_s = *number(per_gpu, true);
  r.avg_request_latency_s = *number("Average request latency (ms)", true) / 1e3;
  if (auto t = number("Average time-to-first-token [TTFT] (ms)", false)) r.avg_ttft_s = *t / 1e3;
  r.max_batch_size = whole("Max Runtime Batch Size", false, 1e7, "1e7");
  r.max_num_tokens = whole("Max Runtime Tokens", false, 1e7, "1e7");
  r.issue_rate = number("Issue Rate (req/sec)", false);
  r.request_throughput = number("Request Throughput (req/sec)", false);
  if ((r.concurrency && *r.concurrency <= 0) || r.input_len <= 0 || r.output_len <= 0 || r.per_gpu_output_tokens_per_s <= 0)
    throw InputError({file, 0, 0}, "trtllm-bench: concurrency, lengths and per-GPU throughput must be positive");
  if (!r.all_at_once() && !r.concurrency)
    throw InputError({file, fields["Issue Rate (req/sec)"].line, 1},
                     "trtllm-bench: the requests were issued over the run (a --concurrency run) but the report has no 'Number of concurrent "
                     "requests' line to say how many");
  return r;
}

bool TrtllmBenchRun::all_at_once() const { return !issue_rate || !request_throughput || *issue_rate >= 10 * *request_throughput; }

}  // namespace perfcast
