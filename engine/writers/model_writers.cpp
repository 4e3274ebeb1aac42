#include "engine/writers/model_writers.hpp"

#include <fmt/format.h>
#include <sstream>
#include <toml++/toml.h>

#include "engine/core/units.hpp"
#include "models/memory.hpp"

namespace perfcast {
namespace {

using models::TransformerSpec;

std::string billions(double n) { return fmt::format("{:.4g}B", n / 1e9); }

// A TOML string, quoted and escaped by toml++.
std::string toml_string(const std::string& s) {
  std::ostringstream out;
  out << toml::value<std::string>(s);
  return out.str();
}

std::string attention_words(const TransformerSpec& m) {
  std::string out;
  if (m.mla)
    out = fmt::format("MLA, {} heads (latent {} + rope {}, q rank {})", m.heads, m.mla->kv_lora_rank, m.mla->qk_rope_head_dim,
                      m.mla->q_lora_rank);
  else
    out = fmt::format("{} heads / {} KV heads of {}", m.heads, m.kv_heads, m.head_dim);
  if (m.qkv_bias) out += ", q/k/v bias";
  if (m.linear_bias) out += ", linear biases";
  if (m.qk_norm) out += m.qk_norm_across_heads ? ", q/k norm across heads" : ", q/k norm";
  if (m.attention_output_gate) out += ", output gate";
  if (m.attention_sinks) out += ", sinks";
  if (m.sliding_layers > 0) out += fmt::format("; sliding window {} on {} of {} layers", m.sliding_window, m.sliding_layers, m.layers);
  if (m.sparse_attention)
    out += fmt::format("; sparse: an indexer of {} heads of {} picks the top {} keys", m.sparse_attention->index_heads,
                       m.sparse_attention->index_head_dim, m.sparse_attention->top_k);
  if (m.linear_attention) {
    const models::LinearAttentionSpec& l = *m.linear_attention;
    out += fmt::format("; {} linear attention on {} of {} layers ({} key heads of {}, {} value heads of {}{})",
                       models::kLinearAttentionKeys[std::size_t(l.kind)], l.layers, m.layers, l.key_heads, l.key_head_dim, l.value_heads,
                       l.value_head_dim, l.conv_kernel > 0 ? fmt::format(", conv {}", l.conv_kernel) : "");
  }
  return out;
}

}  // namespace

std::string model_table(const Workload& w) {
  const TransformerSpec& m = w.transformer();
  const models::ParameterCount c = models::count_parameters(m);
  std::string out = fmt::format("{} ({})\n", w.label(), w.source.title);
  out += fmt::format("  layers {}, hidden {}, vocab {}, {} embeddings, {} norms per layer, max context {}\n", m.layers, m.hidden, m.vocab,
                     m.tied_embeddings ? "tied" : "untied", m.norms_per_layer, m.max_context > 0 ? std::to_string(m.max_context) : "not stated");
  out += fmt::format("  attention: {}\n", attention_words(m));
  out += fmt::format("  MLP: {} {}\n", models::kMlpKeys[std::size_t(m.mlp)], m.ffn_hidden);
  if (m.moe) {
    const models::MoeSpec& e = *m.moe;
    out += fmt::format("  MoE: {} experts of {}, top {}, {} shared, first {} layers dense{}{}\n", e.experts, e.expert_ffn_hidden, e.top_k,
                       e.shared_experts, e.dense_layers, e.router_bias ? ", router bias" : "", e.shared_expert_gate ? ", gated shared experts" : "");
  }
  if (m.mtp_layers > 0) out += fmt::format("  MTP: {} module(s), {} parameters, not in the total\n", m.mtp_layers, billions(c.mtp));
  if (w.stores_quantised()) out += fmt::format("  weights stored: {}\n", w.stored_weight_note);
  out += fmt::format("  parameters: {} total, {} active per token (embedding {}, LM head {})\n", billions(c.total), billions(c.active),
                     billions(c.embedding), billions(c.lm_head));
  if (w.published_parameters)
    out += fmt::format("  published: {} total{}{}\n", billions(*w.published_parameters),
                       w.published_active_parameters ? fmt::format(", {} active", billions(*w.published_active_parameters)) : "",
                       w.published_not_modelled > 0 ? fmt::format(" ({} of it not modelled, see the preset's note)", billions(w.published_not_modelled)) : "");
  const double kv = models::kv_bytes_per_token(m, models::kv_format(Precision::bf16), 1, m.layers);
  out += fmt::format("  KV cache (BF16, one device): {:.0f} B per token{}\n", kv,
                     m.sliding_layers > 0 ? fmt::format(" while within the {}-token window", m.sliding_window) : "");
  if (m.linear_attention)
    out += fmt::format("  linear-attention state (FP32, one device): {} per sequence\n",
                       units::format_binary_bytes(models::linear_state_bytes(m, 1, m.layers), 1));
  return out;
}

nlohmann::json model_json(const Workload& w) {
  const TransformerSpec& m = w.transformer();
  const models::ParameterCount c = models::count_parameters(m);
  nlohmann::json a = {{"layers", m.layers},
                      {"hidden", m.hidden},
                      {"heads", m.heads},
                      {"kv_heads", m.kv_heads},
                      {"head_dim", m.head_dim},
                      {"ffn_hidden", m.ffn_hidden},
                      {"vocab", m.vocab},
                      {"max_context", m.max_context},
                      {"mlp", models::kMlpKeys[std::size_t(m.mlp)]},
                      {"norm", models::kNormKeys[std::size_t(m.norm)]},
                      {"tied_embeddings", m.tied_embeddings},
                      {"linear_bias", m.linear_bias},
                      {"qkv_bias", m.qkv_bias},
                      {"qk_norm", m.qk_norm},
                      {"qk_norm_across_heads", m.qk_norm_across_heads},
                      {"attention_output_gate", m.attention_output_gate},
                      {"norms_per_layer", m.norms_per_layer},
                      {"attention_sinks", m.attention_sinks},
                      {"sliding_window", m.sliding_window},
                      {"sliding_layers", m.sliding_layers},
                      {"mtp_layers", m.mtp_layers}};
  if (m.moe)
    a["moe"] = {{"experts", m.moe->experts},         {"top_k", m.moe->top_k},
                {"expert_ffn_hidden", m.moe->expert_ffn_hidden}, {"shared_experts", m.moe->shared_experts},
                {"shared_ffn_hidden", m.moe->shared_ffn_hidden}, {"dense_layers", m.moe->dense_layers},
                {"router_bias", m.moe->router_bias}, {"shared_expert_gate", m.moe->shared_expert_gate},
                {"load_imbalance", m.moe->load_imbalance}};
  if (m.mla)
    a["mla"] = {{"q_lora_rank", m.mla->q_lora_rank},
                {"kv_lora_rank", m.mla->kv_lora_rank},
                {"qk_nope_head_dim", m.mla->qk_nope_head_dim},
                {"qk_rope_head_dim", m.mla->qk_rope_head_dim},
                {"v_head_dim", m.mla->v_head_dim}};
  if (m.linear_attention) {
    const models::LinearAttentionSpec& l = *m.linear_attention;
    a["linear_attention"] = {{"kind", models::kLinearAttentionKeys[std::size_t(l.kind)]},
                             {"layers", l.layers},
                             {"key_heads", l.key_heads},
                             {"value_heads", l.value_heads},
                             {"key_head_dim", l.key_head_dim},
                             {"value_head_dim", l.value_head_dim},
                             {"conv_kernel", l.conv_kernel}};
  }
  if (m.sparse_attention)
    a["sparse_attention"] = {{"index_heads", m.sparse_attention->index_heads},
                             {"index_head_dim", m.sparse_attention->index_head_dim},
                             {"top_k", m.sparse_attention->top_k}};
  nlohmann::json out = {{"name", w.name},
                        {"display_name", w.display_name},
                        {"source", {{"title", w.source.title}, {"locator", w.source.locator}, {"url", w.source.url}, {"date", w.source.date}}},
                        {"architecture", a},
                        {"parameters", {{"total", c.total}, {"active", c.active}, {"embedding", c.embedding}, {"lm_head", c.lm_head}, {"mtp", c.mtp}}},
                        {"kv_cache_bytes_per_token_bf16", models::kv_bytes_per_token(m, models::kv_format(Precision::bf16), 1, m.layers)},
                        {"linear_state_bytes_per_sequence", models::linear_state_bytes(m, 1, m.layers)}};
  if (w.published_parameters) out["published_parameters"] = *w.published_parameters;
  if (w.published_active_parameters) out["published_active_parameters"] = *w.published_active_parameters;
  if (w.published_not_modelled > 0) out["published_not_modelled_parameters"] = w.published_not_modelled;
  if (w.stores_quantised()) out["stored_weights"] = w.stored_weight_note;
  return out;
}

std::string model_preset_toml(const Workload& w) {
  const TransformerSpec& m = w.transformer();
  std::string notes = fmt::format("Written by perfcast model import from {}.", w.source.locator);
  if (w.stores_quantised())
    notes += fmt::format(" The checkpoint stores {}: give [inference] {} = \"{}\" to use them.", w.stored_weight_note,
                         w.stored_weight_dtype ? "weight_dtype" : "expert_weight_dtype",
                         storage_name(w.stored_weight_dtype ? *w.stored_weight_dtype : *w.stored_expert_weight_dtype, w.stored_fp4_blocks));
  std::string out = fmt::format("schema_version = 1\nname = {}\ndisplay_name = {}\nnotes = {}\n\n", toml_string(w.name), toml_string(w.display_name),
                                toml_string(notes));
  out += fmt::format("[source]\ntitle = {}\nlocator = {}\n", toml_string(w.source.title), toml_string(w.source.locator));
  if (!w.source.url.empty()) out += fmt::format("url = {}\n", toml_string(w.source.url));
  out += fmt::format("date = {}\n\n", toml_string(w.source.date));
  out += "[model]\n";
  out += fmt::format("layers = {}\nhidden = {}\nheads = {}\nkv_heads = {}\n", m.layers, m.hidden, m.heads, m.kv_heads);
  if (!m.mla) out += fmt::format("head_dim = {}\n", m.head_dim);
  out += fmt::format("ffn_hidden = {}\nvocab = {}\n", m.ffn_hidden, m.vocab);
  if (m.max_context > 0) out += fmt::format("max_context = {}\n", m.max_context);
  out += fmt::format("mlp = \"{}\"\nnorm = \"{}\"\ntied_embeddings = {}\n", models::kMlpKeys[std::size_t(m.mlp)],
                     models::kNormKeys[std::size_t(m.norm)], m.tied_embeddings);
  if (m.linear_bias) out += "linear_bias = true\n";
  if (m.qkv_bias) out += "qkv_bias = true\n";
  if (m.qk_norm) out += "qk_norm = true\n";
  if (m.qk_norm_across_heads) out += "qk_norm_across_heads = true\n";
  if (m.attention_output_gate) out += "attention_output_gate = true\n";
  if (m.norms_per_layer != 2) out += fmt::format("norms_per_layer = {}\n", m.norms_per_layer);
  if (m.attention_sinks) out += "attention_sinks = true\n";
  if (m.sliding_layers > 0) out += fmt::format("sliding_window = {}\nsliding_layers = {}\n", m.sliding_window, m.sliding_layers);
  if (m.mtp_layers > 0) out += fmt::format("mtp_layers = {}\n", m.mtp_layers);
  if (m.moe) {
    const models::MoeSpec& e = *m.moe;
    out += fmt::format("\n[model.moe]\nexperts = {}\ntop_k = {}\nexpert_ffn_hidden = {}\n", e.experts, e.top_k, e.expert_ffn_hidden);
    if (e.shared_experts > 0) out += fmt::format("shared_experts = {}\nshared_ffn_hidden = {}\n", e.shared_experts, e.shared_ffn_hidden);
    if (e.dense_layers > 0) out += fmt::format("dense_layers = {}\n", e.dense_layers);
    if (e.router_bias) out += "router_bias = true\n";
    if (e.shared_expert_gate) out += "shared_expert_gate = true\n";
  }
  if (m.mla) {
    const models::MlaSpec& l = *m.mla;
    out += fmt::format("\n[model.mla]\nq_lora_rank = {}\nkv_lora_rank = {}\nqk_nope_head_dim = {}\nqk_rope_head_dim = {}\nv_head_dim = {}\n",
                       l.q_lora_rank, l.kv_lora_rank, l.qk_nope_head_dim, l.qk_rope_head_dim, l.v_head_dim);
  }
  if (m.linear_attention) {
    const models::LinearAttentionSpec& l = *m.linear_attention;
    out += fmt::format("\n[model.linear_attention]\nkind = \"{}\"\nlayers = {}\nkey_heads = {}\nvalue_heads = {}\nkey_head_dim = {}\n"
                       "value_head_dim = {}\nconv_kernel = {}\n",
                       models::kLinearAttentionKeys[std::size_t(l.kind)], l.layers, l.key_heads, l.value_heads, l.key_head_dim,
                       l.value_head_dim, l.conv_kernel);
  }
  if (m.sparse_attention)
    out += fmt::format("\n[model.sparse_attention]\nindex_heads = {}\nindex_head_dim = {}\ntop_k = {}\n", m.sparse_attention->index_heads,
                       m.sparse_attention->index_head_dim, m.sparse_attention->top_k);
  return out;
}

}  // namespace perfcast
