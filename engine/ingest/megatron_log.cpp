#include "engine/ingest/megatron_log.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <sstream>

#include "engine/core/errors.hpp"
#include "engine/ingest/text_fields.hpp"

namespace perfcast {
namespace {

// The value after "label:" in an iteration line's "| label: value |" fields.
std::optional<double> field(std::string_view line, std::string_view label) {
  const std::size_t at = line.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + label.size());
  const std::size_t colon = rest.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  rest = rest.substr(colon + 1);
  const std::size_t bar = rest.find('|');
  return parse_number(rest.substr(0, bar));
}

struct Args {
  const MegatronRun& run;
  std::optional<std::string> text(const std::string& name) const {
    auto it = run.arguments.find(name);
    if (it == run.arguments.end() || it->second == "None") return std::nullopt;
    return it->second;
  }
  long integer(const std::string& name) const {
    const auto v = text(name);
    if (!v) throw InputError({run.file, 0, 0}, fmt::format("megatron log: the arguments block has no '{}'", name));
    const auto n = parse_number(*v);
    if (!n || *n < 0 || *n != std::floor(*n)) throw InputError({run.file, 0, 0}, fmt::format("megatron log: {} = '{}' is not a whole number", name, *v));
    return long(*n);
  }
  std::optional<long> optional_integer(const std::string& name) const { return text(name) ? std::optional<long>(integer(name)) : std::nullopt; }
  bool flag(const std::string& name) const { return text(name).value_or("False") == "True"; }
  // A probability, `fallback` where the block does not print it.
  double probability(const std::string& name, double fallback) const {
    const auto v = text(name);
    if (!v) return fallback;
    const auto p = parse_number(*v);
    if (!p || !(*p >= 0 && *p < 1)) throw InputError({run.file, 0, 0}, fmt::format("megatron log: {} = '{}' is not a probability below 1", name, *v));
    return *p;
  }
};

}  // namespace

MegatronRun parse_megatron_log(std::string_view text, const std::string& file) {
  MegatronRun run;
  run.file = file;
  bool in_arguments = false, seen_arguments = false;
  int line_no = 0;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.find("arguments ---") != std::string::npos && line.find("end of") == std::string::npos) {
      in_arguments = seen_arguments = true;
      continue;
    }
    if (line.find("end of arguments") != std::string::npos) {
      in_arguments = false;
      continue;
    }
    if (in_arguments) {
      // "  num_layers ...................................... 96"
      const std::size_t dots = line.find(" ..");
      if (dots == std::string::npos) continue;
      const std::string name = trim(std::string_view(line).substr(0, dots));
      const std::size_t value_at = line.find_first_not_of(". ", dots);
      run.arguments[name] = value_at == std::string::npos ? "" : trim(std::string_view(line).substr(value_at));
      continue;
    }
    const std::size_t it = line.find(" iteration ");
    if (it == std::string::npos || line.find("elapsed time per iteration (ms)") == std::string::npos) continue;
    MegatronIteration x;
    x.line = line_no;
    std::istringstream nums(line.substr(it + 11));
    nums >> x.iteration;
    const auto ms = field(line, "elapsed time per iteration (ms)");
    if (!ms || *ms <= 0) throw InputError({file, line_no, 1}, "megatron log: an iteration line without a positive 'elapsed time per iteration (ms)'");
    x.step_s = *ms / 1e3;
    x.tflops_per_gpu = field(line, "throughput per GPU (TFLOP/s/GPU)");
    run.iterations.push_back(x);
  }
  if (!seen_arguments) throw InputError({file, 0, 0}, "megatron log: no '---- arguments ----' block (the run's settings are needed)");
  if (run.iterations.empty()) throw InputError({file, 0, 0}, "megatron log: no 'iteration ... | elapsed time per iteration (ms): ...' lines");
  // The first logged interval holds warm-up (allocation, compilation, the first data): left out
  // when there are later ones.
  std::vector<double> steps;
  for (std::size_t i = run.iterations.size() > 1 ? 1 : 0; i < run.iterations.size(); ++i) steps.push_back(run.iterations[i].step_s);
  std::sort(steps.begin(), steps.end());
  const std::size_t n = steps.size();
  run.median_step_s = n % 2 ? steps[n / 2] : (steps[n / 2 - 1] + steps[n / 2]) / 2;
  run.iterations_used = int(n);
  return run;
}

