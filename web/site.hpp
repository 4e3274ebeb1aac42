#pragma once
// What `perfcast serve` and `perfcast report` hold for their whole run, loaded once at start: the
// hardware database, the shipped scenarios as presets, and the scenario schema with the names each
// name key accepts. Requests read it and never a file.
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/data/hardware_db.hpp"

namespace perfcast::web {

struct Preset {
  std::string name;          // the file's stem: what a request or a link names
  std::string title;         // its `name` key
  std::string kind;          // "training" or "inference"
  nlohmann::json scenario;   // the file's tables
};

class Site {
 public:
  // Reads the database and every scenario of `scenarios_dir` (InputError naming a file that fails).
  Site(const std::filesystem::path& hardware_db, const std::filesystem::path& scenarios_dir);

  const HardwareDb& db() const { return db_; }
  const std::vector<Preset>& presets() const { return presets_; }
  // GET /api/site: the presets, the scenario schema's tables and, for each name key, its names.
  const std::string& site_json() const { return site_json_; }
  // What `perfcast validate --kind KIND --format json` prints, scored on first use and kept.
  const std::string& validation_json(const std::string& kind) const;

 private:
  HardwareDb db_;
  std::vector<Preset> presets_;
  std::string site_json_;
  mutable std::mutex validation_mutex_;
  mutable std::map<std::string, std::string> validation_;
};

}  // namespace perfcast::web
