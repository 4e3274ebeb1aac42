#include "models/transformer_ops.hpp"

#include <algorithm>
#include <cmath>

#include "models/eager_kernels.hpp"

namespace perfcast::models {
namespace {

// F-ARCH-5: the indexer's logits are FP32 and the indices it keeps int32.
constexpr double kLogitBytes = 4;
constexpr double kIndexBytes = 4;

// An FP8 quantisation pass of a GEMM input (its amax or its cast): no gradient, not a module's op.
bool is_fp8_quantisation(const Op& op) { return op.name.ends_with(".fp8_cast") || op.name.ends_with(".fp8_amax"); }

// A pass of per-element bytes over `elements` values.
MemoryPass over(const MemoryPass& per_element, double elements) {
  return {per_element.read * elements, per_element.written * elements, per_element.kernels};
}

// How Transformer Engine quantises a low-precision GEMM's input: bytes per element of each of the
// two copies it writes (row-wise for this GEMM, column-wise for the one that reads it transposed),
// block scales included, and whether an amax pass over the input comes first.
struct Quantisation {
  double copy_bytes = 1;
  bool amax_pass = false;
};
Quantisation quantisation(Precision math, Fp8Scaling scaling) {
  // NVFP4 (TE NVFP4BlockScaling): E2M1 values with an E4M3 scale per 16, under a per-tensor FP32
  // scale taken from the tensor's amax.
  if (math == Precision::fp4) return {0.5 + 1.0 / 16, true};
  // MXFP8 (TE MXFP8BlockScaling): an E8M0 scale per 32 values, found by the cast kernel itself.
  if (scaling == Fp8Scaling::mxfp8) return {1 + 1.0 / 32, false};
  return {1, scaling == Fp8Scaling::current};
}

// F-LP-2: one torchao tensorwise cast of `elements` values of `hp_bytes` each into FP8 (1 byte, in the
// layout its GEMM reads). Eager: the ten torch kernels of eager_float8_cast. Compiled: an amax
// reduction and one fused cast pass, the layout written by the cast.
void torchao_cast(std::vector<Op>& out, const std::string& name, double elements, double hp_bytes, bool eager, Pass pass) {
  if (eager) {
    const MemoryPass k = over(eager_float8_cast(hp_bytes), elements);
    Op cast = memory_op(name + ".fp8_cast", k.read, k.written);
    cast.kernels = k.kernels;
    cast.pass = pass;
    out.push_back(std::move(cast));
    return;
  }
  Op amax = memory_op(name + ".fp8_amax", elements * hp_bytes, 0);
  Op cast = memory_op(name + ".fp8_cast", elements * hp_bytes, elements);
  amax.pass = cast.pass = pass;
  out.push_back(std::move(amax));
  out.push_back(std::move(cast));
}

// F-LP-2: torchao's Float8Linear backward (matmul_with_hp_or_float8_args) casts again from the saved
// BF16 tensors what each GEMM reads: the output gradient for the input-gradient GEMM with the weight,
// and again for the weight-gradient GEMM with the input. Eager, torch._scaled_mm's layouts take
// .t().contiguous() copies of the weight, that gradient and the input (1 B read and written each).
void torchao_backward_casts(std::vector<Op>& out, const Op& f, const OpContext& c) {
  const GemmShape& s = f.gemm;
  const bool eager = c.eager.blocks;
  const double grads = s.count * s.m * s.n, weights = s.count * s.n * s.k, inputs = s.count * s.m * s.k;
  torchao_cast(out, f.name + ".grad_for_dgrad", grads, s.c_bytes, eager, Pass::backward);
  torchao_cast(out, f.name + ".weight_for_dgrad", weights, c.activation_bytes, eager, Pass::backward);
  torchao_cast(out, f.name + ".grad_for_wgrad", grads, s.c_bytes, eager, Pass::backward);
  torchao_cast(out, f.name + ".input_for_wgrad", inputs, c.activation_bytes, eager, Pass::backward);
  if (!eager) return;
  const double copied = weights + grads + inputs;
  Op layout = memory_op(f.name + ".fp8_layout_copies", copied, copied);
  layout.kernels = 3;
  layout.pass = Pass::backward;
  out.push_back(std::move(layout));
}

// The casts that feed a low-precision training GEMM's two backward GEMMs.
void quantise_backward(std::vector<Op>& out, const Op& f, const OpContext& c) {
  if (c.torchao_float8) return torchao_backward_casts(out, f, c);
  // F-LP-1: the output gradient cast (FP8 E5M2, or NVFP4) with its transpose, for the dgrad and
  // wgrad GEMMs, after its own amax pass where the recipe takes one.
  const GemmShape& s = f.gemm;
  const Quantisation q = quantisation(f.precision, c.fp8_scaling);
  if (q.amax_pass) {
    Op amax = memory_op(f.name + ".grad_fp8_amax", s.count * s.m * s.n * s.c_bytes, 0);
    amax.pass = Pass::backward;
    out.push_back(std::move(amax));
  }
  Op cast = memory_op(f.name + ".grad_fp8_cast", s.count * s.m * s.n * s.c_bytes, 2 * q.copy_bytes * s.count * s.m * s.n);
  cast.pass = Pass::backward;
  out.push_back(std::move(cast));
}

// `share` of an op: a part of the layers in a group's average layer (kernels included), so that the
// group's repeats times the op give the layers' total.
void scale(Op& op, double share) {
  op.flops *= share;
  op.model_flops *= share;
  op.bytes_read *= share;
  op.bytes_written *= share;
  op.weight_bytes *= share;
  op.kernels *= share;
  op.gemm.count *= share;
  if (op.backward) op.backward = MemoryPass{op.backward->read * share, op.backward->written * share, op.backward->kernels * share};
}

// The op over `factor` times its rows (tokens): executed FLOPs and activation bytes grow, the
// weights it reads and the FLOPs MFU counts do not.
void more_rows(Op& op, double factor) {
  const double weights = op.weight_bytes;
  op.flops *= factor;
  op.bytes_read = (op.bytes_read - weights) * factor + weights;
  op.bytes_written *= factor;
  if (op.kind == OpKind::gemm) op.gemm.m *= factor;
  if (op.backward) op.backward = MemoryPass{op.backward->read * factor, op.backward->written * factor, op.backward->kernels};
}

// Builds the forward op list of one layer or of the head. Names follow the module they belong to.
class LayerBuilder {
 public:
  // `head`: the embedding, final norm and loss, outside the transformer blocks torch.compile wraps.
  LayerBuilder(const TransformerSpec& m, const OpContext& c, bool head = false)
      : m_(m), c_(c), eager_(head ? c.eager.head : c.eager.blocks) {
    T_ = c.tokens();
    Tn_ = c.sequence_parallel ? T_ / c.tp : T_;  // tokens per rank in norms/residuals
    act_ = c.activation_bytes;
    kv_ = c.phase == Phase::training ? act_ : c.kv_bytes;
    weight_bytes_ = c.weight_bytes;
  }

