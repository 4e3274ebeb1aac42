#include "engine/data/record_loader.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <regex>
#include <toml++/toml.h>

#include "engine/core/edit_distance.hpp"
#include "engine/core/input_file.hpp"
#include "engine/core/toml_section.hpp"

namespace perfcast {
namespace {

using schema::Field;
using schema::FieldType;

FilePosition position(const std::string& file, const toml::node& node) {
  const auto& begin = node.source().begin;
  return {file, static_cast<int>(begin.line), static_cast<int>(begin.column)};
}

std::vector<std::string> keys_of(std::span<const Field> fields) {
  std::vector<std::string> keys;
  for (const Field& f : fields) keys.emplace_back(f.key);
  return keys;
}

// Every dotted path in a schema tree, to point at a key written at the wrong level.
void collect_paths(std::span<const Field> fields, const std::string& prefix, std::vector<std::string>& out) {
  for (const Field& f : fields) {
    std::string path = prefix + std::string(f.key);
    out.push_back(path);
    if (f.type == FieldType::table || f.type == FieldType::table_array) collect_paths(f.children, path + ".", out);
  }
}

class Reader {
 public:
  Reader(std::string file, Record& record, std::span<const Field> all_fields)
      : file_(std::move(file)), record_(record), all_fields_(all_fields) {}

  void read_sources(const toml::table& root) {
    const toml::node* node = root.get("sources");
    if (!node) return;
    const toml::table* sources = node->as_table();
    if (!sources) fail(*node, fmt::format("sources: expected a table of [sources.<id>], got {}", toml_type_name(*node)));
    for (auto&& [id, entry] : *sources) {
      std::string path = fmt::format("sources.{}", id.str());
      const toml::table* t = entry.as_table();
      if (!t) fail(entry, fmt::format("{}: expected a table with title, date, ...; got {}", path, toml_type_name(entry)));
      check_unknown_keys(*t, schema::source_fields(), path + ".");
      Source s;
      s.id = std::string(id.str());
      s.where = position(file_, entry);
      s.title = source_text(*t, "title", path, true);
      s.date = source_text(*t, "date", path, true);
      check_date(*t->get("date"), path + ".date", s.date);
      s.locator = source_text(*t, "locator", path, false);
      s.url = source_text(*t, "url", path, false);
      s.kind = source_text(*t, "kind", path, true);
      s.via = source_text(*t, "via", path, false);
      auto fields = schema::source_fields();
      const Field& kind_field = *std::find_if(fields.begin(), fields.end(), [](const Field& f) { return f.key == "kind"; });
      check_choice(*t->get("kind"), kind_field, path + ".kind", s.kind);
      record_.sources.push_back(std::move(s));
    }
  }

  void read_table(const toml::table& table, std::span<const Field> fields, const std::string& prefix) {
    check_unknown_keys(table, fields, prefix);
    read_fields(table, fields, prefix);
  }

  // Reads `fields` from `table`; entries keep pointers into `fields`, which must outlive the record.
  void read_fields(const toml::table& table, std::span<const Field> fields, const std::string& prefix) {
    for (const Field& field : fields) {
      std::string path = prefix + std::string(field.key);
      const toml::node* node = table.get(field.key);
      if (!node) {
        if (field.required) {
          FilePosition where = prefix.empty() ? FilePosition{file_, 1, 1} : position(file_, table);
          throw InputError(where, fmt::format("missing required key '{}' ({})", path, field.help));
        }
        continue;
      }
      read_value(*node, field, path);
    }
  }

  void check_unknown_top_level(const toml::table& root) { check_unknown_keys(root, all_fields_, ""); }

 private:
  [[noreturn]] void fail(const toml::node& node, std::string message) const {
    throw InputError(position(file_, node), std::move(message));
  }

  void check_unknown_keys(const toml::table& table, std::span<const Field> fields, const std::string& prefix) {
    for (auto&& [key, node] : table) {
      std::string_view k = key.str();
      if (prefix.empty() && (k == "sources" || k == "schema_version")) continue;
      bool known = std::any_of(fields.begin(), fields.end(), [&](const Field& f) { return f.key == k; });
      if (known) continue;
      std::string match = closest_match(k, keys_of(fields));
      std::string hint = match.empty() ? std::string() : suggestion(prefix + match);
      if (hint.empty()) {
        // The key may exist at another level: point there.
        std::vector<std::string> paths;
        collect_paths(all_fields_, "", paths);
        for (const std::string& p : paths) {
          auto dot = p.rfind('.');
          if (dot != std::string::npos && p.substr(dot + 1) == k) {
            hint = suggestion(p);
            break;
          }
        }
      }
      FilePosition where{file_, static_cast<int>(key.source().begin.line), static_cast<int>(key.source().begin.column)};
      if (where.line == 0) where = position(file_, node);
      throw InputError(where, fmt::format("unknown key '{}{}'{}", prefix, k, hint));
    }
  }

