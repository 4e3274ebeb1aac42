#include "engine/predict/capacity.hpp"

#include <cmath>
#include <fmt/format.h>

#include "engine/predict/communication.hpp"
#include "engine/core/errors.hpp"
#include "engine/layout/rules.hpp"
#include "engine/predict/engine_serving.hpp"
#include "engine/predict/inference.hpp"
#include "engine/predict/memory.hpp"
#include "engine/layout/topology.hpp"
#include "engine/core/quantity_text.hpp"
#include "engine/core/units.hpp"

namespace perfcast {
namespace {

// Why no rate meets the SLO: the latency a lone request already has.
std::string infeasible_verdict(const RateModel& m, const models::Slo& slo, double input_len) {
  const models::ServingPoint idle = serve_at(m, m.saturation_rate * 1e-4, false);
  if (slo.ttft_s && idle.ttft_p_s > *slo.ttft_s)
    return fmt::format("no load meets the TTFT SLO of {}: one {:g}-token prompt alone takes {} to prefill", duration_text(*slo.ttft_s),
                       input_len, duration_text(idle.ttft_p_s));
  return fmt::format("no load meets the TPOT SLO of {}: one sequence alone decodes at {} per token", duration_text(*slo.tpot_s),
                     duration_text(idle.tpot_p_s));
}

// What the report says of the scenario and one replica of its layout.
void describe_replica(const Scenario& s, CapacityReport& c) {
  c.scenario = s.name;
  c.workload = s.workload.label();
  c.accelerator = s.hw.device.display_name;
  c.devices_per_replica = s.hardware.count / data_parallel(s.parallelism, s.hardware.count);
  c.layout = layout_text(s.parallelism, 1);
  c.input_len = s.inference->input_len;
  c.output_len = s.inference->output_len;
}

// The scenario with its SLO percentile replaced by the request's (the simulated quantiles' percentile).
Scenario at_slo_percentile(const Scenario& s, const models::Slo& slo) {
  Scenario out = s;
  out.serving.slo_percentile = slo.percentile * 100;
  return out;
}

// --concurrency C: the steady state of C clients on one replica (the engine's scheduler simulated).
CapacityReport closed_loop_capacity(const Scenario& s, double clients, CapacityReport c) {
  if (!s.workload.is_transformer())
    throw InputError({s.file, 0, 0}, "capacity --concurrency: needs an LLM [inference] scenario (vision models have no decode)");
  c.closed_loop = closed_loop(at_slo_percentile(s, c.slo), clients);
  describe_replica(s, c);
  const models::SimulatedServing& r = c.closed_loop->result;
  if (c.slo.ttft_s || c.slo.tpot_s) c.closed_loop_meets_slo = models::meets(r.ttft_p_s, r.tpot_p_s, c.slo);
  c.assumptions = c.closed_loop->assumptions;
  c.assumptions.push_back(fmt::format("closed loop: {:g} clients each send the next request when the last one finishes (vllm bench serve "
                                      "--max-concurrency {:g} --request-rate inf; genai-perf --concurrency {:g}); one replica",
                                      clients, clients, clients));
  return c;
}

// --disaggregated: a prefill pool sized by the TTFT SLO (less the KV hand-over) and a decode pool by
// the TPOT SLO, each of the scenario's replica layout.
DisaggregatedPlan disaggregated_plan(const Scenario& s, const RateModel& m, const CapacityReport& c) {
  if (!c.slo.ttft_s || !c.slo.tpot_s)
    throw InputError({s.file, 0, 0}, "capacity --disaggregated: give both --ttft-slo and --tpot-slo (TTFT sizes the prefill pool, TPOT "
                                     "the decode pool)");
  if (!c.target_rate) throw InputError({s.file, 0, 0}, "capacity --disaggregated: give --rate or [serving] arrival_rate");
  const Topology t = topology_of(s);
  if (t.scale_out.empty() || !(t.nic_share_Bps() > 0))
    throw InputError({s.file, 0, 0}, fmt::format("capacity --disaggregated: {} has no scale-out network to move the KV cache over "
                                                 "([hardware] system with one, or scale_out)",
                                                 t.name));
  DisaggregatedPlan d;
  d.kv_bytes_per_device = memory_for_scenario(s).kv_bytes_per_prompt.value_or(0);
  d.nic_share_Bps = t.nic_share_Bps();
  d.kv_transfer_s = d.kv_bytes_per_device / d.nic_share_Bps;
  const double q = c.slo.percentile;
  // Prefill replicas: prompts only (their first token), the hand-over inside the TTFT budget.
  const RateModel prefill = with_shape(m, {m.shape.input_len, 1, 0});
  if (*c.slo.ttft_s > d.kv_transfer_s) d.prefill_slo_rate = slo_rate_of(prefill, {*c.slo.ttft_s - d.kv_transfer_s, std::nullopt, q});
  // Decode replicas: requests arrive with their KV cache and first token, and decode the rest.
  const RateModel decode = with_shape(m, {1, m.shape.output_len, m.shape.output_len_cv2, m.shape.length_min_fraction});
  d.decode_slo_rate = slo_rate_of(decode, {std::nullopt, *c.slo.tpot_s, q});
  if (!d.prefill_slo_rate || !d.decode_slo_rate) {
    d.verdict = !d.prefill_slo_rate ? fmt::format("no prefill replica meets TTFT ≤ {} with the {} KV hand-over", duration_text(*c.slo.ttft_s),
                                                  duration_text(d.kv_transfer_s))
                                    : fmt::format("no decode replica meets TPOT ≤ {}", duration_text(*c.slo.tpot_s));
    return d;
  }
  auto replicas = [&](double per_replica) { return replicas_for(*c.target_rate, per_replica); };
  d.prefill_replicas = replicas(*d.prefill_slo_rate);
  d.decode_replicas = replicas(*d.decode_slo_rate);
  d.devices = (*d.prefill_replicas + *d.decode_replicas) * c.devices_per_replica;
  d.prefill_point = serve_at(prefill, *c.target_rate / *d.prefill_replicas);
  d.decode_point = serve_at(decode, *c.target_rate / *d.decode_replicas);
  return d;
}

}  // namespace

models::Slo slo_for(const Scenario& s, const CapacityRequest& request) {
  models::Slo slo;
  slo.ttft_s = request.ttft_slo_s ? request.ttft_slo_s : s.serving.ttft_slo_s;
  slo.tpot_s = request.tpot_slo_s ? request.tpot_slo_s : s.serving.tpot_slo_s;
  slo.percentile = request.percentile.value_or(s.serving.slo_percentile) / 100;
  return slo;
}

CapacityReport capacity_for_scenario(const Scenario& s, const CapacityRequest& request) {
  if (!s.inference) throw InputError({s.file, 0, 0}, "capacity: needs an [inference] scenario");
  CapacityReport c;
  c.slo = slo_for(s, request);
  if (request.concurrency) return closed_loop_capacity(s, *request.concurrency, c);
  if (s.serving.benchmark_requests)
    throw InputError({s.file, 0, 0}, "serving.benchmark_requests: a finite benchmark is a closed loop; give capacity --concurrency, or "
                                     "leave the key out for the steady state at a rate");
  if (!c.slo.ttft_s && !c.slo.tpot_s)
    throw InputError({s.file, 0, 0}, "capacity: no SLO: give --ttft-slo and/or --tpot-slo, or [serving] ttft_slo_s / tpot_slo_s");
  c.target_rate = request.rate ? request.rate : s.serving.arrival_rate;

  c.replica = replica_times(s);
  describe_replica(s, c);
  const RateModel m = rate_model(at_slo_percentile(s, c.slo));
  c.saturation_rate = m.saturation_rate;

  RateSizing sized;
  try {
    sized = size_for_rate(m, c.slo, c.target_rate);
  } catch (const InputError& e) {
    throw InputError({s.file, 0, 0}, "the rate (--rate or [serving] arrival_rate): " + e.message());
  }
  c.slo_rate = sized.slo_rate;
  if (!c.slo_rate) c.slo_verdict = infeasible_verdict(m, c.slo, c.input_len);
  c.replicas = sized.replicas;
  c.at_target = sized.at_share;
  if (c.replicas) c.devices = *c.replicas * c.devices_per_replica;
  for (double load : {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95}) {
    const models::ServingPoint p = serve_at(m, load * c.saturation_rate);
    c.curve.push_back({p, models::meets(p, c.slo)});
  }

  if (request.disaggregated) c.disaggregated = disaggregated_plan(s, m, c);
  c.assumptions = {
      fmt::format("engine {}: {}", m.engine, m.limits.rule),
      "in-flight batching of one replica simulated step by step (F-SRV-2): decodes first, then prompt chunks within the step's token "
      "budget, first come first served; each step one forward pass timed by the roofline, as perfcast predict times its passes",
      fmt::format("arrivals: gamma-distributed gaps of C² = {:g} (1 = Poisson; [serving] arrival_cv2); {}; statistics over 2000 "
                  "requests after 200, one seeded sample (a rate's figures move by about 1 % with the seed)",
                  s.serving.arrival_cv2, request_lengths_text(s)),
      "saturation: the throughput of a queue that never empties under the server's limits; the SLO rate found to 0.5 % of it",
      "replicas share the load evenly (random routing keeps each replica's arrivals Poisson)",
  };
  if (c.disaggregated)
    c.assumptions.push_back(fmt::format(
        "disaggregated (Splitwise, DistServe): prefill replicas run prompts only and hand each prompt's KV cache ({} per device) to a "
        "decode replica over the device's {}/s share of the node's NICs ({} each, not overlapped with the prefill: conservative), "
        "counted in TTFT; decode replicas decode with no prompt sharing their steps; both pools of this layout and engine",
        units::format_binary_bytes(c.disaggregated->kv_bytes_per_device, 1), fmt::format("{:.1f} GB", c.disaggregated->nic_share_Bps / 1e9),
        duration_text(c.disaggregated->kv_transfer_s)));
  return c;
}

}  // namespace perfcast
