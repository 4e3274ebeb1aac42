#include "models/memory.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace perfcast::models {
namespace {

using C = StateComponent;

// F-MEM-3 (MODELS-REFERENCE §7.1): bytes per parameter before sharding, tensor by tensor.
constexpr StateTensor kMixedAdam[] = {
    {"fp16 weights", C::weights, 2, 3},
    {"fp16 gradients", C::gradients, 2, 2},
    {"fp32 master weights", C::optimizer, 4, 1},
    {"fp32 Adam momentum + variance", C::optimizer, 8, 1},
};
constexpr StateTensor kMegatronBf16[] = {
    {"bf16 weights", C::weights, 2, 3},
    {"fp32 main gradients", C::gradients, 4, 2},
    {"fp32 master weights", C::optimizer, 4, 1},
    {"fp32 Adam momentum + variance", C::optimizer, 8, 1},
};
constexpr StateTensor kMegatronFp16[] = {
    {"fp16 weights", C::weights, 2, 3},
    {"fp16 gradients", C::gradients, 2, 3},
    {"fp32 main gradients", C::gradients, 4, 1},
    {"fp32 master weights", C::optimizer, 4, 1},
    {"fp32 Adam momentum + variance", C::optimizer, 8, 1},
};
constexpr StateTensor kFp32Adam[] = {
    {"fp32 weights", C::weights, 4, 3},
    {"fp32 gradients", C::gradients, 4, 2},
    {"fp32 Adam momentum + variance", C::optimizer, 8, 1},
};
constexpr StateTensor kFp8TransformerEngine[] = {
    {"bf16 weights", C::weights, 2, 3},
    {"fp8 weight cache", C::weights, 1, 3},
    {"fp32 main gradients", C::gradients, 4, 2},
    {"fp32 master weights", C::optimizer, 4, 1},
    {"fp32 Adam momentum + variance", C::optimizer, 8, 1},
};
constexpr StateTensor kBf16Moments[] = {
    {"bf16 weights", C::weights, 2, 3},
    {"fp32 gradients", C::gradients, 4, 2},
    {"fp32 master weights", C::optimizer, 4, 1},
    {"bf16 Adam momentum + variance", C::optimizer, 4, 1},
};
constexpr StateTensor kAdam8bit[] = {
    {"fp16 weights", C::weights, 2, 3},
    {"fp16 gradients", C::gradients, 2, 2},
    {"fp32 master weights", C::optimizer, 4, 1},
    {"8-bit Adam momentum + variance", C::optimizer, 2, 1},
};
constexpr StateTensor kPureBf16[] = {
    {"bf16 weights", C::weights, 2, 3},
    {"bf16 gradients", C::gradients, 2, 2},
    {"bf16 Adam momentum + variance", C::optimizer, 4, 1},
};
// DeepSpeed's estimate_zero2/zero3_model_states_mem_needs: ZeRO-2 4 + 16/N, ZeRO-3 18/N plus
// 4 x the largest layer. fp32 gradient partitions belong to the optimizer side; fp16 gradients
// are whole until ZeRO-3, where they exist only while their layer is gathered.
constexpr StateTensor kDeepSpeed[] = {
    {"fp16 weights", C::weights, 2, 3},
    {"fp16 gradients", C::gradients, 2, 3, false},
    {"fp32 gradient partition", C::optimizer, 4, 1},
    {"fp32 master weights", C::optimizer, 4, 1},
    {"fp32 Adam momentum + variance", C::optimizer, 8, 1},
};

constexpr std::array kRecipes = {
    OptimizerRecipe{"mixed-adam", "mixed-precision Adam, fp16 gradients (16 B/param)",
                    "Rajbhandari et al., ZeRO (SC'20) §3.1 and Fig. 1: 2 + 2 + K, K = 12", kMixedAdam},
    OptimizerRecipe{"megatron-bf16", "bf16 weights, fp32 main gradients, fp32 Adam (18 B/param; distributed optimizer 6 + 12/d)",
                    "Megatron-LM docs/user-guide/features/dist_optimizer.md; theoretical_memory_usage.py", kMegatronBf16},
    OptimizerRecipe{"megatron-fp16", "fp16 weights and gradients, fp32 main gradients (20 B/param; distributed 4 + 16/d)",
                    "Megatron-LM docs/user-guide/features/dist_optimizer.md", kMegatronFp16},
    OptimizerRecipe{"fp32-adam", "fp32 weights and gradients, fp32 Adam (16 B/param; distributed 8 + 8/d)",
                    "Megatron-LM docs/user-guide/features/dist_optimizer.md", kFp32Adam},
    OptimizerRecipe{"fp8-te", "FP8 training: bf16 weights + cached fp8 copy, fp32 main gradients and Adam (19 B/param)",
                    "Transformer Engine FP8 weight caching across micro-batches; master/optimizer stay high precision (MODELS-REFERENCE §7.1 notes)",
                    kFp8TransformerEngine},
    OptimizerRecipe{"bf16-moments", "DeepSeek-V3 recipe: fp32 master weights and gradients, bf16 Adam moments (14 B/param)",
                    "DeepSeek-V3 technical report §3.3.3", kBf16Moments},
    OptimizerRecipe{"adam-8bit", "8-bit Adam states (bitsandbytes), fp32 master weights (10 B/param)",
                    "bitsandbytes docs: 8-bit optimizer states use 75% less memory", kAdam8bit},
    OptimizerRecipe{"pure-bf16", "bf16 weights, gradients and Adam moments, no master copy (8 B/param)",
                    "MODELS-REFERENCE §7.1 F-MEM-3 (derived)", kPureBf16},
    OptimizerRecipe{"deepspeed-estimator", "DeepSpeed's model-state estimator conventions (ZeRO-2 4 + 16/N, ZeRO-3 18/N + 4 x largest layer)",
                    "microsoft/DeepSpeed docs/code-docs/source/memory.rst, estimate_zero2/zero3_model_states_mem_needs", kDeepSpeed},
};

bool offloaded(StateComponent c, Offload o) {
  if (o == Offload::none) return false;
  return c != StateComponent::weights || o == Offload::optimizer_and_params;
}

}  // namespace