  std::vector<Op> take() { return std::move(ops_); }

  // The ops appended since index `first` stand for `share` of the layers (scale()).
  void scale_since(std::size_t first, double share) {
    for (std::size_t i = first; i < ops_.size(); ++i) scale(ops_[i], share);
  }

  // A GEMM in the context's math format, or in `math` where it differs (FP8 training's BF16 LM head).
  // `pieces`: the separate matmuls this GEMM stands for, as shares of N in execution order (q, k, v).
  void gemm(std::string name, double m, double n, double k, double count = 1, bool weight = true,
            std::optional<Precision> math = std::nullopt, std::initializer_list<double> pieces = {1.0}) {
    const Precision p = math.value_or(c_.math);
    const double in = std::min(act_, bytes_per_element(p));
    if (c_.phase == Phase::training && bytes_per_element(p) <= 1 && weight) quantise_inputs(name, p, m, n, k, count);
    ops_.push_back(gemm_op(std::move(name), {m, n, k, count}, p, in, weight ? weight_bytes_ : in, act_, weight));
    // torchtitan's op policy (torchtitan/parallelisms/parallelize_llama.py @ 9dec370, _custom_policy):
    // saves every mm output "except every second mm" of a checkpointed block.
    if (weight)
      for (double share : pieces)
        if (++matmuls_ % 2 == 0) ops_.back().op_sac_share += share;
  }
  // The casts that feed a low-precision training GEMM of the weights, forward.
  void quantise_inputs(const std::string& name, Precision p, double m, double n, double k, double count) {
    if (c_.torchao_float8) {
      // F-LP-2: torchao casts the input and the (BF16-gathered) weight, one copy each, every micro-batch.
      torchao_cast(ops_, name + ".input", count * m * k, act_, eager_, Pass::forward);
      torchao_cast(ops_, name + ".weight", count * n * k, act_, eager_, Pass::forward);
      return;
    }
    // F-LP-1, FP8 / NVFP4 under Transformer Engine: each input is cast together with the transposed
    // copy the weight-gradient GEMM reads (TE cast_transpose). Counted as its own pass over the input
    // even where TE fuses the cast into the norm or activation before it.
    const Quantisation q = quantisation(p, c_.fp8_scaling);
    // Current scaling first reads the input once for its amax (TE nvte_compute_amax).
    if (q.amax_pass) memory(name + ".fp8_amax", count * m * k * act_, 0);
    memory(name + ".fp8_cast", count * m * k * act_, 2 * q.copy_bytes * count * m * k);
  }
  void memory(std::string name, double read, double written) { ops_.push_back(memory_op(std::move(name), read, written)); }
  // An eager module over `elements` values: its forward kernels, and its backward's for backward_ops.
  void eager(std::string name, double elements, const EagerModule& k) {
    const MemoryPass forward = over(k.forward, elements);
    memory(std::move(name), forward.read, forward.written);
    ops_.back().kernels = forward.kernels;
    ops_.back().backward = over(k.backward, elements);
  }
  void norm(std::string name, double tokens, double width) {
    if (eager_ && c_.eager.rmsnorm && m_.norm == NormKind::rmsnorm) return eager(std::move(name), tokens * width, eager_rmsnorm(act_));
    memory(std::move(name), tokens * width * act_, tokens * width * act_);
  }
  void norm(std::string name, double width) { norm(std::move(name), Tn_, width); }
  // With hidden dropout, Megatron-LM's fused bias-dropout-add also writes the dropout mask, and the
  // backward scales the gradient by it in a pass of its own (F-DROP-1).
  void residual(std::string name) {
    const double e = Tn_ * m_.hidden;
    memory(std::move(name), 2 * e * act_, e * act_ + (dropout() ? e * kDropoutMaskBytes : 0));
    if (!eager_ && !dropout()) return;
    MemoryPass back{0, 0, 0};
    if (eager_) back = over(eager_residual_gradient(act_), e);
    if (dropout()) {
      const MemoryPass drop = dropout_gradient(e);
      back = MemoryPass{back.read + drop.read, back.written + drop.written, back.kernels + drop.kernels};
    }
    ops_.back().backward = back;
  }
  // F-DROP-1: a dropout over `elements` values as its own kernel (torch.nn.Dropout): reads the input,
  // writes the output and a one-byte mask; its backward reads the gradient and the mask.
  void dropout_pass(std::string name, double elements) {
    memory(std::move(name), elements * act_, elements * (act_ + kDropoutMaskBytes));
    ops_.back().backward = dropout_gradient(elements);
  }
  // A dropout's backward, one kernel: the gradient and the mask read, the gradient written.
  MemoryPass dropout_gradient(double elements) const {
    return MemoryPass{elements * (act_ + kDropoutMaskBytes), elements * act_, 1};
  }
  bool dropout() const { return c_.phase == Phase::training && m_.dropout > 0; }
  void rope(double elements) {
    if (eager_) return eager("attn.rope", elements, eager_rope(act_));
    memory("attn.rope", elements * act_, elements * act_);
  }

