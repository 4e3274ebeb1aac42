#pragma once
// What each parallel group sends per device (MODELS-REFERENCE §5, F-COMM-*): TP all-reduces (or
// all-gather + reduce-scatter with sequence parallelism, plus the backward re-gather), CP ring
// K/V exchange, EP all-to-all dispatch/combine, PP activations per micro-batch (x vp), DP
// gradient reduction or ZeRO-3 gathers; each with the compute it can hide behind. Pure functions.
#include <string_view>
#include <vector>

#include "models/collective.hpp"
#include "models/memory.hpp"
#include "models/training_stack.hpp"
#include "models/transformer.hpp"

namespace perfcast::models {

enum class TrafficGroup { tp, cp, ep, pp, dp, edp };
// The compute a transfer can run under (the overlap model, documented in traffic.cpp):
// nothing (on the critical path), the same layer's weight-gradient or input-gradient GEMMs, the
// attention kernel, the rest of the backward pass, the next forward, another micro-batch.
enum class OverlapWith { nothing, wgrad, dgrad, attention, backward, forward, other_microbatch };

// SMs an NCCL kernel occupies while it runs beside compute: one CTA per channel, one SM each. An
// ncclAllGather beside a GEMM on H100 ran 24 CTAs (NVIDIA developer forum thread 337991, 'Compute-
// Communication Overlap Causes Severe GEMM Performance Degradation because of Tail Effect'; one
// measurement, taken for every NCCL collective and GPU; reference/training-stacks.md §4).
inline constexpr double kNcclOverlapSms = 24;

struct TrafficItem {
  TrafficGroup group = TrafficGroup::tp;
  std::string_view what;
  Collective op = Collective::all_reduce;
  double bytes = 0;    // nccl-tests size of one call
  double calls = 0;    // calls per device per optimizer step (per forward pass for inference)
  OverlapWith overlap = OverlapWith::nothing;
  double sms = 0;      // SMs its kernel takes from the compute it overlaps (0 when on the critical path)
};

// A training layout as the traffic depends on it, for one pipeline stage.
struct TrainingLayout {
  int tp = 1, cp = 1, ep = 1, etp = 1, pp = 1, vp = 1, dp = 1, edp = 1, zero = 0;
  bool sequence_parallel = false;
  TpOverlap tp_overlap = TpOverlap::backward;  // the stack's (pipelined falls back to backward without SP)
  UserbufferSms userbuffers;                   // the stack's, for pipelined TP overlap
  bool fp8 = false;                            // FP8 math (the userbuffer settings differ)
  ShardedGather gather;                        // the stack's ZeRO-3 gather unit
  bool grad_reduce_overlapped = true;          // the stack's DP gradient reduction under the backward
  Recompute recompute = Recompute::none;
  double micro_batch = 1, seq_len = 0, micro_batches = 1;  // micro-batches per optimizer step
  double activation_bytes = 2;        // per element on the wire (bf16)
  double dispatch_bytes = 2, combine_bytes = 2;  // EP all-to-all element bytes (DeepSeek-V3: fp8 / bf16)
  double capacity_factor = 1;         // EP: token slots per expert / uniform share (1 = dropless)
  double gradient_bytes = 4;          // DP gradient reduction dtype (Megatron bf16: fp32 main grads)
  double parameter_bytes = 2;         // ZeRO parameter all-gather dtype
  double dense_parameters = 0;        // held by this device, dense (reduced over dp x cp)
  double expert_parameters = 0;       // held by this device, routed experts (reduced over expert-DP)
  double dense_layers = 0, moe_layers = 0;  // layers on this stage
  bool first_stage = true, last_stage = true;
};

std::vector<TrafficItem> training_traffic(const TransformerSpec& m, const TrainingLayout& l);
// The same into `out` (cleared first), for callers that reuse its storage.
void training_traffic(const TransformerSpec& m, const TrainingLayout& l, std::vector<TrafficItem>& out);

// One inference forward pass over `tokens` tokens (prefill: batch x prompt; decode: batch).
struct InferenceLayout {
  int tp = 1, ep = 1, pp = 1;
  double tokens = 1;
  double activation_bytes = 2, dispatch_bytes = 2, combine_bytes = 2;
  double dense_layers = 0, moe_layers = 0;  // layers on this stage
};

std::vector<TrafficItem> inference_traffic(const TransformerSpec& m, const InferenceLayout& l);

// K and V elements per token one rank exchanges in context parallelism: GQA heads split by tp
// (replicated below one per rank); MLA exchanges per-head K (nope + rope) and V.
double kv_exchange_width(const TransformerSpec& m, int tp);

std::string_view name_of(TrafficGroup g);
std::string_view name_of(OverlapWith o);

}  // namespace perfcast::models
