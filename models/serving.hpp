#pragma once
// What the serving models share: a replica's tabulated step times, one steady state of a replica
// under load (ServingPoint, the figures `perfcast capacity` and `predict`'s [serving] report), and
// service-level objectives. The steady states come from the engine's scheduler simulated step by
// step (models/scheduler_simulation, F-SRV-2).
#include <optional>
#include <vector>

namespace perfcast::models {

struct StepPoint {
  double batch = 1;
  double step_s = 0;
};

// One replica's static figures: the prefill of one prompt and the decode step against the batch.
struct ReplicaTimes {
  double prefill_s = 0;             // one prompt
  std::vector<StepPoint> decode;    // decode step against batch, increasing batch, from batch 1
  double max_concurrency = 1;       // sequences the engine runs at once (its limit, and the KV cache at their mean length)
  double output_len = 1;            // n_out
};

// The batches step times are tabulated at: 1, 2, 3, 4, 6, 8, 11, 16, ... (×√2, whole) and `limit`;
// a step's time is close to linear between them.
std::vector<double> step_grid(double limit);
// A tabulated time at a (fractional) batch, linear between the points; clamped to the first point
// below it and extrapolated along the last segment beyond it.
double interpolate_steps(const std::vector<StepPoint>& points, double batch);
// The decode step at a batch: interpolate_steps over r.decode.
double step_at(const ReplicaTimes& r, double batch);

struct ServingPoint {
  double rate = 0;                  // requests/s arriving at this replica
  double load = 0;                  // rate / saturation rate
  double occupancy = 0;             // mean sequences decoding, B
  double slot_utilisation = 0;      // B / B_max
  double prefill_share = 0;         // share of engine time in prompt tokens
  double busy_share = 0;            // share of time the engine runs steps (the rest it waits for arrivals)
  double step_s = 0;                // mean engine step
  double output_tokens_per_s = 0;   // of the replica
  double admission_wait_probability = 0, admission_wait_s = 0;  // not admitted in the first step after arrival; mean wait to the first step
  double prefill_wait_s = 0;        // mean from the first step to the first token (the prompt's steps)
  double ttft_mean_s = 0, ttft_p50_s = 0, ttft_p_s = 0;
  double tpot_mean_s = 0, tpot_p50_s = 0, tpot_p_s = 0;
  double e2e_mean_s = 0, e2e_p50_s = 0, e2e_p_s = 0;
  double itl_mean_s = 0, itl_p50_s = 0, itl_p_s = 0;  // gaps between streamed chunks (SimulatedServing's)
  bool chunk_gaps = false;          // whether the itl_* figures were computed
  double concurrency = 0;           // requests in the replica, Little: λ·E2E
  double percentile = 0.99;         // of the *_p_s figures
};

struct Slo {
  std::optional<double> ttft_s, tpot_s;
  double percentile = 0.99;
};

// Whether TTFT and TPOT at the SLO's percentile meet its bounds (a bound not given is met).
bool meets(double ttft_p_s, double tpot_p_s, const Slo& slo);
// ... of a point.
bool meets(const ServingPoint& p, const Slo& slo);

}  // namespace perfcast::models
