#include "engine/data/hf_config.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/core/edit_distance.hpp"
#include "engine/core/errors.hpp"
#include "engine/core/input_file.hpp"

namespace perfcast {
namespace {

using nlohmann::json;
using models::TransformerSpec;

constexpr std::int64_t kMaxDim = 10'000'000;
constexpr std::int64_t kMaxContext = 1'000'000'000;  // MiniMax-M1 states 10,240,000 positions

// How a model class reads its config (transformers' modeling_<type>.py and configuration_<type>.py).
enum class Family {
  llama, mistral, mixtral, qwen2, qwen3, qwen2_moe, qwen3_moe, qwen3_next, qwen3_5, qwen3_5_moe, deepseek, gpt_oss, gemma2, gemma3,
  glm4_moe, glm_moe_dsa, minimax
};

struct Architecture {
  std::string_view name;
  Family family;
  bool tied_default;             // the config class's tie_word_embeddings default
  bool sparse_attention = false;  // DeepSeek Sparse Attention: index_n_heads, index_head_dim, index_topk
};

constexpr Architecture kArchitectures[] = {
    {"LlamaForCausalLM", Family::llama, false},
    {"MistralForCausalLM", Family::mistral, false},
    {"MixtralForCausalLM", Family::mixtral, false},
    {"Qwen2ForCausalLM", Family::qwen2, false},
    {"Qwen3ForCausalLM", Family::qwen3, false},
    {"Qwen2MoeForCausalLM", Family::qwen2_moe, false},
    {"Qwen3MoeForCausalLM", Family::qwen3_moe, false},
    {"DeepseekV3ForCausalLM", Family::deepseek, false},  // DeepSeek-V3/R1, Kimi-K2
    {"DeepseekV32ForCausalLM", Family::deepseek, false, true},  // DeepSeek-V3.2: V3 with the sparse-attention indexer
    {"GptOssForCausalLM", Family::gpt_oss, false},
    {"Gemma2ForCausalLM", Family::gemma2, true},
    {"Gemma3ForCausalLM", Family::gemma3, true},
    {"Gemma3ForConditionalGeneration", Family::gemma3, true},  // the text model of text_config
    {"Glm4MoeForCausalLM", Family::glm4_moe, false},           // GLM-4.5 / 4.6 / 4.7
    {"GlmMoeDsaForCausalLM", Family::glm_moe_dsa, false, true},  // GLM-5: MLA, sparse attention, GLM-4.5's MoE
    {"Qwen3NextForCausalLM", Family::qwen3_next, false},
    {"Qwen3_5ForCausalLM", Family::qwen3_5, false},
    {"Qwen3_5ForConditionalGeneration", Family::qwen3_5, false},  // the text model of text_config
    {"Qwen3_5MoeForCausalLM", Family::qwen3_5_moe, false},
    {"Qwen3_5MoeForConditionalGeneration", Family::qwen3_5_moe, false},
    {"MiniMaxText01ForCausalLM", Family::minimax, false},
    {"MiniMaxM1ForCausalLM", Family::minimax, false},
    {"MiniMaxM2ForCausalLM", Family::minimax, false},
};

// Model classes seen in the wild that perfcast cannot represent yet, and why.
constexpr std::pair<std::string_view, std::string_view> kRefused[] = {
    {"DeepseekV4ForCausalLM", "its compressed attention (compress_ratios) and hyper-connections (hc_mult) are not modelled"},
};

bool is_qwen3_hybrid(Family f) { return f == Family::qwen3_next || f == Family::qwen3_5 || f == Family::qwen3_5_moe; }
// Multi-head latent attention (DeepSeek-V3's kv_lora_rank and friends).
bool has_mla(Family f) { return f == Family::deepseek || f == Family::glm_moe_dsa; }
// MTP modules counted by num_nextn_predict_layers (DeepSeek-V3, GLM-4.5, GLM-5).
bool has_nextn_mtp(Family f) { return has_mla(f) || f == Family::glm4_moe; }

class Reader {
 public:
  explicit Reader(std::string label) : label_(std::move(label)) {}

  [[noreturn]] void fail(std::string_view key, std::string_view message) const {
    throw InputError({label_, 0, 0}, fmt::format("{}: {}", key, message));
  }

