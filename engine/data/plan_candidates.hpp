#pragma once
// `perfcast plan`'s candidates read from the scenario and the hardware database
// (engine/spec/plan_space.hpp): the scenario on each system, its own layout, [cost] and [region]
// dropped (the plan searches them), and every way of paying for each system.
#include <string>

#include "engine/data/hardware_db.hpp"
#include "engine/spec/plan_space.hpp"

namespace perfcast {

// Throws InputError for an unreadable scenario, one that is neither a training job nor served, an unknown
// accelerator or region, or an accelerator no system in the database is built from.
PlanCandidates plan_candidates(const std::string& scenario_file, const PlanSpace& space, const HardwareDb& db);

}  // namespace perfcast
