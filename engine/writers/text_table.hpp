#pragma once
// A plain column-aligned text table for terminal output.
#include <string>
#include <vector>

#include "engine/core/quantity_text.hpp"

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

// "\nAssumptions:\n" and one indented line per assumption: the tail of every --detail table.
std::string assumptions_text(const std::vector<std::string>& assumptions);

// RFC 4180 quoting for one CSV field.
std::string csv_field(const std::string& s);
// Escapes &, <, > and " for XML/SVG text and attributes.
std::string xml_escape(const std::string& s);

}  // namespace perfcast