  const json* find(const json& obj, std::string_view key) const {
    auto it = obj.find(std::string(key));
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }

  std::optional<int> integer(const json& obj, std::string_view key, std::int64_t min = 1, std::int64_t max = kMaxDim) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    if (!v->is_number_integer() && !v->is_number_unsigned())
      fail(key, fmt::format("expected a whole number, found {}", v->dump().substr(0, 40)));
    const auto n = v->get<std::int64_t>();
    if (n < min || n > max) fail(key, fmt::format("{} is outside {} to {}", n, min, max));
    return int(n);
  }
  int require(const json& obj, std::string_view key, std::string_view arch) const {
    if (auto v = integer(obj, key)) return *v;
    fail(key, fmt::format("missing; {} needs it", arch));
  }
  std::optional<bool> flag(const json& obj, std::string_view key) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) fail(key, fmt::format("expected true or false, found {}", v->dump().substr(0, 40)));
    return v->get<bool>();
  }
  std::optional<std::string> text(const json& obj, std::string_view key) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    if (!v->is_string()) fail(key, fmt::format("expected a string, found {}", v->dump().substr(0, 40)));
    return v->get<std::string>();
  }

 private:
  std::string label_;
};

const Architecture& architecture_of(const Reader& r, const json& root) {
  const json* list = r.find(root, "architectures");
  if (!list) r.fail("architectures", "missing; perfcast reads the model class from it (e.g. [\"LlamaForCausalLM\"])");
  if (!list->is_array() || list->empty() || !(*list)[0].is_string())
    r.fail("architectures", "expected a list with the model class name first");
  const std::string name = (*list)[0].get<std::string>();
  for (const Architecture& a : kArchitectures)
    if (a.name == name) return a;
  for (auto [refused, why] : kRefused)
    if (refused == name) r.fail("architectures", fmt::format("{}: {}", name, why));
  std::vector<std::string> known;
  for (const Architecture& a : kArchitectures) known.emplace_back(a.name);
  r.fail("architectures", fmt::format("'{}' is not a model class perfcast reads{} (it reads {})", name, did_you_mean(name, known),
                                      fmt::join(known, ", ")));
}

// Layers whose attention uses the window: `layer_types` where the config lists them, else the
// class's fixed pattern.
int sliding_layers(const Reader& r, const json& c, Family f, int layers) {
  if (const json* types = r.find(c, "layer_types")) {
    if (!types->is_array() || types->size() != std::size_t(layers))
      r.fail("layer_types", fmt::format("expected a list of {} layer kinds (num_hidden_layers)", layers));
    int sliding = 0;
    for (const json& t : *types) {
      if (!t.is_string()) r.fail("layer_types", "expected strings such as \"sliding_attention\" and \"full_attention\"");
      const std::string kind = t.get<std::string>();
      if (kind == "sliding_attention") ++sliding;
      else if (kind != "full_attention")
        r.fail("layer_types", fmt::format("'{}' is neither sliding_attention nor full_attention", kind));
    }
    return sliding;
  }
  switch (f) {
    case Family::mistral: return layers;  // every layer (MistralAttention)
    case Family::gemma2: return (layers + 1) / 2;  // even-indexed layers (Gemma2DecoderLayer)
    case Family::gemma3: {
      // Layer i slides unless (i + 1) is a multiple of the pattern (Gemma3 sliding_window_pattern, 6).
      const int pattern = r.integer(c, "sliding_window_pattern").value_or(6);
      return layers - layers / pattern;
    }
    case Family::qwen2:
    case Family::qwen3:
    case Family::qwen2_moe:
    case Family::qwen3_moe: {
      // use_sliding_window: the layers from max_window_layers on use it (Qwen2Attention).
      if (!r.flag(c, "use_sliding_window").value_or(false)) return 0;
      const int full = r.integer(c, "max_window_layers", 0).value_or(layers);
      return std::max(0, layers - full);
    }
    default: return 0;
  }
}

