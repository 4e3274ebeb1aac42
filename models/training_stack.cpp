#include "models/training_stack.hpp"

namespace perfcast::models {
namespace {

using enum TpOverlap;
//                                  gpipe  1f1b  zb-h1  zb-h2
constexpr std::array<bool, 4> kOneFOneB{false, true, false, false};
constexpr std::array<bool, 4> kTorchPipelining{true, true, true, false};
constexpr std::array<bool, 4> kZeroBubble{false, true, true, true};

// Megatron-Bridge's userbuffer settings for Llama 3 70B on H100 at tp 4, micro-batch 1, 8,192 tokens
// (NVIDIA-NeMo/Megatron-Bridge @ 067f987df, src/megatron/bridge/training/comm_overlap.py,
// userbuffers_{bf16,fp8}_h100_h8192_tp4_mbs1_seqlen8192): ring-exchange overlaps take 1 SM; the
// bulk backward overlaps 24 (QKV wgrad) and 4 (FC1 wgrad) SMs, 4 (QKV dgrad) and 2 (FC1 dgrad);
// the BF16 forward reduce-scatters 24 (projection) and 16 (FC2), the FP8 ones ring-exchange. The
// two collectives of a kind move the same bytes (tokens x hidden), so a kind's figure is their mean.
constexpr UserbufferSms kBridgeUserbuffers{
    .forward_gather = 1, .forward_scatter_bf16 = 20, .forward_scatter_fp8 = 1,
    .backward_gather = 1, .backward_scatter = 14, .backward_regather = 3};

constexpr StackTraits kTorchtitan{
        .id = TrainingStack::torchtitan,
        .name = "torchtitan",
        .description = "torchtitan: FSDP2 (ZeRO-3, or ZeRO-2 with reshard_after_forward off) or DDP replicas, TP with SP, "
                       "torch.distributed.pipelining schedules, CP, EP; TP collectives synchronous unless async TP (compile)",
        .zero_stages = {true, false, true, true},
        .sharded_with_pp = true,
        .interleaved = true,
        .schedules = kTorchPipelining,
        .sequence_parallel = true, .selective_recompute = true, .context_parallel = true, .expert_parallel = true,
        .cp_chunks = 1,
        .tp_overlap = exposed, .tp_overlap_max = pipelined,
        .recipe_bf16 = "fp32-adam", .recipe_fp16 = "fp32-adam", .recipe_fp8 = "fp32-adam",
        .fp8_scaling = Fp8Scaling::current,
        .gather = {.bucket_params = 0, .prefetched = true},
        .attention_hopper = AttentionImpl::cudnn, .attention_blackwell = AttentionImpl::cudnn,
        .op_level_selective = true,
        .float8_torchao = true,
        .eager_modules = {.eager = true, .rmsnorm_as_ops = false, .repeat_kv = false, .compile_covers_loss = true},
        .source = "pytorch/torchtitan @ b5bcd76c66: torchtitan/config/configs.py, distributed/fsdp.py (FSDP2 fp32 sharded "
                  "parameters with bf16 compute, reduce in fp32; reshard_after_forward off under PP); async TP needs compile; "
                  "torch/distributed/pipelining/schedules.py (GPipe, 1F1B, interleaved, interleaved zero bubble); attention is "
                  "F.scaled_dot_product_attention, which picks cuDNN attention on H100 for causal GQA in BF16 under torch "
                  "2.11.0+cu130 with cuDNN 9.19 (torch._fused_sdp_choice, perfcast's GPU kit, 2026-11-24: "
                  "validation/microbenchmarks-h100-kit.toml), and torchtitan asks for it first on sm100 "
                  "(pytorch/torchtitan#1196); selective AC 'op' (the llama3_8b.toml default at 9dec370) saves every mm "
                  "output 'except every second mm' and the attention output (parallelisms/parallelize_llama.py _custom_policy); "
                  "Float8 is torchao's Float8Linear with dynamic (per-tensor current) scaling; eager modules "
                  "(models/common): RMSNorm is nn.RMSNorm (PyTorch's fused rms_norm kernel), ComplexRoPE, SwiGLU as "
                  "silu(w1 x) * w3 x, GQA through SDPA's enable_gqa; CompileConfig compiles each TransformerBlock and "
                  "the loss (components = ['model', 'loss']), off by default (enable = false)",
    };

// torchtitan as its team benchmarked it at the end of 2024 (@ 9dec370, torch 1963fc8): the layouts,
// overlaps and kernels of today's, but RMSNorm in torch ops, K and V copied per head, and torch.compile
// wrapping the TransformerBlocks only.
constexpr StackTraits torchtitan_2024() {
  StackTraits t = kTorchtitan;
  t.id = TrainingStack::torchtitan_2024;
  t.name = "torchtitan-2024";
  t.description = "torchtitan as of December 2024 (the llama3_h100_202412 benchmarks): as torchtitan, with the eager "
                  "modules of that release";
  t.eager_modules = {.eager = true, .rmsnorm_as_ops = true, .repeat_kv = true, .compile_covers_loss = false};
  // That release's torch picked SDPA's flash backend (FlashAttention-2) on H100: cuDNN attention was
  // opt-in there (pytorch/pytorch#138522, #142132).
  t.attention_hopper = AttentionImpl::fa2;
  t.source = "pytorch/torchtitan @ 9dec370: torchtitan/models/norms.py (RMSNorm: x.float(), pow, mean, rsqrt, type_as, "
             "* weight; norm_type 'rmsnorm' by default), models/llama/model.py (complex apply_rotary_emb, repeat_kv "
             "before F.scaled_dot_product_attention, silu(w1 x) * w3 x), parallelisms/parallelize_llama.py "
             "(apply_compile: torch.compile per TransformerBlock), train.py (loss_fn = cross_entropy(pred.float()), "
             "its compile commented out), config_manager.py (--training.compile off by default); SDPA's flash "
             "backend (FlashAttention-2) on H100, cuDNN attention being opt-in in that torch (pytorch/pytorch#138522); "
             "layouts and other kernels as torchtitan";
  return t;
}

constexpr StackTraits kDeepspeed{
        .id = TrainingStack::deepspeed,
        .name = "deepspeed",
        .description = "DeepSpeed (with Megatron-DeepSpeed's TP): ZeRO 1-3, its own 1F1B pipeline engine without "
                       "interleaving, which refuses ZeRO-2/3; full activation checkpointing; TP collectives not overlapped",
        .zero_stages = {true, true, true, true},
        .sharded_with_pp = false,
        .interleaved = false,
        .schedules = kOneFOneB,
        .sequence_parallel = false, .selective_recompute = false, .context_parallel = false, .expert_parallel = true,
        .cp_chunks = 1,
        .tp_overlap = exposed, .tp_overlap_max = exposed,
        .recipe_bf16 = "mixed-adam", .recipe_fp16 = "mixed-adam", .recipe_fp8 = "mixed-adam",
        .fp8_scaling = Fp8Scaling::delayed,
        .gather = {.bucket_params = 5e7, .prefetched = true},
        .source = "microsoft/DeepSpeed @ edaa722126: runtime/pipe/engine.py ('ZeRO-2 and ZeRO-3 are incompatible with "
                  "pipeline parallelism'), runtime/pipe/schedule.py (TrainSchedule), runtime/zero/config.py "
                  "(stage3_prefetch_bucket_size 5e7); its sequence parallelism is Ulysses (all-to-all), not modelled",
    };

// DeepSpeed as Narayanan et al. ran its ZeRO-3 in early 2021 (DeepSpeed 0.3.x): the parameter fetch
// of a module waited on its all-gathers. The prefetch traced the module order off by one until PR
// #1170 (June 2021, 'Fix significant zero-3 slowdown compared to zero-2'); issue #1174 (0.3.16, 8 x
// A100 with NVLink) measured a forward of 480 ms under ZeRO-3 against 60 ms under ZeRO-2, 'largely
// bounded by the parameter gathering'. The gradient reduce-scatter overlapped the backward
// (overlap_comm, on by default for stage 3).
constexpr StackTraits deepspeed_2021() {
  StackTraits t = kDeepspeed;
  t.id = TrainingStack::deepspeed_2021;
  t.name = "deepspeed-2021";
  t.description = "DeepSpeed 0.3 (early 2021): as deepspeed, but ZeRO-3 parameter all-gathers on the critical path "
                  "(fetched when a module runs, not prefetched under the compute before it)";
  t.gather.prefetched = false;
  t.source = "deepspeedai/DeepSpeed issue #1174 'ZeRO3 is slow, even with nvlink for all-gather' (DeepSpeed 0.3.16: "
             "forward 480 ms under ZeRO-3 vs 60 ms under ZeRO-2, bounded by the parameter gathering) and PR #1170 "
             "'ZeRO-3 Slowdown' (2021-06: the prefetch's module trace was off by one); runtime/zero/config.py of that "
             "time: overlap_comm defaults to true for stage 3 (ZERO3_OPTIMIZATION_OVERLAP_COMM_DEFAULT); layouts as deepspeed";
  return t;
}

constexpr std::array kStacks = {
    StackTraits{
        .id = TrainingStack::megatron_lm,
        .name = "megatron-lm",
        .description = "Megatron-Core (2024-2026): distributed optimizer (ZeRO-1), Megatron-FSDP / torch FSDP2 for ZeRO-2/3 "
                       "without pipeline parallelism, interleaved 1F1B, SP, CP, EP; TP backward collectives asynchronous, "
                       "--tp-comm-overlap pipelines the forward ones",
        .zero_stages = {true, true, true, true},
        .sharded_with_pp = false,
        .interleaved = true,
        .schedules = kOneFOneB,
        .sequence_parallel = true, .selective_recompute = true, .context_parallel = true, .expert_parallel = true,
        .cp_chunks = 2,
        .tp_overlap = backward, .tp_overlap_max = pipelined,
        .recipe_bf16 = "megatron-bf16", .recipe_fp16 = "megatron-fp16", .recipe_fp8 = "fp8-te",
        .fp8_scaling = Fp8Scaling::delayed,
        .gather = {},
        .userbuffers = kBridgeUserbuffers,
        .attention_hopper = AttentionImpl::cudnn, .attention_blackwell = AttentionImpl::cudnn,
        .source = "NVIDIA/Megatron-LM @ d98e8a64dd: megatron/training/arguments.py (torch FSDP2 asserts pp = 1 and ep = 1; "
                  "seq_length % (2 x context_parallel_size) == 0; "
                  "--tp-comm-overlap asserts sequence parallelism; no zero-bubble schedule in megatron/core/pipeline_parallel), "
                  "docs/user-guide/features/dist_optimizer.md (ZeRO-1-style sharding, fp32 main grads); userbuffer SMs as "
                  "Megatron-Bridge sets them (its Llama 3 70B H100 tp 4 settings; Megatron-LM's own defaults not read); attention: "
                  "Transformer Engine's DotProductAttention picks its cuDNN FusedAttention over FlashAttention on compute "
                  "capability >= 9.0 'for performance reasons' (NVIDIA/TransformerEngine transformer_engine/pytorch/attention/"
                  "dot_product_attention/utils.py, get_attention_backend); FP8: --fp8-recipe default 'delayed' (arguments.py)",
    },
    StackTraits{
        .id = TrainingStack::megatron_lm_2022,
        .name = "megatron-lm-2022",
        .description = "Megatron-LM as Korthikanti et al. ran it in 2022: sequence parallelism and selective recomputation, "
                       "interleaved 1F1B, no distributed optimizer, CP or EP; TP collectives not overlapped",
        .zero_stages = {true, false, false, false},
        .sharded_with_pp = false,
        .interleaved = true,
        .schedules = kOneFOneB,
        .sequence_parallel = true, .selective_recompute = true, .context_parallel = false, .expert_parallel = false,
        .cp_chunks = 1,
        .tp_overlap = exposed, .tp_overlap_max = exposed,
        .recipe_bf16 = "megatron-bf16", .recipe_fp16 = "megatron-fp16", .recipe_fp8 = "fp8-te",
        .fp8_scaling = Fp8Scaling::delayed,
        .gather = {},
        .grad_reduce_overlapped = false,
        .grad_accumulation = GradAccumulation::fused_fp32_only,
        .source = "Korthikanti et al., 'Reducing Activation Recomputation in Large Transformer Models' (arXiv:2205.05198) "
                  "§4.2.2 and Table 3; exposed TP communication as Calculon (Isaev et al., SC'23) models the same runs; NVIDIA/Megatron-LM "
                  "@ f602ac56bd (2022-05) megatron/training.py train_step: the gradient all-reduce after forward_backward_func; "
                  "megatron/arguments.py: gradient accumulation fusion off in fp16 without --accumulate-allreduce-grads-in-fp32 "
                  "(until 07916bf245, 2022-09)",
    },
    StackTraits{
        .id = TrainingStack::megatron_lm_2021,
        .name = "megatron-lm-2021",
        .description = "Megatron-LM as Narayanan et al. ran it in 2021 (PTD-P): TP, PP with interleaving, DP; full "
                       "recomputation only, no sequence parallelism or sharded optimizer; TP collectives not overlapped",
        .zero_stages = {true, false, false, false},
        .sharded_with_pp = false,
        .interleaved = true,
        .schedules = kOneFOneB,
        .sequence_parallel = false, .selective_recompute = false, .context_parallel = false, .expert_parallel = false,
        .cp_chunks = 1,
        .tp_overlap = exposed, .tp_overlap_max = exposed,
        .recipe_bf16 = "megatron-bf16", .recipe_fp16 = "megatron-fp16", .recipe_fp8 = "fp8-te",
        .fp8_scaling = Fp8Scaling::delayed,
        .gather = {},
        .grad_reduce_overlapped = false,
        .grad_accumulation = GradAccumulation::separate,
        .source = "Narayanan et al., 'Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM' "
                  "(SC21, arXiv:2104.04473) §2-§4: PTD-P, interleaved schedule, activation recomputation; NVIDIA/Megatron-LM @ "
                  "8044c7b461 (2021-05) megatron/training.py train_step: allreduce_gradients() after forward_backward_func; "
                  "megatron/model/distributed.py: weight gradients added to main_grad by a backward hook (no "
                  "gradient accumulation fusion before 83b1e42f30, 2022-02)",
    },
    StackTraits{
        .id = TrainingStack::megatron_zb,
        .name = "megatron-zb",
        .description = "Sea AI Lab's zero-bubble fork of Megatron-LM: ZB-H1 (ZB1P) and ZB-H2 (ZB2P) besides 1F1B and "
                       "interleaving, distributed optimizer, SP; no CP or EP; TP backward collectives asynchronous",
        .zero_stages = {true, true, false, false},
        .sharded_with_pp = false,
        .interleaved = true,
        .schedules = kZeroBubble,
        .sequence_parallel = true, .selective_recompute = true, .context_parallel = false, .expert_parallel = false,
        .cp_chunks = 1,
        .tp_overlap = backward, .tp_overlap_max = backward,
        .recipe_bf16 = "megatron-bf16", .recipe_fp16 = "megatron-fp16", .recipe_fp8 = "fp8-te",
        .fp8_scaling = Fp8Scaling::delayed,
        .gather = {},
        .source = "sail-sg/zero-bubble-pipeline-parallelism @ 3a91d0c8c2 README.md (a Megatron-LM fork; --enable-zero-bubble, "
                  "--zero-bubble-max-pending-backward 1x / 2x pp for ZB1P / ZB2P); Qi et al., arXiv:2401.10241",
    },
    StackTraits{
        .id = TrainingStack::nemo,
        .name = "nemo",
        .description = "NeMo 2 / Megatron-Bridge recipes on Megatron-Core: Megatron-Core's layouts, with TP communication "
                       "overlap (Transformer Engine userbuffers) on wherever tp > 1 and sequence parallelism allow it",
        .zero_stages = {true, true, true, true},
        .sharded_with_pp = false,
        .interleaved = true,
        .schedules = kOneFOneB,
        .sequence_parallel = true, .selective_recompute = true, .context_parallel = true, .expert_parallel = true,
        .cp_chunks = 2,
        .tp_overlap = pipelined, .tp_overlap_max = pipelined,
        .recipe_bf16 = "megatron-bf16", .recipe_fp16 = "megatron-fp16", .recipe_fp8 = "fp8-te",
        .fp8_scaling = Fp8Scaling::current,
        .gather = {},
        .userbuffers = kBridgeUserbuffers,
        .attention_hopper = AttentionImpl::cudnn, .attention_blackwell = AttentionImpl::cudnn,
        .source = "Megatron-Bridge CommOverlapConfig (docs.nvidia.com/nemo/megatron-bridge, tp-dp-comm-overlap: TP overlap "
                  "on in the performance recipes, off when tp < 2 or without SP) over Megatron-Core's argument checks; userbuffer "
                  "SMs: NVIDIA-NeMo/Megatron-Bridge @ 067f987df src/megatron/bridge/training/comm_overlap.py (Llama 3 70B, H100, tp 4); "
                  "the Llama recipes leave attention_backend = None (Transformer Engine's choice: cuDNN fused attention on sm90+); FP8: "
                  "MixedPrecisionConfig.fp8_recipe defaults to 'tensorwise' (per-tensor current scaling), which the performance "
                  "scripts' fp8_cs runs (src/megatron/bridge/training/mixed_precision.py, scripts/performance/utils/precision.py)",
    },
    kTorchtitan,
    torchtitan_2024(),
    kDeepspeed,
    deepspeed_2021(),
};

}  // namespace

const StackTraits& traits(TrainingStack s) { return kStacks[static_cast<std::size_t>(s)]; }

}  // namespace perfcast::models
