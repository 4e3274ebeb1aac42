#include "engine/data/scenario_json.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include "engine/core/errors.hpp"
#include "engine/core/toml_section.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/data/workload_reader.hpp"

namespace perfcast {
namespace {

// Deeper than any scenario table ([case.scenario.model] is three): refused before recursing.
constexpr int kDeepest = 8;

struct Converter {
  const std::string& label;

  static bool inside_config(const std::string& path) { return path.starts_with("model.hf_config."); }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError({label, 0, 0}, fmt::format("{}: {}", key.empty() ? "the scenario" : key, what));
  }

  toml::table table(const nlohmann::json& j, const std::string& key, int depth) const {
    if (!j.is_object()) fail(key, "give a table (a dict of keys)");
    if (depth > kDeepest) fail(key, "nested deeper than any scenario key");
    toml::table t;
    for (const auto& [k, v] : j.items()) {
      const std::string path = key.empty() ? k : key + "." + k;
      if (v.is_null() && inside_config(path)) continue;  // config.json's null: the field is absent
      if (v.is_object()) t.insert(k, table(v, path, depth + 1));
      else if (v.is_array()) t.insert(k, array(v, path, depth + 1));
      else insert_value(t, k, v, path);
    }
    return t;
  }

  toml::array array(const nlohmann::json& j, const std::string& key, int depth) const {
    if (depth > kDeepest) fail(key, "nested deeper than any scenario key");
    toml::array a;
    for (const nlohmann::json& v : j) {
      if (v.is_object()) a.push_back(table(v, key, depth + 1));
      else if (v.is_array()) a.push_back(array(v, key, depth + 1));
      else if (v.is_null() && inside_config(key)) continue;
      else {
        toml::table one;
        insert_value(one, "v", v, key);
        a.push_back(*one.get("v"));
      }
    }
    return a;
  }

  void insert_value(toml::table& t, const std::string& k, const nlohmann::json& v, const std::string& key) const {
    if (v.is_boolean()) t.insert(k, v.get<bool>());
    else if (v.is_number_integer()) t.insert(k, v.get<std::int64_t>());
    else if (v.is_number_unsigned()) {
      if (v.get<std::uint64_t>() > std::uint64_t(INT64_MAX)) fail(key, "a whole number too large");
      t.insert(k, std::int64_t(v.get<std::uint64_t>()));
    } else if (v.is_number_float()) t.insert(k, v.get<double>());
    else if (v.is_string()) t.insert(k, v.get<std::string>());
    else fail(key, "null is not a value (leave the key out for its default)");
  }
};

}  // namespace

toml::table scenario_table_from_json(const nlohmann::json& j, const std::string& label, FilePaths paths) {
  const Converter c{label};
  if (paths == FilePaths::refused && j.is_object() && j.contains("model") && j["model"].is_object()) {
    const auto config = j["model"].find("hf_config");
    if (config != j["model"].end() && config->is_string())
      c.fail("model.hf_config", "a file path is not accepted here; give the config.json's content as a table");
  }
  return c.table(j, "", 0);
}

Scenario scenario_from_json(const nlohmann::json& j, const std::string& label, const HardwareDb& db, FilePaths paths) {
  const toml::table t = scenario_table_from_json(j, label, paths);
  TomlSection root(t, label, "");
  require_schema_version(root);
  return read_scenario(root, label, default_workloads_dir(), db);
}

}  // namespace perfcast