// Layers with linear attention: Qwen3-Next / Qwen3.5 `layer_types` ("linear_attention" or
// "full_attention"), else every full_attention_interval-th layer full (Qwen3NextConfig, 4);
// MiniMax `attn_type_list` (0 lightning, 1 softmax).
int linear_layers(const Reader& r, const json& c, Family f, int layers) {
  const std::string_view key = f == Family::minimax ? "attn_type_list" : "layer_types";
  const json* types = r.find(c, key);
  if (!types) {
    if (f == Family::minimax) r.fail(key, "missing; MiniMax configs list each layer's attention (0 lightning, 1 softmax)");
    const int interval = r.integer(c, "full_attention_interval").value_or(4);
    return layers - layers / interval;
  }
  if (!types->is_array() || types->size() != std::size_t(layers))
    r.fail(key, fmt::format("expected a list of {} layer kinds (num_hidden_layers)", layers));
  int linear = 0;
  for (const json& t : *types) {
    if (f == Family::minimax) {
      if (!t.is_number_integer() || (t.get<std::int64_t>() != 0 && t.get<std::int64_t>() != 1))
        r.fail(key, "expected 0 (lightning attention) or 1 (softmax attention) per layer");
      linear += t.get<std::int64_t>() == 0;
      continue;
    }
    if (!t.is_string()) r.fail(key, "expected strings such as \"linear_attention\" and \"full_attention\"");
    const std::string kind = t.get<std::string>();
    if (kind == "linear_attention") ++linear;
    else if (kind != "full_attention") r.fail(key, fmt::format("'{}' is neither linear_attention nor full_attention", kind));
  }
  return linear;
}

void read_linear_attention(const Reader& r, const json& c, const Architecture& a, TransformerSpec& m) {
  const int layers = linear_layers(r, c, a.family, m.layers);
  if (layers == 0) return;
  models::LinearAttentionSpec l;
  l.layers = layers;
  if (a.family == Family::minimax) {
    // MiniMaxLightningAttention: q, k and v of every attention head, head_dim wide.
    l.kind = models::LinearAttentionKind::lightning;
    l.key_heads = l.value_heads = m.heads;
    l.key_head_dim = l.value_head_dim = m.head_dim;
  } else {
    l.kind = models::LinearAttentionKind::gated_deltanet;
    l.key_heads = r.require(c, "linear_num_key_heads", a.name);
    l.value_heads = r.require(c, "linear_num_value_heads", a.name);
    l.key_head_dim = r.require(c, "linear_key_head_dim", a.name);
    l.value_head_dim = r.require(c, "linear_value_head_dim", a.name);
    l.conv_kernel = r.require(c, "linear_conv_kernel_dim", a.name);
    if (l.conv_kernel > 64) r.fail("linear_conv_kernel_dim", fmt::format("{} is outside 1 to 64", l.conv_kernel));
    if (l.value_heads % l.key_heads != 0)
      r.fail("linear_num_value_heads", fmt::format("{} is not a multiple of linear_num_key_heads {}", l.value_heads, l.key_heads));
  }
  m.linear_attention = l;
}

// F-ARCH-5: DeepSeek-V3.2's and GLM-5's lightning indexer (index_* keys of their configs).
void read_sparse_attention(const Reader& r, const json& c, const Architecture& a, TransformerSpec& m) {
  models::SparseAttentionSpec s;
  s.index_heads = r.require(c, "index_n_heads", a.name);
  s.index_head_dim = r.require(c, "index_head_dim", a.name);
  s.top_k = r.require(c, "index_topk", a.name);
  if (!m.mla || m.mla->q_lora_rank == 0) r.fail("q_lora_rank", "sparse attention's indexer reads the query latent: q_lora_rank is needed");
  m.sparse_attention = s;
}

