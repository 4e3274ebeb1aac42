#include "engine/data/scenario_reader.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include "engine/core/edit_distance.hpp"
#include "engine/core/input_file.hpp"
#include "engine/data/hardware_resolution.hpp"
#include "engine/data/schema/scenario.hpp"
#include "engine/data/workload_reader.hpp"
#include "engine/layout/rules.hpp"
#include "models/energy.hpp"

namespace perfcast {
namespace {

using schema::KeyReader;

// A hardware_db name read from `key`; unknown names become errors at the key.
template <class Lookup>
std::string hardware_name(KeyReader& r, std::string_view key, Lookup lookup) {
  auto name = r.text(key);
  if (!name) return {};
  try {
    lookup(*name);
  } catch (const InputError& e) {
    r.section().fail(key, e.message());
  }
  return *name;
}

std::optional<Precision> dtype(KeyReader& r, std::string_view key) {
  auto v = r.choice(key);
  return v ? precision_from(*v) : std::nullopt;
}

// A weight storage format: "nvfp4" and "mxfp4" are fp4 with their block scales, which `blocks` records;
// one scenario's 4-bit weights share one scaling.
std::optional<Precision> weight_dtype(KeyReader& r, std::string_view key, std::optional<Fp4Blocks>& blocks) {
  auto v = r.choice(key);
  if (!v) return std::nullopt;
  if (*v != "nvfp4" && *v != "mxfp4") return precision_from(*v);
  const Fp4Blocks named = *v == "mxfp4" ? Fp4Blocks::mxfp4 : Fp4Blocks::nvfp4;
  if (blocks && *blocks != named) r.section().fail(key, "weight_dtype and expert_weight_dtype name both nvfp4 and mxfp4: give one block scaling");
  blocks = named;
  return Precision::fp4;
}

std::optional<double> as_double(std::optional<std::int64_t> v) { return v ? std::optional<double>(double(*v)) : std::nullopt; }


// `device`: the accelerator it trains on (the block-scaled recipes need Blackwell).
TrainingSettings read_training(TomlSection& t, const AcceleratorSpec& device) {
  KeyReader r(t, "training");
  TrainingSettings s;
  s.seq_len = double(r.require_integer("seq_len"));
  s.global_batch = double(r.require_integer("global_batch"));
  s.micro_batch = as_double(r.integer("micro_batch")).value_or(1);
  s.precision = dtype(r, "precision");
  s.recompute = r.pick<models::Recompute>("recompute").value_or(models::Recompute::none);
  s.tokens = r.number("tokens");
  if (s.tokens && *s.tokens < s.global_batch * s.seq_len)
    t.fail("tokens", fmt::format("{:g} tokens is less than one step's global_batch x seq_len = {:g}", *s.tokens, s.global_batch * s.seq_len));
  s.optimizer = read_recipe(t, "optimizer").value_or("");
  s.offload = read_offload(t, "offload").value_or(models::Offload::none);
  s.data_loading_s = r.number("data_loading_s");
  s.stack = r.pick<models::TrainingStack>("stack").value_or(models::TrainingStack::megatron_lm);
  const models::StackTraits& stack = models::traits(s.stack);
  s.tp_overlap = r.pick<models::TpOverlap>("tp_overlap").value_or(stack.tp_overlap);
  if (s.tp_overlap > stack.tp_overlap_max)
    t.fail("tp_overlap", fmt::format("stack {} has no '{}' TP overlap (at most '{}')", stack.name, models::kTpOverlapKeys[std::size_t(s.tp_overlap)],
                                     models::kTpOverlapKeys[std::size_t(stack.tp_overlap_max)]));
  // A key that only means something for FP8 training, given beside another precision: refused.
  const auto require_fp8 = [&](std::string_view key) {
    if (s.precision != Precision::fp8)
      t.fail(key, fmt::format("applies to precision = \"fp8\"; this scenario trains in {}",
                              s.precision ? std::string(name_of(*s.precision)) : "the device's default precision"));
  };
  const std::optional<models::Fp8Scaling> fp8_recipe = r.pick<models::Fp8Scaling>("fp8_recipe");
  if (fp8_recipe) require_fp8("fp8_recipe");
  s.fp8_scaling = fp8_recipe.value_or(stack.fp8_scaling);
  // Transformer Engine's MXFP8BlockScaling and NVFP4BlockScaling need sm100 (Megatron-Bridge's
  // MixedPrecisionConfig: "mxfp8 (for Blackwell only)").
  if (device.architecture != GpuArchitecture::blackwell) {
    if (s.fp8_scaling == models::Fp8Scaling::mxfp8)
      t.fail("fp8_recipe", fmt::format("mxfp8 block scaling runs on Blackwell GPUs only, not {}", device.name));
    if (s.precision == Precision::fp4)
      t.fail("precision", fmt::format("fp4 training (NVFP4 block scaling) runs on Blackwell GPUs only, not {}", device.name));
  }
  const std::optional<bool> compile = r.flag("compile");
  if (compile && !stack.eager_modules.eager)
    t.fail("compile", fmt::format("stack {} runs fused kernels, not eager PyTorch modules; torch.compile applies to the torchtitan stacks",
                                  stack.name));
  s.compile = compile.value_or(false);
  const std::optional<bool> fp8_param_gather = r.flag("fp8_param_gather");
  if (fp8_param_gather.value_or(false)) require_fp8("fp8_param_gather");
  s.fp8_param_gather = fp8_param_gather.value_or(false);
  s.grad_reduce_dtype = dtype(r, "grad_reduce_dtype");
  t.finish();
  if (std::fmod(s.global_batch, s.micro_batch) != 0)
    t.fail("micro_batch", fmt::format("{} does not divide global_batch {}", s.micro_batch, s.global_batch));
  return s;
}

// `stored`: the checkpoint's 4-bit block scaling, which applies unless a weight format names one.
InferenceSettings read_inference(TomlSection& t, Fp4Blocks stored) {
  KeyReader r(t, "inference");
  InferenceSettings s;
  s.input_len = as_double(r.integer("input_len")).value_or(1);
  s.output_len = as_double(r.integer("output_len")).value_or(0);
  if (t.is_string("batch")) {
    if (t.string("batch") != "max")
      t.fail("batch", "give a whole number of sequences, or \"max\" for the engine's steady state on an endless queue");
    s.max_throughput = true;
  } else {
    s.batch = as_double(r.integer("batch"));
  }
  s.engine = r.pick<models::ServingEngine>("engine");
  std::optional<Fp4Blocks> named;
  s.weight_dtype = weight_dtype(r, "weight_dtype", named);
  s.expert_weight_dtype = weight_dtype(r, "expert_weight_dtype", named);
  s.fp4_blocks = named.value_or(stored);
  s.kv_dtype = dtype(r, "kv_dtype");
  s.compute_dtype = dtype(r, "compute_dtype");
  s.target_fps = r.number("target_fps");
  s.memory_utilization = r.number("memory_utilization");
  s.kv_block = as_double(r.integer("kv_block"));
  s.speculative_alpha = r.number("speculative_alpha");
  if (auto g = r.integer("draft_length")) s.draft_length = static_cast<int>(*g);
  s.draft_cost_ratio = r.number("draft_cost_ratio");
  t.finish();
  if (s.speculative_alpha && *s.speculative_alpha >= 1) t.fail("speculative_alpha", "must be below 1 (an acceptance rate)");
  if ((s.speculative_alpha.has_value() + s.draft_length.has_value() + s.draft_cost_ratio.has_value()) % 3 != 0)
    t.fail(s.speculative_alpha ? (s.draft_length ? "draft_cost_ratio" : "draft_length") : "speculative_alpha",
           "speculative decoding needs speculative_alpha, draft_length and draft_cost_ratio together");
  return s;
}

ParallelismSettings read_parallelism(TomlSection& t) {
  KeyReader r(t, "parallelism");
  ParallelismSettings p;
  auto get = [&](std::string_view key, int& out) {
    if (auto v = r.integer(key)) out = static_cast<int>(*v);
  };
  get("tp", p.tp);
  get("pp", p.pp);
  get("vp", p.vp);
  get("cp", p.cp);
  get("ep", p.ep);
  auto get_optional = [&](std::string_view key, std::optional<int>& out) {
    if (auto v = r.integer(key)) out = static_cast<int>(*v);
  };
  get_optional("dp", p.dp);
  get_optional("first_stage_layers", p.first_stage_layers);
  get_optional("last_stage_layers", p.last_stage_layers);
  p.sequence_parallel = r.flag("sequence_parallel").value_or(false);
  get("zero", p.zero);
  p.schedule = r.pick<models::Schedule>("schedule").value_or(models::Schedule::one_f_one_b);
  t.finish();
  if (p.vp > 1 && p.schedule != models::Schedule::one_f_one_b) t.fail("vp", "virtual stages need the 1f1b (interleaved) schedule");
  if (p.pp == 1 && (p.first_stage_layers || p.last_stage_layers))
    t.fail(p.first_stage_layers ? "first_stage_layers" : "last_stage_layers", "an uneven pipeline split needs pp > 1");
  return p;
}

// The DESIGN.md sections later stages read; their keys are checked for type here already.
ServingSettings read_serving(TomlSection& t) {
  KeyReader r(t, "serving");
  ServingSettings s;
  s.arrival_rate = r.number("arrival_rate");
  s.ttft_slo_s = r.number("ttft_slo_s");
  s.tpot_slo_s = r.number("tpot_slo_s");
  s.slo_percentile = r.number("slo_percentile").value_or(s.slo_percentile);
  s.max_concurrency = as_double(r.integer("max_concurrency"));
  s.max_batched_tokens = as_double(r.integer("max_batched_tokens"));
  s.chunked_prefill = r.flag("chunked_prefill");
  s.mixed_prefill = r.flag("mixed_prefill");
  s.overlap_scheduling = r.flag("overlap_scheduling");
  s.cuda_graph_padding = r.flag("cuda_graph_padding");
  if (const auto sizes = r.integers("cuda_graph_batch_sizes")) {
    if (!s.cuda_graph_padding.value_or(false))
      t.fail("cuda_graph_batch_sizes", "only padded steps use the captured sizes: set cuda_graph_padding = true");
    s.cuda_graph_batch_sizes.assign(sizes->begin(), sizes->end());
    std::sort(s.cuda_graph_batch_sizes.begin(), s.cuda_graph_batch_sizes.end());
    if (std::adjacent_find(s.cuda_graph_batch_sizes.begin(), s.cuda_graph_batch_sizes.end()) != s.cuda_graph_batch_sizes.end())
      t.fail("cuda_graph_batch_sizes", "a batch size is listed twice");
  }
  if (const auto steps = r.integer("scheduler_steps")) s.scheduler_steps = static_cast<int>(*steps);
  s.prefix_cache_hit_rate = r.number("prefix_cache_hit_rate").value_or(0);
  s.concurrency = as_double(r.integer("concurrency"));
  if (s.concurrency && s.arrival_rate) t.fail("concurrency", "a closed loop of clients or an arrival rate, not both");
  if (s.prefix_cache_hit_rate >= 1) t.fail("prefix_cache_hit_rate", "must be below 1 (at least the last token of a prompt is computed)");
  s.arrival_cv2 = r.number("arrival_cv2").value_or(s.arrival_cv2);
  s.length_cv2 = r.number("length_cv2").value_or(s.length_cv2);
  s.length_min_fraction = r.number("length_min_fraction").value_or(s.length_min_fraction);
  if (!(s.length_min_fraction > 0 && s.length_min_fraction <= 1)) t.fail("length_min_fraction", "must lie in (0, 1]");
  if (s.length_min_fraction < 1 && s.length_cv2 > 0)
    t.fail("length_min_fraction", "uniform lengths or gamma-spread outputs (length_cv2), not both");
  s.benchmark_requests = as_double(r.integer("benchmark_requests"));
  if (s.benchmark_requests && s.arrival_rate) t.fail("benchmark_requests", "a finite benchmark is a closed loop: give concurrency, not arrival_rate");
  t.finish();
  return s;
}

CostSettings read_cost(TomlSection& t, const HardwareDb& db, const HardwareChoice& h) {
  KeyReader r(t, "cost");
  CostSettings c;
  c.offer = hardware_name(r, "offer", [&](const std::string& n) { db.offer(n); });
  c.purchase = r.flag("purchase").value_or(false);
  c.spot = r.flag("spot").value_or(false);
  c.reserved_discount = r.number("reserved_discount");
  c.spot_preemptions_per_day = r.number("spot_preemptions_per_day");
  c.capex_usd = r.number("capex_usd");
  c.network_usd_per_node = r.number("network_usd_per_node");
  c.storage_usd = r.number("storage_usd");
  c.lifetime_years = r.number("lifetime_years");
  c.discount_rate = r.number("discount_rate");
  c.maintenance_fraction = r.number("maintenance_fraction");
  c.utilisation = r.number("utilisation");
  c.facility_usd_per_kw_month = r.number("facility_usd_per_kw_month");
  c.staff_usd_per_year = r.number("staff_usd_per_year");
  c.usd_per_kwh = r.number("usd_per_kwh");
  t.finish();
  if (!c.offer.empty() && c.purchase) t.fail("purchase", "give either offer = \"...\" (cloud) or purchase = true (on-prem), not both");
  if (!c.any()) t.fail_here("name a cloud offer = \"...\" or purchase = true");
  if (c.spot && c.purchase) t.fail("spot", "spot applies to a cloud offer, not to purchase = true");
  if (c.spot && !c.spot_preemptions_per_day)
    t.fail("spot", "spot = true needs spot_preemptions_per_day (the provider's interruption frequency for the instance)");
  if (!c.offer.empty()) {
    const OfferSpec& o = db.offer(c.offer);
    const std::string& offered = db.system(o.system).accelerator;
    if (offered != h.accelerator)
      t.fail("offer", fmt::format("'{}' rents {} ({}), but the scenario runs {}", c.offer, o.system, offered, h.accelerator));
  }
  if (c.spot && c.reserved_discount) t.fail("reserved_discount", "a reserved discount does not apply to spot capacity");
  if (c.spot && !db.offer(c.offer).spot_usd_per_device_s)
    t.fail("spot", fmt::format("offer '{}' has no published spot price", c.offer));
  return c;
}

RegionSettings read_region(TomlSection& t, const HardwareDb& db) {
  KeyReader k(t, "region");
  RegionSettings r;
  r.name = hardware_name(k, "name", [&](const std::string& n) { db.region(n); });
  if (r.name.empty()) t.fail_here("name = \"<region>\" is required (hardware_db/regions)");
  r.pue = k.number("pue");
  if (auto g = k.number("market_g_per_kwh")) r.market_kg_per_J = models::grid_kg_per_J(*g);
  t.finish();
  return r;
}

ReliabilitySettings read_reliability(TomlSection& t) {
  KeyReader k(t, "reliability");
  ReliabilitySettings r;
  if (auto h = k.number("gpu_mtbf_h")) r.device_mtbf_s = *h * 3600;
  r.checkpoint_write_s = k.number("checkpoint_write_s");
  r.restart_s = k.number("restart_s");
  t.finish();
  return r;
}

// The recipe a stack keeps for a training precision when none is named (models/training_stack:
// Megatron-LM/NeMo keep fp32 main gradients, FP8 adds Transformer Engine's weight cache; FSDP2
// keeps fp32 sharded parameters; DeepSpeed fp16 gradients).
std::string default_recipe(const TrainingSettings& t) {
  const models::StackTraits& stack = models::traits(t.stack);
  if (t.precision == Precision::fp32 || t.precision == Precision::tf32) return "fp32-adam";
  if (t.precision == Precision::fp16) return std::string(stack.recipe_fp16);
  if (t.precision && quantised_training_format(*t.precision)) return std::string(stack.recipe_fp8);
  return std::string(stack.recipe_bf16);
}

}  // namespace

HardwareChoice read_hardware(TomlSection& t, const HardwareDb& db) {
  KeyReader r(t, "hardware");
  HardwareChoice h;
  h.system = hardware_name(r, "system", [&](const std::string& n) { db.system(n); });
  h.accelerator = hardware_name(r, "accelerator", [&](const std::string& n) { db.accelerator(n); });
  auto nodes = r.integer("nodes");
  auto count = r.integer("count");
  auto per_node = r.integer("gpus_per_node");
  h.power_mode = r.text("power_mode").value_or("");
  h.power_limit_W = r.number("power_limit");
  const std::string engine = r.choice("engine").value_or("gpu");
  h.scale_up = hardware_name(r, "scale_up", [&](const std::string& n) { db.link(n); });
  h.scale_out = hardware_name(r, "scale_out", [&](const std::string& n) { db.link(n); });
  t.finish();
  if (!h.system.empty() && !h.accelerator.empty())
    t.fail("accelerator", "give either system or accelerator, not both");
  if (!h.system.empty()) {
    const SystemSpec& s = db.system(h.system);
    h.accelerator = s.accelerator;
    h.devices_per_node = s.devices_per_node;
    if (count) t.fail("count", "with a system, give nodes (the device count follows from it)");
    h.count = static_cast<int>(nodes.value_or(1)) * s.devices_per_node;
    if (h.scale_up.empty()) h.scale_up = s.scale_up;
    if (h.scale_out.empty()) h.scale_out = s.scale_out;
  } else if (!h.accelerator.empty()) {
    if (nodes) t.fail("nodes", "nodes needs a system; with an accelerator give count");
    h.count = static_cast<int>(count.value_or(1));
    h.devices_per_node = static_cast<int>(per_node.value_or(std::min<std::int64_t>(h.count, 8)));
    if (h.count % h.devices_per_node != 0 && h.count > h.devices_per_node)
      t.fail("count", fmt::format("{} devices do not fill whole nodes of {}", h.count, h.devices_per_node));
  } else {
    t.fail_here("[hardware] needs system = \"<name>\" or accelerator = \"<name>\"");
  }
  h.dla = engine == "dla";
  if (h.dla) {
    const AcceleratorSpec& a = db.accelerator(h.accelerator);
    if (!a.dla_count || !a.dla_int8_ops_per_s) t.fail("engine", fmt::format("{} has no DLA in the database", a.name));
  }
  if (h.power_limit_W) {
    const AcceleratorSpec& a = db.accelerator(h.accelerator);
    if (!h.power_mode.empty()) t.fail("power_limit", "give power_mode or power_limit, not both");
    if (!a.tdp_W || !a.idle_W)
      t.fail("power_limit", fmt::format("{} has no power.tdp and power.idle in the database to scale between", a.name));
    if (*h.power_limit_W > *a.tdp_W)
      t.fail("power_limit", fmt::format("{:g} W is above {}'s TDP {:g} W", *h.power_limit_W, a.name, *a.tdp_W));
    if (*h.power_limit_W <= *a.idle_W)
      t.fail("power_limit", fmt::format("{:g} W is not above {}'s idle power {:g} W", *h.power_limit_W, a.name, *a.idle_W));
  }
  if (!h.power_mode.empty()) {
    const AcceleratorSpec& a = db.accelerator(h.accelerator);
    std::string names;
    for (const PowerMode& m : a.power_modes) {
      if (m.name == h.power_mode) return h;
      names += (names.empty() ? "" : ", ") + m.name;
    }
    t.fail("power_mode", names.empty() ? fmt::format("{} has no power modes", a.name)
                                       : fmt::format("'{}' is not a power mode of {} (it has: {})", h.power_mode, a.name, names));
  }
  return h;
}

std::optional<std::string> read_recipe(TomlSection& t, std::string_view key) {
  auto name = t.string(key);
  if (!name || models::find_recipe(*name)) return name;
  std::vector<std::string> names;
  for (const models::OptimizerRecipe& r : models::optimizer_recipes()) names.emplace_back(r.name);
  t.fail(key, fmt::format("unknown recipe '{}'{}", *name, did_you_mean(*name, names)));
}

std::optional<models::Offload> read_offload(TomlSection& t, std::string_view key) {
  auto i = t.choice_index(key, models::kOffloadKeys);
  return i ? std::optional<models::Offload>(models::Offload(*i)) : std::nullopt;
}

namespace {

// What an inference scenario asks that the model or the device cannot do.
void check_inference(TomlSection& root, const Scenario& s) {
  const InferenceSettings& in = *s.inference;
  const AcceleratorSpec& a = s.hw.device;
  auto section = root.table("inference");
  for (auto [key, dtype] : {std::pair{"compute_dtype", in.compute_dtype}, std::pair{"weight_dtype", in.weight_dtype}}) {
    if (!dtype || a.peak(*dtype) || (std::string_view(key) == "weight_dtype" && bytes_per_element(*dtype) < 2)) continue;
    section->fail(key, fmt::format("{}{} has no {} math (it has: {})", a.name, s.hardware.dla ? "'s DLA" : "", name_of(*dtype),
                                   precision_list(a)));
  }
  if (in.expert_weight_dtype && (!s.workload.is_transformer() || !s.workload.transformer().moe))
    section->fail("expert_weight_dtype", fmt::format("{} has no routed experts", s.workload.label()));
  if (!s.workload.is_transformer()) return;
  const models::TransformerSpec& m = s.workload.transformer();
  const int limit = m.max_context ? m.max_context : m.max_positions;
  if (limit > 0 && in.input_len + in.output_len > limit)
    section->fail(in.output_len > 0 ? "output_len" : "input_len",
                  fmt::format("input_len + output_len = {:g} tokens is longer than {}'s maximum context of {}", in.input_len + in.output_len,
                              s.workload.name, limit));
}

}  // namespace

Scenario parse_scenario(std::string_view content, const std::string& label, const std::filesystem::path& workloads,
                        const HardwareDb& db) {
  std::shared_ptr<toml::table> doc;
  TomlSection root = TomlSection::parse(content, label, doc);
  return read_scenario(root, label, workloads, db);
}

Scenario read_scenario(TomlSection& root, const std::string& label, const std::filesystem::path& workloads, const HardwareDb& db,
                       bool layout_searched) {
  Scenario s;
  s.file = label;
  KeyReader top(root, "");
  top.integer("schema_version");
  s.name = top.text("name").value_or(std::filesystem::path(label).stem().string());
  auto model = root.table("model");
  if (!model) root.fail_here("missing required table [model] (preset = \"<name>\" and/or the architecture)");
  s.workload = read_model_table(*model, workloads, model->has("preset") || model->has("hf_config") ? "" : "inline-model", true);
  if (auto attention = root.table("attention")) {
    KeyReader r(*attention, "attention");
    s.mask = r.pick<models::AttentionMask>("mask").value_or(s.mask);
    s.attention_kernel = r.pick<models::AttentionKernel>("kernel").value_or(s.attention_kernel);
    s.decode_kv = r.pick<models::DecodeKvReads>("decode_kv").value_or(s.decode_kv);
    attention->finish();
  }
  auto hardware = root.table("hardware");
  if (!hardware) root.fail_here("missing required table [hardware]");
  s.hardware = read_hardware(*hardware, db);
  s.hw = resolve_hardware(db, s.hardware);
  if (auto t = root.table("training")) s.training = read_training(*t, s.hw.device);
  if (auto t = root.table("inference")) {
    s.inference = read_inference(*t, s.workload.stored_fp4_blocks);
    // A checkpoint's quantization_config is how its weights are stored, unless the scenario says.
    if (!s.inference->weight_dtype) s.inference->weight_dtype = s.workload.stored_weight_dtype;
    if (!s.inference->expert_weight_dtype) s.inference->expert_weight_dtype = s.workload.stored_expert_weight_dtype;
  }
  if (s.training && s.inference) root.fail("inference", "a scenario is either [training] or [inference], not both");
  if (!s.training && !s.inference) root.fail_here("a scenario needs a [training] or an [inference] table");
  if (s.training && !s.workload.is_transformer()) root.fail("training", "training is modelled for transformer workloads only");
  auto par = root.table("parallelism");
  if (par) s.parallelism = read_parallelism(*par);
  if (auto t = root.table("reliability")) s.reliability = read_reliability(*t);
  if (auto t = root.table("serving")) {
    if (!s.inference) t->fail_here("[serving] needs an [inference] scenario");
    s.serving = read_serving(*t);
  }
  if (s.inference) check_inference(root, s);
  if (auto t = root.table("cost")) s.cost = read_cost(*t, db, s.hardware);
  if (auto t = root.table("region")) s.region = read_region(*t, db);
  if (s.cost.purchase && s.region.name.empty())
    root.fail("cost", "purchase = true needs a [region] (its PUE, grid and electricity price)");
  root.finish();
  if (par) {  // without [parallelism] every device is a data-parallel replica
    if (auto problem = layout_problem(s.workload, s.parallelism, s.hardware.count, s.training)) par->fail(problem->key, problem->message);
  } else if (s.training && !layout_searched) {
    if (auto problem = layout_problem(s.workload, s.parallelism, s.hardware.count, s.training)) root.fail("training", problem->message);
  }
  if (s.training && s.training->optimizer.empty()) s.training->optimizer = default_recipe(*s.training);
  resolve_offer_and_region(db, s.cost, s.region, s.hardware.count, s.hw);
  if (s.hw.offer) {
    const std::string misfit = offer_misfit(db, *s.hw.offer, s.hardware.count);
    if (!misfit.empty()) {
      const std::string message = fmt::format("{} cannot hold {} devices: {}", s.hw.offer->name, s.hardware.count, misfit);
      if (auto cost = root.table("cost")) cost->fail("offer", message);
      root.fail("cost", message);
    }
  }
  return s;
}

void require_schema_version(const TomlSection& root) {
  if (!root.has("schema_version")) root.fail_here("missing required key 'schema_version' (write schema_version = 1)");
}

Scenario load_scenario(const std::filesystem::path& file, const std::filesystem::path& workloads, const HardwareDb& db) {
  std::shared_ptr<toml::table> doc;
  TomlSection root = TomlSection::parse(read_input_file(file, "scenario file"), file.string(), doc);
  require_schema_version(root);
  return read_scenario(root, file.string(), workloads, db);
}

}  // namespace perfcast
