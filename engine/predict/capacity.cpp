#include "engine/predict/capacity.hpp"

#include <cmath>
#include <fmt/format.h>

#include "engine/predict/communication.hpp"
#include "engine/core/errors.hpp"
#include "engine/layout/rules.hpp"
#include "engine/predict/engine_serving.hpp"
#include "engine/predict/inference.hpp"
#include "engine/core/quantity_text.hpp"

namespace perfcast {
namespace {

// Why no rate meets the SLO: the latency a lone request already has.
std::string infeasible_verdict(const models::ReplicaTimes& r, const models::Slo& slo, double input_len) {
  const models::ServingPoint idle = models::serve(r, models::saturation_rate(r) * 1e-9, slo.percentile);
  if (slo.ttft_s && idle.ttft_p_s > *slo.ttft_s)
    return fmt::format("no load meets the TTFT SLO of {}: one {:g}-token prompt alone takes {} to prefill", duration_text(*slo.ttft_s),
                       input_len, duration_text(idle.ttft_p_s));
  return fmt::format("no load meets the TPOT SLO of {}: one sequence alone decodes at {} per token", duration_text(*slo.tpot_s),
                     duration_text(idle.tpot_p_s));
}

// --concurrency C: the steady state of C clients on one replica (the engine's scheduler simulated).
CapacityReport closed_loop_capacity(const Scenario& s, double clients, CapacityReport c) {
  if (!s.workload.is_transformer())
    throw InputError({s.file, 0, 0}, "capacity --concurrency: needs an LLM [inference] scenario (vision models have no decode)");
  Scenario one = s;
  one.serving.slo_percentile = c.slo.percentile * 100;
  c.closed_loop = closed_loop(one, clients);
  c.scenario = s.name;
  c.workload = s.workload.display_name.empty() ? s.workload.name : s.workload.display_name;
  c.accelerator = s.hw.device.display_name;
  c.devices_per_replica = s.hardware.count / data_parallel(s.parallelism, s.hardware.count);
  c.layout = layout_text(s.parallelism, 1);
  c.input_len = s.inference->input_len;
  c.output_len = s.inference->output_len;
  const models::SimulatedServing& r = c.closed_loop->result;
  if (c.slo.ttft_s || c.slo.tpot_s)
    c.closed_loop_meets_slo = (!c.slo.ttft_s || r.ttft_p_s <= *c.slo.ttft_s) && (!c.slo.tpot_s || r.tpot_p_s <= *c.slo.tpot_s);
  c.assumptions = c.closed_loop->assumptions;
  c.assumptions.push_back(fmt::format("closed loop: {:g} clients each send the next request when the last one finishes (vllm bench serve "
                                      "--max-concurrency {:g} --request-rate inf; genai-perf --concurrency {:g}); one replica",
                                      clients, clients, clients));
  return c;
}

}  // namespace

CapacityReport capacity_for_scenario(const Scenario& s, const CapacityRequest& request) {
  if (!s.inference) throw InputError({s.file, 0, 0}, "capacity: needs an [inference] scenario");
  CapacityReport c;
  c.slo.ttft_s = request.ttft_slo_s ? request.ttft_slo_s : s.serving.ttft_slo_s;
  c.slo.tpot_s = request.tpot_slo_s ? request.tpot_slo_s : s.serving.tpot_slo_s;
  c.slo.percentile = request.percentile.value_or(s.serving.slo_percentile) / 100;
  if (request.concurrency) return closed_loop_capacity(s, *request.concurrency, c);
  if (!c.slo.ttft_s && !c.slo.tpot_s)
    throw InputError({s.file, 0, 0}, "capacity: no SLO: give --ttft-slo and/or --tpot-slo, or [serving] ttft_slo_s / tpot_slo_s");
  c.target_rate = request.rate ? request.rate : s.serving.arrival_rate;

  c.replica = replica_times(s);
  c.scenario = s.name;
  c.workload = s.workload.display_name.empty() ? s.workload.name : s.workload.display_name;
  c.accelerator = s.hw.device.display_name;
  const int dp = data_parallel(s.parallelism, s.hardware.count);
  c.devices_per_replica = s.hardware.count / dp;
  c.layout = layout_text(s.parallelism, 1);
  c.input_len = s.inference->input_len;
  c.output_len = s.inference->output_len;
  c.saturation_rate = models::saturation_rate(c.replica);

  c.slo_rate = models::slo_rate(c.replica, c.slo);
  if (!c.slo_rate) c.slo_verdict = infeasible_verdict(c.replica, c.slo, c.input_len);
  if (c.target_rate && c.slo_rate) {
    const double ratio = *c.target_rate / *c.slo_rate;
    c.replicas = static_cast<int>(std::ceil(ratio * (1 - 1e-12)));
    c.devices = *c.replicas * c.devices_per_replica;
    c.at_target = models::serve(c.replica, *c.target_rate / *c.replicas, c.slo.percentile);
  }
  for (double load : {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95}) {
    const models::ServingPoint p = models::serve(c.replica, load * c.saturation_rate, c.slo.percentile);
    c.curve.push_back({p, models::meets(p, c.slo)});
  }

  c.assumptions = {
      "continuous batching, one replica (models/serving.hpp): prefill of one prompt at a time with priority, decode steps over the "
      "running batch at the mean context input_len + output_len/2, timed as perfcast predict times them",
      fmt::format("arrivals C_a² = {:g} (1 = Poisson), request lengths C_s² = {:g} (0 = the scenario's fixed lengths); [serving] "
                  "arrival_cv2 / length_cv2",
                  c.replica.arrival_cv2, c.replica.length_cv2),
      fmt::format("at most {:g} sequences per replica ({}); admission waits for a free slot (G/G/c, Allen–Cunneen), prompts for the "
                  "prefill (G/G/1, Kingman); quantiles from exponential wait tails (exact for M/M/c, heuristic otherwise)",
                  c.replica.max_concurrency, s.serving.max_concurrency ? "[serving] max_concurrency" : "what fits in memory"),
      "TPOT quantile: the batch a request sees (Poisson busy slots) and the prefills interleaved with its decode (Poisson), each at the "
      "percentile: conservative",
      "replicas share the load evenly (random routing keeps each replica's arrivals Poisson)",
  };
  return c;
}

}  // namespace perfcast
