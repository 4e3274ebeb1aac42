#pragma once
// Megatron-LM / NeMo (Megatron core) training logs: the "arguments" block the run prints at start
// and its "iteration N/M | ... | elapsed time per iteration (ms): T | ..." lines. The arguments
// give the model, the batch and the layout; the iteration times give the measured step (the median
// after the first logged interval, which holds warm-up and compilation). Dense GPT-style models
// only: MoE arguments are refused with a pointer to the generic format.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

namespace perfcast {

struct MegatronIteration {
  int line = 0;
  long iteration = 0;
  double step_s = 0;
  std::optional<double> tflops_per_gpu;   // Megatron's own "throughput per GPU (TFLOP/s/GPU)"
};

struct MegatronRun {
  std::string file;
  std::map<std::string, std::string> arguments;  // name → value as printed
  std::vector<MegatronIteration> iterations;
  double median_step_s = 0;                      // over iterations after the first logged one
  int iterations_used = 0;
};

MegatronRun parse_megatron_log(std::string_view text, const std::string& file);

// The run as a training scenario (the tables model, hardware, training, parallelism) on `system`,
// whose devices per node must divide the run's world size. InputError naming the argument that
// cannot be mapped.
toml::table megatron_scenario(const MegatronRun& run, const std::string& system, int devices_per_node);

}  // namespace perfcast
