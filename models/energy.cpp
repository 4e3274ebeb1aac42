#include "models/energy.hpp"

namespace perfcast::models {

double device_energy_J(const Activity& a, double tdp_W, double idle_W, const PowerLevels& u) {
  return a.compute_s * device_power_W(tdp_W, idle_W, u.compute) + a.memory_s * device_power_W(tdp_W, idle_W, u.memory) +
         a.communication_s * device_power_W(tdp_W, idle_W, u.communication) + a.idle_s * idle_W;
}

}  // namespace perfcast::models