double OptimizerRecipe::bytes_per_param() const {
  double sum = 0;
  for (const StateTensor& t : tensors) sum += t.bytes_per_param;
  return sum;
}

std::span<const OptimizerRecipe> optimizer_recipes() { return kRecipes; }

const OptimizerRecipe* find_recipe(std::string_view name) {
  for (const OptimizerRecipe& r : kRecipes)
    if (r.name == name) return &r;
  return nullptr;
}

// F-MEM-2 generalised: each tensor class is divided by the sharding group from its own stage on.
// The ZeRO-3 gather holds one unit's full weights and its per-layer gradients (the classes
// partitioned from stage 2 or 3) while that unit runs (DeepSpeed: 4 x largest_layer_params).
ModelStates model_states(const OptimizerRecipe& recipe, double params, double largest_unit_params, int zero,
                         double shard_group, Offload offload) {
  ModelStates s;
  double unit_bytes = 0;
  for (const StateTensor& t : recipe.tensors) {
    double bytes = t.bytes_per_param * params;
    if (zero >= t.sharded_from_stage) bytes = t.resident_when_sharded ? bytes / shard_group : 0;
    if (t.component == StateComponent::weights || (t.component == StateComponent::gradients && t.sharded_from_stage >= 2))
      unit_bytes += t.bytes_per_param;
    if (offloaded(t.component, offload)) continue;
    (t.component == StateComponent::weights ? s.weights : t.component == StateComponent::gradients ? s.gradients : s.optimizer) += bytes;
  }
  if (zero >= 3) s.gather = unit_bytes * largest_unit_params;
  return s;
}

