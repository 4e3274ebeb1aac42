#pragma once
// Queueing models for serving (MODELS-REFERENCE §10, F-Q-1..6): Little's law, M/M/1, M/M/c
// (Erlang C), M/G/1 (Pollaczek–Khinchine) and M/D/1, G/G/1 (Kingman), G/G/c (Allen–Cunneen), the
// exponential waiting-time tail, and the fan-out tail. Rates are per second, times in seconds.
// Every function requires a stable queue (utilisation < 1); callers check `stable` first.

namespace perfcast::models {

// The waiting time (before service) of a queue in the form its tail is approximated in:
// P(W_q > t) = wait_probability · exp(−t · wait_probability / mean_wait_s) (exact for M/M/c).
struct WaitTime {
  double wait_probability = 0;  // P(W_q > 0)
  double mean_wait_s = 0;       // E[W_q], over all customers (zero waits included)
};

struct QueueResult {
  double utilisation = 0;       // ρ = λ / (c·μ)
  WaitTime wait;
  double mean_response_s = 0;   // W = W_q + E[S]
  double mean_in_queue = 0;     // L_q = λ·W_q (Little)
};

// F-Q-1: L = λ·W.
double little_in_system(double arrival_rate, double mean_time_s);

// F-Q-3: the probability of waiting C(c, A) for A = λ/μ Erlangs on c servers (A < c), from the
// Erlang-B recursion B_k = A·B_{k−1}/(k + A·B_{k−1}) and C = B_c / (1 − ρ(1 − B_c)), which avoids
// the factorials of the textbook form.
double erlang_c(int servers, double offered_erlangs);

// F-Q-2: M/M/1. F-Q-3: M/M/c. service_s = E[S] = 1/μ.
QueueResult mm1(double arrival_rate, double service_s);
QueueResult mmc(double arrival_rate, double service_s, int servers);

// F-Q-4: M/G/1 with service-time squared coefficient of variation cs2 = Var[S]/E[S]² (M/D/1: 0).
// P(W_q > 0) = ρ (an arrival waits when it finds the server busy, PASTA).
QueueResult mg1(double arrival_rate, double service_s, double cs2);

// F-Q-5: G/G/1 (Kingman) and G/G/c (Allen–Cunneen: the M/M/c wait × (C_a² + C_s²)/2), with the
// arrival and service squared coefficients of variation. Heavy-traffic approximations.
QueueResult gg1(double arrival_rate, double service_s, double ca2, double cs2);
QueueResult ggc(double arrival_rate, double service_s, int servers, double ca2, double cs2);

// The p-quantile (0 < p < 1) of a waiting time under the exponential tail above:
// t_p = max(0, ln(P_wait/(1 − p)) · W_q/P_wait). M/M/c: ln(C/(1−p))/(cμ − λ).
double wait_quantile(const WaitTime& w, double p);
// The p-quantile of the sum of two independent waits of that form (each an atom at zero plus an
// exponential), from the closed-form tail of their convolution, solved by bisection.
double wait_sum_quantile(const WaitTime& a, const WaitTime& b, double p);
// P(W_a + W_b > t) for the same pair.
double wait_sum_tail(const WaitTime& a, const WaitTime& b, double t);

// F-Q-2: the p-quantile of the M/M/1 response time, −ln(1 − p)/(μ − λ).
double mm1_response_quantile(double arrival_rate, double service_s, double p);

// F-Q-6 (Dean & Barroso 2013): P(a request that fans out to n leaves is slow) = 1 − (1 − p)^n.
double fanout_slow_probability(double leaf_slow_probability, int leaves);

}  // namespace perfcast::models
