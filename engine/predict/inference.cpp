#include "engine/predict/inference.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "engine/predict/communication.hpp"
#include "engine/predict/engine_serving.hpp"
#include "engine/core/errors.hpp"
#include "engine/layout/rules.hpp"
#include "engine/predict/roofline.hpp"
#include "engine/layout/topology.hpp"
#include "models/traffic.hpp"

namespace perfcast {
namespace {

using models::Phase;

struct PassSums {
  double time_s = 0, bytes = 0, model_flops = 0, memory_bound_s = 0, attention_s = 0;
};

PassSums sums_of(const RooflineReport& r) {
  PassSums p;
  for (const RooflineSection& s : r.sections) {
    p.time_s += s.time_s * s.repeats;
    for (const RooflineRow& row : s.rows) {
      p.bytes += (row.op.bytes() + row.host_bytes) * s.repeats;
      p.model_flops += row.op.model_flops * s.repeats;
      if (row.timing.bound != models::Bound::compute) p.memory_bound_s += row.timing.time_s * s.repeats;
      if (row.op.kind == models::OpKind::attention) p.attention_s += row.timing.time_s * s.repeats;
    }
  }
  return p;
}

// The tensor/expert-parallel collectives of one pass over every layer of the request's path (all
// pipeline stages), on the links the placement gives each group; inference runs them exposed.
double comm_seconds(const Scenario& s, const InferenceOptions& o, double tokens) {
  const ParallelismSettings& par = s.parallelism;
  if (par.tp == 1 && par.ep == 1 && par.pp == 1) return 0;
  const models::TransformerSpec& m = s.workload.transformer();
  const Precision compute = s.inference->compute_dtype.value_or(Precision::bf16);
  models::InferenceLayout l;
  l.tp = par.tp, l.ep = par.ep, l.pp = par.pp;
  l.activation_bytes = compute == Precision::fp32 ? 4 : 2;
  l.dispatch_bytes = l.combine_bytes = l.activation_bytes;
  l.dense_layers = m.dense_layers();
  l.moe_layers = m.moe_layers();
  l.tokens = tokens;
  const std::vector<GroupPlacement> placements =
      place_groups(topology_of(s), par, s.hardware.count, *parse_order(default_order()));
  return time_traffic("pass", models::inference_traffic(m, l), placements, o.collective).time_s;
}

// The largest batch in [1, limit] whose decode step stays within `bound` (the step grows with batch).
std::optional<double> largest_batch_within(const Scenario& s, const InferenceOptions& o, double limit,
                                           double bound) {
  const double context = mean_context(*s.inference);
  if (decode_step_seconds(s, 1, context, o) > bound) return std::nullopt;
  double lo = 1, hi = std::floor(limit);
  while (lo < hi) {
    const double mid = std::ceil((lo + hi) / 2);
    if (decode_step_seconds(s, mid, context, o) <= bound) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

std::string percent(double x) { return fmt::format("{:.0f}%", 100 * x); }

EdgeResult edge_result(const Scenario& s, const RooflineReport& r, double latency, double batch) {
  const AcceleratorSpec& a = s.hw.device;
  EdgeResult e;
  e.latency_s = latency;
  e.fps = batch / latency;
  const std::optional<PowerMode>& mode = s.hw.power_mode;
  if (mode) {
    e.power_W = mode->power_W;
    e.power_source = fmt::format("power mode {}", mode->name);
  } else if (a.tdp_W) {
    e.power_W = *a.tdp_W;
    e.power_source = "rated power (TDP)";
  }
  double ops = 0;
  for (const RooflineSection& sec : r.sections)
    for (const RooflineRow& row : sec.rows) {
      ops += row.op.flops * sec.repeats;
      e.streamed_B += (row.host_bytes - row.host_io_bytes) * sec.repeats;
    }
  if (e.power_W > 0) {
    e.energy_per_inference_J = e.power_W * latency / batch;
    e.achieved_tops_per_W = ops / latency / e.power_W / 1e12;
  }
  e.target_fps = s.inference->target_fps;
  if (e.target_fps) {
    const double budget = 1 / *e.target_fps, frame = latency / batch;
    e.verdict = frame <= budget
                    ? fmt::format("{:.1f} ms budget at {:g} FPS: fits with {} headroom", budget * 1e3, *e.target_fps, percent(1 - frame / budget))
                    : fmt::format("{:.1f} ms budget at {:g} FPS: misses by {} ({:.1f} ms per frame; {:.0f} FPS is the most)", budget * 1e3,
                                  *e.target_fps, percent(frame / budget - 1), frame * 1e3, 1 / frame);
  }
  return e;
}

// Fills p.serving with the steady state at [serving] arrival_rate / dp (or, past saturation, says
// the replica is overloaded).
void serving_at_rate(const Scenario& s, const InferenceOptions& o, InferencePrediction& p) {
  const RateModel m = rate_model(s, o);
  const int replicas = data_parallel(s.parallelism, s.hardware.count);
  const double rate = *s.serving.arrival_rate / replicas;
  p.serving_saturation_rate = m.saturation_rate;
  p.serving = serve_at(m, rate);
  p.assumptions.push_back(fmt::format("serving: {:g} requests/s spread evenly over {} replica(s); engine {} simulated step by step "
                                      "under arrivals of C² = {:g} (F-SRV-2; perfcast capacity sizes the replicas)",
                                      *s.serving.arrival_rate, replicas, m.engine, m.arrival_cv2));
  if (rate >= *p.serving_saturation_rate)
    p.bottleneck = fmt::format("overloaded: {:.4g} requests/s per replica exceed the {:.4g} requests/s one replica sustains; "
                               "queues grow without bound, and the serving figures are of the simulated 2,200 requests, not a "
                               "steady state (perfcast capacity says how many replicas)",
                               rate, *p.serving_saturation_rate);
}

// batch = "max": the headline figures become the engine's steady state on an endless queue.
void engine_headline(const Scenario& s, const InferenceOptions& o, InferencePrediction& p) {
  p.engine = max_throughput(s, o);
  const models::SimulatedServing& r = p.engine->result;
  p.batch = r.decoding_mean;
  p.ttft_s = r.ttft_mean_s;
  p.tpot_s = r.tpot_mean_s;
  p.e2e_s = r.e2e_mean_s;
  p.output_tokens_per_s = r.output_tokens_per_s;
  p.output_tokens_per_s_per_device = r.output_tokens_per_s / p.devices;
  p.requests_per_s = r.requests_per_s;
  p.decode_tokens_per_s = r.output_tokens_per_s;
  p.assumptions.push_back(fmt::format("batch = \"max\": TTFT, TPOT, E2E (means) and throughput are the engine's steady state ({}); "
                                      "prefill, decode step, MBU and the curve are the static batch of {:g} that fits",
                                      p.engine->load, std::floor(p.max_batch.value_or(1))));
  for (const std::string& a : p.engine->assumptions) p.assumptions.push_back(a);
}

}  // namespace

double mean_context(const InferenceSettings& in) { return in.input_len + in.output_len / 2; }

PassTime decode_step_time(const Scenario& s, double batch, double context, const InferenceOptions& o) {
  const PassSums pass = sums_of(roofline_for_pass(s, Phase::decode, batch, context, o.efficiency));
  return {pass.time_s + comm_seconds(s, o, batch), pass.attention_s};
}

PassTime prefill_time(const Scenario& s, double batch, const InferenceOptions& o) {
  const PassSums pass = sums_of(roofline_for_pass(s, Phase::prefill, batch, 0, o.efficiency));
  return {pass.time_s + comm_seconds(s, o, batch * s.inference->input_len), pass.attention_s};
}

double decode_step_seconds(const Scenario& s, double batch, double context, const InferenceOptions& o) {
  return decode_step_time(s, batch, context, o).total_s;
}

double prefill_seconds(const Scenario& s, double batch, const InferenceOptions& o) { return prefill_time(s, batch, o).total_s; }

models::ReplicaTimes replica_times(const Scenario& s, const InferenceOptions& o) {
  if (!s.inference || !s.workload.is_transformer())
    throw InputError({s.file, 0, 0}, "serving: needs an LLM [inference] scenario (vision models have no decode)");
  const InferenceSettings& in = *s.inference;
  models::ReplicaTimes r;
  r.max_concurrency = engine_limits_for(s, models::EngineMode::server).concurrency;  // throws when none fits
  r.output_len = std::max(1.0, in.output_len);
  r.prefill_s = prefill_seconds(s, 1, o);
  const double context = mean_context(in);
  for (double b : models::step_grid(r.max_concurrency)) r.decode.push_back({b, decode_step_seconds(s, b, context, o)});
  return r;
}

InferencePrediction predict_inference(const Scenario& s, const InferenceOptions& o) {
  if (!s.inference) throw InputError({s.file, 0, 0}, "predict_inference: not an [inference] scenario");
  const InferenceSettings& in = *s.inference;
  const AcceleratorSpec& a = s.hw.device;
  InferencePrediction p;
  p.scenario = s.name;
  p.workload = s.workload.label();
  p.accelerator = a.display_name;
  p.batch = in.batch.value_or(1);
  p.input_len = in.input_len;
  p.output_len = in.output_len;
  const int dp = data_parallel(s.parallelism, s.hardware.count);
  p.devices = s.hardware.count / dp;
  p.layout = layout_text(s.parallelism, dp);
  p.memory = memory_for_scenario(s);

  if (!s.workload.is_transformer()) {
    if (in.max_throughput)
      throw InputError({s.file, 0, 0}, "inference.batch: \"max\" is an LLM serving engine's steady state; give a vision model a number "
                                       "of frames per batch");
    const RooflineReport r = roofline_for_pass(s, Phase::prefill, p.batch, 0, o.efficiency);
    p.precision = std::string(name_of(r.precision));
    const PassSums pass = sums_of(r);
    p.edge = edge_result(s, r, pass.time_s, p.batch);
    p.ttft_s = p.e2e_s = pass.time_s;
    p.bytes_per_step = pass.bytes;
    p.curve.push_back({p.batch, pass.time_s, p.batch / pass.time_s, p.memory.fits});
    p.bottleneck = p.edge->streamed_B > 0
                       ? fmt::format("{:.3g} MB of parameters do not fit on-chip and stream over the host link every inference",
                                     p.edge->streamed_B / 1e6)
                       : pass.memory_bound_s > pass.time_s / 2 ? fmt::format("memory-bound: {} of the pass in bandwidth- or launch-bound ops",
                                                                             percent(pass.memory_bound_s / pass.time_s))
                                                               : "compute-bound";
    p.assumptions.push_back("one forward pass per frame timed by the roofline (perfcast roofline); energy = rated power x latency "
                            "(an upper bound: the device runs below its rating in memory-bound layers)");
    if (s.hardware.dla)
      p.assumptions.push_back("one DLA core at its share of the module's dense INT8 rate, at full clock in every power mode (the "
                              "database has no DLA clock caps); layers the DLA cannot run would fall back to the GPU (not modelled)");
    return p;
  }

  if (!p.memory.fits && o.require_fit) {
    const std::string fits = p.memory.max_batch && *p.memory.max_batch >= 1 ? fmt::format("{:g} sequences fit", *p.memory.max_batch)
                                                                            : p.memory.verdict;
    throw InputError({s.file, 0, 0}, fmt::format("inference.batch: {:g} sequences of {:g} + {:g} tokens do not fit in {}: {}", p.batch,
                                                 in.input_len, in.output_len, a.display_name, fits));
  }
  p.max_batch = p.memory.max_batch;
  if (!p.memory.fits) p.assumptions.push_back("the batch does not fit in device memory by this memory model: " + p.memory.verdict);
  // An omitted batch is the largest static batch that fits; "max" times that batch statically and
  // takes the headline figures from the engine's steady state below.
  if (!in.batch) p.batch = std::max(1.0, std::floor(p.memory.max_batch.value_or(1)));

  const RooflineReport prefill = roofline_for_pass(s, Phase::prefill, p.batch, 0, o.efficiency);
  p.precision = std::string(name_of(prefill.precision));
  const PassSums pre = sums_of(prefill);
  p.prefill_comm_s = comm_seconds(s, o, p.batch * in.input_len);
  p.prefill_s = pre.time_s + p.prefill_comm_s;
  // MFU against the rated peak, before a power limit or the sustained rate (F-EN-4, F-EN-5) lowers it.
  p.prefill_mfu = pre.model_flops / pre.time_s / s.hw.rated_peak(prefill.precision).value_or(prefill.peak_ops_per_s);
  p.ttft_s = p.prefill_s;

  const double context = mean_context(in);
  const RooflineReport decode = roofline_for_pass(s, Phase::decode, p.batch, context, o.efficiency);
  const PassSums dec = sums_of(decode);
  p.decode_comm_s = comm_seconds(s, o, p.batch);
  p.decode_step_s = dec.time_s + p.decode_comm_s;
  p.bytes_per_step = dec.bytes;
  p.mbu = a.memory_bandwidth_Bps ? dec.bytes / p.decode_step_s / *a.memory_bandwidth_Bps : 0;
  p.tpot_s = p.decode_step_s;
  const double steps = std::max(0.0, in.output_len - 1);  // the first token comes from the prefill
  p.e2e_s = p.ttft_s + steps * p.tpot_s;
  const double out = std::max(1.0, in.output_len);
  p.output_tokens_per_s = p.batch * out / p.e2e_s;
  p.output_tokens_per_s_per_device = p.output_tokens_per_s / p.devices;
  p.decode_tokens_per_s = p.batch / p.decode_step_s;
  p.requests_per_s = p.batch / p.e2e_s;

  const double limit = o.extras ? std::min(p.max_batch.value_or(p.batch), 65536.0) : 0;
  for (double b = 1; b <= limit; b *= 2) {
    const double step = decode_step_seconds(s, b, context, o);
    p.curve.push_back({b, step, b / step, true});
  }
  if (limit >= 1 && (p.curve.empty() || p.curve.back().batch < std::floor(limit))) {
    const double b = std::floor(limit), step = decode_step_seconds(s, b, context, o);
    p.curve.push_back({b, step, b / step, true});
  }
  if (s.serving.tpot_slo_s && o.extras) {
    p.tpot_bound_s = s.serving.tpot_slo_s;
    if (auto b = largest_batch_within(s, o, limit, *p.tpot_bound_s)) {
      const double step = decode_step_seconds(s, *b, context, o);
      p.best_within_tpot = BatchPoint{*b, step, *b / step, true};
    }
  }
  if (in.speculative_alpha) {
    SpeculativeResult sp;
    sp.alpha = *in.speculative_alpha;
    sp.draft_length = *in.draft_length;
    sp.draft_cost_ratio = *in.draft_cost_ratio;
    sp.tokens_per_target_step = (1 - std::pow(sp.alpha, sp.draft_length + 1)) / (1 - sp.alpha);
    sp.speedup = sp.tokens_per_target_step / (sp.draft_length * sp.draft_cost_ratio + 1);
    sp.tpot_s = p.tpot_s / sp.speedup;
    p.speculative = sp;
    p.assumptions.push_back("speculative decoding (Leviathan et al. 2023, F-INF-5): verifying γ + 1 tokens costs one target step, "
                            "which holds while decode is memory-bound");
  }

  const double comm_share = p.decode_comm_s / p.decode_step_s, memory_share = dec.memory_bound_s / p.decode_step_s;
  if (comm_share > 0.3)
    p.bottleneck = fmt::format("decode: tensor-parallel all-reduces are {} of the step; fewer tp ranks or a faster link", percent(comm_share));
  else if (memory_share > 0.5)
    p.bottleneck = fmt::format("decode is memory-bound ({} of the step in bandwidth- or launch-bound ops, MBU {}): a larger batch{} or "
                               "narrower weights/KV raise throughput",
                               percent(memory_share), percent(p.mbu),
                               p.max_batch ? fmt::format(" (up to {:g} fits)", std::floor(*p.max_batch)) : "");
  else
    p.bottleneck = fmt::format("decode is compute-bound at batch {:g}; throughput has saturated", p.batch);

  p.assumptions.push_back("ops per tp rank timed by the roofline (perfcast roofline); TP/EP collectives on their placement's links, "
                          "exposed (inference overlaps none)");
  p.assumptions.push_back("static batch: every sequence prefills together (TTFT = prefill of the batch), decode timed at the mean "
                          "context input_len + output_len/2; E2E = TTFT + (n_out − 1)·TPOT (F-INF-3)");
  add_sustained_assumption(p.assumptions, s.hw, prefill.precision);
  if (const AcceleratorSpec& d = s.hw.device; d.decode_attention_Bps) {
    std::string kv8;
    if (const auto& kv = s.inference->kv_dtype; d.decode_attention_fp8_kv_share && kv && bytes_per_element(*kv) == 1)
      kv8 = fmt::format("; this {} cache at {:.3g} of that per byte, {:.3g} TB/s (memory.decode_attention_fp8_kv_share{}; F-ATT-4)",
                        name_of(*kv), *d.decode_attention_fp8_kv_share,
                        *d.decode_attention_Bps * *d.decode_attention_fp8_kv_share / 1e12,
                        d.decode_attention_basis.starts_with("memory.decode_attention_from") ? ", the measured part's" : "");
    p.assumptions.push_back(fmt::format("decode attention streams its KV cache at {:.3g} TB/s, a measured decode kernel's rate in place of "
                                        "bandwidth x efficiency.memory (hardware_db {}, {}; F-ATT-2){}",
                                        *d.decode_attention_Bps / 1e12, d.name, d.decode_attention_basis, kv8));
  }
  if (const models::TransformerSpec* m = s.workload.is_transformer() ? &s.workload.transformer() : nullptr;
      m && s.decode_kv == models::DecodeKvReads::per_query_head && !m->mla && m->kv_heads < m->heads)
    p.assumptions.push_back("decode attention reads each KV head's cache once per query head of its group on the rank ([attention] "
                            "decode_kv = \"per-query-head\": one thread block per query head, as TensorRT-LLM's masked multi-head "
                            "attention kernel runs; L2 reuse between a group's blocks not modelled; F-ATT-3)");
  if (s.serving.arrival_rate && o.extras) serving_at_rate(s, o, p);
  if (s.serving.concurrency && o.extras) {
    p.closed_loop = closed_loop(s, *s.serving.concurrency, o);
    p.assumptions.push_back(fmt::format("serving: a closed loop of {:g} clients on each replica ([serving] concurrency); {}",
                                        *s.serving.concurrency, p.closed_loop->assumptions.front()));
  }
  if (s.parallelism.pp > 1)
    p.assumptions.push_back("pipeline stages run one after another for a request (latency); no micro-batching across stages");

  // Energy and cost over one static batch: prefill at tensor-core power, decode split by its
  // memory-bound share, exposed collectives at the idle floor; every replica alike.
  const double decode_memory_s = p.decode_step_s * memory_share;
  const double decode_compute_s = std::max(0.0, p.decode_step_s - p.decode_comm_s - decode_memory_s);
  const models::Activity use{.compute_s = p.prefill_s - p.prefill_comm_s + decode_compute_s * steps,
                             .memory_s = decode_memory_s * steps,
                             .communication_s = p.prefill_comm_s + p.decode_comm_s * steps};
  p.economics = economics_if_known(s, {.devices = s.hardware.count, .activity = use,
                                           .tokens_per_span = p.batch * p.output_len * dp});
  if (p.economics) p.economics->assumptions.push_back("tokens are output tokens; one static batch after another at full occupancy");
  if (in.max_throughput) engine_headline(s, o, p);
  return p;
}

}  // namespace perfcast
