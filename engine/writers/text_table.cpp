#include "engine/writers/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace perfcast {
namespace {

// Display width in code points (UTF-8 continuation bytes do not count).
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

}  // namespace

std::string TextTable::render() const {
  std::vector<std::size_t> widths(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], width(row[i]));
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);
  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t i = 0; i < widths.size(); ++i) {
      std::string cell = i < row.size() ? row[i] : "";
      line += cell;
      if (i + 1 < widths.size()) line += std::string(widths[i] - width(cell) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  emit(header_);
  std::vector<std::string> rule;
  for (std::size_t w : widths) rule.push_back(std::string(w, '-'));
  emit(rule);
  for (const auto& row : rows_) emit(row);
  return out;
}

std::string assumptions_text(const std::vector<std::string>& assumptions) {
  std::string out = "\nAssumptions:\n";
  for (const std::string& a : assumptions) out += "  " + a + "\n";
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else if (ch == '&') out += "&amp;";
    else if (ch == '"') out += "&quot;";
    else out += ch;
  }
  return out;
}

std::string duration_text(double s) {
  if (s >= 86400 * 2) return fmt::format("{:.1f} days", s / 86400);
  if (s >= 7200) return fmt::format("{:.1f} h", s / 3600);
  if (s >= 120) return fmt::format("{:.1f} min", s / 60);
  if (s >= 1) return fmt::format("{:.3f} s", s);
  return fmt::format("{:.3f} ms", s * 1e3);
}

std::string usd_text(double usd) {
  if (usd >= 1e6) return fmt::format("${:.4g}M", usd / 1e6);
  if (usd >= 1e3) return fmt::format("${:.4g}k", usd / 1e3);
  return fmt::format("${:.4g}", usd);
}

std::string mass_text(double kg) { return kg >= 1e3 ? fmt::format("{:.4g} t", kg / 1e3) : fmt::format("{:.4g} kg", kg); }

std::string percent_text(double x) { return fmt::format("{:.1f}%", 100 * x); }

}  // namespace perfcast