  // The attention core: QK^T, softmax, .V for `heads` local query heads over `kv_heads` local KV
  // heads (or a latent cache of width `kv_width` for absorbed MLA). A layer group stands for its
  // full-attention and sliding-window layers in proportion (F-ARCH-2): each part's ops carry its share.
  void attention_core(double heads, double qk_dim, double v_dim, double kv_read_per_key, bool latent_cache = false) {
    // F-ARCH-5: a sparse-attention core reads the indexer's top_k keys, as a window of top_k would.
    if (m_.sparse_attention)
      return attention_core_part(heads, qk_dim, v_dim, kv_read_per_key, m_.sparse_attention->top_k, 1, ".sparse", latent_cache);
    const double window_share = m_.sliding_share();
    if (window_share < 1) attention_core_part(heads, qk_dim, v_dim, kv_read_per_key, 0, 1 - window_share, "", latent_cache);
    if (window_share > 0)
      attention_core_part(heads, qk_dim, v_dim, kv_read_per_key, m_.sliding_window, window_share, ".sliding", latent_cache);
  }

  // One kind of layer's attention core, `window` keys at most (0 = the whole context).
  void attention_core_part(double heads, double qk_dim, double v_dim, double kv_read_per_key, double window, double share,
                           const std::string& suffix, bool latent_cache) {
    const double b = c_.batch, q = c_.query_tokens();
    const double keys = window > 0 && c_.phase == Phase::decode ? std::min(c_.keys(), window) : c_.keys();
    const double ctx = windowed_attended(window);
    const double counted = 2 * b * q * ctx * heads * (qk_dim + v_dim);  // §6.1 score + context rows
    const std::size_t first = ops_.size();
    if (c_.kernel == AttentionKernel::flash) {
      Op op;
      op.name = "attn.core" + suffix;
      op.kind = OpKind::attention;
      op.precision = c_.attention_math.value_or(c_.math);
      op.flops = counted;  // a causal (or windowed) FlashAttention kernel skips masked blocks
      op.model_flops = counted;
      // The kernel's measured efficiencies are BF16/FP16 ones; an FP8 attention core stays generic.
      if (bytes_per_element(op.precision) == 2) op.attention_impl = c_.attention_impl;
      op.attention_head_dim = qk_dim;
      op.attention_seq = q;
      op.attention_causal = c_.mask == AttentionMask::causal && c_.phase != Phase::decode;
      op.attention_decode = c_.phase == Phase::decode;
      if (!latent_cache) op.attention_kv_bytes = kv_;
      op.bytes_read = T_ * heads * qk_dim * act_ + b * keys * kv_read_per_key * kv_;
      op.bytes_written = T_ * heads * v_dim * act_;
      ops_.push_back(op);
    } else {
      // Materialised: two batched GEMMs over the full q x keys block, the scores in memory.
      const double n = b * heads, full_share = ctx / keys;
      gemm("attn.scores" + suffix, q, keys, qk_dim, n, false);
      ops_.back().model_flops *= full_share;
      memory("attn.softmax" + suffix, n * q * keys * act_, n * q * keys * act_);
      // Attention dropout on the probabilities (a fused FlashAttention kernel drops inside itself).
      if (dropout()) dropout_pass("attn.dropout" + suffix, n * q * keys);
      gemm("attn.context" + suffix, q, v_dim, keys, n, false);
      ops_.back().model_flops *= full_share;
    }
    scale_since(first, share);
  }

