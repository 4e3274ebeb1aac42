#pragma once
// Training software stacks (DESIGN.md "Software stacks and engines"): which layouts a stack runs,
// which overlaps it has, and its bytes-per-parameter convention. Facts only, each with its source
// (../shared/reference/training-stacks.md paraphrases them); efficiency profiles fitted to a
// stack's measurements are calibration (perfcast calibrate), not traits.
#include <array>
#include <string_view>

#include "models/op.hpp"
#include "models/pipeline.hpp"
#include "models/transformer_ops.hpp"

namespace perfcast::models {

enum class TrainingStack { megatron_lm, megatron_lm_2022, megatron_lm_2021, megatron_zb, nemo, torchtitan, torchtitan_2024, deepspeed, deepspeed_2021 };
inline constexpr std::array<std::string_view, 9> kTrainingStackKeys{
    "megatron-lm", "megatron-lm-2022", "megatron-lm-2021", "megatron-zb", "nemo", "torchtitan", "torchtitan-2024", "deepspeed",
    "deepspeed-2021"};  // in enum order

// How a stack overlaps tensor-parallel collectives with its GEMMs.
//  exposed:   every TP collective on the critical path (Megatron-LM as run in 2021-2022);
//  backward:  the input-gradient collectives run asynchronously under the weight-gradient GEMM
//             and the sequence-parallel re-gather under the input-gradient GEMM (Megatron-Core);
//  pipelined: as backward, and the forward all-gather / reduce-scatter are split into chunks
//             pipelined with the GEMMs they feed (Transformer Engine userbuffers, --tp-comm-overlap;
//             torchtitan's async TP). Needs sequence parallelism.
enum class TpOverlap { exposed, backward, pipelined };
inline constexpr std::array<std::string_view, 3> kTpOverlapKeys{"exposed", "backward", "pipelined"};  // in enum order

// How a ZeRO-3 / FSDP data-parallel group gathers parameters: one all-gather per transformer layer
// (FSDP2 fully_shard per block, Megatron-FSDP), or in buckets of `gather_bucket_params` (DeepSpeed's
// stage3_prefetch_bucket_size); prefetched under the compute before the one that needs it, or
// fetched on demand, on the critical path.
struct ShardedGather {
  double bucket_params = 0;   // 0: one call per layer
  bool prefetched = true;     // issued ahead, under the compute before; false: on demand
};

// SMs the communication kernels of a pipelined TP overlap (Transformer Engine userbuffers) occupy
// while they run beside the GEMMs, per collective of a layer. Zero: the stack has none, and an
// overlapped collective is an NCCL kernel (models/traffic: kNcclOverlapSms).
struct UserbufferSms {
  double forward_gather = 0;        // sequence-parallel input all-gather under the QKV / FC1 GEMM
  double forward_scatter_bf16 = 0;  // output reduce-scatter under the projection / FC2 GEMM
  double forward_scatter_fp8 = 0;
  double backward_gather = 0;       // output-gradient all-gather under the projection / FC2 dgrad
  double backward_scatter = 0;      // input-gradient reduce-scatter under the QKV / FC1 wgrad
  double backward_regather = 0;     // input re-gather for the wgrad, under the QKV / FC1 dgrad
};

// A stack whose model is written in plain torch ops (torchtitan) runs its elementwise modules as
// separate eager kernels unless torch.compile fuses them (F-EAGER-1); stacks of fused kernels
// (Transformer Engine, Apex, Megatron's fused ops) have none of this.
struct EagerModules {
  bool eager = false;                // elementwise modules are torch ops; `[training] compile` applies
  bool rmsnorm_as_ops = false;       // RMSNorm written as torch ops, not PyTorch's fused rms_norm kernel
  bool repeat_kv = false;            // GQA by copying K and V per query head (SDPA without enable_gqa)
  bool compile_covers_loss = false;  // torch.compile, when on, compiles the loss with the blocks
};

// How a weight gradient reaches the main gradient over the micro-batches of a step.
//  fused:           the weight-gradient GEMM accumulates into it (Megatron's gradient_accumulation_fusion,
//                   Transformer Engine's fuse_wgrad_accumulation);
//  fused_fp32_only: fused with FP32 main gradients only: Megatron-LM from February to September 2022
//                   switched the fusion off in FP16 unless --accumulate-allreduce-grads-in-fp32 was set;
//  separate:        the GEMM writes a 16-bit gradient and a hook adds it to the main gradient in its own
//                   kernel (Megatron-LM 2021: LocalDDP's param_hook, main_grad.add_(grad)).
enum class GradAccumulation { fused, fused_fp32_only, separate };

struct StackTraits {
  TrainingStack id;
  std::string_view name, description;
  std::array<bool, 4> zero_stages;     // which ZeRO stages (0 = plain data parallel) it offers
  bool sharded_with_pp;                // ZeRO-2/3 together with pipeline parallelism
  bool interleaved;                    // vp > 1
  std::array<bool, 4> schedules;       // by models::Schedule
  bool sequence_parallel, selective_recompute, context_parallel, expert_parallel;
  int cp_chunks;                       // sequence chunks per CP rank (2: load-balanced causal split)
  TpOverlap tp_overlap;                // by default
  TpOverlap tp_overlap_max;            // with its overlap flag on
  std::string_view recipe_bf16, recipe_fp16, recipe_fp8;  // optimizer recipes (models/memory) it keeps
  Fp8Scaling fp8_scaling;              // its FP8 recipe's scaling by default
  ShardedGather gather;
  // The data-parallel gradient reduction runs in buckets under the backward (Megatron-Core's
  // overlap_grad_reduce, DDP and FSDP hooks); false: once, after the whole backward.
  bool grad_reduce_overlapped = true;
  GradAccumulation grad_accumulation = GradAccumulation::fused;
  UserbufferSms userbuffers;           // with tp_overlap = pipelined
  // The fused attention kernel it runs on Hopper (sm90) and on Blackwell (sm100) GPUs; generic where
  // no source says (the roofline's scalar attention efficiencies apply, as on every other GPU).
  AttentionImpl attention_hopper = AttentionImpl::generic;
  AttentionImpl attention_blackwell = AttentionImpl::generic;
  // Its selective recomputation is PyTorch op-level selective checkpointing (every second matmul
  // and every elementwise op of a layer redone), not Korthikanti's attention-core recomputation.
  bool op_level_selective = false;
  // Its FP8 linear layers are torchao's Float8Linear (casts in torch ops, F-LP-2), not Transformer
  // Engine's fused cast-transpose kernels (F-LP-1).
  bool float8_torchao = false;
  EagerModules eager_modules{};
  std::string_view source;
};

const StackTraits& traits(TrainingStack s);
inline std::string_view name_of(TrainingStack s) { return kTrainingStackKeys[static_cast<std::size_t>(s)]; }

}  // namespace perfcast::models
