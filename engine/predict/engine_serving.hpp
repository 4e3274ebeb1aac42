#pragma once
// A serving engine's steady state on one replica: the engine's scheduler limits for the device,
// the replica's step costs from the roofline, and the step-by-step scheduler simulation
// (models/scheduler_simulation) under a closed loop of clients, the longest queue (maximum
// throughput) or Poisson arrivals.
#include <optional>
#include <string>

#include "engine/predict/inference.hpp"

namespace perfcast {

// The request lengths the simulation draws, in words: fixed, gamma-spread outputs ([serving]
// length_cv2) or uniform from a fraction of the longest ([serving] length_min_fraction).
std::string request_lengths_text(const Scenario& s);

// The cost of one engine step of the replica: the work every token pays (a decode pass over the
// step's tokens without its attention, plus the TP/EP collectives), the decoding sequences'
// attention at the mean context input_len + output_len/2, and each prompt token's share of its
// prompt's attention. At prompt_tokens = 0 it is decode_step_seconds exactly.
models::StepCosts step_costs(const Scenario& s, const models::SchedulerLimits& limits, const InferenceOptions& o = {});

// The engine's limits for the scenario ([inference] engine, default vLLM; [serving]
// max_concurrency, max_batched_tokens and chunked_prefill replace them). Throws InputError when not
// one sequence fits.
models::EngineLimits engine_limits_for(const Scenario& s, models::EngineMode mode);

// C clients, each sending its next request when the last finishes.
EngineSteadyState closed_loop(const Scenario& s, double clients, const InferenceOptions& o = {});
// The longest request stream the engine's limits allow (what `trtllm-bench throughput` and `vllm
// bench throughput` measure), in the engine's offline mode: a queue that never empties, or with
// [serving] benchmark_requests = N a dataset of N requests queued at once on an idle engine.
EngineSteadyState max_throughput(const Scenario& s, const InferenceOptions& o = {});

// Open-loop load on one replica behind the engine's server: Poisson arrivals at a rate, the engine's
// scheduler simulated (F-SRV-2). Built once per scenario; each rate is one simulation.
struct RateModel {
  models::StepCosts costs;
  models::EngineLimits limits;
  models::RequestShape shape;
  double saturation_rate = 0;  // requests/s of a queue that never empties, server limits
  double percentile = 0.99;
  double arrival_cv2 = 1;      // [serving] arrival_cv2
  std::string engine;          // "vllm (default)"
};
RateModel rate_model(const Scenario& s, const InferenceOptions& o = {});
// The same replica serving requests of another shape (a prefill-only or decode-only pool of a
// disaggregated deployment), its saturation rate found again.
RateModel with_shape(RateModel m, const models::RequestShape& shape);
// The steady state at `rate` requests/s (any positive rate; past saturation the queue grows over the
// simulated window and the latencies say so).
// `chunk_gaps`: the ITL figures too (F-SRV-6; a third of the time), not needed to test an SLO.
models::ServingPoint serve_at(const RateModel& m, double rate, bool chunk_gaps = true);
// The largest rate whose steady state meets the SLO (bisection over the rate, each a simulation);
// nullopt when a vanishing load already misses it.
std::optional<double> slo_rate_of(const RateModel& m, const models::Slo& slo);

// Replicas of `per_replica` requests/s each that `rate` needs: ⌈rate / per_replica⌉. Throws
// InputError past kMaxReplicas (a rate no fleet of this layout serves; an int would overflow).
inline constexpr int kMaxReplicas = 1'000'000;
int replicas_for(double rate, double per_replica);

// One replica layout sized for a rate (what `capacity` reports and `plan` ranks): the largest rate
// per replica meeting the SLO, the fewest replicas `rate` needs at it (⌈rate / that rate⌉), and one
// replica's steady state at its share. Throws InputError past kMaxReplicas.
struct RateSizing {
  std::optional<double> slo_rate;                // none: a lone request already misses the SLO
  std::optional<int> replicas;                   // with a rate and an slo_rate
  std::optional<models::ServingPoint> at_share;  // one replica at rate / replicas
};
RateSizing size_for_rate(const RateModel& m, const models::Slo& slo, std::optional<double> rate);

}  // namespace perfcast