  // Keys each query attends to on average (§6.4), at most `window` (F-ARCH-2): a causal query at
  // position i sees min(i, W) keys, so over S positions the mean is W - W(W-1)/(2S) once S > W.
  double windowed_attended(double window) const {
    const double all = c_.attended();
    if (window <= 0) return all;
    if (c_.phase == Phase::decode || c_.mask == AttentionMask::full) return std::min(all, window);
    const double S = c_.seq_len * c_.cp;
    return S <= window ? all : window - window * (window - 1) / (2 * S);
  }

  // The attention block of the group's mean layer: softmax attention (MHA/GQA or MLA) and linear
  // attention (F-ARCH-4) each carry their share of the layers, as sliding windows do (F-ARCH-2).
  void attention() {
    const double h = m_.hidden, linear = m_.linear_share();
    norm("attn.norm", h);
    if (linear < 1) {
      const std::size_t first = ops_.size();
      if (m_.mla) mla_attention();
      else softmax_attention();
      if (linear > 0) scale_since(first, 1 - linear);
    }
    if (linear > 0) {
      const std::size_t first = ops_.size();
      linear_attention();
      scale_since(first, linear);
    }
    if (m_.norms_per_layer == 4) norm("attn.post_norm", h);
    residual("attn.residual");
  }

  void softmax_attention() {
    const double h = m_.hidden, tp = c_.tp;
    const double heads = m_.heads / tp, kv_heads = std::max(1.0, std::floor(m_.kv_heads / tp)), d = m_.head_dim;
    // Qwen3-Next's q_proj projects the output gate with the queries: heads x d more columns.
    const double gate = m_.attention_output_gate ? heads : 0;
    const double qkv = heads + gate + 2 * kv_heads;
    gemm("attn.qkv", T_, qkv * d, h, 1, true, std::nullopt, {(heads + gate) / qkv, kv_heads / qkv, kv_heads / qkv});
    if (m_.qk_norm) norm("attn.qk_norm", T_, (heads + kv_heads) * d);
    if (m_.max_positions == 0) rope(T_ * (heads + kv_heads) * d);
    if (c_.phase != Phase::training) memory("attn.kv_cache_write", T_ * 2 * kv_heads * d * act_, T_ * 2 * kv_heads * d * kv_);
    // torchtitan's repeat_kv (expand + reshape) copies K and V to one head per query head; its
    // gradient sums the copies back. torch.compile keeps the copy (SDPA reads real tensors).
    const bool repeat = c_.repeat_kv && c_.phase == Phase::training && kv_heads < heads;
    if (repeat) {
      const double kv = 2 * T_ * kv_heads * d * act_, full = 2 * T_ * heads * d * act_;
      memory("attn.repeat_kv", kv, full);
      ops_.back().kernels = 2;
      ops_.back().backward = MemoryPass{full, kv, 2};
    }
    // F-ATT-3: a decode kernel with one thread block per query head reads its KV head's cache in each block.
    const bool per_query_head = c_.phase == Phase::decode && c_.decode_kv == DecodeKvReads::per_query_head;
    attention_core(heads, d, d, 2 * (repeat || per_query_head ? heads : kv_heads) * d);
    // sigmoid(gate) x the attention output, one elementwise pass.
    if (m_.attention_output_gate) memory("attn.output_gate", 2 * T_ * heads * d * act_, T_ * heads * d * act_);
    gemm("attn.out", T_, h, heads * d);
  }

