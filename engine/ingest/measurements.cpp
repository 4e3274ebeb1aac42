#include "engine/ingest/measurements.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/core/errors.hpp"
#include "engine/ingest/text_fields.hpp"

namespace perfcast {
namespace {

constexpr std::string_view kFields[] = {"scenario", "metric", "value", "id", "source", "notes", "tolerance"};

// One CSV record (RFC 4180: quoted fields may hold commas, doubled quotes and newlines).
std::vector<std::string> csv_record(std::string_view text, std::size_t& at, int& line, const std::string& file) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  const int start = line;
  for (; at < text.size(); ++at) {
    const char c = text[at];
    if (quoted) {
      if (c == '"' && at + 1 < text.size() && text[at + 1] == '"') fields.back() += '"', ++at;
      else if (c == '"') quoted = false;
      else {
        if (c == '\n') ++line;
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c == '\n') {
      ++at, ++line;
      break;
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  if (quoted) throw InputError({file, start, 1}, "measurements: a quoted field is never closed");
  return fields;
}

void check(const Measurement& m, const std::string& file) {
  const FilePosition where{file, m.line, 1};
  if (m.scenario.empty()) throw InputError(where, "measurements: 'scenario' is empty");
  if (m.metric.empty()) throw InputError(where, "measurements: 'metric' is empty");
  if (!(m.value > 0)) throw InputError(where, "measurements: 'value' must be a positive number");
  if (m.tolerance && !(*m.tolerance > 0)) throw InputError(where, "measurements: 'tolerance' must be a positive number");
}

std::vector<Measurement> parse_csv(std::string_view text, const std::string& file) {
  std::size_t at = 0;
  int line = 1;
  const std::vector<std::string> header = csv_record(text, at, line, file);
  std::vector<int> column(std::size(kFields), -1);
  for (std::size_t i = 0; i < header.size(); ++i) {
    auto f = std::find(std::begin(kFields), std::end(kFields), header[i]);
    if (f == std::end(kFields))
      throw InputError({file, 1, 1}, fmt::format("measurements: unknown column '{}' (columns: scenario, metric, value, id, source, notes, "
                                                 "tolerance)", header[i]));
    column[std::size_t(f - std::begin(kFields))] = int(i);
  }
  for (int i = 0; i < 3; ++i)
    if (column[std::size_t(i)] < 0) throw InputError({file, 1, 1}, fmt::format("measurements: the header has no '{}' column", kFields[i]));
  std::vector<Measurement> out;
  while (at < text.size()) {
    const int row_line = line;
    const std::vector<std::string> r = csv_record(text, at, line, file);
    if (r.size() == 1 && r[0].empty()) continue;  // blank line
    if (r.size() != header.size())
      throw InputError({file, row_line, 1}, fmt::format("measurements: {} fields, the header has {}", r.size(), header.size()));
    auto field = [&](int f) { return column[std::size_t(f)] < 0 ? std::string() : r[std::size_t(column[std::size_t(f)])]; };
    Measurement m;
    m.line = row_line;
    m.scenario = field(0), m.metric = field(1), m.id = field(3), m.source = field(4), m.notes = field(5);
    const auto value = parse_number(field(2));
    if (!value) throw InputError({file, row_line, 1}, fmt::format("measurements: value '{}' is not a number", field(2)));
    m.value = *value;
    if (!field(6).empty()) {
      const auto t = parse_number(field(6));
      if (!t) throw InputError({file, row_line, 1}, fmt::format("measurements: tolerance '{}' is not a number", field(6)));
      m.tolerance = *t;
    }
    check(m, file);
    out.push_back(m);
  }
  return out;
}

std::vector<Measurement> parse_json(std::string_view text, const std::string& file) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers beyond a double (out_of_range)
    throw InputError({file, 0, 0}, fmt::format("measurements: not JSON ({})", e.what()));
  }
  if (doc.is_object() && doc.contains("measurements")) doc = doc["measurements"];
  if (!doc.is_array()) throw InputError({file, 0, 0}, "measurements: expected an array of {scenario, metric, value} objects");
  std::vector<Measurement> out;
  int n = 0;
  for (const nlohmann::json& x : doc) {
    ++n;
    const FilePosition where{file, n, 1};
    if (!x.is_object()) throw InputError(where, fmt::format("measurements: entry {} is not an object", n));
    for (const auto& [key, v] : x.items())
      if (std::find(std::begin(kFields), std::end(kFields), key) == std::end(kFields))
        throw InputError(where, fmt::format("measurements: entry {}: unknown key '{}'", n, key));
    auto text_of = [&](const char* key) {
      if (!x.contains(key)) return std::string();
      if (!x[key].is_string()) throw InputError(where, fmt::format("measurements: entry {}: '{}' must be a string", n, key));
      return x[key].get<std::string>();
    };
    Measurement m;
    m.line = n;
    m.scenario = text_of("scenario"), m.metric = text_of("metric"), m.id = text_of("id"), m.source = text_of("source");
    m.notes = text_of("notes");
    if (!x.contains("value") || !x["value"].is_number()) throw InputError(where, fmt::format("measurements: entry {}: 'value' must be a number", n));
    m.value = x["value"].get<double>();
    if (x.contains("tolerance")) {
      if (!x["tolerance"].is_number()) throw InputError(where, fmt::format("measurements: entry {}: 'tolerance' must be a number", n));
      m.tolerance = x["tolerance"].get<double>();
    }
    check(m, file);
    out.push_back(m);
  }
  return out;
}

}  // namespace

std::vector<Measurement> parse_measurements(std::string_view text, const std::string& file) {
  std::size_t first = text.find_first_not_of(" \t\r\n");
  const bool json = file.ends_with(".json") || (first != std::string_view::npos && (text[first] == '[' || text[first] == '{'));
  std::vector<Measurement> out = json ? parse_json(text, file) : parse_csv(text, file);
  if (out.empty()) throw InputError({file, 0, 0}, "measurements: no rows");
  return out;
}

}  // namespace perfcast
