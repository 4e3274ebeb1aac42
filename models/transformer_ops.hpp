#pragma once
// Operator accounting for a transformer (MODELS-REFERENCE §6.1): every GEMM, the attention core
// and the memory-bound ops of one layer, per micro-batch and per tensor-parallel rank, forward,
// backward and recomputation separately.
#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "models/op.hpp"
#include "models/transformer.hpp"

namespace perfcast::models {

enum class Phase { training, prefill, decode };
enum class AttentionMask { causal, full };               // §6.4: s_ctx = (s+1)/2 or s
enum class AttentionKernel { flash, materialised };      // fused (FlashAttention) or s x s scores in memory
enum class Recompute { none, selective, full };
// How FP8 training scales a tensor before its cast (Transformer Engine recipes): delayed, from an
// amax history the cast kernel itself updates; current (per-tensor "tensorwise"), from this
// tensor's own amax, which a separate reduction pass over it computes first; mxfp8 (Blackwell), an
// E8M0 scale per 32 consecutive values, computed inside the cast kernel.
enum class Fp8Scaling { delayed, current, mxfp8 };
// How a decode step's attention reads the KV cache when query heads share KV heads (MQA/GQA): each KV
// head once for its group (XQA, FlashAttention, FlashInfer), or once per query head (F-ATT-3).
enum class DecodeKvReads { shared, per_query_head };
// Their names in scenario files and outputs, in enum order.
inline constexpr std::array<std::string_view, 2> kAttentionMaskKeys{"causal", "full"};
inline constexpr std::array<std::string_view, 2> kDecodeKvReadsKeys{"shared", "per-query-head"};
inline constexpr std::array<std::string_view, 2> kAttentionKernelKeys{"flash", "materialised"};
inline constexpr std::array<std::string_view, 3> kRecomputeKeys{"none", "selective", "full"};
inline constexpr std::array<std::string_view, 3> kFp8ScalingKeys{"delayed", "current", "mxfp8"};

struct OpContext {
  Phase phase = Phase::training;
  double batch = 1;          // sequences in the micro-batch
  double seq_len = 2048;     // tokens per sequence (training, prefill)
  double context_len = 0;    // decode: tokens already in the KV cache
  AttentionMask mask = AttentionMask::causal;
  AttentionKernel kernel = AttentionKernel::flash;
  DecodeKvReads decode_kv = DecodeKvReads::shared;
  AttentionImpl attention_impl = AttentionImpl::generic;  // the fused kernel (the stack's choice on this GPU)
  Recompute recompute = Recompute::none;
  // recompute = selective is the stack's op-level policy (torchtitan): every second matmul of a
  // layer and every elementwise op recomputed, attention saved; else Korthikanti's attention-only one.
  bool op_level_selective = false;
  int tp = 1;                // tensor parallel (Megatron column/row split)
  int ep = 1;                // expert parallel
  int cp = 1;                // context parallel: seq_len is this rank's share of a cp-times longer sequence
  bool sequence_parallel = false;  // norms and residuals on s/tp tokens (Korthikanti et al. 2022)
  Precision math = Precision::bf16;  // GEMM and attention math (training in fp4: NVFP4)
  Fp8Scaling fp8_scaling = Fp8Scaling::delayed;  // math = FP8 in training
  std::optional<Precision> attention_math;  // the attention core's, when it differs (FP8 training keeps it in BF16)
  // Inference with quantised projections: the output layer and embedding table as serving checkpoints keep
  // them, 16-bit weights and math (F-INF-6); unset otherwise, both stored and run as the projections are.
  std::optional<Precision> head_math;
  // Bytes per routed-expert weight where a checkpoint stores the experts apart (expert_weight_dtype).
  std::optional<double> expert_weight_bytes;
  double weight_bytes = 2;           // bytes per parameter as stored (weight-only quantisation: < 2)
  double activation_bytes = 2;       // activations (GEMM A operand is `math`-sized when smaller)
  double kv_bytes = 2;               // KV cache element (inference)
  double grad_bytes = 4;             // weight gradients accumulate in FP32 (Megatron main_grads, §17.2)
  // The weight-gradient GEMM writes an activation-sized gradient that a kernel of its own adds to the
  // grad_bytes main gradient, every micro-batch (F-GRAD-1), instead of accumulating into it.
  bool separate_grad_accumulation = false;
  // Eager PyTorch modules (F-EAGER-1): the elementwise ops of the transformer blocks and of the head
  // (final norm, loss) run as the separate kernels torch ops launch, not one fused pass each.
  struct Eager {
    bool blocks = false, head = false;
    bool rmsnorm = false;  // RMSNorm written as torch ops (else one kernel each way, as PyTorch's _fused_rms_norm)
  } eager;
  bool repeat_kv = false;  // GQA K and V copied once per query head before the attention kernel (no enable_gqa)
  // FP8 training through torchao's Float8Linear with tensorwise scales (F-LP-2): six casts per linear
  // layer and micro-batch, as eager torch kernels where eager.blocks, else one fused pass each.
  bool torchao_float8 = false;

  double query_tokens() const { return phase == Phase::decode ? 1 : seq_len; }
  double tokens() const { return batch * query_tokens(); }  // T on this rank per micro-batch
  // With context parallelism a rank's queries attend over the whole sequence (load-balanced
  // causal chunks, Megatron-LM's CP), so its attention is 1/cp of the sequence's, not 1/cp².
  double keys() const { return phase == Phase::decode ? context_len + 1 : seq_len * cp; }
  // Keys each query attends to on average (§6.4).
  double attended() const {
    if (phase == Phase::decode || mask == AttentionMask::full) return keys();
    return (seq_len * cp + 1) / 2;
  }
};

// Groups: the head (embedding, final norm, LM head, loss/sampling) once, one dense layer and one
// MoE layer with their layer counts. Each group holds forward, then recompute, then backward ops.
std::vector<OpGroup> transformer_ops(const TransformerSpec& m, const OpContext& c);

// The backward ops of forward ops (reverse order): dgrad + wgrad per weight GEMM, two dgrads for
// activation x activation GEMMs, FlashAttention's backward, and memory ops reading the saved input
// and the output gradient.
std::vector<Op> backward_ops(const std::vector<Op>& forward, const OpContext& c);

// The attention core's ops in any pass: the fused kernel, or the materialised scores, softmax and
// context (full-attention and sliding-window layers alike).
bool is_attention_core(const Op& op);

// Totals over groups, each group times its repeats.
double total_flops(const std::vector<OpGroup>& groups);
double total_model_flops(const std::vector<OpGroup>& groups);

}  // namespace perfcast::models
