#include "engine/predict/engine_serving.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/predict/memory.hpp"

namespace perfcast {
namespace {

// 1, 2, 3, 4, 6, 8, 11, 16, ... (×√2, whole) and `limit`: the tabulated times are close to linear
// between them.
std::vector<double> batch_grid(double limit) {
  std::vector<double> grid;
  for (double b = 1; b < limit; b = std::max(b + 1, std::round(b * std::sqrt(2.0)))) grid.push_back(b);
  grid.push_back(std::max(1.0, std::floor(limit)));
  return grid;
}

double mean_context(const InferenceSettings& in) { return in.input_len + in.output_len / 2; }

std::string_view engine_name(models::ServingEngine e) { return models::kServingEngineKeys[static_cast<std::size_t>(e)]; }

EngineSteadyState run(const Scenario& s, models::EngineMode mode, double clients, const InferenceOptions& o) {
  EngineSteadyState r;
  r.engine = s.inference->engine.value_or(models::ServingEngine::vllm);
  r.engine_given = s.inference->engine.has_value();
  r.mode = mode;
  r.limits = engine_limits_for(s, mode);
  if (clients <= 0) clients = r.limits.limits.max_sequences + std::ceil(r.limits.limits.max_step_tokens / s.inference->input_len) + 1;
  r.concurrency = clients;
  const models::StepCosts costs = step_costs(s, r.limits.limits, o);
  const models::Load load{.kind = models::LoadKind::closed_loop, .concurrency = clients};
  r.result = models::simulate_serving(costs, r.limits.limits, {s.inference->input_len, std::max(1.0, s.inference->output_len)}, load,
                                      s.serving.slo_percentile / 100);
  r.assumptions.push_back(fmt::format("engine {}{}: {}", engine_name(r.engine), r.engine_given ? "" : " (the default; [inference] engine)",
                                      r.limits.rule));
  r.assumptions.push_back(
      "in-flight batching simulated step by step (F-SRV-2): decodes first, then prompt chunks within the step's token budget, first "
      "come first served; one forward pass per step timed by the roofline with the weights read once for all its tokens");
  r.assumptions.push_back(fmt::format("steady state: statistics over {} requests after {} warm-up ones, the load applied throughout; "
                                      "every request {:g} prompt + {:g} output tokens",
                                      r.result.requests, r.result.warmup, s.inference->input_len,
                                      std::max(1.0, s.inference->output_len)));
  return r;
}

}  // namespace

models::StepCosts step_costs(const Scenario& s, const models::SchedulerLimits& limits, const InferenceOptions& o) {
  const double context = mean_context(*s.inference);
  models::StepCosts c;
  for (double n : batch_grid(std::max(limits.max_step_tokens, limits.max_sequences))) {
    const PassTime pass = decode_step_time(s, n, context, o);
    c.token_work.push_back({n, pass.total_s - pass.attention_s});
  }
  c.decode_attention.push_back({0, 0});
  for (double b : batch_grid(limits.max_sequences)) c.decode_attention.push_back({b, decode_step_time(s, b, context, o).attention_s});
  c.prefill_attention_per_token_s = prefill_time(s, 1, o).attention_s / s.inference->input_len;
  return c;
}

models::EngineLimits engine_limits_for(const Scenario& s, models::EngineMode mode) {
  const InferenceSettings& in = *s.inference;
  const MemoryReport memory = memory_for_scenario(s);
  const double fit = std::floor(memory.max_batch.value_or(0));
  if (fit < 1)
    throw InputError({s.file, 0, 0}, fmt::format("inference: not one sequence of {:g} + {:g} tokens fits: {}", in.input_len, in.output_len,
                                                 memory.verdict));
  models::EngineDevice d;
  d.memory_GiB = s.hw.device.memory_capacity_B().value_or(0) / (1024.0 * 1024 * 1024);
  d.a100 = s.hw.device.name.starts_with("a100");
  d.kv_sequences = fit;
  d.input_len = in.input_len;
  d.output_len = std::max(1.0, in.output_len);
  d.pp = s.parallelism.pp;
  models::EngineLimits e = models::engine_limits(in.engine.value_or(models::ServingEngine::vllm), mode, d);
  const ServingSettings& sv = s.serving;
  if (sv.max_concurrency) {
    e.limits.max_sequences = std::min(*sv.max_concurrency, fit);
    e.rule += fmt::format("; [serving] max_concurrency {:g}", *sv.max_concurrency);
  }
  if (sv.max_batched_tokens) {
    e.limits.max_step_tokens = *sv.max_batched_tokens;
    e.rule += fmt::format("; [serving] max_batched_tokens {:g}", *sv.max_batched_tokens);
  }
  if (sv.chunked_prefill) {
    e.limits.chunked_prefill = *sv.chunked_prefill;
    e.rule += fmt::format("; [serving] chunked_prefill {}", *sv.chunked_prefill);
  }
  return e;
}

EngineSteadyState closed_loop(const Scenario& s, double clients, const InferenceOptions& o) {
  EngineSteadyState r = run(s, models::EngineMode::server, clients, o);
  r.load = fmt::format("closed loop of {:g} client{}", clients, clients == 1 ? "" : "s");
  return r;
}

EngineSteadyState max_throughput(const Scenario& s, const InferenceOptions& o) {
  EngineSteadyState r = run(s, models::EngineMode::offline, 0, o);
  r.load = fmt::format("maximum throughput: a queue that never empties ({:g} requests in the loop)", r.concurrency);
  return r;
}

}  // namespace perfcast
