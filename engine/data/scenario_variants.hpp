#pragma once
// The scenarios `perfcast compare` predicts: one scenario file with each combination of hardware,
// payment and region variants applied, read and resolved like any scenario.
#include <optional>
#include <toml++/toml.h>
#include <string>
#include <vector>

#include "engine/data/hardware_db.hpp"
#include "engine/data/scenario_json.hpp"
#include "engine/spec/scenario.hpp"

namespace perfcast {

// A variant as the user wrote it: "system=dgx-b200,nodes=64,parallelism.tp=8". Undotted keys go
// to the axis's own table ([hardware], [cost] or [region]), which the variant replaces; dotted
// keys override any other table's key. A bare word is a region's name on the region axis, and on
// the cost axis "purchase", "spot", "cloud" (the cheapest on-demand offer renting the variant's
// accelerator) or an offer's name.
struct CompareRequest {
  std::string scenario_file;
  std::vector<std::string> hardware, cost, region;  // empty: the scenario's own
  std::optional<double> deadline_s;                  // training: rows slower than this miss
  FilePaths paths = FilePaths::allowed;              // refused: a variant may not name a file (model.hf_config)
};

// Throws InputError for a malformed variant or an unreadable scenario; a combination the scenario
// rules reject (an offer for other hardware, a layout that does not divide) carries its error.
std::vector<ScenarioVariant> scenario_variants(const CompareRequest& r, const HardwareDb& db);
// The same from a scenario's tables already parsed (a JSON scenario), `label` naming it; r.scenario_file is not read.
std::vector<ScenarioVariant> scenario_variants(const toml::table& base, const std::string& label, const CompareRequest& r,
                                               const HardwareDb& db);

}  // namespace perfcast