  std::string source_text(const toml::table& t, std::string_view key, const std::string& path, bool required) {
    const toml::node* node = t.get(key);
    if (!node) {
      if (required)
        throw InputError(position(file_, t), fmt::format("missing required key '{}.{}'", path, key));
      return {};
    }
    const auto* s = node->as_string();
    if (!s || s->get().empty()) fail(*node, fmt::format("{}.{}: expected a non-empty string, got {}", path, key, toml_type_name(*node)));
    return s->get();
  }

  void check_date(const toml::node& node, const std::string& path, const std::string& value) {
    static const std::regex date(R"(\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?)");
    if (!std::regex_match(value, date))
      fail(node, fmt::format("{}: '{}' is not a date (write YYYY, YYYY-MM or YYYY-MM-DD)", path, value));
  }

  void check_choice(const toml::node& node, const Field& field, const std::string& path, const std::string& value) {
    if (std::find(field.choices.begin(), field.choices.end(), value) != field.choices.end()) return;
    std::vector<std::string> options(field.choices.begin(), field.choices.end());
    std::string list;
    for (const auto& o : options) list += (list.empty() ? "" : ", ") + o;
    fail(node, fmt::format("{}: '{}' is not one of: {}{}", path, value, list, did_you_mean(value, options)));
  }

  const std::string& expect_string(const toml::node& node, const std::string& path) {
    const auto* s = node.as_string();
    if (!s) fail(node, fmt::format("{}: expected a string, got {}", path, toml_type_name(node)));
    if (s->get().empty()) fail(node, fmt::format("{}: must not be empty", path));
    return s->get();
  }

  void read_value(const toml::node& node, const Field& field, const std::string& path) {
    Entry e;
    e.path = path;
    e.field = &field;
    e.where = position(file_, node);
    switch (field.type) {
      case FieldType::quantity:
      case FieldType::count:
      case FieldType::ratio:
        read_figure(node, field, e);
        break;
      case FieldType::text:
      case FieldType::reference:
        e.text = expect_string(node, path);
        break;
      case FieldType::choice:
        e.text = expect_string(node, path);
        check_choice(node, field, path, e.text);
        break;
      case FieldType::date:
        e.text = expect_string(node, path);
        check_date(node, path, e.text);
        break;
      case FieldType::flag: {
        const auto* b = node.as_boolean();
        if (!b) fail(node, fmt::format("{}: expected true or false, got {}", path, toml_type_name(node)));
        e.flag = b->get();
        break;
      }
      case FieldType::text_list: {
        const auto* a = node.as_array();
        if (!a) fail(node, fmt::format("{}: expected an array of strings, got {}", path, toml_type_name(node)));
        for (const toml::node& item : *a) e.list.push_back(expect_string(item, path));
        break;
      }
      case FieldType::table: {
        const auto* t = node.as_table();
        if (!t) fail(node, fmt::format("{}: expected a table [{}], got {}", path, path, toml_type_name(node)));
        read_table(*t, field.children, path + ".");
        return;
      }
      case FieldType::table_array: {
        const auto* a = node.as_array();
        if (!a || !a->is_array_of_tables())
          fail(node, fmt::format("{}: expected an array of tables [[{}]], got {}", path, path, toml_type_name(node)));
        std::size_t i = 0;
        for (const toml::node& item : *a) read_table(*item.as_table(), field.children, fmt::format("{}[{}].", path, i++));
        return;
      }
    }
    record_.entries.push_back(std::move(e));
  }