  // F-ARCH-4: one linear-attention block on this tensor-parallel rank (heads split over tp). The
  // core runs chunked in training and prefill, recurrently in decode, over an FP32 state per head.
  void linear_attention() {
    const LinearAttentionSpec& l = *m_.linear_attention;
    const double tp = c_.tp, h = m_.hidden, b = c_.batch;
    const double kd = l.key_width() / tp, vd = l.value_width() / tp, hv = l.value_heads / tp;
    const bool gdn = l.kind == LinearAttentionKind::gated_deltanet;
    const bool decode = c_.phase == Phase::decode, serving = c_.phase != Phase::training;
    // q, k, v and the output gate (z), and Gated DeltaNet's beta and alpha per value head.
    const double beta_alpha = l.beta_alpha_width() / tp;
    gemm("linear_attn.in_proj", T_, 2 * kd + 2 * vd + beta_alpha, h, 1, true, std::nullopt,
         {(2 * kd + vd) / (2 * kd + 2 * vd), vd / (2 * kd + 2 * vd)});
    const double conv_width = 2 * kd + vd;
    if (l.conv_kernel > 0) {
      // The causal short convolution with its SiLU; serving keeps the last kernel - 1 inputs per sequence.
      const double window = serving ? b * (l.conv_kernel - 1) * conv_width * act_ : 0;
      memory("linear_attn.conv", T_ * conv_width * act_ + window, T_ * conv_width * act_ + window);
    }
    const double dk = l.key_head_dim, dv = l.value_head_dim, chunk = l.chunk();
    const double state_products = (gdn ? 6 : 4) * dk * dv;  // readout and update (+ the delta-rule correction)
    const double per_token = decode ? state_products : 2 * chunk * (gdn ? 3 * dk + 2 * dv : dk + dv) + state_products;
    const double state = b * hv * dk * dv * kLinearStateBytes;
    Op op;
    op.name = "linear_attn.core";
    op.kind = OpKind::attention;
    op.precision = c_.attention_math.value_or(c_.math);  // as the attention core's; the states accumulate in FP32
    op.flops = T_ * hv * per_token;
    op.model_flops = op.flops;
    op.attention_head_dim = dk;
    op.attention_seq = c_.query_tokens();
    op.attention_causal = false;
    op.bytes_read = T_ * (conv_width + beta_alpha) * act_ + (decode ? state : 0);
    op.bytes_written = T_ * vd * act_ + (serving ? state : 0);
    ops_.push_back(op);
    // RMSNorm of the output times SiLU (Gated DeltaNet) or sigmoid (lightning) of the gate.
    memory("linear_attn.gated_norm", 2 * T_ * vd * act_, T_ * vd * act_);
    gemm("linear_attn.out", T_, h, vd);
  }

  // DeepSeek-V2/V3 MLA. Training and prefill up-project the latent to per-head K and V; decode
  // works on the latent cache with W_UK and W_UV absorbed (FlashMLA), reading kv_lora + rope per key.
  void mla_attention() {
    const MlaSpec& l = *m_.mla;
    const double h = m_.hidden, heads = m_.heads / double(c_.tp);
    if (l.q_lora_rank > 0) {
      gemm("mla.q_down", T_, l.q_lora_rank, h);
      norm("mla.q_norm", T_, l.q_lora_rank);
      gemm("mla.q_up", T_, heads * l.qk_head_dim(), l.q_lora_rank);
    } else {
      gemm("mla.q_proj", T_, heads * l.qk_head_dim(), h);
    }
    if (m_.sparse_attention) lightning_indexer();
    gemm("mla.kv_down", T_, l.kv_lora_rank + l.qk_rope_head_dim, h);
    norm("mla.kv_norm", T_, l.kv_lora_rank);
    rope(T_ * (heads + 1) * l.qk_rope_head_dim);
    const double latent = l.kv_lora_rank + l.qk_rope_head_dim;
    if (c_.phase != Phase::training) memory("attn.kv_cache_write", T_ * latent * act_, T_ * latent * kv_);
    if (c_.phase == Phase::decode) {
      gemm("mla.q_absorb", T_, l.kv_lora_rank, l.qk_nope_head_dim, heads);
      attention_core(heads, latent, l.kv_lora_rank, latent, true);
      gemm("mla.v_absorb", T_, l.v_head_dim, l.kv_lora_rank, heads);
    } else {
      gemm("mla.kv_up", T_, heads * (l.qk_nope_head_dim + l.v_head_dim), l.kv_lora_rank);
      attention_core(heads, l.qk_head_dim(), l.v_head_dim, l.qk_head_dim() + l.v_head_dim);
    }
    gemm("attn.out", T_, h, heads * l.v_head_dim);
  }