// F-MEM-5 item by item (MODELS-REFERENCE §7.3), per rank: T tokens of the micro-batch on this
// context-parallel rank; Ts the tokens a sequence-parallel region keeps (T/t with SP, else T).
// GPT (MHA, GeLU f = 4h, dropout, materialised attention, 2-byte activations, 1-byte masks) sums to
// Korthikanti et al.'s s·b·h·(34 + 5as/h); TP without SP to s·b·h·(10 + 24/t + 5as/(ht)).
std::vector<SavedTensor> layer_activations(const TransformerSpec& m, const ActivationContext& c, bool moe) {
  const double t = c.tp, h = m.hidden, ba = c.activation_bytes, bg = c.gemm_input_bytes, bm = c.mask_bytes;
  const double T = c.micro_batch * c.seq_len / c.cp;
  const double Ts = c.sequence_parallel ? T / t : T;
  const bool dropout = m.dropout > 0;
  std::vector<SavedTensor> out;
  if (c.recompute == Recompute::full) {
    out.push_back({"layer input (checkpoint)", ba * Ts * h});
    return out;
  }
  out.push_back({"attn.norm input", ba * Ts * h});
  out.push_back({"attn.qkv input", bg * Ts * h});
  const std::size_t softmax_first = out.size();
  const double heads = m.heads / t;
  double v_width = heads * m.head_dim;
  if (m.mla) {
    const MlaSpec& l = *m.mla;
    if (l.q_lora_rank > 0) {
      out.push_back({"mla.q latent (norm input)", ba * T * l.q_lora_rank});
      out.push_back({"mla.q_up input", bg * T * l.q_lora_rank});
    }
    out.push_back({"mla.kv latent + rope key", ba * T * (l.kv_lora_rank + l.qk_rope_head_dim)});
    out.push_back({"mla.kv_up input", bg * T * l.kv_lora_rank});
    out.push_back({"attn.q k v", ba * T * heads * (2.0 * l.qk_head_dim() + l.v_head_dim)});
    v_width = heads * l.v_head_dim;
  } else {
    const double kv_heads = std::max(1.0, std::floor(m.kv_heads / t));
    out.push_back({"attn.q k v", ba * T * (heads + 2 * kv_heads) * m.head_dim});
  }
  if (c.recompute != Recompute::selective) {
    if (c.kernel == AttentionKernel::materialised) {
      const double scores = heads * T * c.seq_len;  // every query against every key of the sequence
      out.push_back({"attn.softmax output", ba * scores});
      if (dropout) {
        out.push_back({"attn.dropout mask", bm * scores});
        out.push_back({"attn.dropout output", ba * scores});
      }
    } else {
      out.push_back({"attn.log-sum-exp (fp32)", 4 * heads * T});
    }
  }
  out.push_back({"attn.out input", bg * T * v_width});
  if (m.linear_attention) {
    // F-ARCH-4: linear-attention layers save their projections, the convolution's output (the core's
    // input), the core's output and the output projection's input; each kind of layer its share.
    const LinearAttentionSpec& l = *m.linear_attention;
    const double share = m.linear_share(), kd = l.key_width() / t, vd = l.value_width() / t;
    for (std::size_t i = softmax_first; i < out.size(); ++i) out[i].bytes *= 1 - share;
    out.push_back({"linear_attn.projections", share * ba * T * (2 * kd + 2 * vd + l.beta_alpha_width() / t)});
    if (l.conv_kernel > 0) out.push_back({"linear_attn.conv output", share * ba * T * (2 * kd + vd)});
    out.push_back({"linear_attn.core output", share * ba * T * vd});
    out.push_back({"linear_attn.out input", share * bg * T * vd});
  }
  if (dropout) out.push_back({"attn.residual dropout mask", bm * Ts * h});
  out.push_back({"mlp.norm input", ba * Ts * h});
  out.push_back({"mlp.fc1 input", bg * Ts * h});
  auto mlp = [&](std::string_view act, std::string_view fc2, double rows, double f) {
    double gated = m.mlp == MlpKind::swiglu ? 2 : 1;
    out.push_back({act, gated * ba * rows * f});
    out.push_back({fc2, bg * rows * f});
  };
  if (moe && m.moe) {
    const MoeSpec& e = *m.moe;
    // Tokens entering the experts on this rank: sequence-sharded tokens are all-gathered over the
    // expert-TP group; routed rows are balanced over expert-parallel ranks (C·k per token).
    const double T_moe = c.sequence_parallel ? Ts * c.etp : T;
    const double rows = c.capacity_factor * e.top_k * T_moe;
    out.push_back({"moe.router logits (fp32)", 4 * Ts * e.experts});
    out.push_back({"moe.dispatched tokens", bg * rows * h});
    mlp("moe.expert activation input", "moe.expert fc2 input", rows, double(e.expert_ffn_hidden) / c.etp);
    out.push_back({"moe.expert outputs (combine input)", ba * rows * h});
    if (e.shared_experts > 0)
      mlp("moe.shared activation input", "moe.shared fc2 input", T, double(e.shared_experts) * e.shared_ffn_hidden / t);
  } else {
    mlp("mlp.activation input", "mlp.fc2 input", T, m.ffn_hidden / t);
  }
  if (dropout) out.push_back({"mlp.dropout mask", bm * Ts * h});
  return out;
}