  void read_figure(const toml::node& node, const Field& field, Entry& e) {
    const toml::table* t = node.as_table();
    if (!t) {
      std::string shown = node.is_string() ? fmt::format("\"{}\"", node.as_string()->get())
                                           : fmt::format("{}", toml_type_name(node));
      fail(node, fmt::format("{}: figure has no source: write {} = {{ value = {}, source = \"<id>\" }}",
                             e.path, field.key, shown));
    }
    static const Field figure_keys[] = {{.key = "value"}, {.key = "source"}, {.key = "note"}};
    check_unknown_keys(*t, figure_keys, e.path + ".");
    const toml::node* value = t->get("value");
    if (!value) throw InputError(e.where, fmt::format("{}: missing 'value'", e.path));
    const toml::node* source = t->get("source");
    if (!source) throw InputError(e.where, fmt::format("{}: figure has no source (add source = \"<id>\" naming a [sources.<id>] entry)", e.path));
    std::string source_id = expect_string(*source, e.path + ".source");
    std::vector<std::string> ids;
    for (const Source& s : record_.sources) ids.push_back(s.id);
    auto it = std::find(ids.begin(), ids.end(), source_id);
    if (it == ids.end())
      fail(*source, fmt::format("{}: source '{}' is not defined in [sources]{}", e.path, source_id, did_you_mean(source_id, ids)));
    e.source = static_cast<int>(it - ids.begin());
    if (const toml::node* note = t->get("note")) e.note = expect_string(*note, e.path + ".note");
    e.where = position(file_, *value);

    if (field.type == FieldType::count) {
      const auto* i = value->as_integer();
      if (!i) fail(*value, fmt::format("{}: expected an integer count, got {}", e.path, toml_type_name(*value)));
      e.number = static_cast<double>(i->get());
      e.text = fmt::format("{}", i->get());
      return;
    }
    if (field.type == FieldType::ratio) {
      if (!value->is_number()) fail(*value, fmt::format("{}: expected a plain number, got {}", e.path, toml_type_name(*value)));
      e.number = value->value<double>().value_or(NAN);
      if (!std::isfinite(e.number)) fail(*value, fmt::format("{}: {} is not a finite number", e.path, e.number));
      e.text = fmt::format("{}", e.number);
      return;
    }
    std::string example = units::format(field.max > 0 ? field.max / 10 : 1, field.dimension);
    if (!value->is_string()) {
      if (value->is_number())
        fail(*value, fmt::format("{}: bare number {} has no unit; expected {} as a string such as \"{}\"", e.path,
                                 value->value<double>().value_or(NAN), units::describe(field.dimension), example));
      fail(*value, fmt::format("{}: expected a quantity string, got {}", e.path, toml_type_name(*value)));
    }
    e.text = value->as_string()->get();
    units::Quantity q;
    try {
      q = units::parse_quantity(e.text);
    } catch (const UnitError& err) {
      fail(*value, fmt::format("{}: {}", e.path, err.what()));
    }
    if (q.dimension == units::dim::none)
      fail(*value, fmt::format("{}: '{}' has no unit; expected {}, e.g. \"{}\"", e.path, e.text,
                               units::describe(field.dimension), example));
    if (q.dimension != field.dimension)
      fail(*value, fmt::format("{}: '{}' is {}; expected {}", e.path, e.text, units::describe(q.dimension),
                               units::describe(field.dimension)));
    if (field.directional && q.direction == units::Direction::unstated)
      fail(*value, fmt::format("{}: '{}' must say 'per direction' or 'bidirectional' (vendor link headlines are "
                               "usually both directions summed)", e.path, e.text));
    if (!field.directional && q.direction != units::Direction::unstated)
      fail(*value, fmt::format("{}: '{}': a direction does not apply to this figure", e.path, e.text));
    e.number = q.per_direction();
    e.direction = q.direction;
  }