void read_moe(const Reader& r, const json& c, const Architecture& a, TransformerSpec& m) {
  models::MoeSpec e;
  switch (a.family) {
    case Family::mixtral:
    case Family::gpt_oss:
    case Family::minimax:
      e.experts = r.require(c, "num_local_experts", a.name);
      e.top_k = r.integer(c, "num_experts_per_tok").value_or(r.integer(c, "experts_per_token").value_or(0));
      if (e.top_k == 0) r.fail("num_experts_per_tok", fmt::format("missing; {} needs it", a.name));
      e.expert_ffn_hidden = m.ffn_hidden;
      e.router_bias = a.family == Family::gpt_oss;  // GptOssTopKRouter has a bias
      if (a.family == Family::minimax) {
        // MiniMax-M2's sigmoid routing adds e_score_correction_bias (use_routing_bias).
        e.router_bias = r.flag(c, "use_routing_bias").value_or(false);
        // shared_intermediate_size: 0 in every MiniMax release; older configs write it as [0].
        const json* shared = r.find(c, "shared_intermediate_size");
        const json* first = shared && shared->is_array() && !shared->empty() ? &(*shared)[0] : shared;
        if (first && !(first->is_number_integer() && first->get<std::int64_t>() == 0))
          r.fail("shared_intermediate_size", "only 0 (no shared expert) is read");
      }
      break;
    case Family::qwen2_moe:
    case Family::qwen3_moe:
    case Family::qwen3_next:
    case Family::qwen3_5_moe: {
      e.experts = r.require(c, "num_experts", a.name);
      e.top_k = r.require(c, "num_experts_per_tok", a.name);
      e.expert_ffn_hidden = r.require(c, "moe_intermediate_size", a.name);
      if (r.integer(c, "decoder_sparse_step").value_or(1) != 1)
        r.fail("decoder_sparse_step", "only 1 (every layer MoE) is read; perfcast's dense layers come first");
      if (const json* only = r.find(c, "mlp_only_layers"); only && !(only->is_array() && only->empty()))
        r.fail("mlp_only_layers", "dense layers among MoE layers are not read; perfcast's dense layers come first");
      if (auto shared = r.integer(c, "shared_expert_intermediate_size", 0); shared && *shared > 0) {
        e.shared_experts = 1;
        e.shared_ffn_hidden = *shared;
        e.shared_expert_gate = true;  // Qwen2Moe/Qwen3Next/Qwen3_5Moe SparseMoeBlock: shared_expert_gate, hidden -> 1
      }
      break;
    }
    case Family::deepseek:
    case Family::glm4_moe:
    case Family::glm_moe_dsa:
      e.experts = r.require(c, "n_routed_experts", a.name);
      e.top_k = r.require(c, "num_experts_per_tok", a.name);
      e.expert_ffn_hidden = r.require(c, "moe_intermediate_size", a.name);
      e.shared_experts = r.integer(c, "n_shared_experts", 0).value_or(0);
      e.shared_ffn_hidden = e.expert_ffn_hidden;
      e.dense_layers = r.integer(c, "first_k_dense_replace", 0).value_or(0);
      if (r.integer(c, "moe_layer_freq").value_or(1) != 1) r.fail("moe_layer_freq", "only 1 (every layer after the dense ones) is read");
      // noaux_tc routing adds e_score_correction_bias (DeepSeek-V3, GLM-4.5).
      e.router_bias = r.text(c, "topk_method").value_or(a.family != Family::deepseek ? "noaux_tc" : "") == "noaux_tc";
      break;
    default: return;
  }
  if (e.top_k > e.experts) r.fail("num_experts_per_tok", fmt::format("{} exceeds the {} experts", e.top_k, e.experts));
  if (e.dense_layers >= m.layers) r.fail("first_k_dense_replace", fmt::format("{} leaves no MoE layer of {}", e.dense_layers, m.layers));
  m.moe = e;
}

void read_mla(const Reader& r, const json& c, const Architecture& a, TransformerSpec& m) {
  models::MlaSpec l;
  l.q_lora_rank = r.integer(c, "q_lora_rank", 0).value_or(0);  // null: queries not compressed (V2-Lite)
  l.kv_lora_rank = r.require(c, "kv_lora_rank", a.name);
  l.qk_nope_head_dim = r.require(c, "qk_nope_head_dim", a.name);
  l.qk_rope_head_dim = r.require(c, "qk_rope_head_dim", a.name);
  l.v_head_dim = r.require(c, "v_head_dim", a.name);
  m.mla = l;
  m.head_dim = m.hidden / m.heads;  // as a preset without head_dim gets it; MLA itself uses the widths above
}

