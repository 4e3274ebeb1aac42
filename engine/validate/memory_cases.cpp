#include "engine/validate/memory_cases.hpp"

#include <fmt/format.h>

#include "engine/validate/case_features.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/core/toml_section.hpp"
#include "engine/core/units.hpp"
#include "engine/data/workload_reader.hpp"

namespace perfcast {
namespace {

constexpr std::string_view kKinds[] = {"model_states", "kv_cache"};
constexpr std::string_view kKvDtypes[] = {"fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"};

MemoryCase read_case(TomlSection& t, const std::filesystem::path& workloads) {
  MemoryCase c;
  c.id = t.require_string("id");
  c.source = t.require_string("source");
  auto kind = t.choice("kind", kKinds);
  if (!kind) t.fail_here(fmt::format("missing required key '{}kind'", t.path()));
  c.kind = *kind == "kv_cache" ? MemoryCase::Kind::kv_cache : MemoryCase::Kind::model_states;
  if (c.kind == MemoryCase::Kind::model_states) {
    c.subject = t.require_string("model");
    c.parameters = t.require_number("parameters", 0, false, 1e16);
    c.largest_layer_parameters = t.number("largest_layer_parameters", 0, true, 1e16).value_or(0);
    auto recipe = read_recipe(t, "recipe");
    if (!recipe) t.fail_here(fmt::format("missing required key '{}recipe'", t.path()));
    c.recipe = models::find_recipe(*recipe);
    c.zero = static_cast<int>(t.require_integer("zero", 0, 3));
    c.dp = static_cast<double>(t.require_integer("dp", 1, 10'000'000));
    c.offload = read_offload(t, "offload").value_or(models::Offload::none);
    c.include_gather = t.boolean("include_gather").value_or(false);
    if (c.include_gather && c.largest_layer_parameters <= 0)
      t.fail("include_gather", "needs largest_layer_parameters");
  } else {
    c.subject = t.require_string("preset");
    Workload w = load_preset(workloads, c.subject);
    if (!w.is_transformer()) t.fail("preset", fmt::format("'{}' is not a transformer", c.subject));
    c.model = w.transformer();
    if (auto d = t.choice("kv_dtype", kKvDtypes)) c.kv_dtype = *precision_from(*d);
    c.tp = static_cast<int>(t.integer("tp", 1, 1024).value_or(1));
    c.tokens = static_cast<double>(t.integer("tokens", 1, 100'000'000).value_or(1));
  }
  c.measured_B = case_quantity(t, "measured", units::dim::bytes, true);
  read_shared_keys(t, c, 0.01);
  t.finish();
  return c;
}

}  // namespace

std::vector<MemoryCase> load_memory_cases(CaseFile& f, const std::filesystem::path& workloads) {
  return read_cases(f, [&](TomlSection& t) { return read_case(t, workloads); });
}

// Model states through models::model_states (F-MEM-2/3), KV cache through kv_bytes_per_token
// (F-KV-1/2): the same functions `perfcast memory` uses.
std::vector<CaseScore> score_memory_cases(const std::vector<MemoryCase>& cases) {
  std::vector<CaseScore> scores;
  for (const MemoryCase& c : cases) {
    const bool states = c.kind == MemoryCase::Kind::model_states;
    CaseScore s = score_of(c, states ? "model_states" : "kv_cache");
    s.features = kernel_features(s.kind, "", "");
    s.subject = c.subject;
    s.dimension = units::dim::bytes;
    s.measured = c.measured_B;
    double predicted = 0;
    if (states) {
      models::ModelStates m = models::model_states(*c.recipe, c.parameters, c.largest_layer_parameters, c.zero, c.dp, c.offload);
      predicted = c.include_gather ? m.total() : m.states();
      s.detail = fmt::format("{}, ZeRO-{}, dp {:g}", c.recipe->name, c.zero, c.dp);
    } else {
      predicted = c.tokens * models::kv_bytes_per_token(c.model, models::kv_format(c.kv_dtype), c.tp, c.model.layers);
      s.detail = fmt::format("{} tokens, {}, tp {}", c.tokens, name_of(c.kv_dtype), c.tp);
    }
    if (c.skip.empty()) s.set_prediction(predicted);
    scores.push_back(s);
  }
  return scores;
}

}  // namespace perfcast
