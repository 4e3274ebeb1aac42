#pragma once
// A plain column-aligned text table for terminal output.
#include <string>
#include <vector>

namespace perfcast {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.empty(); }
  std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// A duration in the unit a reader expects: "12.3 ms", "4.567 s", "3.2 min", "5.0 h", "27.2 days".
std::string duration_text(double seconds);
// Dollars with four significant digits: "$14.65M", "$812.3k", "$3.41".
std::string usd_text(double usd);
// CO2e mass: "1099 t" from a tonne up, else "412.5 kg".
std::string mass_text(double kg);
// A fraction as "42.5%".
std::string percent_text(double fraction);

// "\nAssumptions:\n" and one indented line per assumption: the tail of every --detail table.
std::string assumptions_text(const std::vector<std::string>& assumptions);

// RFC 4180 quoting for one CSV field.
std::string csv_field(const std::string& s);
// Escapes &, <, > and " for XML/SVG text and attributes.
std::string xml_escape(const std::string& s);

}  // namespace perfcast
