#pragma once
// Failures, checkpointing and goodput (MODELS-REFERENCE §11, F-REL-1..4). Exponential,
// independent failures; times in seconds.
namespace perfcast::models {

// Per-device MTBF, all causes of job interruption, from Llama 3 405B's pre-training: 419
// unexpected interruptions in 54 days on 16,384 H100 (Llama Team, "The Llama 3 Herd of Models",
// arXiv:2407.21783, §3.3.4): 16,384 × 54 × 24 h / 419 = 50,677 h.
constexpr double kLlama3InterruptionsUnexpected = 419;
constexpr double kLlama3Days = 54;
constexpr double kLlama3Devices = 16384;
constexpr double llama3_device_mtbf_s() { return kLlama3Devices * kLlama3Days * 86400 / kLlama3InterruptionsUnexpected; }

// F-REL-1: job MTBF M = device MTBF / devices.
constexpr double job_mtbf_s(double device_mtbf_s, double devices) { return device_mtbf_s / devices; }

// F-REL-2 (Young 1974): τ = sqrt(2 δ M), compute time between checkpoints.
double young_interval_s(double checkpoint_s, double mtbf_s);
// F-REL-3 (Daly 2006, higher order): sqrt(2δM)·[1 + ⅓·sqrt(δ/2M) + ⅑·δ/2M] − δ for δ < 2M, else M.
double daly_interval_s(double checkpoint_s, double mtbf_s);
// F-REL-3: Daly's expected wall time to finish `solve_s` of work, checkpointing every `interval_s`
// of compute: T_w = M·e^{R/M}·(e^{(τ+δ)/M} − 1)·T_s/τ.
double daly_wall_time_s(double solve_s, double interval_s, double checkpoint_s, double restart_s, double mtbf_s);
// F-REL-4 first-order waste δ/τ + (τ + δ)/(2M) + R/M.
double first_order_waste(double interval_s, double checkpoint_s, double restart_s, double mtbf_s);

struct Goodput {
  double mtbf_s = 0;            // job
  double interval_s = 0;        // Daly's optimum
  double wall_s = 0;            // expected, failures and checkpoints included
  double failures = 0;          // expected interruptions over wall_s
  double checkpoint_s = 0;      // time spent writing checkpoints
  double lost_work_s = 0;       // recomputed work and restarts (wall − solve − checkpoints)
  double fraction = 1;          // solve / wall
};

// The run of `solve_s` failure-free time with checkpoints every Daly interval.
Goodput goodput(double solve_s, double checkpoint_s, double restart_s, double mtbf_s);

}  // namespace perfcast::models
