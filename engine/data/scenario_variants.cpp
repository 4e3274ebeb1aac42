#include "engine/data/scenario_variants.hpp"

#include <algorithm>
#include <charconv>
#include <memory>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "engine/core/errors.hpp"
#include "engine/core/input_file.hpp"
#include "engine/core/toml_section.hpp"
#include "engine/data/hardware_resolution.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/data/workload_reader.hpp"

namespace perfcast {
namespace {

struct Setting {
  std::string path;  // "nodes" (the axis's table) or "parallelism.tp"
  std::string value;
};

struct Variant {
  std::string label;
  std::vector<Setting> settings;
};

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string{} : std::string(s.substr(b, e - b + 1));
}

Variant parse_variant(const std::string& text, std::string_view axis) {
  Variant v{.label = text};
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = trim(std::string_view(text).substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) throw InputError({}, fmt::format("--{} '{}': an empty item (two commas, or a trailing one)", axis, text));
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) {
      // A bare word: a region's name, a cloud offer's name, else a flag ("purchase", "spot").
      if (axis == "region") v.settings.push_back({"name", item});
      else if (axis == "cost" && item != "purchase" && item != "spot" && item != "cloud") v.settings.push_back({"offer", item});
      else v.settings.push_back({item, "true"});
    } else {
      const std::string key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
      if (key.empty() || value.empty()) throw InputError({}, fmt::format("--{} '{}': '{}' is not key=value", axis, text, item));
      v.settings.push_back({key, value});
    }
  }
  return v;
}

// "128" → integer, "1.5" / "15e12" → float, "true"/"false" → boolean, anything else → string.
void set_value(toml::table& t, const std::string& key, const std::string& value) {
  std::int64_t i = 0;
  if (auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), i); ec == std::errc() && p == value.data() + value.size()) {
    t.insert_or_assign(key, i);
    return;
  }
  double d = 0;
  if (auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), d); ec == std::errc() && p == value.data() + value.size()) {
    t.insert_or_assign(key, d);
    return;
  }
  if (value == "true" || value == "false") {
    t.insert_or_assign(key, value == "true");
    return;
  }
  t.insert_or_assign(key, value);
}

// Replaces the axis's table with the variant's undotted keys and applies its dotted ones.
void apply(toml::table& root, const Variant& v, const std::string& axis_table) {
  toml::table own;
  for (const Setting& s : v.settings) {
    const std::size_t dot = s.path.find('.');
    if (dot == std::string::npos) {
      set_value(own, s.path, s.value);
      continue;
    }
    const std::string section = s.path.substr(0, dot);
    if (!root.contains(section)) root.insert(section, toml::table{});
    toml::table* t = root[section].as_table();
    if (!t) throw InputError({}, fmt::format("'{}': '{}' is not a table in the scenario", v.label, section));
    set_value(*t, s.path.substr(dot + 1), s.value);
  }
  if (!own.empty()) root.insert_or_assign(axis_table, std::move(own));
}

// The scenario with the variants applied, read and resolved; a rule it breaks becomes its error.
ScenarioVariant variant_of(const toml::table& base, const std::string& file, const Variant* hw, const Variant* cost,
                           const Variant* region, const HardwareDb& db) {
  ScenarioVariant out{.hardware = hw ? hw->label : "(scenario)", .cost = cost ? cost->label : "(scenario)",
                      .region = region ? region->label : "(scenario)", .training = !base.contains("inference")};
  toml::table t = base;
  try {
    if (hw) apply(t, *hw, "hardware");
    if (cost) {
      Variant v = *cost;
      auto cloud = std::find_if(v.settings.begin(), v.settings.end(), [](const Setting& x) { return x.path == "cloud"; });
      if (cloud != v.settings.end()) {
        // The device and the job's size as the scenario reader derives them, before the offer is set.
        TomlSection root(t, file, "");
        auto hardware = root.table("hardware");
        if (!hardware) root.fail_here("missing required table [hardware]");
        const HardwareChoice h = read_hardware(*hardware, db);
        const OfferChoice choice = choose_offer(db, h.accelerator, h.count);
        const OfferSpec* o = choice.cheapest;
        if (!o)
          throw InputError({file, 0, 0}, choice.misfits.empty()
                                             ? fmt::format("no cloud offer in the database rents {}", h.accelerator)
                                             : fmt::format("no cloud offer in the database holds {} {} devices: {}", h.count, h.accelerator,
                                                           choice.misfits));
        *cloud = {"offer", o->name};
        out.offer_note = choice.why;
      }
      apply(t, v, "cost");
    }
    if (region) apply(t, *region, "region");
    TomlSection root(t, file, "");
    out.scenario = read_scenario(root, file, default_workloads_dir(), db);
  } catch (const InputError& e) {
    out.error = e.message();
  }
  return out;
}

}  // namespace

std::vector<ScenarioVariant> scenario_variants(const CompareRequest& r, const HardwareDb& db) {
  const std::string content = read_input_file(r.scenario_file, "scenario file");
  std::shared_ptr<toml::table> storage;
  TomlSection parsed = TomlSection::parse(content, r.scenario_file, storage);
  return scenario_variants(*storage, r.scenario_file, r, db);
}

std::vector<ScenarioVariant> scenario_variants(const toml::table& base, const std::string& label, const CompareRequest& r,
                                               const HardwareDb& db) {
  TomlSection parsed(base, label, "");
  require_schema_version(parsed);
  std::vector<Variant> hw, cost, region;
  for (const std::string& v : r.hardware) hw.push_back(parse_variant(v, "hardware"));
  for (const std::string& v : r.cost) cost.push_back(parse_variant(v, "cost"));
  for (const std::string& v : r.region) region.push_back(parse_variant(v, "region"));
  if (r.paths == FilePaths::refused)
    for (const auto* axis : {&hw, &cost, &region})
      for (const Variant& v : *axis)
        for (const Setting& s : v.settings)
          if (s.path == "model.hf_config") throw InputError({}, fmt::format("'{}': a variant may not set model.hf_config (a file path) here", v.label));
  auto each = [](const std::vector<Variant>& vs) {
    std::vector<const Variant*> out;
    for (const Variant& v : vs) out.push_back(&v);
    if (out.empty()) out.push_back(nullptr);
    return out;
  };
  std::vector<ScenarioVariant> out;
  for (const Variant* h : each(hw))
    for (const Variant* c : each(cost))
      for (const Variant* g : each(region)) out.push_back(variant_of(base, label, h, c, g, db));
  return out;
}

}  // namespace perfcast
