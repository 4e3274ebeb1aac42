#pragma once
// Every field a command writes, declared once: its JSON path or CSV column, unit and meaning.
// `perfcast fields [COMMAND]` prints these; a test runs each command over the shipped scenarios
// and fails on a JSON key or CSV column not declared here. Sweep rows are declared in
// sweep_columns, which also drives their table, JSON, CSV and `sweep-merge` reading.
//
// Paths: "training.step_time_s"; "[]" is an array's element; "*" is a key the data names
// ("training.breakdown_s.*": one entry per step component).
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast {

struct OutputField {
  std::string path;               // JSON path, or the CSV column
  std::string_view unit;          // "s", "B", "B/s", "FLOP/s", "tokens/s", "USD", "fraction", ... ; "" for text and flags
  std::string description;        // a path two row kinds share (training and serving sweeps) carries both meanings
};

struct CommandFields {
  std::string_view command;
  std::string_view help;
  std::vector<OutputField> json;
  std::vector<OutputField> csv;
};

const std::vector<CommandFields>& output_fields();
const CommandFields* fields_of(std::string_view command);

// The declarations as a table (one per command), JSON or CSV (command, format, path, unit, description).
std::string fields_to_table(std::span<const CommandFields> commands);
std::string fields_to_json(std::span<const CommandFields> commands);
std::string fields_to_csv(std::span<const CommandFields> commands);

// Whether `path` (a concrete JSON path, "a.b[].c") is declared by `pattern`.
bool path_matches(std::string_view pattern, std::string_view path);

}  // namespace perfcast
