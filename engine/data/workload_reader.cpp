#include "engine/data/workload_reader.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <sstream>

#include "engine/core/edit_distance.hpp"
#include "engine/core/input_file.hpp"
#include "engine/data/hf_config.hpp"
#include "engine/data/schema/scenario.hpp"
#include "models/transformer.hpp"

namespace perfcast {
namespace {

using models::MlpKind;
using models::NormKind;
using models::TransformerSpec;
using models::VisionLayer;
using models::VisionOpKind;

constexpr std::int64_t kMaxDim = 10'000'000;
constexpr std::string_view kFamilies[] = {"transformer", "vision"};
constexpr std::string_view kLayerOps[] = {"conv", "depthwise", "pointwise", "fc", "maxpool", "avgpool", "add", "upsample", "concat"};

int as_int(std::int64_t v) { return static_cast<int>(v); }

void read_int(TomlSection& t, std::string_view key, int& out, std::int64_t min = 1) {
  if (auto v = t.integer(key, min, kMaxDim)) out = as_int(*v);
}

// A [model], [model.moe], [model.mla] or [model.linear_attention] key, with the range the scenario schema declares.
void read_int(schema::KeyReader& r, std::string_view key, int& out) {
  if (auto v = r.integer(key)) out = as_int(*v);
}

// Fails at the first key whose value is still 0: neither given here nor by the preset or config.
void require_given(TomlSection& t, std::initializer_list<std::pair<std::string_view, int>> keys) {
  for (const auto& [key, value] : keys)
    if (value <= 0) t.fail_here(fmt::format("missing required key '{}{}'", t.path(), key));
}

// Cross-field rules of a transformer; errors point at the key that breaks them.
void check_transformer(TransformerSpec& m, TomlSection& t) {
  require_given(t, {{"layers", m.layers}, {"hidden", m.hidden}, {"heads", m.heads}, {"ffn_hidden", m.ffn_hidden}, {"vocab", m.vocab}});
  if (m.kv_heads == 0) m.kv_heads = m.heads;  // MHA unless stated
  if (m.sliding_layers > m.layers)
    t.fail("sliding_layers", fmt::format("{} exceeds the model's {} layers", m.sliding_layers, m.layers));
  if (m.sliding_layers > 0 && m.sliding_window == 0)
    t.fail("sliding_layers", "needs sliding_window, the tokens those layers attend to");
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
    t.fail("kv_heads", fmt::format("{} does not divide heads {} (grouped-query attention needs heads = groups x kv_heads)",
                                   m.kv_heads, m.heads));
  if (m.head_dim == 0) {
    if (m.hidden % m.heads != 0 && !m.mla)
      t.fail("heads", fmt::format("{} does not divide hidden {}; give head_dim explicitly", m.heads, m.hidden));
    m.head_dim = m.hidden / m.heads;
  }
  if (m.qk_norm_across_heads && !m.qk_norm) t.fail("qk_norm_across_heads", "needs qk_norm = true");
  if (m.linear_attention) {
    const models::LinearAttentionSpec& l = *m.linear_attention;
    if (l.layers > m.layers) t.fail("linear_attention", fmt::format("layers {} exceeds the model's {} layers", l.layers, m.layers));
    if (m.sliding_layers > 0) t.fail("sliding_layers", "sliding windows beside linear-attention layers are not modelled");
    if (m.mla) t.fail("linear_attention", "linear-attention layers beside MLA are not modelled");
  }
  if (m.sparse_attention) {
    if (!m.mla || m.mla->q_lora_rank == 0)
      t.fail("sparse_attention", "needs [model.mla] with q_lora_rank: the indexer's queries come from the query latent");
    if (m.sliding_layers > 0) t.fail("sliding_layers", "sliding windows beside sparse attention are not modelled");
  }
  if (m.moe) {
    const models::MoeSpec& e = *m.moe;
    if (e.top_k > e.experts)
      t.fail("moe", fmt::format("top_k {} exceeds experts {}", e.top_k, e.experts));
    if (e.load_imbalance > double(e.experts) / e.top_k)
      t.fail("moe", fmt::format("load_imbalance {} exceeds experts / top_k = {:g} (every token on the busiest expert)", e.load_imbalance,
                                double(e.experts) / e.top_k));
    if (e.dense_layers >= m.layers)
      t.fail("moe", fmt::format("dense_layers {} leaves no MoE layer of {}", e.dense_layers, m.layers));
  }
}

void read_moe(TomlSection& t, TransformerSpec& m) {
  schema::KeyReader r(t, "model.moe");
  models::MoeSpec e = m.moe.value_or(models::MoeSpec{});
  read_int(r, "experts", e.experts);
  read_int(r, "top_k", e.top_k);
  read_int(r, "expert_ffn_hidden", e.expert_ffn_hidden);
  read_int(r, "shared_experts", e.shared_experts);
  read_int(r, "shared_ffn_hidden", e.shared_ffn_hidden);
  read_int(r, "dense_layers", e.dense_layers);
  e.router_bias = r.flag("router_bias").value_or(e.router_bias);
  e.shared_expert_gate = r.flag("shared_expert_gate").value_or(e.shared_expert_gate);
  e.load_imbalance = r.number("load_imbalance").value_or(e.load_imbalance);
  t.finish();
  require_given(t, {{"experts", e.experts}, {"top_k", e.top_k}, {"expert_ffn_hidden", e.expert_ffn_hidden}});
  if (e.shared_experts > 0 && e.shared_ffn_hidden == 0) e.shared_ffn_hidden = e.expert_ffn_hidden;
  m.moe = e;
}

void read_mla(TomlSection& t, TransformerSpec& m) {
  schema::KeyReader r(t, "model.mla");
  models::MlaSpec l = m.mla.value_or(models::MlaSpec{});
  read_int(r, "q_lora_rank", l.q_lora_rank);
  read_int(r, "kv_lora_rank", l.kv_lora_rank);
  read_int(r, "qk_nope_head_dim", l.qk_nope_head_dim);
  read_int(r, "qk_rope_head_dim", l.qk_rope_head_dim);
  read_int(r, "v_head_dim", l.v_head_dim);
  t.finish();
  require_given(t, {{"kv_lora_rank", l.kv_lora_rank},
                    {"qk_nope_head_dim", l.qk_nope_head_dim},
                    {"qk_rope_head_dim", l.qk_rope_head_dim},
                    {"v_head_dim", l.v_head_dim}});
  m.mla = l;
}

void read_linear_attention(TomlSection& t, TransformerSpec& m) {
  schema::KeyReader r(t, "model.linear_attention");
  models::LinearAttentionSpec l = m.linear_attention.value_or(models::LinearAttentionSpec{});
  l.kind = r.pick<models::LinearAttentionKind>("kind").value_or(l.kind);
  read_int(r, "layers", l.layers);
  read_int(r, "key_heads", l.key_heads);
  read_int(r, "value_heads", l.value_heads);
  read_int(r, "key_head_dim", l.key_head_dim);
  read_int(r, "value_head_dim", l.value_head_dim);
  read_int(r, "conv_kernel", l.conv_kernel);
  t.finish();
  require_given(t, {{"layers", l.layers}, {"key_heads", l.key_heads}, {"key_head_dim", l.key_head_dim}});
  if (l.value_heads == 0) l.value_heads = l.key_heads;
  if (l.value_head_dim == 0) l.value_head_dim = l.key_head_dim;
  if (l.value_heads % l.key_heads != 0)
    t.fail("value_heads", fmt::format("{} is not a multiple of key_heads {} (each query/key head serves value_heads / key_heads)",
                                      l.value_heads, l.key_heads));
  if (l.kind == models::LinearAttentionKind::lightning && (l.value_heads != l.key_heads || l.value_head_dim != l.key_head_dim))
    t.fail("kind", "lightning attention has as many value heads as key heads, of the same width");
  m.linear_attention = l;
}

void read_sparse_attention(TomlSection& t, TransformerSpec& m) {
  schema::KeyReader r(t, "model.sparse_attention");
  models::SparseAttentionSpec s = m.sparse_attention.value_or(models::SparseAttentionSpec{});
  read_int(r, "index_heads", s.index_heads);
  read_int(r, "index_head_dim", s.index_head_dim);
  read_int(r, "top_k", s.top_k);
  t.finish();
  require_given(t, {{"index_heads", s.index_heads}, {"index_head_dim", s.index_head_dim}, {"top_k", s.top_k}});
  m.sparse_attention = s;
}

// Fields of [model] over `m` (a preset's values, or empty).
void read_transformer_fields(TomlSection& t, TransformerSpec& m) {
  schema::KeyReader r(t, "model");
  bool head_dim_given = t.has("head_dim");
  read_int(r, "layers", m.layers);
  read_int(r, "hidden", m.hidden);
  int heads_before = m.heads, hidden_before = m.hidden;
  const int kv_heads_before = m.kv_heads;
  read_int(r, "heads", m.heads);
  // Multi-head attention stays multi-head when only the head count changes.
  if (kv_heads_before == heads_before) m.kv_heads = m.heads;
  read_int(r, "kv_heads", m.kv_heads);
  read_int(r, "head_dim", m.head_dim);
  // A changed width or head count re-derives head_dim unless it is given here too.
  if (!head_dim_given && (m.heads != heads_before || m.hidden != hidden_before)) m.head_dim = 0;
  read_int(r, "ffn_hidden", m.ffn_hidden);
  read_int(r, "vocab", m.vocab);
  read_int(r, "max_positions", m.max_positions);
  read_int(r, "max_context", m.max_context);
  m.mlp = r.pick<MlpKind>("mlp").value_or(m.mlp);
  m.norm = r.pick<NormKind>("norm").value_or(m.norm);
  m.tied_embeddings = r.flag("tied_embeddings").value_or(m.tied_embeddings);
  m.linear_bias = r.flag("linear_bias").value_or(m.linear_bias);
  m.qkv_bias = r.flag("qkv_bias").value_or(m.qkv_bias);
  m.qk_norm = r.flag("qk_norm").value_or(m.qk_norm);
  m.qk_norm_across_heads = r.flag("qk_norm_across_heads").value_or(m.qk_norm_across_heads);
  m.attention_output_gate = r.flag("attention_output_gate").value_or(m.attention_output_gate);
  if (auto v = r.integer("norms_per_layer")) {
    if (*v != 2 && *v != 4) t.fail("norms_per_layer", fmt::format("{} is neither 2 (pre-norm) nor 4 (pre- and post-norm)", *v));
    m.norms_per_layer = as_int(*v);
  }
  m.attention_sinks = r.flag("attention_sinks").value_or(m.attention_sinks);
  const bool window_given = t.has("sliding_window");
  read_int(r, "sliding_window", m.sliding_window);
  read_int(r, "sliding_layers", m.sliding_layers);
  if (window_given && !t.has("sliding_layers") && m.sliding_layers == 0) m.sliding_layers = m.layers;
  read_int(r, "mtp_layers", m.mtp_layers);
  if (auto v = r.number("dropout")) {
    if (*v >= 1) t.fail("dropout", fmt::format("{} is a probability and must be below 1", *v));
    m.dropout = *v;
  }
  if (auto moe = t.table("moe")) read_moe(*moe, m);
  if (auto mla = t.table("mla")) read_mla(*mla, m);
  if (auto linear = t.table("linear_attention")) read_linear_attention(*linear, m);
  if (auto sparse = t.table("sparse_attention")) read_sparse_attention(*sparse, m);
  t.finish();
  check_transformer(m, t);
}

VisionOpKind layer_kind(const std::string& op) {
  if (op == "conv") return VisionOpKind::conv;
  if (op == "depthwise") return VisionOpKind::depthwise;
  if (op == "pointwise") return VisionOpKind::pointwise;
  if (op == "fc") return VisionOpKind::fully_connected;
  if (op == "maxpool") return VisionOpKind::max_pool;
  if (op == "avgpool") return VisionOpKind::avg_pool;
  if (op == "add") return VisionOpKind::add;
  if (op == "upsample") return VisionOpKind::upsample;
  return VisionOpKind::concat;
}

models::VisionModel read_vision(TomlSection& root, const std::string& name) {
  models::VisionModel v;
  v.name = name;
  auto layers = root.table_array("layer");
  if (layers.empty()) root.fail_here("a vision workload needs [[layer]] entries");
  for (TomlSection& t : layers) {
    VisionLayer l;
    l.name = t.require_string("name");
    auto op = t.choice("op", kLayerOps);
    if (!op) t.fail_here(fmt::format("missing required key '{}op'", t.path()));
    l.kind = layer_kind(*op);
    auto input = t.integers("input", 3, 1, 100'000);
    if (!input) t.fail_here(fmt::format("missing required key '{}input' ([height, width, channels])", t.path()));
    l.in_h = as_int((*input)[0]);
    l.in_w = as_int((*input)[1]);
    l.in_c = as_int((*input)[2]);
    read_int(t, "filters", l.filters);
    read_int(t, "kernel", l.kernel);
    read_int(t, "stride", l.stride);
    read_int(t, "scale", l.scale);
    read_int(t, "repeat", l.repeat);
    if (auto b = t.boolean("bias")) l.bias = *b;
    if (auto b = t.boolean("batch_norm")) l.batch_norm = *b;
    t.finish();
    bool needs_filters = l.kind == VisionOpKind::conv || l.kind == VisionOpKind::pointwise ||
                         l.kind == VisionOpKind::fully_connected;
    if (needs_filters && l.filters == 0) t.fail_here(fmt::format("missing required key '{}filters'", t.path()));
    if (!needs_filters && l.filters != 0 && l.filters != l.in_c)
      t.fail("filters", fmt::format("a {} layer keeps its {} input channels", *op, l.in_c));
    if (l.kind == VisionOpKind::pointwise && l.kernel != 1) t.fail("kernel", "a pointwise convolution has kernel 1");
    v.layers.push_back(l);
  }
  return v;
}

WorkloadSource read_source(TomlSection& root) {
  auto s = root.table("source");
  if (!s) root.fail_here("missing required table [source] (title, url, locator, date of the published config)");
  WorkloadSource w;
  w.title = s->require_string("title");
  w.date = s->require_string("date");
  w.url = s->string("url").value_or("");
  w.locator = s->string("locator").value_or("");
  s->finish();
  return w;
}

}  // namespace

std::filesystem::path default_workloads_dir() {
  if (const char* env = std::getenv("PERFCAST_WORKLOADS"); env && *env) return env;
  return shipped_data(PERFCAST_DEFAULT_WORKLOADS, "scenarios/workloads");
}

std::vector<std::string> preset_names(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".toml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

Workload load_preset(const std::filesystem::path& dir, const std::string& name) {
  // A name among the folder's presets, never a path: "../x" or a name too long for the file system
  // is an unknown preset like any other.
  const std::vector<std::string> names = preset_names(dir);
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw InputError({}, fmt::format("unknown workload preset '{}'{} (presets are in {})", name.size() > 80 ? name.substr(0, 80) + "..." : name,
                                     did_you_mean(name, names), dir.string()));
  return load_workload_file(dir / (name + ".toml"), dir);
}

Workload read_model_table(TomlSection& model, const std::filesystem::path& dir, const std::string& name,
                          bool vision_alone) {
  Workload w;
  schema::KeyReader keys(model, "model");
  if (model.has("hf_config")) {
    if (model.has("preset")) model.fail("hf_config", "give preset or hf_config, not both");
    if (auto config = model.is_string("hf_config") ? keys.text("hf_config") : std::nullopt) {
      // A path from the folder of the file that names it; its errors name that config file.
      w = read_hf_config(std::filesystem::path(model.file()).parent_path() / *config);
    } else {
      // The config's content inline (a pasted config.json in a JSON scenario): read as its file would be.
      const std::optional<TomlSection> inline_config = model.table("hf_config");
      std::ostringstream json_text;
      json_text << toml::json_formatter{inline_config->raw()};
      w = parse_hf_config(json_text.str(), fmt::format("{}: model.hf_config", model.file()), "pasted-config");
    }
  } else if (auto preset = keys.text("preset")) {
    if (!name.empty() && *preset == name) model.fail("preset", "a preset cannot be based on itself");
    try {
      w = load_preset(dir, *preset);
    } catch (const InputError& e) {
      if (e.where().file.empty()) model.fail("preset", e.message());
      throw;
    }
    if (!w.is_transformer()) {
      if (!vision_alone) model.fail("preset", fmt::format("'{}' is a vision op list; it has no [model] fields to override", *preset));
      model.finish();  // an op list has no fields to override: `preset` alone
      return w;
    }
  } else {
    w.model = TransformerSpec{};
  }
  auto& spec = std::get<TransformerSpec>(w.model);
  const std::optional<std::string> label = keys.text("display_name");
  const bool based = !label && (model.has("preset") || model.has("hf_config"));
  const double based_on = based ? models::count_parameters(spec).total : 0;
  read_transformer_fields(model, spec);
  // A preset or config whose architecture the scenario changes is no longer that model: outputs
  // say so unless the scenario names what it built.
  if (label) w.display_name = *label;
  if (based) {
    const double total = models::count_parameters(spec).total;
    if (total != based_on) w.display_name = fmt::format("{} modified ({:.1f}B parameters)", w.label(), total / 1e9);
  }
  if (!name.empty()) {
    spec.name = name;
    w.name = name;
  }
  return w;
}

Workload load_workload_file(const std::filesystem::path& file, const std::filesystem::path& dir) {
  return parse_workload(read_input_file(file, "file"), file.string(), dir);
}

Workload parse_workload(std::string_view content, const std::string& label, const std::filesystem::path& dir) {
  std::shared_ptr<toml::table> doc;
  TomlSection root = TomlSection::parse(content, label, doc);
  root.integer("schema_version", 1, 1);
  std::string name = root.require_string("name");
  const std::string stem = std::filesystem::path(label).stem().string();
  if (name != stem) root.fail("name", fmt::format("'{}' does not match the file name '{}'", name, stem));
  std::string family = root.choice("family", kFamilies).value_or("transformer");
  std::string display = root.string("display_name").value_or(name);
  root.string("notes");
  WorkloadSource source = read_source(root);
  Workload w;
  if (family == "vision") {
    w.model = read_vision(root, name);
    w.input_resolution = static_cast<int>(root.integer("input_resolution", 1, 100'000).value_or(0));
  } else {
    auto model = root.table("model");
    if (!model) root.fail_here("missing required table [model]");
    w = read_model_table(*model, dir, name);
  }
  if (auto p = root.table("published")) {
    w.published_parameters = p->number("parameters", 0, false, 1e16);
    w.published_active_parameters = p->number("active_parameters", 0, false, 1e16);
    w.published_macs = p->number("macs", 0, false, 1e16);
    w.published_resolution = p->number("resolution", 0, false, 1e12).value_or(0);
    w.published_not_modelled = p->number("not_modelled_parameters", 0, false, 1e16).value_or(0);
    if (w.published_not_modelled > 0 && !w.published_parameters)
      p->fail("not_modelled_parameters", "needs parameters: it is the part of that total the preset leaves out");
    p->string("note");
    p->finish();
  }
  root.finish();
  w.name = name;
  w.display_name = display;
  w.file = label;
  w.source = source;
  return w;
}

}  // namespace perfcast
