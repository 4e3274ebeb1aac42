#pragma once
// One schema table per data-file kind: key, type, unit dimension, required or optional, plausible
// range and help. The same tables drive the loader, `perfcast hw show` and the docs.
#include <span>
#include <string_view>

#include "engine/core/units.hpp"

namespace perfcast {
class Record;
}

namespace perfcast::schema {

enum class FieldType {
  quantity,     // sourced figure with a unit: { value = "3.35 TB/s", source = "id", note = "..." }
  count,        // sourced integer figure:     { value = 132, source = "id" }
  ratio,        // sourced plain number:       { value = 1.10, source = "id" }
  text,         // free text, not a figure
  choice,       // one of `choices`
  flag,         // true / false
  reference,    // the name of another hardware_db item, of kind `refers_to`
  date,         // "YYYY", "YYYY-MM" or "YYYY-MM-DD"
  text_list,    // array of strings
  table,        // a sub-table with `children`
  table_array,  // [[array]] of sub-tables with `children`
};

struct Field {
  std::string_view key;
  FieldType type = FieldType::text;
  std::string_view help;
  bool required = false;
  units::Dimension dimension{};
  double min = 0;           // lower bound (SI); exclusive unless min_inclusive
  bool min_inclusive = false;
  double max = 0;           // plausibility ceiling (SI); 0 = none
  bool directional = false; // a link bandwidth: must say "per direction" or "bidirectional"
  std::span<const Field> children{};
  std::span<const std::string_view> choices{};
  std::string_view refers_to{};  // kind name for references, e.g. "interconnect"
  std::string_view unit_symbol{};  // display symbol when the dimension's default misleads ("OP/s")
  std::string_view basis{};        // what kind of figure this is, for scripts: "marketing", "usable"
};

constexpr bool is_figure(FieldType t) {
  return t == FieldType::quantity || t == FieldType::count || t == FieldType::ratio;
}

enum class Kind { accelerator, interconnect, system, offer, region };

struct KindSchema {
  Kind kind;
  std::string_view name;       // "accelerator"
  std::string_view directory;  // "accelerators"
  std::span<const Field> fields;
  void (*check)(const Record&);  // cross-field rules, run after every value has been read
};

std::span<const KindSchema> all_kinds();
const KindSchema& schema_for(Kind kind);
const KindSchema* find_kind(std::string_view name_or_directory);

// Fields every file has: schema_version, name, display_name, notes ([sources] is read separately).
std::span<const Field> common_fields();
// Fields of one [sources.<id>] entry.
std::span<const Field> source_fields();

inline constexpr int kSchemaVersion = 1;

// Constructors that keep the tables short.
constexpr Field quantity(std::string_view key, units::Dimension d, double max, std::string_view help,
                         bool required = false) {
  return Field{.key = key, .type = FieldType::quantity, .help = help, .required = required,
               .dimension = d, .max = max};
}
constexpr Field link_bandwidth(std::string_view key, std::string_view help, bool required = false) {
  return Field{.key = key, .type = FieldType::quantity, .help = help, .required = required,
               .dimension = units::dim::bytes_per_second, .max = 1e14, .directional = true};
}
constexpr Field count(std::string_view key, double max, std::string_view help, bool required = false) {
  return Field{.key = key, .type = FieldType::count, .help = help, .required = required, .min = 1,
               .min_inclusive = true, .max = max};
}
constexpr Field text(std::string_view key, std::string_view help, bool required = false) {
  return Field{.key = key, .type = FieldType::text, .help = help, .required = required};
}
constexpr Field reference(std::string_view key, std::string_view kind, std::string_view help,
                          bool required = false) {
  return Field{.key = key, .type = FieldType::reference, .help = help, .required = required,
               .refers_to = kind};
}
constexpr Field choice(std::string_view key, std::span<const std::string_view> choices,
                       std::string_view help, bool required = false) {
  return Field{.key = key, .type = FieldType::choice, .help = help, .required = required,
               .choices = choices};
}
constexpr Field table(std::string_view key, std::span<const Field> children, std::string_view help,
                      bool required = false) {
  return Field{.key = key, .type = FieldType::table, .help = help, .required = required,
               .children = children};
}

}  // namespace perfcast::schema
