#pragma once
// The generic measured format: one row per measured figure of a scenario, for runs no dedicated
// parser reads. CSV with a header (RFC 4180 quoting) or JSON, with these fields:
//   scenario   path of a scenario file, relative to the measurements file
//   metric     a training or inference validation metric (step_time_s, tokens_per_s_per_device,
//              narayanan_tflops_per_device, ttft_s, output_tokens_per_s, ...)
//   value      the measured figure in that metric's unit, a plain number
//   id, source, notes, tolerance   optional
// JSON is an array of such objects, or {"measurements": [...]}.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast {

struct Measurement {
  int line = 0;                 // CSV line, or 1-based position in the JSON array
  std::string scenario, metric, id, source, notes;
  double value = 0;
  std::optional<double> tolerance;
};

// `file` names the input in errors; a ".json" name (or text opening with '[' or '{') is JSON.
std::vector<Measurement> parse_measurements(std::string_view text, const std::string& file);

}  // namespace perfcast