// quantization_config: the weights' stored format (F-ARCH-1).
void read_quantization(const Reader& r, const json& root, Workload& w) {
  const json* q = r.find(root, "quantization_config");
  if (!q) return;
  if (!q->is_object()) r.fail("quantization_config", "expected an object");
  const std::string method = r.text(*q, "quant_method").value_or("");
  auto set = [&](Precision p, std::string note) {
    w.stored_weight_dtype = p;
    w.stored_weight_note = std::move(note);
  };
  if (method == "fp8") {
    std::string block;
    if (const json* b = r.find(*q, "weight_block_size"); b && b->is_array()) block = fmt::format(", blocks of {}", b->dump());
    return set(Precision::fp8, fmt::format("FP8 weights (quant_method fp8{})", block));
  }
  if (method == "mxfp4") {
    // gpt-oss: modules_to_not_convert lists self_attn, mlp.router, embed_tokens and lm_head; only the experts are MXFP4.
    w.stored_expert_weight_dtype = Precision::fp4;
    w.stored_fp4_blocks = Fp4Blocks::mxfp4;
    w.stored_weight_note = "MXFP4 experts (quant_method mxfp4; attention, router, embedding and head kept BF16)";
    return;
  }
  if (method == "modelopt") {
    const std::string algo = r.text(*q, "quant_algo").value_or("");
    if (algo == "FP8") return set(Precision::fp8, "FP8 weights (ModelOpt quant_algo FP8)");
    if (algo == "NVFP4") return set(Precision::fp4, "NVFP4 weights (ModelOpt quant_algo NVFP4)");
    r.fail("quantization_config.quant_algo", fmt::format("'{}' is not read (FP8, NVFP4)", algo));
  }
  if (method == "awq" || method == "gptq") {
    const int bits = r.integer(*q, "bits").value_or(0);
    if (bits == 4) return set(Precision::int4, fmt::format("INT4 weights ({})", method));
    if (bits == 8) return set(Precision::int8, fmt::format("INT8 weights ({})", method));
    r.fail("quantization_config.bits", fmt::format("{} bits is not read (4 or 8)", bits));
  }
  r.fail("quantization_config.quant_method", fmt::format("'{}' is not read (fp8, mxfp4, modelopt, awq, gptq)", method));
}

std::string default_name(const Reader& r, const json& root, const std::string& label, const std::string& fallback) {
  if (auto path = r.text(root, "_name_or_path"); path && !path->empty()) {
    std::string base = std::filesystem::path(*path).filename().string();
    if (!base.empty()) return base;
  }
  if (!fallback.empty()) return fallback;
  const std::filesystem::path p(label);
  if (p.filename() == "config.json" && p.has_parent_path() && !p.parent_path().filename().empty())
    return p.parent_path().filename().string();
  return p.stem().string();
}

}  // namespace

Workload read_hf_config(const std::filesystem::path& file) { return parse_hf_config(read_input_file(file, "file"), file.string()); }

