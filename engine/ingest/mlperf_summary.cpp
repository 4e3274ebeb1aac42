#include "engine/ingest/mlperf_summary.hpp"

#include <cmath>
#include <fmt/format.h>
#include <sstream>

#include "engine/core/errors.hpp"
#include "engine/ingest/text_fields.hpp"
#include "engine/validate/scenario_case.hpp"

namespace perfcast {
MlperfSummary parse_mlperf_summary(std::string_view text, const std::string& file) {
  MlperfSummary m;
  m.file = file;
  if (text.find("MLPerf Results Summary") == std::string_view::npos)
    throw InputError({file, 0, 0}, "MLPerf summary: no 'MLPerf Results Summary' header (is this mlperf_log_summary.txt?)");
  std::map<std::string, int> lines;
  int line_no = 0;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(std::string_view(line).substr(0, colon)), value = trim(std::string_view(line).substr(colon + 1));
    if (key.empty()) continue;
    if (const auto seen = m.fields.find(key); seen != m.fields.end()) {
      // A key twice with one value is harmless; with two, the file holds two results (or a rewritten one).
      if (seen->second != value)
        throw InputError({file, line_no, 1}, fmt::format("MLPerf summary: '{}' is '{}' here and '{}' on line {}: one summary per file",
                                                         key, value, seen->second, lines[key]));
      continue;
    }
    m.fields[key] = value;
    lines[key] = line_no;
  }
  auto text_of = [&](const char* key) { return m.fields.count(key) ? m.fields[key] : std::string(); };
  auto number_of = [&](const char* key) -> std::optional<double> {
    if (!m.fields.count(key)) return std::nullopt;
    const std::string& v = m.fields[key];
    const std::optional<double> x = parse_number(v);
    if (!x || *x < 0) throw InputError({file, lines[key], 1}, fmt::format("MLPerf summary: '{}' is '{}', not a number", key, v));
    if (*x != 0 && !std::isnormal(*x))
      throw InputError({file, lines[key], 1}, fmt::format("MLPerf summary: '{}' is '{}', a subnormal number, not a measurement", key, v));
    return x;
  };
  // A rate is measured: above 0 and at most what a case holds.
  auto rate_of = [&](const char* key) -> std::optional<double> {
    const std::optional<double> x = number_of(key);
    if (x && (*x == 0 || *x > kMaxMeasured))
      throw InputError({file, lines[key], 1}, fmt::format("MLPerf summary: '{}' is {:g}: give a measured rate above 0 and at most {:g}", key,
                                                          *x, kMaxMeasured));
    return x;
  };
  m.sut = text_of("SUT name");
  m.scenario = text_of("Scenario");
  m.mode = text_of("Mode");
  m.valid = text_of("Result is") == "VALID";
  if (m.scenario.empty()) throw InputError({file, 0, 0}, "MLPerf summary: no 'Scenario : ...' line");
  m.samples_per_s = rate_of("Samples per second");
  if (!m.samples_per_s) m.samples_per_s = rate_of("Completed samples per second");
  m.tokens_per_s = rate_of("Tokens per second");
  if (!m.tokens_per_s) m.tokens_per_s = rate_of("Tokens per second (inferred)");
  if (!m.tokens_per_s) m.tokens_per_s = rate_of("Completed tokens per second");
  if (auto ns = number_of("Mean latency (ns)")) m.mean_latency_s = *ns * 1e-9;
  return m;
}

}  // namespace perfcast
