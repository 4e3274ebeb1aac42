#pragma once
// Memory per device (MODELS-REFERENCE §7–§8): model states from a per-tensor dtype table sharded by
// ZeRO stage, activations from the tensors each layer saves, pipeline in-flight factors, KV cache
// per token, and weight storage per dtype with its quantisation scales. Pure functions on specs.
#include <span>
#include <string_view>
#include <vector>

#include "models/precision.hpp"
#include "models/pipeline.hpp"
#include "models/transformer.hpp"
#include "models/transformer_ops.hpp"

namespace perfcast::models {

// ---- Model states (F-MEM-1..3) ------------------------------------------------------------------

enum class StateComponent { weights, gradients, optimizer };  // the breakdown row a tensor lands in

// One tensor class of an optimizer recipe: bytes per parameter before sharding, and the ZeRO stage
// from which it is partitioned across the sharding group (4 = never).
struct StateTensor {
  std::string_view name;
  StateComponent component;
  double bytes_per_param;
  int sharded_from_stage;
  // false: once sharded it is not kept at all between uses (DeepSpeed's ZeRO-3 fp16 gradients are
  // reduce-scattered as each layer finishes and live only in the gathered-unit transient).
  bool resident_when_sharded = true;
};

struct OptimizerRecipe {
  std::string_view name, description, source;
  std::span<const StateTensor> tensors;
  double bytes_per_param() const;
};

std::span<const OptimizerRecipe> optimizer_recipes();
const OptimizerRecipe* find_recipe(std::string_view name);

enum class Offload { none, optimizer, optimizer_and_params };  // ZeRO-Offload / ZeRO-Infinity
inline constexpr std::array<std::string_view, 3> kOffloadKeys{"none", "optimizer", "optimizer+params"};  // in enum order

struct ModelStates {
  double weights = 0, gradients = 0, optimizer = 0;
  double gather = 0;  // ZeRO-3 transient: the largest unit's full weights and gradients
  double states() const { return weights + gradients + optimizer; }
  double total() const { return states() + gather; }
};

// Bytes on one device for `params` parameters held by its model-parallel rank, sharded over
// `shard_group` data-parallel ranks at ZeRO stage `zero`. `largest_unit_params` sizes the ZeRO-3
// gather (parameters of the largest layer, as DeepSpeed's estimator counts it).
ModelStates model_states(const OptimizerRecipe& recipe, double params, double largest_unit_params, int zero,
                         double shard_group, Offload offload);

// ---- Activations (F-MEM-4, F-MEM-5) -------------------------------------------------------------

struct ActivationContext {
  double micro_batch = 1, seq_len = 2048;
  int tp = 1, cp = 1, etp = 1;   // etp: tensor parallelism inside each expert
  bool sequence_parallel = false;
  Recompute recompute = Recompute::none;
  AttentionKernel kernel = AttentionKernel::flash;
  double activation_bytes = 2;   // β_a
  double gemm_input_bytes = 2;   // saved GEMM inputs (1 with FP8 training: DeepSeek-V3 §3.3, TE)
  double mask_bytes = kDropoutMaskBytes;  // β_m, dropout masks (Korthikanti et al. 2022)
  double capacity_factor = 1;    // MoE token capacity C (1 = dropless, balanced)
};

struct SavedTensor {
  std::string_view name;
  double bytes;
};

// Tensors one layer keeps for its backward, per micro-batch and per rank; `moe` selects the MoE
// layer form of the model. Dropout masks appear when the model trains with dropout.
std::vector<SavedTensor> layer_activations(const TransformerSpec& m, const ActivationContext& c, bool moe);
double layer_activation_bytes(const TransformerSpec& m, const ActivationContext& c, bool moe);

// First pipeline stage extras per in-flight micro-batch (token ids, embedding dropout mask) and
// the last stage's output layer and loss for one micro-batch (F-MEM-6).
std::vector<SavedTensor> embedding_activations(const TransformerSpec& m, const ActivationContext& c);
std::vector<SavedTensor> output_activations(const TransformerSpec& m, const ActivationContext& c);
// What one multi-token-prediction module saves besides its layer and its loss (DeepSeek-V3 §2.2):
// the two normalised inputs and the [h; embedding] projection's input.
std::vector<SavedTensor> mtp_input_activations(const TransformerSpec& m, const ActivationContext& c);

// Layer-chunks of L/(pp·vp) layers each whose activations pipeline rank `stage` holds at its peak,
// with `microbatches` per step. 1F1B/interleaved: Narayanan et al. 2021 warm-up count (first stage
// L·(1 + (p−1)/(p·v)) layers' worth, F-MEM-6); GPipe: every micro-batch; ZB-H1: as 1F1B; ZB-H2:
// 2(p−stage)−1 (Qi et al. 2023, Table 1).
double in_flight_chunks(Schedule s, int pp, int vp, double microbatches, int stage);

// ---- KV cache and inference weights (F-KV-1..4) --------------------------------------------------

// Storage per element of a quantised format including its scales: group size and scale bytes.
struct QuantFormat {
  double element_bytes;  // payload
  double group;          // elements sharing one set of scales (0: per-tensor, negligible)
  double scale_bytes;    // bytes of scale (and zero point) per group
  std::string_view source;
  double bytes_per_element() const { return element_bytes + (group > 0 ? scale_bytes / group : 0); }
};
QuantFormat weight_format(Precision p, int hidden, Fp4Blocks fp4 = Fp4Blocks::nvfp4);
QuantFormat kv_format(Precision p);

// KV cache bytes per token on one tensor-parallel rank: GQA/MQA 2·L·n_kv·d_h·β with the KV heads
// split over min(tp, n_kv) ranks (replicated beyond), MLA (kv_lora + rope)·L·β on every rank; of
// L layers only the softmax-attention share keeps keys and values.
double kv_bytes_per_token(const TransformerSpec& m, const QuantFormat& kv, int tp, int layers);
// KV cache of one sequence holding `tokens` tokens on `layers` layers (F-KV-5): full-attention
// layers keep every token, sliding-window layers their last `sliding_window` (vLLM's hybrid KV
// cache manager frees the blocks that leave the window), linear-attention layers their state.
double kv_cache_bytes(const TransformerSpec& m, const QuantFormat& kv, int tp, double layers, double tokens);

// One sequence's recurrent state on `layers` layers' linear-attention share (F-ARCH-4): an FP32
// key_head_dim x value_head_dim matrix per value head, and the last conv_kernel - 1 inputs of the
// short convolution in BF16 (kConvStateBytes); value heads split over tp. 0 without linear layers.
double linear_state_bytes(const TransformerSpec& m, int tp, double layers);

// Tokens a paged allocator reserves for a sequence of `tokens` with blocks of `block` (F-KV-3).
double paged_tokens(double tokens, double block);

}  // namespace perfcast::models
