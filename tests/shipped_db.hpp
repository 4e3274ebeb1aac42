#pragma once
// The shipped hardware database, loaded once per test process.
#include "engine/hardware_db.hpp"

inline const perfcast::HardwareDb& shipped_db() {
  static const perfcast::HardwareDb loaded = perfcast::HardwareDb::load(PERFCAST_DEFAULT_HARDWARE_DB);
  return loaded;
}