double layer_activation_bytes(const TransformerSpec& m, const ActivationContext& c, bool moe) {
  double sum = 0;
  for (const SavedTensor& s : layer_activations(m, c, moe)) sum += s.bytes;
  return sum;
}

// Megatron-LM theoretical_memory_usage.py: 8·s·b (int64 token ids) and, with dropout, an s·b·h
// mask per in-flight micro-batch, both ÷t with sequence parallelism.
std::vector<SavedTensor> embedding_activations(const TransformerSpec& m, const ActivationContext& c) {
  const double T = c.micro_batch * c.seq_len / c.cp;
  const double Ts = c.sequence_parallel ? T / c.tp : T;
  std::vector<SavedTensor> out{{"embedding.token ids (int64)", 8 * Ts}};
  if (m.dropout > 0) out.push_back({"embedding.dropout mask", c.mask_bytes * Ts * m.hidden});
  return out;
}

// Final norm input, LM-head input and fp32 logits of one micro-batch: 4·s·b·h·(1 + V/h)/t with SP
// (Megatron-LM theoretical_memory_usage.py, output layer and cross-entropy).
std::vector<SavedTensor> output_activations(const TransformerSpec& m, const ActivationContext& c) {
  const double T = c.micro_batch * c.seq_len / c.cp;
  const double Ts = c.sequence_parallel ? T / c.tp : T;
  return {{"final norm input", c.activation_bytes * Ts * m.hidden},
          {"lm_head input", c.gemm_input_bytes * Ts * m.hidden},
          {"logits (fp32)", 4 * T * m.vocab / c.tp}};
}

std::vector<SavedTensor> mtp_input_activations(const TransformerSpec& m, const ActivationContext& c) {
  const double T = c.micro_batch * c.seq_len / c.cp;
  const double Ts = c.sequence_parallel ? T / c.tp : T;
  return {{"mtp.hidden norm input", c.activation_bytes * Ts * m.hidden},
          {"mtp.embedding norm input", c.activation_bytes * Ts * m.hidden},
          {"mtp.proj input", c.gemm_input_bytes * T * 2.0 * m.hidden}};
}

double in_flight_chunks(Schedule s, int pp, int vp, double microbatches, int stage) {
  const double p = pp, v = vp, i = stage, m = microbatches;
  switch (s) {
    case Schedule::gpipe: return m * v;
    case Schedule::zb_h2: return std::min(m, 2 * (p - i) - 1);
    case Schedule::zb_h1:
    case Schedule::one_f_one_b:
      if (vp == 1) return std::min(m, p - i);
      return std::min(m * v, 2 * (p - i - 1) + (v - 1) * p + 1);
  }
  return m * v;
}