Workload parse_hf_config(std::string_view json_text, const std::string& label, const std::string& fallback_name) {
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw InputError({label, 0, 0}, fmt::format("not valid JSON at byte {}", e.byte));
  } catch (const json::out_of_range&) {  // a number literal beyond a double, e.g. 1e400
    throw InputError({label, 0, 0}, "not valid JSON: a number beyond the range of a double");
  }
  const Reader r(label);
  if (!root.is_object()) r.fail("config", "expected a JSON object");
  const Architecture& a = architecture_of(r, root);
  // Multimodal classes keep the language model's fields in text_config.
  const json* text = r.find(root, "text_config");
  if (text && !text->is_object()) r.fail("text_config", "expected an object");
  const json& c = text ? *text : root;

  TransformerSpec m;
  m.layers = r.require(c, "num_hidden_layers", a.name);
  m.hidden = r.require(c, "hidden_size", a.name);
  m.heads = r.require(c, "num_attention_heads", a.name);
  m.kv_heads = r.integer(c, "num_key_value_heads").value_or(m.heads);
  m.vocab = r.require(c, "vocab_size", a.name);
  // Qwen3.5's MoE text configs need no dense width (every layer routes): the expert width stands in.
  if (auto f = r.integer(c, "intermediate_size")) m.ffn_hidden = *f;
  else if (a.family == Family::qwen3_5_moe) m.ffn_hidden = r.require(c, "moe_intermediate_size", a.name);
  else r.fail("intermediate_size", fmt::format("missing; {} needs it", a.name));
  m.max_context = r.integer(c, "max_position_embeddings", 1, kMaxContext).value_or(0);
  m.tied_embeddings = r.flag(c, "tie_word_embeddings").value_or(r.flag(root, "tie_word_embeddings").value_or(a.tied_default));
  if (m.heads % m.kv_heads != 0)
    r.fail("num_key_value_heads", fmt::format("{} does not divide num_attention_heads {}", m.kv_heads, m.heads));
  // Every class read here has a gated MLP (SiLU or tanh-GELU gate) and RMSNorm.
  m.mlp = models::MlpKind::swiglu;
  m.norm = models::NormKind::rmsnorm;
  if (has_mla(a.family)) {
    read_mla(r, c, a, m);
  } else if (auto d = r.integer(c, "head_dim")) {
    m.head_dim = *d;
  } else {
    if (m.hidden % m.heads != 0) r.fail("head_dim", fmt::format("missing, and num_attention_heads {} does not divide hidden_size {}", m.heads, m.hidden));
    m.head_dim = m.hidden / m.heads;
  }
  const bool attention_bias = r.flag(c, "attention_bias").value_or(a.family == Family::gpt_oss);
  switch (a.family) {
    case Family::qwen2:
    case Family::qwen2_moe: m.qkv_bias = true; break;  // Qwen2Attention: q/k/v with bias, o without
    case Family::glm4_moe:
      m.qkv_bias = attention_bias;
      m.qk_norm = r.flag(c, "use_qk_norm").value_or(false);
      break;
    case Family::qwen3:
    case Family::qwen3_moe:
    case Family::gemma3: m.qk_norm = true; break;
    case Family::qwen3_next:
    case Family::qwen3_5:
    case Family::qwen3_5_moe:
      m.qk_norm = true;
      m.qkv_bias = attention_bias;
      // Gated attention: Qwen3-Next always, Qwen3.5 by attn_output_gate (default true).
      m.attention_output_gate = r.flag(c, "attn_output_gate").value_or(true);
      break;
    case Family::minimax:
      // MiniMax-M2: use_qk_norm, over all heads at once for qk_norm_type "per_layer".
      m.qk_norm = r.flag(c, "use_qk_norm").value_or(false);
      if (m.qk_norm) {
        const std::string type = r.text(c, "qk_norm_type").value_or("per_layer");
        if (type != "per_layer" && type != "per_head") r.fail("qk_norm_type", fmt::format("'{}' is neither per_layer nor per_head", type));
        m.qk_norm_across_heads = type == "per_layer";
      }
      break;
    case Family::gpt_oss:
      m.linear_bias = attention_bias;  // q/k/v/o and both expert projections carry biases
      m.attention_sinks = true;
      break;
    default: m.linear_bias = attention_bias; break;  // LlamaAttention: bias on q/k/v/o
  }
  if (a.family == Family::gemma2 || a.family == Family::gemma3) m.norms_per_layer = 4;
  if (auto window = r.integer(c, "sliding_window", 0); window && *window > 0) {
    m.sliding_layers = sliding_layers(r, c, a.family, m.layers);
    if (m.sliding_layers > 0) m.sliding_window = *window;
  }
  if (is_qwen3_hybrid(a.family) || a.family == Family::minimax) read_linear_attention(r, c, a, m);
  if (m.linear_attention && m.sliding_layers > 0) r.fail("sliding_window", "sliding windows beside linear-attention layers are not read");
  read_moe(r, c, a, m);
  if (a.sparse_attention) read_sparse_attention(r, c, a, m);
  if (has_nextn_mtp(a.family)) m.mtp_layers = r.integer(c, "num_nextn_predict_layers", 0).value_or(0);
  if (is_qwen3_hybrid(a.family)) m.mtp_layers = r.integer(c, "mtp_num_hidden_layers", 0).value_or(0);

  Workload w;
  w.name = default_name(r, root, label, fallback_name);
  w.display_name = w.name;
  m.name = w.name;
  w.file = label;
  w.source = {fmt::format("Hugging Face config.json ({})", a.name), "", label, "not stated"};
  w.model = m;
  read_quantization(r, root, w);
  return w;
}

}  // namespace perfcast