toml::table megatron_scenario(const MegatronRun& run, const std::string& system, int devices_per_node) {
  const Args a{run};
  if (a.optional_integer("num_experts").value_or(0) > 1)
    throw InputError({run.file, 0, 0}, "megatron log: MoE runs (num_experts > 1) are not mapped yet; write the scenario and use "
                                       "perfcast ingest measurements");
  toml::table model;
  const long heads = a.integer("num_attention_heads");
  model.insert("layers", a.integer("num_layers"));
  model.insert("hidden", a.integer("hidden_size"));
  model.insert("heads", heads);
  model.insert("kv_heads", a.flag("group_query_attention") ? a.integer("num_query_groups") : heads);
  if (auto kv = a.optional_integer("kv_channels")) model.insert("head_dim", *kv);
  model.insert("ffn_hidden", a.integer("ffn_hidden_size"));
  model.insert("vocab", a.optional_integer("padded_vocab_size") ? a.integer("padded_vocab_size") : a.integer("vocab_size"));
  if (auto p = a.optional_integer("max_position_embeddings")) model.insert("max_positions", *p);
  model.insert("mlp", a.flag("swiglu") ? "swiglu" : "gelu");
  model.insert("norm", a.text("normalization").value_or("LayerNorm") == "RMSNorm" ? "rmsnorm" : "layernorm");
  model.insert("tied_embeddings", !a.flag("untie_embeddings_and_output_weights"));
  if (a.text("add_bias_linear")) model.insert("linear_bias", a.flag("add_bias_linear"));
  // Megatron-LM's --hidden-dropout and --attention-dropout, 0.1 unless set (megatron/training/arguments.py);
  // perfcast's model takes one probability for both.
  model.insert("dropout", std::max(a.probability("hidden_dropout", 0.1), a.probability("attention_dropout", 0.1)));

  const long world = a.integer("world_size");
  if (devices_per_node < 1 || world % devices_per_node != 0)
    throw InputError({run.file, 0, 0}, fmt::format("megatron log: world_size {} is not whole nodes of {} ({} devices each)", world, system,
                                                   devices_per_node));
  toml::table hardware;
  hardware.insert("system", system);
  hardware.insert("nodes", world / devices_per_node);

  toml::table training;
  training.insert("seq_len", a.integer("seq_length"));
  training.insert("global_batch", a.integer("global_batch_size"));
  training.insert("micro_batch", a.integer("micro_batch_size"));
  training.insert("precision", a.text("fp8") ? "fp8" : a.flag("fp16") ? "fp16" : a.flag("bf16") ? "bf16" : "fp32");
  const std::string granularity = a.text("recompute_granularity").value_or("none");
  if (granularity != "none" && granularity != "full" && granularity != "selective")
    throw InputError({run.file, 0, 0}, fmt::format("megatron log: recompute_granularity '{}' is not full or selective", granularity));
  training.insert("recompute", granularity);

  toml::table parallelism;
  const long tp = a.integer("tensor_model_parallel_size"), pp = a.integer("pipeline_model_parallel_size");
  parallelism.insert("tp", tp);
  parallelism.insert("pp", pp);
  if (auto cp = a.optional_integer("context_parallel_size"); cp && *cp > 1) parallelism.insert("cp", *cp);
  long vp = a.optional_integer("virtual_pipeline_model_parallel_size").value_or(1);
  if (auto per = a.optional_integer("num_layers_per_virtual_pipeline_stage"); per && *per > 0)
    vp = a.integer("num_layers") / (pp * *per);
  if (vp > 1) parallelism.insert("vp", vp);
  if (a.flag("sequence_parallel") && tp > 1) parallelism.insert("sequence_parallel", true);
  if (a.flag("use_distributed_optimizer")) parallelism.insert("zero", 1);

  toml::table scenario;
  scenario.insert("name", fmt::format("Megatron-LM run {}", run.file));
  if (a.text("use_flash_attn")) {  // older Megatron: flash only when asked; the scores materialised otherwise
    toml::table attention;
    attention.insert("kernel", a.flag("use_flash_attn") ? "flash" : "materialised");
    scenario.insert("attention", std::move(attention));
  }
  scenario.insert("model", std::move(model));
  scenario.insert("hardware", std::move(hardware));
  scenario.insert("training", std::move(training));
  scenario.insert("parallelism", std::move(parallelism));
  return scenario;
}

}  // namespace perfcast
