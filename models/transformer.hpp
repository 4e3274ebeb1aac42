#pragma once
// A decoder-only transformer as published in its config (dense, GQA/MQA, MLA, MoE), and its
// parameter count computed from the architecture. Plain data; the loader validates it.
#include <array>
#include <string_view>
#include <optional>
#include <string>

namespace perfcast::models {

enum class MlpKind { gelu, swiglu };       // swiglu = any gated MLP (SwiGLU, GeGLU): 3 matrices
enum class NormKind { layernorm, rmsnorm };  // layernorm has a bias: 2 vectors per norm
inline constexpr std::array<std::string_view, 2> kMlpKeys{"gelu", "swiglu"};       // in enum order
inline constexpr std::array<std::string_view, 2> kNormKeys{"layernorm", "rmsnorm"};  // in enum order

struct MoeSpec {
  int experts = 0;            // routed experts E
  int top_k = 0;              // routed experts per token k
  int expert_ffn_hidden = 0;  // f_e, per routed expert
  int shared_experts = 0;     // always-on experts
  int shared_ffn_hidden = 0;  // f_s, per shared expert
  int dense_layers = 0;       // the first layers keep a dense MLP (DeepSeek first_k_dense_replace)
  bool router_bias = false;   // per-expert routing bias (DeepSeek-V3 e_score_correction_bias)
  // A sigmoid gate (hidden -> 1) scales the shared experts' output: Qwen2-MoE, Qwen3-Next and
  // Qwen3.5's shared_expert_gate. Counted with the router, whose GEMM gains one output column.
  bool shared_expert_gate = false;
  // Tokens of the busiest expert over the mean (1 = balanced routing). Expert-parallel ranks wait
  // for the busiest, so the routed-expert GEMMs run this much longer; model FLOPs stay balanced.
  double load_imbalance = 1;
};

// Multi-head latent attention (DeepSeek-V2/V3). q_lora_rank = 0: queries are not compressed.
struct MlaSpec {
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
  int qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }
};

// Linear-attention layers (F-ARCH-4): a fixed-size recurrent state per sequence in place of a KV
// cache. Gated DeltaNet (Qwen3-Next, Qwen3.5; Yang et al. 2024, arXiv:2412.06464) or lightning
// attention (MiniMax-01; Qin et al. 2024, arXiv:2401.04658).
enum class LinearAttentionKind { gated_deltanet, lightning };
inline constexpr std::array<std::string_view, 2> kLinearAttentionKeys{"gated-deltanet", "lightning"};  // in enum order

// Bytes per element of a linear-attention layer's recurrent state: FP32, the mamba_ssm_dtype of
// Qwen3.5's config.json (vLLM keeps Gated DeltaNet states so); assumed for lightning attention.
inline constexpr double kLinearStateBytes = 4;
// Bytes per element of the short convolution's window: the BF16 activations it reads.
inline constexpr double kConvStateBytes = 2;
// Bytes per element of a dropout mask: PyTorch's native_dropout saves a bool mask for the backward
// (Korthikanti et al. 2022 count masks at one byte in their activation memory, §4.1).
inline constexpr double kDropoutMaskBytes = 1;

struct LinearAttentionSpec {
  LinearAttentionKind kind = LinearAttentionKind::gated_deltanet;
  int layers = 0;          // layers with linear attention; the others keep softmax attention
  int key_heads = 0;       // query/key heads (Gated DeltaNet shares one across value_heads / key_heads)
  int value_heads = 0;     // value heads: one state of key_head_dim x value_head_dim each
  int key_head_dim = 0;
  int value_head_dim = 0;
  int conv_kernel = 0;     // causal depthwise convolution over q, k and v (Gated DeltaNet: 4; 0 = none)
  double key_width() const { return double(key_heads) * key_head_dim; }        // K_d
  double value_width() const { return double(value_heads) * value_head_dim; }  // V_d
  // Gated DeltaNet's beta and alpha, a scalar each per value head and token (0 for lightning).
  double beta_alpha_width() const { return kind == LinearAttentionKind::gated_deltanet ? 2.0 * value_heads : 0; }
  // Tokens a chunk of the chunked parallel form holds: flash-linear-attention's chunk_gated_delta_rule
  // runs chunks of 64; MiniMax-01's lightning attention blocks of 256 (its config's block_size).
  int chunk() const { return kind == LinearAttentionKind::gated_deltanet ? 64 : 256; }
};

// DeepSeek Sparse Attention (F-ARCH-5; DeepSeek-V3.2, GLM-5): a lightning indexer scores every
// earlier key with `index_heads` small heads (ReLU, summed with per-head weights) and the MLA core
// attends only to the `top_k` best. The indexer keeps its own key cache of index_head_dim values
// per token, in FP8 with an FP32 scale per 128 (kIndexKeyBytes).
struct SparseAttentionSpec {
  int index_heads = 0;     // index_n_heads
  int index_head_dim = 0;  // index_head_dim
  int top_k = 0;           // index_topk: keys the attention core reads per query
};
// Bytes per cached indexer key element: FP8 plus a 4-byte scale per 128 (DeepSeek-V3.2-Exp
// inference/model.py Indexer: k_cache float8_e4m3fn, k_scale_cache float32 per block of 128).
inline constexpr double kIndexKeyBytes = 1 + 4.0 / 128;