  std::string file_;
  Record& record_;
  std::span<const Field> all_fields_;
};

// Plausibility floors of physical figures, two or more orders of magnitude below the smallest the
// database holds (PCIe 2.0 x1 0.5 GB/s, B300 FP64 1.2 TFLOP/s, the Edge TPU's 8 MB SRAM, a 408 MHz
// Orin power mode, the Coral Dev Board's 2 W, NVLink's 3.4 us): a figure below one is a unit slip
// (kB/s written for GB/s, GFLOP/s for TFLOP/s), and would turn into days of predicted time.
struct Floor {
  units::Dimension dimension;
  double value;
  std::string_view slip;
};
constexpr Floor kFloors[] = {
    {units::dim::bytes_per_second, 1e7, "kB/s or MB/s written for GB/s?"},
    {units::dim::ops_per_second, 1e9, "MFLOP/s or GFLOP/s written for TFLOP/s?"},
    {units::dim::bytes, 1e5, "kB written for MB or GB?"},
    {units::dim::hertz, 1e6, "kHz written for MHz?"},
    {units::dim::watts, 0.1, "mW written for W?"},
    {units::dim::seconds, 1e-9, "a latency below a nanosecond"},
};

// Pass 2: ranges, and sources defined but never cited.
void check_values(const Record& record) {
  for (const Entry& e : record.entries) {
    if (!e.field || !schema::is_figure(e.field->type)) continue;
    const Field& f = *e.field;
    auto show = [&](double v) {
      return f.type == FieldType::quantity ? units::format(v, f.dimension, f.unit_symbol) : fmt::format("{}", v);
    };
    bool too_low = f.min_inclusive ? e.number < f.min : e.number <= f.min;
    if (too_low) {
      if (f.min == 0 && !f.min_inclusive) throw record.error(e, fmt::format("must be positive, got {}", e.text));
      throw record.error(e, fmt::format("{} is below the minimum {}", e.text, show(f.min)));
    }
    if (f.max > 0 && e.number > f.max)
      throw record.error(e, fmt::format("{} is outside the plausible range (at most {})", e.text, show(f.max)));
    if (e.number != 0 && !std::isnormal(e.number))
      throw record.error(e, fmt::format("{} is a subnormal number: not a figure any datasheet prints", e.text));
    if (f.type != FieldType::quantity) continue;
    for (const Floor& floor : kFloors)
      if (f.dimension == floor.dimension && e.number > 0 && e.number < floor.value)
        throw record.error(e, fmt::format("{} is below the plausible minimum {}: a unit slip ({})", e.text,
                                          show(floor.value), floor.slip));
  }
  for (std::size_t i = 0; i < record.sources.size(); ++i) {
    bool used = std::any_of(record.entries.begin(), record.entries.end(),
                            [&](const Entry& e) { return e.source == static_cast<int>(i); });
    if (!used)
      throw InputError(record.sources[i].where,
                       fmt::format("sources.{}: defined but no figure cites it", record.sources[i].id));
  }
}

}  // namespace

Record parse_record(std::string_view content, const std::string& file_label, schema::Kind kind) {
  const schema::KindSchema& kind_schema = schema::schema_for(kind);
  if (content.find('\0') != std::string_view::npos)
    throw InputError({file_label, 1, 1}, "not a text file (contains NUL bytes)");
  toml::table root;
  try {
    root = toml::parse(content, file_label);
  } catch (const toml::parse_error& err) {
    const auto& begin = err.source().begin;
    throw InputError({file_label, static_cast<int>(begin.line), static_cast<int>(begin.column)},
                     fmt::format("TOML syntax error: {}", err.description()));
  }
  if (root.empty())
    throw InputError({file_label, 1, 1}, fmt::format("empty file: expected an {} description starting with "
                                                     "schema_version = {}", kind_schema.name, schema::kSchemaVersion));
  Record record;
  record.kind = kind;
  record.file = file_label;

  const toml::node* version = root.get("schema_version");
  if (!version) throw InputError({file_label, 1, 1}, "missing required key 'schema_version' (write schema_version = 1)");
  if (!version->is_integer() || version->as_integer()->get() != schema::kSchemaVersion)
    throw InputError(position(file_label, *version),
                     fmt::format("unsupported schema_version {} (this perfcast reads version {})",
                                 version->is_integer() ? fmt::format("{}", version->as_integer()->get()) : toml_type_name(*version),
                                 schema::kSchemaVersion));

  std::vector<Field> top(schema::common_fields().begin(), schema::common_fields().end());
  top.insert(top.end(), kind_schema.fields.begin(), kind_schema.fields.end());
  Reader reader(file_label, record, top);
  reader.read_sources(root);
  reader.check_unknown_top_level(root);
  reader.read_fields(root, schema::common_fields(), "");
  reader.read_fields(root, kind_schema.fields, "");

  record.name = record.text("name");
  static const std::regex name_pattern(R"([a-z0-9][a-z0-9.\-]*)");
  const Entry* name_entry = record.find("name");
  if (!std::regex_match(record.name, name_pattern))
    throw record.error(*name_entry, fmt::format("'{}' must be lowercase letters, digits, '-' and '.'", record.name));
  std::string stem = std::filesystem::path(file_label).stem().string();
  if (record.name != stem)
    throw record.error(*name_entry, fmt::format("'{}' does not match the file name '{}'", record.name, stem));

  check_values(record);
  kind_schema.check(record);
  return record;
}

Record load_record(const std::filesystem::path& file, schema::Kind kind) {
  return parse_record(read_input_file(file, "file"), file.string(), kind);
}

}  // namespace perfcast