  // F-ARCH-5. DeepSeek Sparse Attention's lightning indexer, whole on every tensor-parallel rank:
  // its projections, its FP8 key cache, the ReLU scores of every query against every earlier key
  // (index_heads x index_head_dim each; FP32 logits written, as DeepGEMM's fp8_mqa_logits does)
  // and the top-k selection that reads them back.
  void lightning_indexer() {
    const SparseAttentionSpec& s = *m_.sparse_attention;
    const double h = m_.hidden, heads = s.index_heads, d = s.index_head_dim;
    gemm("dsa.index_q", T_, heads * d, m_.mla->q_lora_rank);
    gemm("dsa.index_k", T_, d, h);
    norm("dsa.index_k_norm", T_, d);
    gemm("dsa.index_weights", T_, heads, h);
    if (c_.phase != Phase::training) memory("dsa.index_cache_write", T_ * d * act_, T_ * d * kIndexKeyBytes);
    const double b = c_.batch, q = c_.query_tokens(), ctx = c_.attended();
    const double logits = b * q * ctx * kLogitBytes;
    Op op;
    op.name = "dsa.index_scores";
    op.kind = OpKind::attention;
    op.precision = c_.attention_math.value_or(c_.math);
    op.flops = 2 * b * q * ctx * heads * d;
    op.model_flops = op.flops;
    op.bytes_read = T_ * heads * d * act_ + b * c_.keys() * d * (c_.phase == Phase::training ? act_ : kIndexKeyBytes);
    op.bytes_written = logits;
    ops_.push_back(op);
    memory("dsa.top_k", logits, T_ * std::min(double(s.top_k), ctx) * kIndexBytes);
  }

  void mlp(const std::string& prefix, double tokens, double width, double count = 1) {
    const double h = m_.hidden;
    if (m_.mlp == MlpKind::swiglu) {
      gemm(prefix + ".gate_up", tokens, 2 * width, h, count, true, std::nullopt, {0.5, 0.5});
      if (eager_) eager(prefix + ".act", count * tokens * width, eager_swiglu(act_));
      else memory(prefix + ".act", count * tokens * 2 * width * act_, count * tokens * width * act_);
    } else {
      gemm(prefix + ".up", tokens, width, h, count);
      memory(prefix + ".act", count * tokens * width * act_, count * tokens * width * act_);
    }
    gemm(prefix + ".down", tokens, h, width, count);
  }

  void dense_mlp() {
    norm("mlp.norm", m_.hidden);
    mlp("mlp", T_, m_.ffn_hidden / double(c_.tp));
    if (m_.norms_per_layer == 4) norm("mlp.post_norm", m_.hidden);
    residual("mlp.residual");
  }

  // Routed experts see T*ep*k/E tokens each (balanced routing). With few tokens (decode) not every
  // expert is hit: under uniform independent routing an expert is touched with probability
  // u = 1 - (1 - k/E)^(T*ep) [derived], and only touched experts' weights are read.
  void moe_mlp() {
    const MoeSpec& e = *m_.moe;
    const double h = m_.hidden, tp = c_.tp, k = e.top_k, E = e.experts;
    norm("mlp.norm", h);
    // Quantised checkpoints keep the router 16-bit too (F-INF-6), but it is timed in the projections' format: in
    // 16 bits (split over K, F-ROOF-9) InferenceX's DeepSeek-R1 rows move from 12.4 % to 13.5 %.
    gemm("moe.router", T_, E + (e.shared_expert_gate ? 1 : 0), h);
    memory("moe.dispatch", T_ * h * act_, T_ * k * h * act_);
    const double routed = T_ * c_.ep * k / E;  // tokens per expert
    const double touched = 1 - std::pow(1 - k / E, T_ * c_.ep);
    const double local = (E / c_.ep) * touched;
    const std::size_t first = ops_.size();
    weight_bytes_ = c_.expert_weight_bytes.value_or(c_.weight_bytes);
    mlp("moe.expert", routed / touched, e.expert_ffn_hidden / tp, local);
    weight_bytes_ = c_.weight_bytes;
    // The busiest expert's rank sets the pace (F-ARCH-3, load_imbalance = its tokens over the mean): its GEMMs
    // run on that many more rows; model FLOPs keep the balanced count.
    if (e.load_imbalance > 1)
      for (std::size_t i = first; i < ops_.size(); ++i) more_rows(ops_[i], e.load_imbalance);
    if (e.shared_experts > 0) mlp("moe.shared", T_, e.shared_experts * double(e.shared_ffn_hidden) / tp);
    memory("moe.combine", T_ * k * h * act_, T_ * h * act_);
    if (m_.norms_per_layer == 4) norm("mlp.post_norm", h);
    residual("mlp.residual");
  }

  void head() {
    const double h = m_.hidden;
    // A quantised checkpoint's embedding table stays 16-bit too (F-INF-6).
    const double stored = kept_16bit() ? bytes_per_element(*kept_16bit()) : c_.weight_bytes;
    const double pos = m_.max_positions > 0 ? T_ * h * stored : 0;
    memory("embed.lookup", T_ * h * stored + pos, T_ * h * act_);
    ops_.back().weight_bytes = T_ * h * stored + pos;
    if (dropout()) dropout_pass("embed.dropout", T_ * h);
    output_head("final.norm", "lm_head");
  }

