#include "engine/writers/record_writers.hpp"

#include <fmt/format.h>
#include <map>

#include "engine/writers/text_table.hpp"

namespace perfcast {
namespace {

using schema::FieldType;

nlohmann::json source_json(const Source& s) {
  nlohmann::json j{{"id", s.id}, {"title", s.title}, {"date", s.date}, {"kind", s.kind}};
  if (!s.locator.empty()) j["locator"] = s.locator;
  if (!s.url.empty()) j["url"] = s.url;
  if (!s.via.empty()) j["via"] = s.via;
  return j;
}

std::string unit_of(const schema::Field& f) {
  return f.unit_symbol.empty() ? units::si_symbol(f.dimension) : std::string(f.unit_symbol);
}

nlohmann::json entry_json(const Record& r, const Entry& e) {
  const schema::Field& f = *e.field;
  switch (f.type) {
    case FieldType::flag: return e.flag;
    case FieldType::text_list: return e.list;
    case FieldType::quantity:
    case FieldType::count:
    case FieldType::ratio: break;
    default: return e.text;
  }
  nlohmann::json j{{"value", e.number}, {"description", std::string(f.help)}};
  if (f.type == FieldType::quantity) {
    j["unit"] = unit_of(f);
    j["as_written"] = e.text;
    j["display"] = units::format(e.number, f.dimension, f.unit_symbol);
    if (f.dimension == units::dim::bytes) j["display_binary"] = units::format_binary_bytes(e.number);
    if (f.directional) j["direction"] = "per direction";
  }
  if (!f.basis.empty()) j["basis"] = std::string(f.basis);
  if (const Source* s = r.source_of(e)) j["source"] = source_json(*s);
  if (!e.note.empty()) j["note"] = e.note;
  return j;
}

// Walks "a.b[2].c" into nested objects/arrays and stores `value` there.
void put(nlohmann::json& root, const std::string& path, nlohmann::json value) {
  nlohmann::json* node = &root;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    std::size_t bracket = part.find('[');
    if (bracket != std::string::npos) {
      std::size_t index = std::stoul(part.substr(bracket + 1));
      nlohmann::json& array = (*node)[part.substr(0, bracket)];
      while (array.size() <= index) array.push_back(nlohmann::json::object());
      node = &array[index];
    } else if (dot == std::string::npos) {
      (*node)[part] = std::move(value);
      return;
    } else {
      node = &(*node)[part];
    }
    if (dot == std::string::npos) {
      *node = std::move(value);
      return;
    }
    start = dot + 1;
  }
}

std::string source_summary(const Source* s) { return s ? "[" + s->id + "]" : ""; }

std::string shown_value(const Entry& e) {
  switch (e.field->type) {
    case FieldType::flag: return e.flag ? "true" : "false";
    case FieldType::text_list: {
      std::string s;
      for (const auto& item : e.list) s += (s.empty() ? "" : ", ") + item;
      return s;
    }
    default: return e.text;
  }
}

std::string si_value(const Entry& e) {
  if (e.field->type != FieldType::quantity) return "";
  std::string s = fmt::format("{:.6g} {}", e.number, unit_of(*e.field));
  if (e.field->directional) s += " per direction";
  return s;
}

}  // namespace

nlohmann::json record_to_json(const Record& r) {
  nlohmann::json j = nlohmann::json::object();
  j["kind"] = std::string(schema::schema_for(r.kind).name);
  for (const Entry& e : r.entries) put(j, e.path, entry_json(r, e));
  nlohmann::json sources = nlohmann::json::object();
  for (const Source& s : r.sources) sources[s.id] = source_json(s);
  j["sources"] = sources;
  return j;
}