struct TransformerSpec {
  std::string name;
  int layers = 0;
  int hidden = 0;       // h
  int heads = 0;        // a (query heads)
  int kv_heads = 0;     // n_kv (= heads for MHA, 1 for MQA)
  int head_dim = 0;     // d_h (hidden / heads unless stated)
  int ffn_hidden = 0;   // f (dense MLP)
  int vocab = 0;        // V (as padded for training, where the source says so)
  int max_positions = 0;       // learned absolute position embeddings (GPT); 0 = rotary
  int max_context = 0;         // longest context the model supports (0 = not stated; max_positions if learned)
  MlpKind mlp = MlpKind::swiglu;
  NormKind norm = NormKind::rmsnorm;
  bool tied_embeddings = false;
  bool linear_bias = false;    // biases on every linear layer (GPT-2/3 style)
  bool qkv_bias = false;       // biases on the Q, K and V projections only (Qwen2, GLM-4.5)
  bool qk_norm = false;        // an RMSNorm over each query and key head (Qwen3, Gemma 3, OLMo 2)
  bool qk_norm_across_heads = false;  // ... over all heads at once, a gain per element (MiniMax-M2 "per_layer")
  bool attention_output_gate = false;  // a sigmoid gate on the attention output, projected with the queries (Qwen3-Next)
  int norms_per_layer = 2;     // 4: norms after attention and MLP too (Gemma 2/3 "sandwich")
  bool attention_sinks = false;  // a learned logit per head in the softmax (GPT-OSS)
  int sliding_window = 0;      // tokens a sliding-window layer attends to (0 = none)
  int sliding_layers = 0;      // layers that use the window; the others attend to the whole context
  int mtp_layers = 0;          // multi-token-prediction modules (DeepSeek-V3), outside the published count
  double dropout = 0;          // training dropout probability (hidden and attention); masks are saved
  std::optional<MoeSpec> moe;
  std::optional<MlaSpec> mla;
  std::optional<LinearAttentionSpec> linear_attention;
  std::optional<SparseAttentionSpec> sparse_attention;  // with MLA only

  int q_width() const { return heads * head_dim; }       // h_q
  int kv_width() const { return kv_heads * head_dim; }   // h_kv
  int moe_layers() const { return moe ? layers - moe->dense_layers : 0; }
  // Share of the layers whose attention is bounded by the sliding window.
  double sliding_share() const { return sliding_window > 0 ? double(sliding_layers) / layers : 0; }
  int dense_layers() const { return layers - moe_layers(); }
  // Share of the layers with linear attention; the rest attend with softmax.
  double linear_share() const { return linear_attention ? double(linear_attention->layers) / layers : 0; }
};

// Parameter counts in parameters (not bytes). "active" is what one token uses: the routed experts
// it is sent to plus everything dense, embeddings and LM head included (the convention of the
// Mixtral and DeepSeek model cards; see the tests for how published figures compare).
struct ParameterCount {
  double total = 0;
  double active = 0;
  double embedding = 0;        // input token (+ position) embeddings
  double lm_head = 0;          // 0 when tied to the input embedding
  double attention_per_layer = 0;    // the layers' mean: softmax and linear attention in proportion
  double softmax_attention = 0;      // one softmax-attention block
  double linear_attention = 0;       // one linear-attention block (0 without linear layers)
  double dense_layer = 0;      // one layer with a dense MLP (attention + MLP + norms)
  double moe_layer = 0;        // one MoE layer, every expert
  double moe_layer_active = 0; // one MoE layer, the experts one token uses
  double final_norm = 0;
  double mtp = 0;              // the MTP modules (not in total: model cards count them apart)
};

// Weights of one multi-token-prediction module (F-ARCH-1; DeepSeek-V3 §2.2): a transformer layer of the
// model's last kind, the projection of [h; embedding] back to h, and its three norms. The
// embedding and output head are shared with the main model.
double mtp_module_parameters(const TransformerSpec& m);

ParameterCount count_parameters(const TransformerSpec& m);

// Weights of one lightning indexer (F-ARCH-5); 0 without sparse attention.
double indexer_parameters(const TransformerSpec& m);
// Weights of one softmax-attention block (projections, their biases, norms, gate, sinks, indexer).
double attention_parameters(const TransformerSpec& m);
// Weights of one linear-attention block (F-ARCH-4); 0 without linear layers.
double linear_attention_parameters(const TransformerSpec& m);
// Attention weights of the mean layer: softmax and linear blocks in proportion to their layers.
double mean_attention_parameters(const TransformerSpec& m);
// Weights of one dense MLP of width f (with biases when the model has them).
double mlp_parameters(const TransformerSpec& m, double f);
// Of them, the biases (gate/up and down), which quantised checkpoints keep in 16 bits.
double mlp_bias_parameters(const TransformerSpec& m, double f);
double norm_parameters(const TransformerSpec& m, double width);
// One MoE layer's router: hidden x experts, the routing bias and the shared-expert gate.
double router_parameters(const TransformerSpec& m);

}  // namespace perfcast::models