  // The final norm, the output projection and the loss (training) or sampling.
  void output_head(const std::string& norm_name, const std::string& head_name) {
    const double h = m_.hidden, V = m_.vocab / double(c_.tp);
    norm(norm_name, h);
    // Logits for every position in training, the last position of each sequence otherwise (§6.1).
    const double rows = c_.phase == Phase::training ? T_ : c_.batch;
    // Megatron-LM / Transformer Engine keep the output layer in BF16 under FP8 training recipes
    // (fp8_output_proj is MXFP8-only and off by default; reference/training-stacks.md §1.1).
    const bool fp8_training = c_.phase == Phase::training && bytes_per_element(c_.math) <= 1;
    // F-INF-6: a quantised checkpoint's output layer stays 16-bit, read and multiplied as such.
    if (kept_16bit()) weight_bytes_ = bytes_per_element(*kept_16bit());
    gemm(head_name, rows, V, h, 1, true, fp8_training ? std::optional(Precision::bf16) : kept_16bit());
    weight_bytes_ = c_.weight_bytes;
    if (c_.phase == Phase::training && eager_) eager("loss.cross_entropy", rows * V, eager_cross_entropy(act_));
    else if (c_.phase == Phase::training) memory("loss.cross_entropy", rows * V * act_, rows * V * act_);
    else memory("sample.softmax", rows * V * act_, rows * 4);
  }

  // A multi-token-prediction module's inputs (DeepSeek-V3 §2.2): the previous depth's hidden state
  // and the next token's embedding, each normalised, concatenated and projected back to h.
  void mtp_inputs() {
    const double h = m_.hidden;
    norm("mtp.hidden_norm", h);
    norm("mtp.embed_norm", h);
    gemm("mtp.proj", T_, h, 2 * h);
  }

 private:
  // The format a quantised checkpoint keeps its embedding and output layer in, at inference (F-INF-6).
  std::optional<Precision> kept_16bit() const { return c_.phase == Phase::training ? std::nullopt : c_.head_math; }

