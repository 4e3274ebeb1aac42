#pragma once
// MLPerf Inference LoadGen's mlperf_log_summary.txt: "key : value" lines of the "MLPerf Results
// Summary" and "Additional Stats" sections — the SUT, scenario, mode, validity, samples and tokens
// per second, and latency statistics in nanoseconds.
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace perfcast {

struct MlperfSummary {
  std::string file, sut, scenario, mode;
  bool valid = false;
  std::optional<double> samples_per_s, tokens_per_s;   // tokens: "Tokens per second", "(inferred)" or "Completed ..."
  std::optional<double> mean_latency_s;
  std::map<std::string, std::string> fields;           // every "key : value" line, trimmed
};

MlperfSummary parse_mlperf_summary(std::string_view text, const std::string& file);

}  // namespace perfcast
