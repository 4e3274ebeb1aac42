#pragma once
// A scenario file (DESIGN.md "The scenario format"): what runs, how it is laid out, on what.
// The loader validates every key and the layout against the model (TP dividing heads, ...).
#include <filesystem>
#include <optional>
#include <string>

#include "engine/hardware_db.hpp"
#include "engine/precision.hpp"
#include "engine/workload.hpp"
#include "models/transformer_ops.hpp"

namespace perfcast {

struct HardwareChoice {
  std::string accelerator;     // hardware_db name
  std::string system;          // "" when given as accelerator + count
  int count = 1;               // devices in all
  int devices_per_node = 0;
  std::string scale_up, scale_out;
};

struct TrainingSettings {
  double seq_len = 0;
  double global_batch = 0;
  double micro_batch = 1;
  std::optional<Precision> precision;
  models::Recompute recompute = models::Recompute::none;
  std::optional<double> tokens;
};

struct InferenceSettings {
  double input_len = 0;
  double output_len = 0;
  std::optional<double> batch;
  std::optional<Precision> weight_dtype, kv_dtype, compute_dtype;
  std::optional<double> target_fps;
};

struct ParallelismSettings {
  int tp = 1, pp = 1, vp = 1, cp = 1, ep = 1;
  std::optional<int> dp;
  bool sequence_parallel = false;
  int zero = 0;
};

struct Scenario {
  std::string file, name;
  Workload workload;
  HardwareChoice hardware;
  std::optional<TrainingSettings> training;
  std::optional<InferenceSettings> inference;
  ParallelismSettings parallelism;
  models::AttentionMask mask = models::AttentionMask::causal;
  models::AttentionKernel attention_kernel = models::AttentionKernel::flash;
};

// Loads and validates a scenario; presets resolve in `workloads`, hardware names in `db`.
Scenario load_scenario(const std::filesystem::path& file, const std::filesystem::path& workloads, const HardwareDb& db);
Scenario parse_scenario(std::string_view content, const std::string& label, const std::filesystem::path& workloads,
                        const HardwareDb& db);

}  // namespace perfcast