// Weight storage with its scales (F-KV-4 for the scale term).
QuantFormat weight_format(Precision p, int hidden, Fp4Blocks fp4) {
  if (p == Precision::fp4 && fp4 == Fp4Blocks::mxfp4)
    return {0.5, 32, 1, "MXFP4: 32-element blocks with an E8M0 scale (OCP Microscaling Formats v1.0)"};
  switch (p) {
    case Precision::fp8: return {1, 128 * 128, 4, "128x128 blocks with an fp32 scale (DeepSeek-V3 report §3.3.2)"};
    case Precision::int8: return {1, double(hidden), 2, "per-output-channel fp16 scale (SmoothQuant W8A8)"};
    case Precision::int4: return {0.5, 128, 2.5, "groups of 128 with an fp16 scale and a 4-bit zero point (AWQ/GPTQ default)"};
    case Precision::fp4: return {0.5, 16, 1, "NVFP4: 16-element blocks with an FP8 E4M3 scale (NVIDIA, 'Introducing NVFP4', 2025)"};
    case Precision::fp6: return {0.75, 32, 1, "OCP MX v1.0: 32-element blocks with an E8M0 scale"};
    default: return {bytes_per_element(p), 0, 0, "no scales"};
  }
}

QuantFormat kv_format(Precision p) {
  switch (p) {
    case Precision::fp8: return {1, 0, 0, "per-tensor scale (vLLM fp8 KV cache)"};
    case Precision::int8: return {1, 0, 0, "per-tensor scale (TensorRT-LLM INT8 KV cache)"};
    case Precision::int4: return {0.5, 32, 4, "groups of 32 with an fp16 scale and zero point (KIVI, Liu et al. 2024)"};
    case Precision::fp4: return {0.5, 16, 1, "NVFP4: 16-element blocks with an FP8 E4M3 scale"};
    default: return {bytes_per_element(p), 0, 0, "no scales"};
  }
}

double kv_bytes_per_token(const TransformerSpec& m, const QuantFormat& kv, int tp, int layers) {
  const double beta = kv.bytes_per_element(), softmax = layers * (1 - m.linear_share());
  // F-ARCH-5: a sparse-attention layer also caches its indexer's key, in FP8 whatever the KV dtype.
  const double index = m.sparse_attention ? m.sparse_attention->index_head_dim * kIndexKeyBytes : 0;
  if (m.mla) return (double(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) * beta + index) * softmax;
  const double kv_heads = std::max(1.0, std::floor(double(m.kv_heads) / tp));
  return 2.0 * softmax * kv_heads * m.head_dim * beta;
}

double linear_state_bytes(const TransformerSpec& m, int tp, double layers) {
  if (!m.linear_attention) return 0;
  const LinearAttentionSpec& l = *m.linear_attention;
  const double state = double(l.value_heads) / tp * l.key_head_dim * l.value_head_dim * kLinearStateBytes;
  const double conv = l.conv_kernel > 0 ? (l.conv_kernel - 1) * (2 * l.key_width() + l.value_width()) / tp * kConvStateBytes : 0;
  return layers * m.linear_share() * (state + conv);
}

double kv_cache_bytes(const TransformerSpec& m, const QuantFormat& kv, int tp, double layers, double tokens) {
  const double per_layer = kv_bytes_per_token(m, kv, tp, 1);
  const double windowed = layers * m.sliding_share();
  return per_layer * ((layers - windowed) * tokens + windowed * std::min(tokens, double(m.sliding_window))) +
         linear_state_bytes(m, tp, layers);
}

double paged_tokens(double tokens, double block) { return std::ceil(tokens / block) * block; }

}  // namespace perfcast::models
