#include "engine/compare_report.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <memory>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "engine/cost_report.hpp"
#include "engine/errors.hpp"
#include "engine/inference_report.hpp"
#include "engine/input_file.hpp"
#include "engine/scenario.hpp"
#include "engine/toml_section.hpp"
#include "engine/training_report.hpp"
#include "engine/workload.hpp"

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

// The accelerator a [hardware] table names, directly or through its system; "" if unknown.
std::string accelerator_of(const toml::table& root, const HardwareDb& db) {
  const toml::table* h = root["hardware"].as_table();
  if (!h) return {};
  if (auto a = (*h)["accelerator"].value<std::string>()) return *a;
  if (auto s = (*h)["system"].value<std::string>()) {
    try {
      return db.system(*s).accelerator;
    } catch (const InputError&) {
    }
  }
  return {};
}

void fill_from(CompareRow& row, const Economics& e) {
  row.tokens_per_s = e.tokens_per_s;
  row.offer = e.offer;
  row.usd = e.usd;
  row.usd_per_million_tokens = e.usd_per_million_tokens;
  row.tokens_per_usd = e.tokens_per_usd;
  row.kwh = e.job_kwh ? e.job_kwh : e.job_it_kwh;
  row.kwh_per_million_tokens = e.kwh_per_million_tokens;
  if (e.co2e_kg) row.co2e_kg = *e.co2e_kg + e.embodied_kg.value_or(0);
  row.co2e_kg_per_million_tokens = e.co2e_kg_per_million_tokens;
  row.tokens_per_s_per_kw = e.tokens_per_s_per_kW;
  row.wall_s = e.job_wall_s;
}

CompareRow evaluate(const toml::table& base, const std::string& file, const Variant* hw, const Variant* cost, const Variant* region,
                    const HardwareDb& db) {
  CompareRow row{.hardware = hw ? hw->label : "(scenario)", .cost = cost ? cost->label : "(scenario)",
                 .region = region ? region->label : "(scenario)"};
  toml::table t = base;
  try {
    if (hw) apply(t, *hw, "hardware");
    if (cost) {
      Variant v = *cost;
      auto cloud = std::find_if(v.settings.begin(), v.settings.end(), [](const Setting& x) { return x.path == "cloud"; });
      if (cloud != v.settings.end()) {
        const std::string acc = accelerator_of(t, db);
        const OfferSpec* o = cheapest_offer(db, acc);
        if (!o) throw InputError({file, 0, 0}, fmt::format("no cloud offer in the database rents {}", acc.empty() ? "this hardware" : acc));
        *cloud = {"offer", o->name};
      }
      apply(t, v, "cost");
    }
    if (region) apply(t, *region, "region");
    TomlSection root(t, file, "");
    const Scenario s = read_scenario(root, file, default_workloads_dir(), db);
    row.accelerator = s.hardware.accelerator;
    row.devices = s.hardware.count;
    row.training = s.training.has_value();
    const std::optional<Economics> e = row.training ? predict_training(s, db).economics : predict_inference(s, db).economics;
    if (!e) throw InputError({file, 0, 0}, fmt::format("no power figure for {}: energy and cost unknown", s.hardware.accelerator));
    fill_from(row, *e);
  } catch (const InputError& e) {
    row.error = e.message();
  }
  return row;
}

// The row minimising `key` (maximising when `larger`), among rows that qualify.
int best_row(const CompareReport& r, const std::function<std::optional<double>(const CompareRow&)>& key, bool larger) {
  int best = -1;
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const CompareRow& row = r.rows[i];
    const std::optional<double> v = key(row);
    if (!row.error.empty() || !row.meets_deadline || !v) continue;
    const std::optional<double> b = best >= 0 ? key(r.rows[best]) : std::nullopt;
    if (!b || (larger ? *v > *b : *v < *b)) best = static_cast<int>(i);
  }
  return best;
}

}  // namespace

CompareReport compare(const CompareRequest& r, const HardwareDb& db) {
  const std::string content = read_input_file(r.scenario_file, "scenario file");
  std::shared_ptr<toml::table> storage;
  TomlSection parsed = TomlSection::parse(content, r.scenario_file, storage);
  (void)parsed;
  std::vector<Variant> hw, cost, region;
  for (const std::string& v : r.hardware) hw.push_back(parse_variant(v, "hardware"));
  for (const std::string& v : r.cost) cost.push_back(parse_variant(v, "cost"));
  for (const std::string& v : r.region) region.push_back(parse_variant(v, "region"));

  CompareReport report{.scenario = r.scenario_file, .deadline_s = r.deadline_s};
  auto each = [](const std::vector<Variant>& vs) {
    std::vector<const Variant*> out;
    for (const Variant& v : vs) out.push_back(&v);
    if (out.empty()) out.push_back(nullptr);
    return out;
  };
  for (const Variant* h : each(hw))
    for (const Variant* c : each(cost))
      for (const Variant* g : each(region)) report.rows.push_back(evaluate(*storage, r.scenario_file, h, c, g, db));

  for (const CompareRow& row : report.rows)
    if (row.error.empty()) report.training = row.training;
  for (CompareRow& row : report.rows)
    if (r.deadline_s && row.wall_s) row.meets_deadline = *row.wall_s <= *r.deadline_s;

  using Key = std::function<std::optional<double>(const CompareRow&)>;
  const bool t = report.training;
  const std::vector<std::tuple<std::string, Key, bool>> metrics = {
      {"time", t ? Key([](const CompareRow& x) { return x.wall_s; }) : Key([](const CompareRow& x) { return x.tokens_per_s; }), !t},
      {"cost", t ? Key([](const CompareRow& x) { return x.usd; }) : Key([](const CompareRow& x) { return x.usd_per_million_tokens; }), false},
      {"energy", t ? Key([](const CompareRow& x) { return x.kwh; }) : Key([](const CompareRow& x) { return x.kwh_per_million_tokens; }), false},
      {"co2e", t ? Key([](const CompareRow& x) { return x.co2e_kg; }) : Key([](const CompareRow& x) { return x.co2e_kg_per_million_tokens; }), false},
      {"perf_per_usd", [](const CompareRow& x) { return x.tokens_per_usd; }, true},
      {"perf_per_watt", [](const CompareRow& x) { return x.tokens_per_s_per_kw; }, true},
  };
  for (const auto& [name, key, larger] : metrics) report.best.push_back({name, best_row(report, key, larger)});
  return report;
}

}  // namespace perfcast
