#include "engine/predict/engine_serving.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/predict/memory.hpp"

namespace perfcast {
namespace {

std::string_view engine_name(models::ServingEngine e) { return models::kServingEngineKeys[static_cast<std::size_t>(e)]; }

// The tokens each request brings: the prompt tokens computed (a prefix-cache hit is not computed
// again), the output tokens and their spread.
models::RequestShape request_shape(const Scenario& s) {
  const double computed = std::max(1.0, std::round(s.inference->input_len * (1 - s.serving.prefix_cache_hit_rate)));
  return {computed, std::max(1.0, s.inference->output_len), s.serving.length_cv2, s.serving.length_min_fraction};
}

// Lengths uniform in [f·L, L] average (1 + f)/2 of the scenario's.
double mean_length_share(const Scenario& s) { return (1 + s.serving.length_min_fraction) / 2; }

// The most requests that can run at once: a cache taken on demand may hold as many as their first
// chunks fill.
double running_bound(const models::SchedulerLimits& l, const models::RequestShape& shape) {
  return l.kv.admission == models::KvAdmission::whole_request
             ? l.max_sequences
             : std::min(l.max_sequences, std::ceil(l.kv.tokens / std::min(shape.input_len, l.max_step_tokens)));
}

// A closed loop large enough that the queue never empties: every request that can run, plus the
// prompts one step's token budget admits, plus one.
double endless_queue_clients(const models::SchedulerLimits& l, const models::RequestShape& shape) {
  return running_bound(l, shape) + std::ceil(l.max_step_tokens / shape.input_len) + 1;
}

EngineSteadyState run(const Scenario& s, models::EngineMode mode, double clients, const InferenceOptions& o) {
  EngineSteadyState r;
  r.engine = s.inference->engine.value_or(models::ServingEngine::vllm);
  r.engine_given = s.inference->engine.has_value();
  r.mode = mode;
  r.limits = engine_limits_for(s, mode);
  const models::RequestShape shape = request_shape(s);
  // A finite benchmark of N requests: the server's clients send C at a time; offline (batch = "max") the
  // whole dataset is queued at once, as trtllm-bench throughput and vllm bench throughput run one.
  const bool finite = s.serving.benchmark_requests.has_value();
  const bool whole_dataset = finite && mode == models::EngineMode::offline;
  if (whole_dataset) clients = *s.serving.benchmark_requests;
  if (clients <= 0) clients = endless_queue_clients(r.limits.limits, shape);
  r.concurrency = clients;
  const models::StepCosts costs = step_costs(s, r.limits.limits, o);
  // A server's clients send their next request over HTTP; an offline benchmark queues in process.
  const models::Load load{.kind = models::LoadKind::closed_loop,
                          .concurrency = clients,
                          .benchmark_requests = finite ? static_cast<int>(*s.serving.benchmark_requests) : 0,
                          .reissue_steps = mode == models::EngineMode::server ? 1 : 0,
                          .chunk_gaps = mode == models::EngineMode::server};
  r.result = models::simulate_serving(costs, r.limits.limits, shape, load,
                                      s.serving.slo_percentile / 100);
  r.assumptions.push_back(fmt::format("engine {}{}: {}", engine_name(r.engine), r.engine_given ? "" : " (the default; [inference] engine)",
                                      r.limits.rule));
  r.assumptions.push_back(
      "in-flight batching simulated step by step (F-SRV-2): decodes first, then prompt chunks within the step's token budget, first "
      "come first served; one forward pass per step timed by the roofline with the weights read once for all its tokens");
  const std::string lengths = request_lengths_text(s);
  r.assumptions.push_back(whole_dataset ? fmt::format("a benchmark of {} requests from an idle engine, all queued at once ([serving] "
                                                      "benchmark_requests), every request counted, throughput over the time to the last "
                                                      "completion: the ramp while the first prompts fill the batch and the drain after the "
                                                      "last admission are in the figures; {}",
                                                      r.result.requests, lengths)
                          : finite        ? fmt::format("a benchmark of {} requests from an idle engine, {:g} sent at once and each next one "
                                                        "when one finishes, every request counted, throughput over the time to the last "
                                                        "completion; {}",
                                                        r.result.requests, std::min(clients, *s.serving.benchmark_requests), lengths)
                                          : fmt::format("steady state: statistics over {} requests after {} warm-up ones, the load applied "
                                                        "throughout; {}",
                                                        r.result.requests, r.result.warmup, lengths));
  return r;
}

}  // namespace

std::string request_lengths_text(const Scenario& s) {
  const models::RequestShape shape = request_shape(s);
  const double f = shape.length_min_fraction;
  if (f < 1)
    return fmt::format("prompt and output lengths uniform in [{:g}, {:g}] and [{:g}, {:g}] tokens ([serving] length_min_fraction {:g})",
                       std::max(1.0, std::floor(f * shape.input_len)), shape.input_len, std::max(1.0, std::floor(f * shape.output_len)),
                       shape.output_len, f);
  if (shape.output_len_cv2 > 0)
    return fmt::format("{:g}-token prompts, output lengths gamma-distributed of mean {:g} and C² = {:g} ([serving] length_cv2)",
                       s.inference->input_len, shape.output_len, shape.output_len_cv2);
  return fmt::format("every request {:g} prompt + {:g} output tokens", s.inference->input_len, shape.output_len);
}

models::StepCosts step_costs(const Scenario& s, const models::SchedulerLimits& limits, const InferenceOptions& o) {
  const double context = mean_context(*s.inference) * mean_length_share(s);
  models::StepCosts c;
  c.decode_attention.push_back({0, 0});
  // Both tables start on the same grid (step_grid's points do not depend on the limit): each pass
  // serves both below the running limit, which ends the attention table with a point of its own.
  // A padded step runs up to the largest captured graph's rows.
  const double decoding = running_bound(limits, request_shape(s));
  const double rows = std::max({limits.max_step_tokens, decoding,
                                limits.graph_batch_sizes.empty() ? 0.0 : limits.graph_batch_sizes.back() * (limits.speculation.draft_tokens + 1)});
  for (double n : models::step_grid(rows)) {
    const PassTime pass = decode_step_time(s, n, context, o);
    c.token_work.push_back({n, pass.total_s - pass.attention_s});
    if (n < decoding) c.decode_attention.push_back({n, pass.attention_s});
  }
  const double last = std::floor(decoding);
  c.decode_attention.push_back({last, decode_step_time(s, last, context, o).attention_s});
  // A prefix-cache hit of share h leaves the last (1 − h) of the prompt to compute, whose causal
  // attention is (1 − h²) of the whole prompt's: (1 + h) times the whole's per token. A prompt's
  // attention per token grows with its length: uniform lengths take their mean share.
  const double h = s.serving.prefix_cache_hit_rate;
  c.prefill_attention_per_token_s = prefill_time(s, 1, o).attention_s / s.inference->input_len * (1 + h) * mean_length_share(s);
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
  d.kv_tokens = memory.kv_pool_tokens.value_or(0);
  d.kv_block_tokens = in.kv_block.value_or(MemoryOverheads{}.kv_block_tokens);
  d.max_context = s.workload.transformer().max_context;
  d.input_len = in.input_len;
  d.output_len = std::max(1.0, in.output_len);
  d.pp = s.parallelism.pp;
  models::EngineLimits e = models::engine_limits(in.engine.value_or(models::ServingEngine::vllm), mode, d);
  const ServingSettings& sv = s.serving;
  if (sv.max_concurrency) {
    const bool whole = e.limits.kv.admission == models::KvAdmission::whole_request;
    e.limits.max_sequences = whole ? std::min(*sv.max_concurrency, fit) : *sv.max_concurrency;
    e.concurrency = std::min(e.concurrency, e.limits.max_sequences);
    e.max_batch_size = *sv.max_concurrency;
    e.rule += fmt::format("; [serving] max_concurrency {:g}", *sv.max_concurrency);
  }
  if (sv.max_batched_tokens) {
    e.limits.max_step_tokens = *sv.max_batched_tokens;
    e.rule += fmt::format("; [serving] max_batched_tokens {:g}", *sv.max_batched_tokens);
  }
  // A [serving] switch given replaces the engine's, and the rule says so.
  auto replace = [&e](const std::optional<bool>& given, bool models::SchedulerLimits::*limit, std::string_view key) {
    if (!given) return;
    e.limits.*limit = *given;
    e.rule += fmt::format("; [serving] {} {}", key, *given);
  };
  replace(sv.chunked_prefill, &models::SchedulerLimits::chunked_prefill, "chunked_prefill");
  replace(sv.mixed_prefill, &models::SchedulerLimits::mixed_prefill, "mixed_prefill");
  replace(sv.overlap_scheduling, &models::SchedulerLimits::overlap_scheduling, "overlap_scheduling");
  if (sv.cuda_graph_padding.value_or(false)) {
    if (in.engine != models::ServingEngine::trtllm)
      throw InputError({s.file, 0, 0}, "serving.cuda_graph_padding: modelled for TensorRT-LLM only (set [inference] engine = \"trtllm\")");
    // CudaGraphConfig without batch_sizes captures its generated list up to its max_batch_size, 128 by
    // default: 1, 2, 4 and the multiples of 8 to 128 when padding (tensorrt_llm/llmapi/llm_args.py,
    // _generate_cuda_graph_batch_sizes); no graph is captured above the engine's max_batch_size.
    std::vector<double> sizes = sv.cuda_graph_batch_sizes;
    if (sizes.empty()) {
      sizes = {1, 2, 4};
      for (double b = 8; b <= 128; b += 8) sizes.push_back(b);
    }
    std::erase_if(sizes, [&](double b) { return b > e.max_batch_size; });
    e.limits.graph_batch_sizes = sizes;
    e.rule += sizes.empty() ? fmt::format("; [serving] cuda_graph_padding, but no graph size at or below max_batch_size {:g}: no step padded",
                                          e.max_batch_size)
                            : fmt::format("; [serving] cuda_graph_padding: decode-only steps of up to {:g} requests padded to the next of {} "
                                          "captured batch sizes",
                                          sizes.back(), sizes.size());
  }
  if (in.speculative_alpha) {
    const double a = *in.speculative_alpha;
    const int g = *in.draft_length;
    e.limits.speculation = {g, (1 - std::pow(a, g + 1)) / (1 - a), *in.draft_cost_ratio};
    e.rule += fmt::format("; speculative decoding: {} draft tokens verified a step, {:.2f} kept on average (α {:g}), drafts at {:g} of "
                          "a target step each (F-INF-5)",
                          g, e.limits.speculation.tokens_per_step, a, *in.draft_cost_ratio);
  }
  if (sv.scheduler_steps && *sv.scheduler_steps > 1) {
    // F-SRV-5: vLLM V0's multi-step scheduling as v0.6.0 ran it, prompts whole and in steps of their own
    // (vllm/sequence.py init_multi_step_from_lookahead_slots: a prefill one step, a decode
    // num_lookahead_slots + 1 = num_scheduler_steps).
    if (in.engine.value_or(models::ServingEngine::vllm) != models::ServingEngine::vllm)
      throw InputError({s.file, 0, 0}, "serving.scheduler_steps: multi-step scheduling is vLLM V0's (--num-scheduler-steps); set [inference] engine = \"vllm\"");
    if (e.limits.chunked_prefill || e.limits.mixed_prefill)
      throw InputError({s.file, 0, 0}, "serving.scheduler_steps: modelled as vLLM 0.6.0 ran it, without chunked prefill: set chunked_prefill = false "
                                       "and mixed_prefill = false");
    if (e.limits.speculation.draft_tokens > 0)
      throw InputError({s.file, 0, 0}, "serving.scheduler_steps: multi-step rounds with speculative decoding are not modelled; "
                                       "drop scheduler_steps or speculative_alpha");
    e.limits.decode_round_steps = *sv.scheduler_steps;
    e.rule += fmt::format("; [serving] scheduler_steps {}: decode rounds of {} steps, scheduled once, tokens streamed at a round's end (F-SRV-5)",
                          *sv.scheduler_steps, *sv.scheduler_steps);
  }
  if (e.limits.max_step_tokens < e.limits.speculation.draft_tokens + 1)
    throw InputError({s.file, 0, 0}, fmt::format("serving.max_batched_tokens: {:g} tokens a step cannot verify {} draft tokens + 1",
                                                 e.limits.max_step_tokens, e.limits.speculation.draft_tokens));
  if (sv.prefix_cache_hit_rate > 0)
    e.rule += fmt::format("; prefix cache: {:.0f} % of each prompt cached, {:g} tokens computed", 100 * sv.prefix_cache_hit_rate,
                          request_shape(s).input_len);
  return e;
}

EngineSteadyState closed_loop(const Scenario& s, double clients, const InferenceOptions& o) {
  EngineSteadyState r = run(s, models::EngineMode::server, clients, o);
  r.load = fmt::format("closed loop of {:g} client{}", clients, clients == 1 ? "" : "s");
  if (s.serving.benchmark_requests) r.load += fmt::format(", a benchmark of {:.0f} requests from an idle engine", *s.serving.benchmark_requests);
  return r;
}

RateModel rate_model(const Scenario& s, const InferenceOptions& o) {
  RateModel m;
  m.limits = engine_limits_for(s, models::EngineMode::server);
  m.costs = step_costs(s, m.limits.limits, o);
  m.shape = request_shape(s);
  m.arrival_cv2 = s.serving.arrival_cv2;
  m.percentile = s.serving.slo_percentile / 100;
  m.engine = fmt::format("{}{}", engine_name(s.inference->engine.value_or(models::ServingEngine::vllm)),
                         s.inference->engine ? "" : " (default)");
  return with_shape(m, m.shape);
}

RateModel with_shape(RateModel m, const models::RequestShape& shape) {
  m.shape = shape;
  const models::SchedulerLimits& l = m.limits.limits;
  m.saturation_rate = models::simulate_serving(m.costs, l, m.shape,
                                               {.kind = models::LoadKind::closed_loop,
                                                .concurrency = endless_queue_clients(l, shape),
                                                .reissue_steps = 0,
                                                .chunk_gaps = false},
                                               m.percentile)
                          .requests_per_s;
  return m;
}

models::ServingPoint serve_at(const RateModel& m, double rate, bool chunk_gaps) {
  const models::SimulatedServing r =
      models::simulate_serving(m.costs, m.limits.limits, m.shape,
                               {.kind = models::LoadKind::poisson, .rate = rate, .arrival_cv2 = m.arrival_cv2, .chunk_gaps = chunk_gaps},
                               m.percentile);
  models::ServingPoint p;
  p.rate = rate;
  p.load = rate / m.saturation_rate;
  p.percentile = m.percentile;
  p.occupancy = r.decoding_mean;
  p.slot_utilisation = r.decoding_mean / m.limits.concurrency;
  p.prefill_share = r.prompt_time_share;
  p.busy_share = r.busy_share;
  p.step_s = r.step_mean_s;
  // Below saturation the replica completes what arrives: λ·n_out, not the sample's window.
  p.output_tokens_per_s = rate < m.saturation_rate ? rate * m.shape.output_len : r.output_tokens_per_s;
  p.admission_wait_probability = r.admission_wait_probability;
  p.admission_wait_s = r.admission_wait_mean_s;
  p.prefill_wait_s = r.prompt_mean_s;
  p.ttft_mean_s = r.ttft_mean_s, p.ttft_p50_s = r.ttft_p50_s, p.ttft_p_s = r.ttft_p_s;
  p.tpot_mean_s = r.tpot_mean_s, p.tpot_p50_s = r.tpot_p50_s, p.tpot_p_s = r.tpot_p_s;
  p.e2e_mean_s = r.e2e_mean_s, p.e2e_p50_s = r.e2e_p50_s, p.e2e_p_s = r.e2e_p_s;
  p.itl_mean_s = r.itl_mean_s, p.itl_p50_s = r.itl_p50_s, p.itl_p_s = r.itl_p_s, p.chunk_gaps = r.chunk_gaps;
  p.concurrency = r.in_system_mean;
  return p;
}

std::optional<double> slo_rate_of(const RateModel& m, const models::Slo& slo) {
  double lo = m.saturation_rate * 1e-4, hi = m.saturation_rate;
  if (!models::meets(serve_at(m, lo, false), slo)) return std::nullopt;
  if (models::meets(serve_at(m, hi, false), slo)) return hi;
  // The rate is found to 0.5 % of saturation: the simulation's own sampling error is about that.
  while (hi - lo > 0.005 * m.saturation_rate) {
    const double mid = (lo + hi) / 2;
    (models::meets(serve_at(m, mid, false), slo) ? lo : hi) = mid;
  }
  return lo;
}

EngineSteadyState max_throughput(const Scenario& s, const InferenceOptions& o) {
  EngineSteadyState r = run(s, models::EngineMode::offline, 0, o);
  r.load = s.serving.benchmark_requests
               ? fmt::format("maximum throughput over a benchmark of {:.0f} requests, all queued at once on an idle engine",
                             *s.serving.benchmark_requests)
               : fmt::format("maximum throughput: a queue that never empties ({:g} requests in the loop)", r.concurrency);
  return r;
}

int replicas_for(double rate, double per_replica) {
  const double ratio = rate / per_replica;
  if (!(ratio <= kMaxReplicas))
    throw InputError({}, fmt::format("{:g} requests/s at {:.4g} per replica needs more than {} replicas", rate, per_replica, kMaxReplicas));
  return static_cast<int>(std::ceil(ratio * (1 - 1e-12)));
}

RateSizing size_for_rate(const RateModel& m, const models::Slo& slo, std::optional<double> rate) {
  RateSizing z;
  z.slo_rate = slo_rate_of(m, slo);
  if (!rate || !z.slo_rate) return z;
  z.replicas = replicas_for(*rate, *z.slo_rate);
  z.at_share = serve_at(m, *rate / *z.replicas);
  return z;
}

}  // namespace perfcast
