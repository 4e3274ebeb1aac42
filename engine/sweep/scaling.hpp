#pragma once
// Predicted scaling of a training scenario over device counts (MODELS-REFERENCE §2): strong
// scaling (the scenario's global batch, more data-parallel replicas) and weak scaling (the batch
// per replica kept), their efficiencies against the smallest valid count, and the Amdahl and
// Gustafson fits of the predicted curves.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/spec/scenario.hpp"
#include "models/scaling.hpp"

namespace perfcast {

struct ScalingRow {
  int devices = 0, dp = 0;
  std::string skipped;              // why this count has no prediction ("" when it has one)
  double strong_step_s = 0, strong_tokens_per_s = 0, strong_efficiency = 0;
  double weak_global_batch = 0, weak_step_s = 0, weak_tokens_per_s = 0, weak_efficiency = 0;
  bool fits = true;                 // memory (the same per device in both modes)
};

struct ScalingReport {
  std::string scenario, layout;
  std::vector<ScalingRow> rows;
  models::Fit amdahl, gustafson;    // f (parallel fraction) and s (serial fraction)
};

// Device counts from `first` to `last`, multiplying by `factor` (≥ 2 in practice; 8:16384:2).
std::vector<int> device_counts(int first, int last, double factor);
// --devices (scaling, sweep), --nodes (plan): "512", "FIRST:LAST[:FACTOR]" (FACTOR 2 unless given),
// or a list "64,128,192". InputError naming the option on anything else.
std::vector<int> parse_device_counts(const std::string& text, std::string_view option = "--devices");
// --shard (sweep, plan): "i/N" with 0 <= i < N, as {i, N}. InputError otherwise.
std::pair<int, int> parse_shard(const std::string& text);
ScalingReport scaling_for_scenario(const Scenario& s, const std::vector<int>& counts);

}  // namespace perfcast