std::string record_to_table(const Record& r) {
  std::string out = fmt::format("{} ({}) — {}\n", r.name, schema::schema_for(r.kind).name, r.text("display_name"));
  TextTable table({"key", "value", "SI", "source"});
  for (const Entry& e : r.entries) {
    if (e.path == "name" || e.path == "display_name" || e.path == "notes") continue;
    table.add_row({e.path, shown_value(e), si_value(e), source_summary(r.source_of(e))});
  }
  out += table.render();
  if (std::string notes = r.text("notes"); !notes.empty()) out += "\nnotes: " + notes + "\n";
  out += "\nsources:\n";
  for (const Source& s : r.sources)
    out += fmt::format("  [{}] {}{}{} ({}, {})\n", s.id, s.title, s.locator.empty() ? "" : ", " + s.locator,
                       s.url.empty() ? "" : " <" + s.url + ">", s.kind, s.date);
  return out;
}

std::string records_to_csv(std::span<const Record* const> records) {
  std::string out = "kind,name,key,value,unit,as_written,source_title,source_locator,source_url,source_date,note\n";
  for (const Record* r : records) {
    for (const Entry& e : r->entries) {
      const Source* s = r->source_of(e);
      bool figure = schema::is_figure(e.field->type);
      std::vector<std::string> cells{
          std::string(schema::schema_for(r->kind).name), r->name, e.path,
          figure ? fmt::format("{:.10g}", e.number) : shown_value(e),
          e.field->type == FieldType::quantity ? unit_of(*e.field) : "",
          figure ? e.text : "", s ? s->title : "", s ? s->locator : "", s ? s->url : "", s ? s->date : "", e.note};
      std::string line;
      for (const auto& c : cells) line += (line.empty() ? "" : ",") + csv_field(c);
      out += line + "\n";
    }
  }
  return out;
}

std::string records_summary_table(std::span<const Record* const> records) {
  // The columns that matter most for each kind: header and entry path.
  static const std::map<schema::Kind, std::vector<std::pair<std::string, std::string>>> columns{
      {schema::Kind::accelerator,
       {{"bf16 dense", "peak_dense.bf16"}, {"fp8 dense", "peak_dense.fp8"}, {"int8 dense", "peak_dense.int8"},
        {"memory", "memory.capacity"}, {"bandwidth", "memory.bandwidth"}, {"TDP", "power.tdp"}}},
      {schema::Kind::interconnect, {{"class", "class"}, {"per direction", "bandwidth"}, {"scope", "scope"}, {"latency", "latency"}}},
      {schema::Kind::system,
       {{"accelerator", "accelerator"}, {"devices", "devices_per_node"}, {"scale-up", "scale_up"},
        {"domain", "scale_up_domain"}, {"scale-out", "scale_out"}, {"NICs", "nics_per_node"}, {"power", "node_power"}}},
      {schema::Kind::offer,
       {{"system", "system"}, {"devices", "devices"}, {"per", "price_per"}, {"on-demand", "on_demand"},
        {"spot", "spot"}, {"as of", "as_of"}}},
      {schema::Kind::region,
       {{"grid", "grid_intensity"}, {"basis", "grid_basis"}, {"year", "grid_year"},
        {"electricity", "electricity_price"}, {"PUE", "pue"}}},
  };
  std::string out;
  for (const schema::KindSchema& kind : schema::all_kinds()) {
    const auto& cols = columns.at(kind.kind);
    std::vector<std::string> header{"name", "display name"};
    for (const auto& c : cols) header.push_back(c.first);
    TextTable table(header);
    for (const Record* r : records) {
      if (r->kind != kind.kind) continue;
      std::vector<std::string> row{r->name, r->text("display_name")};
      for (const auto& c : cols) {
        const Entry* e = r->find(c.second);
        row.push_back(!e ? "—"
                      : e->field->type == FieldType::quantity
                          ? units::format(e->number, e->field->dimension, e->field->unit_symbol)
                          : shown_value(*e));
      }
      table.add_row(row);
    }
    if (table.empty()) continue;
    out += fmt::format("{}{}\n", out.empty() ? "" : "\n", kind.directory);
    out += table.render();
  }
  return out;
}

}  // namespace perfcast
