#pragma once
// The training prediction (MODELS-REFERENCE §2, §4, §6, §11): per pipeline rank the forward,
// backward (input and weight gradients) and recomputation times from the roofline of its ops, the
// communication of its groups with what the overlap model hides, the schedule's bubble, the
// data-parallel tail and the optimizer step; then throughput, MFU/HFU in several conventions,
// time-to-train and goodput after failures.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/predict/economics.hpp"
#include "engine/predict/memory.hpp"
#include "engine/spec/scenario.hpp"
#include "engine/layout/topology.hpp"
#include "engine/predict/training_step.hpp"
#include "models/collective.hpp"
#include "models/reliability.hpp"
#include "models/roofline.hpp"

namespace perfcast {

struct TrainingOptions {
  std::vector<ParallelDim> order;          // placement, innermost first; empty = default_order()
  models::CollectiveParams collective = models::default_collective_params();
  models::Efficiency efficiency = models::default_efficiency();
};

// One pipeline rank, per micro-batch (compute without communication) and per step (communication).
struct RankTiming {
  int stage = 0;
  double layers = 0;
  double forward_s = 0, backward_input_s = 0, backward_weight_s = 0, recompute_s = 0;
  double memory_bound_s = 0, overhead_s = 0;   // of forward + backward, per micro-batch
  double comm_s = 0, exposed_per_microbatch_s = 0, exposed_tail_s = 0;  // per step
  double contention_s = 0;                     // per step: compute slowed by hidden communication
  double optimizer_s = 0;
  double total_per_microbatch_s = 0;           // compute + recompute + exposed communication + contention
};

struct GroupExposure {
  std::string group;
  double time_s = 0, hidden_s = 0, exposed_s = 0;  // per step, on the slowest rank
  bool per_microbatch = true;                       // exposed in every micro-batch, else after the pipeline drains
  std::string_view where() const { return per_microbatch ? "in every micro-batch" : "after the pipeline drains"; }
};

struct BreakdownItem {
  std::string name;   // compute, memory_bound, kernel_overhead, recompute, comm_tp, ..., bubble, optimizer, data_loading
  double seconds = 0;
};

struct FlopConvention {
  std::string name, definition;
  double value = 0;   // a fraction of peak (mfu-like) or FLOP/s per device
  bool per_device_rate = false;
};

struct TrainingPrediction {
  std::string scenario, workload, accelerator, accelerator_display, layout, schedule, precision;
  int devices = 0, dp = 1;
  double microbatches = 0, tokens_per_step = 0;
  std::vector<RankTiming> ranks;
  int slowest_rank = 0;
  double step_time_s = 0, tokens_per_s = 0, tokens_per_s_per_device = 0;
  double peak_ops_per_s = 0;
  double model_flops_per_step = 0, hardware_flops_per_step = 0;
  double mfu = 0, hfu = 0;
  std::vector<FlopConvention> conventions;
  std::vector<BreakdownItem> breakdown;
  std::vector<GroupExposure> communication;
  double bubble_fraction = 0;                 // of the step
  // One dense layer, one micro-batch: forward + backward + recompute + its share of the slowest
  // rank's exposed per-micro-batch communication (Korthikanti et al. Table 4's "layer time").
  double layer_time_s = 0;
  std::string bottleneck;
  // Reliability
  double device_mtbf_s = 0, job_mtbf_s = 0, checkpoint_write_s = 0, restart_s = 0, checkpoint_interval_s = 0;
  double goodput_fraction = 1;
  std::optional<double> tokens, time_to_train_s, expected_wall_s, device_hours, expected_failures;
  MemoryReport memory;
  models::Activity activity;           // one device over one step (what power and energy follow)
  std::optional<Economics> economics;  // energy always when the device's power is known; cost with [cost]
  std::vector<std::string> assumptions;
};

// One device's activity over a step (training_step.hpp's step_activity).
inline models::Activity step_activity(const TrainingPrediction& p) { return p.activity; }

TrainingPrediction predict_training(const Scenario& s, const TrainingOptions& o = {});

}  // namespace perfcast
