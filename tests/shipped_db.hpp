#pragma once
// The shipped hardware database, loaded once per test process.
#include <string_view>

#include "engine/data/hardware_db.hpp"
#include "engine/data/hardware_resolution.hpp"
#include "engine/layout/topology.hpp"

inline const perfcast::HardwareDb& shipped_db() {
  static const perfcast::HardwareDb loaded = perfcast::HardwareDb::load(PERFCAST_DEFAULT_HARDWARE_DB);
  return loaded;
}

// The topology of one shipped system, resolved in the shipped database.
inline perfcast::Topology system_topology(std::string_view name) {
  return perfcast::system_topology(perfcast::resolve_system(shipped_db(), name));
}
