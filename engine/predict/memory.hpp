#pragma once
// Memory per device for a scenario (MODELS-REFERENCE §7–§8): the breakdown by component for the
// pipeline stage that needs the most, the capacity it is held against, whether it fits, and when
// it does not, the binding component and the single layout changes that would make it fit.
#include <optional>
#include <string>
#include <vector>

#include "engine/spec/scenario.hpp"
#include "models/memory.hpp"

namespace perfcast {

// Framework overheads as named parameters with their sources (MODELS-REFERENCE §7.4 asks for them
// to be explicit, not folded into a fudge factor).
struct MemoryOverheads {
  // PyTorch CUDA context with lazy module loading (CUDA >= 11.7): "~300MB" (NVIDIA's ptrblck,
  // pytorch/pytorch#107667, 2023-08-28; > 1000 MB before lazy loading).
  double cuda_context_B = 300e6;
  // NCCL_BUFFSIZE default 4 MiB (NCCL environment-variable docs), for send and receive on each
  // channel of every communicator; 16 channels is an assumption (NCCL picks 2–32 by topology).
  double nccl_buffer_B = 4 * 1048576.0;
  double nccl_channels = 16;
  // Caching-allocator fragmentation on activation-like memory: midpoint of the 5–15% range
  // MODELS-REFERENCE §7.4 gives as typical (not sourced; calibrate it).
  double fragmentation = 0.10;
  // Serving: vLLM's default --gpu-memory-utilization 0.9 and --block-size 16 (vLLM engine args).
  double memory_utilization = 0.90;
  double kv_block_tokens = 16;
};

struct MemoryComponent {
  std::string name;   // weights, gradients, optimizer, zero3_gather, activations, ...
  double bytes = 0;
  std::string note;   // how it was obtained
};

struct MemoryReport {
  std::string scenario, workload, accelerator, accelerator_display;
  std::string phase;            // "training" | "inference"
  std::string stage;            // the pipeline stage reported ("only", "first of 8", "last of 8")
  std::string capacity_label;   // "usable device memory", "90% of device memory", "on-chip SRAM"
  std::vector<MemoryComponent> components;
  std::vector<models::SavedTensor> layer_tensors;  // training: one layer's saved tensors (derivation)
  double per_device_B = 0, capacity_B = 0;
  bool fits = false;
  std::string binding;          // the largest component
  std::string verdict;          // one line, with the fixes when it does not fit
  std::vector<std::string> fixes;
  std::optional<double> batch;        // inference: concurrent sequences evaluated
  std::optional<double> max_batch;    // inference: sequences; training: micro-batch
  std::optional<double> kv_bytes_per_token;  // per device
  // Inference: the tokens the cache's room holds, at a whole request's bytes per token (sequences, their
  // fp32 logits included): what an engine that takes blocks as requests run has to share out.
  std::optional<double> kv_pool_tokens;
  // One prompt's KV cache per device (windowed layers within their window, linear layers' state):
  // what a disaggregated prefill hands over.
  std::optional<double> kv_bytes_per_prompt;
  std::vector<std::string> assumptions;
};

// The numbers behind a training stage's breakdown, for searches that need no text (`sweep`).
struct StageMemory {
  models::ModelStates dense, expert;
  double dense_group = 1;                            // ranks the dense states shard over
  double params = 0, expert_params = 0, largest_unit = 0;
  double per_layer = 0, chunk_layers = 0, chunks = 0;  // activations: in-flight chunks x layers x bytes
  double activations = 0, io = 0, cuda_context = 0, communication = 0, fragmentation = 0;
  int communicators = 0;
  double total = 0;
  double checkpoint_bytes() const { return (dense.weights + expert.weights) + (dense.optimizer + expert.optimizer); }
};

// Saved activations per layer and per micro-batch, which depend on the micro-batch, tp, cp,
// sequence parallelism and recomputation but not on the pipeline or data-parallel layout.
struct ActivationFootprint {
  double dense_layer_B = 0, moe_layer_B = 0, embedding_B = 0, output_B = 0;
  double mtp_module_B = 0;  // one multi-token-prediction module (0 without): inputs, its layer, its loss
};
models::ActivationContext activation_context(const Scenario& s);
ActivationFootprint activation_footprint(const models::TransformerSpec& m, const models::ActivationContext& c);
StageMemory training_stage_memory(const Scenario& s, const AcceleratorSpec& a, int stage, const ActivationFootprint& f,
                                  const MemoryOverheads& o);
// The stage needing the most (what memory_for_scenario reports): first, last, and with an uneven
// split the second.
StageMemory training_memory_peak(const Scenario& s, const AcceleratorSpec& a, const ActivationFootprint& f, const MemoryOverheads& o = {});

MemoryReport memory_for_scenario(const Scenario& s, const MemoryOverheads& o = {});

}  // namespace perfcast
