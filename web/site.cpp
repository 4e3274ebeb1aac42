#include "web/site.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <sstream>

#include <toml++/toml.h>

#include "engine/api/answers.hpp"
#include "engine/core/errors.hpp"
#include "engine/core/input_file.hpp"
#include "engine/data/schema/field.hpp"
#include "engine/data/schema/scenario.hpp"
#include "engine/data/workload_reader.hpp"
#include "engine/writers/validation_writers.hpp"
#include "models/memory.hpp"

namespace perfcast::web {
namespace {

// A TOML document as JSON (toml++'s own formatter), so presets and requests share one form.
nlohmann::json json_of(const toml::table& t) {
  std::ostringstream text;
  text << toml::json_formatter{t};
  return nlohmann::json::parse(text.str());
}

std::vector<Preset> read_presets(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<Preset> out;
  for (const auto& file : files) {
    std::shared_ptr<toml::table> doc;
    TomlSection::parse(read_input_file(file, "scenario file"), file.string(), doc);
    Preset p{.name = file.stem().string(), .scenario = json_of(*doc)};
    p.title = p.scenario.value("name", p.name);
    p.kind = p.scenario.contains("inference") ? "inference" : "training";
    out.push_back(std::move(p));
  }
  return out;
}

// The names a `name` key of the scenario schema accepts, keyed by the schema's `refers_to`.
nlohmann::json names_by_reference(const HardwareDb& db) {
  nlohmann::json names = nlohmann::json::object();
  for (const schema::KindSchema& k : schema::all_kinds()) {
    std::vector<std::string> of_kind;
    for (const Record* r : db.records_of(k.kind)) of_kind.push_back(r->name);
    names[fmt::format("hardware_db {}", k.name)] = of_kind;
  }
  names["workloads/ preset"] = preset_names(default_workloads_dir());
  std::vector<std::string> recipes;
  for (const models::OptimizerRecipe& r : models::optimizer_recipes()) recipes.emplace_back(r.name);
  names["optimizer recipe"] = recipes;
  return names;
}

}  // namespace

Site::Site(const std::filesystem::path& hardware_db, const std::filesystem::path& scenarios_dir)
    : db_(HardwareDb::load(hardware_db)), presets_(read_presets(scenarios_dir)) {
  nlohmann::json presets = nlohmann::json::array();
  for (const Preset& p : presets_) presets.push_back({{"name", p.name}, {"title", p.title}, {"kind", p.kind}, {"scenario", p.scenario}});
  nlohmann::json site{{"presets", presets}, {"names", names_by_reference(db_)}};
  site["schema"] = schema::scenario_schema_document()["scenario"];
  site_json_ = site.dump();
}

const std::string& Site::validation_json(const std::string& kind) const {
  const std::lock_guard<std::mutex> lock(validation_mutex_);
  auto it = validation_.find(kind);
  if (it == validation_.end())
    it = validation_.emplace(kind, validation_to_json(api::validation_report({.kind = kind}, db_)).dump()).first;
  return it->second;
}

}  // namespace perfcast::web
