#include "models/transformer.hpp"

namespace perfcast::models {

// LayerNorm has a gain and a bias; RMSNorm only a gain.
double norm_parameters(const TransformerSpec& m, double width) {
  return m.norm == NormKind::layernorm ? 2 * width : width;
}

// F-ARCH-5. The lightning indexer (GlmMoeDsaIndexer, DeepSeek-V3.2 Indexer): queries up-projected
// from the MLA query latent, one key of index_head_dim from the hidden state with a LayerNorm
// (weight and bias), and a weight per index head from the hidden state.
double indexer_parameters(const TransformerSpec& m) {
  if (!m.sparse_attention || !m.mla) return 0;
  const SparseAttentionSpec& s = *m.sparse_attention;
  const double h = m.hidden, d = s.index_head_dim, heads = s.index_heads;
  return double(m.mla->q_lora_rank) * heads * d + h * d + 2 * d + h * heads;
}

// Q/K/V and output projections (MODELS-REFERENCE §6.1 rows; GPT biases per Narayanan Eq. 2, whose
// 13h per layer is 3h QKV + h output + 4h + h MLP biases + 4h for two LayerNorms).
double attention_parameters(const TransformerSpec& m) {
  const double h = m.hidden;
  if (m.mla) {
    const MlaSpec& l = *m.mla;
    const double a = m.heads;
    double q = l.q_lora_rank > 0
                   ? h * l.q_lora_rank + norm_parameters(m, l.q_lora_rank) + double(l.q_lora_rank) * a * l.qk_head_dim()
                   : h * a * l.qk_head_dim();
    double kv = h * (l.kv_lora_rank + l.qk_rope_head_dim) + norm_parameters(m, l.kv_lora_rank) +
                double(l.kv_lora_rank) * a * (l.qk_nope_head_dim + l.v_head_dim);
    double out = a * l.v_head_dim * h;
    return q + kv + out + indexer_parameters(m);
  }
  const double hq = m.q_width(), hkv = m.kv_width();
  double weights = h * (hq + 2 * hkv) + hq * h;
  double biases = m.linear_bias ? hq + 2 * hkv + h : m.qkv_bias ? hq + 2 * hkv : 0;
  // Per-head q/k norms share one gain vector of head_dim each (Qwen3 q_norm/k_norm); across heads,
  // one gain per element of q and of k (MiniMax-M2 qk_norm_type "per_layer").
  double qk_norms = !m.qk_norm ? 0
                    : m.qk_norm_across_heads ? norm_parameters(m, hq) + norm_parameters(m, hkv)
                                             : 2 * norm_parameters(m, m.head_dim);
  double sinks = m.attention_sinks ? m.heads : 0;
  // Qwen3-Next's q_proj also projects the output gate: h x h_q more (Qwen3NextAttention).
  double gate = m.attention_output_gate ? h * hq : 0;
  return weights + biases + qk_norms + sinks + gate;
}

// F-ARCH-4. Gated DeltaNet (Qwen3NextGatedDeltaNet): in_proj_qkvz h x (2K_d + 2V_d), in_proj_ba
// h x 2H_v, a depthwise convolution (2K_d + V_d) x kernel, A_log and dt_bias per value head, a
// gated RMSNorm of value_head_dim shared by the heads, out_proj V_d x h. Lightning attention
// (MiniMaxLightningAttention): qkv_proj h x 3Hd, output_gate h x Hd, an RMSNorm over Hd, out_proj.
double linear_attention_parameters(const TransformerSpec& m) {
  if (!m.linear_attention) return 0;
  const LinearAttentionSpec& l = *m.linear_attention;
  const double h = m.hidden, kd = l.key_width(), vd = l.value_width();
  // q, k, v; the output gate; beta and alpha; out.
  const double projections = h * (2 * kd + vd) + h * vd + h * l.beta_alpha_width() + vd * h;
  const double conv = (2 * kd + vd) * l.conv_kernel;
  if (l.kind == LinearAttentionKind::gated_deltanet)
    return projections + conv + 2.0 * l.value_heads + norm_parameters(m, l.value_head_dim);  // + A_log, dt_bias
  return projections + conv + norm_parameters(m, vd);
}

double mean_attention_parameters(const TransformerSpec& m) {
  const double s = m.linear_share();
  return (1 - s) * attention_parameters(m) + s * linear_attention_parameters(m);
}

double mlp_parameters(const TransformerSpec& m, double f) {
  const double h = m.hidden;
  return (m.mlp == MlpKind::swiglu ? 3 : 2) * h * f + mlp_bias_parameters(m, f);
}

double mlp_bias_parameters(const TransformerSpec& m, double f) {
  if (!m.linear_bias) return 0;
  return m.mlp == MlpKind::swiglu ? 2 * f + m.hidden : f + m.hidden;
}

double router_parameters(const TransformerSpec& m) {
  if (!m.moe) return 0;
  const MoeSpec& e = *m.moe;
  const double h = m.hidden;
  return h * e.experts + (e.router_bias ? e.experts : 0) + (e.shared_expert_gate ? h : 0);
}

ParameterCount count_parameters(const TransformerSpec& m) {
  ParameterCount c;
  const double h = m.hidden;
  const double norms = m.norms_per_layer * norm_parameters(m, h);  // pre-attention and pre-MLP (+ post)
  c.softmax_attention = attention_parameters(m);
  c.linear_attention = linear_attention_parameters(m);
  c.attention_per_layer = mean_attention_parameters(m);
  c.dense_layer = c.attention_per_layer + mlp_parameters(m, m.ffn_hidden) + norms;
  if (m.moe) {
    const MoeSpec& e = *m.moe;
    double expert = mlp_parameters(m, e.expert_ffn_hidden);
    double shared = e.shared_experts * mlp_parameters(m, e.shared_ffn_hidden);
    const double router = router_parameters(m);
    c.moe_layer = c.attention_per_layer + e.experts * expert + shared + router + norms;
    c.moe_layer_active = c.attention_per_layer + e.top_k * expert + shared + router + norms;
  }
  c.embedding = double(m.vocab) * h + double(m.max_positions) * h;
  c.lm_head = m.tied_embeddings ? 0 : double(m.vocab) * h;
  c.final_norm = norm_parameters(m, h);
  const double outer = c.embedding + c.lm_head + c.final_norm;
  c.total = outer + m.dense_layers() * c.dense_layer + m.moe_layers() * c.moe_layer;
  c.active = outer + m.dense_layers() * c.dense_layer + m.moe_layers() * c.moe_layer_active;
  if (m.mtp_layers > 0) c.mtp = m.mtp_layers * mtp_module_parameters(m);
  return c;
}

double mtp_module_parameters(const TransformerSpec& m) {
  TransformerSpec main = m;
  main.mtp_layers = 0;
  const ParameterCount c = count_parameters(main);
  // Its layer attends with softmax (Qwen3-Next's MTP layer is a full-attention one).
  const double layer = (m.moe_layers() > 0 ? c.moe_layer : c.dense_layer) - c.attention_per_layer + c.softmax_attention;
  const double h = m.hidden;
  return layer + 2 * h * h + 3 * norm_parameters(m, h);
}

}  // namespace perfcast::models
