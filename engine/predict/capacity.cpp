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
std::string infeasible_verdict(const RateModel& m, const models::Slo& slo, double input_len) {
  const models::ServingPoint idle = serve_at(m, m.saturation_rate * 1e-4);
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
  Scenario at_percentile = s;
  at_percentile.serving.slo_percentile = c.slo.percentile * 100;
  const RateModel m = rate_model(at_percentile);
  c.saturation_rate = m.saturation_rate;

  c.slo_rate = slo_rate_of(m, c.slo);
  if (!c.slo_rate) c.slo_verdict = infeasible_verdict(m, c.slo, c.input_len);
  if (c.target_rate && c.slo_rate) {
    const double ratio = *c.target_rate / *c.slo_rate;
    c.replicas = static_cast<int>(std::ceil(ratio * (1 - 1e-12)));
    c.devices = *c.replicas * c.devices_per_replica;
    c.at_target = serve_at(m, *c.target_rate / *c.replicas);
  }
  for (double load : {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95}) {
    const models::ServingPoint p = serve_at(m, load * c.saturation_rate);
    c.curve.push_back({p, models::meets(p, c.slo)});
  }

  c.assumptions = {
      fmt::format("engine {}: {}", m.engine, m.limits.rule),
      "in-flight batching of one replica simulated step by step (F-SRV-2): decodes first, then prompt chunks within the step's token "
      "budget, first come first served; each step one forward pass timed by the roofline, as perfcast predict times its passes",
      fmt::format("arrivals: gamma-distributed gaps of C² = {:g} (1 = Poisson; [serving] arrival_cv2); output lengths C² = {:g} "
                  "([serving] length_cv2; 0 = the scenario's fixed lengths); statistics over 2000 requests after 200, one seeded "
                  "sample (a rate's figures move by about 1 % with the seed)",
                  s.serving.arrival_cv2, s.serving.length_cv2),
      "saturation: the throughput of a queue that never empties under the server's limits; the SLO rate found to 0.5 % of it",
      "replicas share the load evenly (random routing keeps each replica's arrivals Poisson)",
  };
  return c;
}

}  // namespace perfcast