  const TransformerSpec& m_;
  const OpContext& c_;
  bool eager_ = false;  // this group's elementwise modules run eagerly (OpContext::eager)
  double T_ = 0, Tn_ = 0, act_ = 2, kv_ = 2;
  double weight_bytes_ = 2;  // the weights of the GEMMs being appended, as stored (the routed experts may differ)
  int matmuls_ = 0;  // weight matmuls so far in this layer (op-level selective recomputation)
  std::vector<Op> ops_;
};

// One op redone in the backward pass, `share` of it.
Op recomputed(const Op& op, double share) {
  Op copy = op;
  copy.pass = Pass::recompute;
  copy.model_flops = 0;
  copy.name += ".recompute";
  copy.flops *= share;
  copy.bytes_read *= share;
  copy.bytes_written *= share;
  copy.weight_bytes *= share;
  copy.gemm.n *= share;
  return copy;
}

std::vector<Op> recompute_ops(const std::vector<Op>& forward, const OpContext& c) {
  std::vector<Op> out;
  const Recompute r = c.recompute;
  if (r == Recompute::none) return out;
  if (r == Recompute::selective && c.op_level_selective) {
    // PyTorch op-level selective checkpointing: saved mm outputs and attention are not redone;
    // every elementwise op and every second weight matmul are.
    for (const Op& op : forward) {
      if (op.kind == OpKind::memory && !is_fp8_quantisation(op)) out.push_back(recomputed(op, 1));
      else if (op.kind == OpKind::gemm && op.op_sac_share > 0) out.push_back(recomputed(op, op.op_sac_share));
    }
    return out;
  }
  for (const Op& op : forward) {
    // Selective recomputation (Korthikanti et al. 2022 §4.2) redoes the attention core; a fused
    // FlashAttention backward already recomputes its scores, so there is nothing more to redo.
    if (r == Recompute::selective && (!is_attention_core(op) || c.kernel == AttentionKernel::flash)) continue;
    out.push_back(recomputed(op, 1));
  }
  return out;
}

void append_group(std::vector<OpGroup>& groups, std::string name, double repeats, std::vector<Op> forward,
                  const OpContext& c, bool layer) {
  if (repeats <= 0) return;
  OpGroup g{std::move(name), repeats, forward};
  if (c.phase == Phase::training) {
    if (layer) {
      auto re = recompute_ops(forward, c);
      g.ops.insert(g.ops.end(), re.begin(), re.end());
    }
    auto back = backward_ops(forward, c);
    g.ops.insert(g.ops.end(), back.begin(), back.end());
  }
  groups.push_back(std::move(g));
}

}  // namespace

bool is_attention_core(const Op& op) {
  return op.kind == OpKind::attention || op.name.starts_with("attn.scores") || op.name.starts_with("attn.softmax") ||
         op.name.starts_with("attn.dropout") || op.name.starts_with("attn.context");
}

std::vector<Op> backward_ops(const std::vector<Op>& forward, const OpContext& c) {
  std::vector<Op> out;
  for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
    const Op& f = *it;
    // The gradient passes through a residual; a fused norm backward does the add (eager: its own kernel).
    if (f.name.ends_with(".residual") && !f.backward) continue;
    if (is_fp8_quantisation(f)) continue;  // the gradient of a cast is the identity
    if (f.kind == OpKind::gemm) {
      const GemmShape& s = f.gemm;
      // dA = dC . B^T : (M x N)(N x K)
      Op da = gemm_op(f.name + ".dgrad", {s.m, s.k, s.n, s.count}, f.precision, s.c_bytes, s.b_bytes, s.a_bytes, s.b_is_weight);
      // dB = A^T . dC : (K x M)(M x N); a weight gradient accumulates in grad_bytes, or is written in the
      // activations' format and added to the main gradient by a kernel of its own (F-GRAD-1)
      const bool separate = s.b_is_weight && c.separate_grad_accumulation;
      Op db = gemm_op(f.name + (s.b_is_weight ? ".wgrad" : ".dgrad_b"), {s.k, s.n, s.m, s.count}, f.precision, s.a_bytes,
                      s.c_bytes, separate ? c.activation_bytes : s.b_is_weight ? c.grad_bytes : s.b_bytes, false);
      da.model_flops = f.model_flops;  // each is one forward's worth: 2x in all (§6.1)
      db.model_flops = f.model_flops;
      da.pass = db.pass = Pass::backward;
      if (bytes_per_element(f.precision) <= 1 && s.b_is_weight) quantise_backward(out, f, c);
      out.push_back(std::move(da));
      out.push_back(std::move(db));
      if (separate) {
        const double elements = s.k * s.n * s.count;
        Op add = memory_op(f.name + ".grad_accumulate", elements * (c.activation_bytes + c.grad_bytes), elements * c.grad_bytes);
        add.pass = Pass::backward;
        out.push_back(std::move(add));
      }
    } else if (f.kind == OpKind::attention) {
      // FlashAttention-2 backward: five matmuls against the forward's two (Dao 2023, §3.1.2), so
      // 2.5x the forward FLOPs executed; model FLOPs count the usual 2x (§6.1 training multiplier).
      // Reads Q, K, V, O, dO; writes dQ, dK, dV.
      Op b = f;
      b.name += ".bwd";
      b.pass = Pass::backward;
      b.flops = 2.5 * f.flops;
      b.model_flops = 2 * f.model_flops;
      b.bytes_read = f.bytes_read + 2 * f.bytes_written;
      b.bytes_written = f.bytes_read;
      out.push_back(std::move(b));
    } else {
      // One fused pass reading the saved input and the output gradient, writing the input gradient,
      // unless the op says which kernels its backward runs.
      const MemoryPass k = f.backward.value_or(MemoryPass{f.bytes_read + f.bytes_written, f.bytes_read, 1});
      Op b = memory_op(f.name + ".bwd", k.read, k.written);
      b.kernels = k.kernels;
      b.pass = Pass::backward;
      out.push_back(std::move(b));
    }
  }
  return out;
}

std::vector<OpGroup> transformer_ops(const TransformerSpec& m, const OpContext& c) {
  std::vector<OpGroup> groups;
  LayerBuilder head(m, c, true);
  head.head();
  append_group(groups, "embedding and LM head", 1, head.take(), c, false);
  LayerBuilder dense(m, c);
  dense.attention();
  dense.dense_mlp();
  append_group(groups, "dense layer", m.dense_layers(), dense.take(), c, true);
  if (m.moe) {
    LayerBuilder moe(m, c);
    moe.attention();
    moe.moe_mlp();
    append_group(groups, "MoE layer", m.moe_layers(), moe.take(), c, true);
  }
  // MTP modules train beside the main model (their loss is added); inference does not run them here.
  if (m.mtp_layers > 0 && c.phase == Phase::training) {
    LayerBuilder mtp(m, c);
    mtp.mtp_inputs();
    mtp.attention();
    if (m.moe_layers() > 0) mtp.moe_mlp();
    else mtp.dense_mlp();
    mtp.output_head("mtp.final_norm", "mtp.lm_head");
    append_group(groups, "MTP module", m.mtp_layers, mtp.take(), c, true);
  }
  return groups;
}

double total_flops(const std::vector<OpGroup>& groups) {
  double sum = 0;
  for (const OpGroup& g : groups)
    for (const Op& op : g.ops) sum += g.repeats * op.flops;
  return sum;
}

double total_model_flops(const std::vector<OpGroup>& groups) {
  double sum = 0;
  for (const OpGroup& g : groups)
    for (const Op& op : g.ops) sum += g.repeats * op.model_flops;
  return sum;
}

}  // namespace perfcast::models
