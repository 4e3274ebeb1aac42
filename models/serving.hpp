#pragma once
// Continuous-batching steady state of one serving replica under Poisson load (MODELS-REFERENCE
// §9–§10, "Mapping LLM serving to queues"), derived here:
//
//  - every request is prefilled once (t_pf, prefill priority, one prompt at a time) and then
//    decodes n_out tokens in the running batch; a decode step over B sequences takes t_step(B);
//  - prefill takes the share u_p = λ·t_pf of the replica's time, so the mean time per output token
//    is TPOT = t_step(B)/(1 − u_p), and the mean decode occupancy B (Little, B = λ·n_out·TPOT)
//    solves λ = B / (n_out·t_step(B) + B·t_pf). The replica is stable while that holds with
//    B < B_max (the sequences whose KV cache fits); the saturation rate is its value at B_max;
//  - TTFT = admission wait (B_max slots: G/G/c, Allen–Cunneen) + prefill wait (G/G/1, Kingman;
//    M/D/1 for fixed prompt lengths and Poisson arrivals) + the residual of the decode step in
//    progress + t_pf. Quantiles of the two waits come from their exponential tails, convolved;
//  - a request's TPOT over its n_out steps is (n_out·t_step(B) + K·t_pf)/n_out, K the prefills of
//    the arrivals during its decode; its p-quantile takes B and K at their p-quantiles: B busy
//    slots of an M/G/∞ (Poisson, mean B, capped at B_max) and K Poisson with mean λ·n_out·TPOT.
//    Taking both at the quantile is conservative.
// Breaks when: output lengths are long-tailed (set length_cv2), arrivals are bursty (arrival_cv2),
// or prompts are short enough that batched prefill reads the weights once for many prompts (t_pf
// of one prompt then overstates the prefill share).
#include <optional>
#include <vector>

namespace perfcast::models {

struct StepPoint {
  double batch = 1;
  double step_s = 0;
};

struct ReplicaTimes {
  double prefill_s = 0;             // one prompt
  std::vector<StepPoint> decode;    // decode step against batch, increasing batch, from batch 1
  double max_concurrency = 1;       // B_max: sequences the KV cache (or a max_num_seqs cap) allows
  double output_len = 1;            // n_out
  double arrival_cv2 = 1;           // C_a² (Poisson: 1)
  double length_cv2 = 0;            // C_s² of request lengths (fixed lengths: 0)
};

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
  double prefill_share = 0;         // u_p
  double step_s = 0;                // t_step(B)
  double output_tokens_per_s = 0;   // λ·n_out
  double admission_wait_probability = 0, admission_wait_s = 0;  // mean over all requests
  double prefill_wait_s = 0;        // mean
  double ttft_mean_s = 0, ttft_p50_s = 0, ttft_p_s = 0;
  double tpot_mean_s = 0, tpot_p50_s = 0, tpot_p_s = 0;
  double e2e_mean_s = 0, e2e_p_s = 0;  // TTFT + (n_out − 1)·TPOT; the quantile sums quantiles
  double concurrency = 0;           // requests in the replica, Little: λ·E2E
  double percentile = 0.99;         // of the *_p_s figures
};

// The rate at which the decode occupancy reaches B_max: B_max / (n_out·t_step(B_max) + B_max·t_pf).
double saturation_rate(const ReplicaTimes& r);

// The steady state at `rate` (0 < rate < saturation_rate). `percentile` in (0, 1).
ServingPoint serve(const ReplicaTimes& r, double rate, double percentile);

struct Slo {
  std::optional<double> ttft_s, tpot_s;
  double percentile = 0.99;
};

// Whether a point meets the SLO (each bound at the SLO's percentile).
bool meets(const ServingPoint& p, const Slo& slo);

// The largest rate whose steady state meets the SLO (SLO goodput of one replica), by bisection on
// the rate; nullopt when even a vanishing load misses it.
std::optional<double> slo_rate(const ReplicaTimes& r, const Slo& slo);

}  // namespace perfcast::models
