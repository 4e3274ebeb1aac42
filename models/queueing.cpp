#include "models/queueing.hpp"

#include <algorithm>
#include <cmath>

namespace perfcast::models {
namespace {

QueueResult finish(double arrival_rate, double service_s, double utilisation, WaitTime wait) {
  QueueResult q;
  q.utilisation = utilisation;
  q.wait = wait;
  q.mean_response_s = wait.mean_wait_s + service_s;
  q.mean_in_queue = little_in_system(arrival_rate, wait.mean_wait_s);
  return q;
}

// An atom at zero with probability 1 − P, else exponential with rate P/W_q (mean W_q/P).
double rate_of(const WaitTime& w) { return w.wait_probability / w.mean_wait_s; }
bool waits(const WaitTime& w) { return w.wait_probability > 0 && w.mean_wait_s > 0; }

}  // namespace

double little_in_system(double arrival_rate, double mean_time_s) { return arrival_rate * mean_time_s; }

double erlang_c(int servers, double offered_erlangs) {
  double b = 1;  // Erlang B with 0 servers
  for (int k = 1; k <= servers; ++k) b = offered_erlangs * b / (k + offered_erlangs * b);
  const double rho = offered_erlangs / servers;
  return b / (1 - rho * (1 - b));
}

QueueResult mm1(double arrival_rate, double service_s) { return mmc(arrival_rate, service_s, 1); }

QueueResult mmc(double arrival_rate, double service_s, int servers) {
  const double offered = arrival_rate * service_s, rho = offered / servers;
  const double c = erlang_c(servers, offered);
  // W_q = C/(cμ − λ).
  return finish(arrival_rate, service_s, rho, {c, c / (servers / service_s - arrival_rate)});
}

QueueResult mg1(double arrival_rate, double service_s, double cs2) { return gg1(arrival_rate, service_s, 1, cs2); }

QueueResult gg1(double arrival_rate, double service_s, double ca2, double cs2) {
  const double rho = arrival_rate * service_s;
  // Kingman: W_q ≈ ρ/(1 − ρ) · (C_a² + C_s²)/2 · E[S]; exact (P-K) for Poisson arrivals.
  return finish(arrival_rate, service_s, rho, {rho, rho / (1 - rho) * (ca2 + cs2) / 2 * service_s});
}

QueueResult ggc(double arrival_rate, double service_s, int servers, double ca2, double cs2) {
  QueueResult q = mmc(arrival_rate, service_s, servers);
  return finish(arrival_rate, service_s, q.utilisation, {q.wait.wait_probability, q.wait.mean_wait_s * (ca2 + cs2) / 2});
}

double wait_quantile(const WaitTime& w, double p) {
  if (!waits(w) || w.wait_probability <= 1 - p) return 0;
  return std::log(w.wait_probability / (1 - p)) / rate_of(w);
}

double wait_sum_tail(const WaitTime& a, const WaitTime& b, double t) {
  const bool wa = waits(a), wb = waits(b);
  if (!wa && !wb) return 0;
  if (!wb) return a.wait_probability * std::exp(-rate_of(a) * t);
  if (!wa) return b.wait_probability * std::exp(-rate_of(b) * t);
  const double pa = a.wait_probability, pb = b.wait_probability, ra = rate_of(a), rb = rate_of(b);
  // Both wait: the sum of two exponentials (hypoexponential; Erlang-2 when the rates are equal).
  double both;
  if (std::abs(ra - rb) <= 1e-9 * std::max(ra, rb)) both = (1 + ra * t) * std::exp(-ra * t);
  else both = (rb * std::exp(-ra * t) - ra * std::exp(-rb * t)) / (rb - ra);
  return pa * (1 - pb) * std::exp(-ra * t) + pb * (1 - pa) * std::exp(-rb * t) + pa * pb * both;
}

double wait_sum_quantile(const WaitTime& a, const WaitTime& b, double p) {
  const double target = 1 - p;
  if (wait_sum_tail(a, b, 0) <= target) return 0;
  double hi = std::max(a.mean_wait_s, 0.0) + std::max(b.mean_wait_s, 0.0);
  while (wait_sum_tail(a, b, hi) > target) hi *= 2;
  double lo = 0;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (wait_sum_tail(a, b, mid) > target ? lo : hi) = mid;
  }
  return hi;
}

double mm1_response_quantile(double arrival_rate, double service_s, double p) {
  return -std::log(1 - p) / (1 / service_s - arrival_rate);
}

double fanout_slow_probability(double leaf_slow_probability, int leaves) {
  return 1 - std::pow(1 - leaf_slow_probability, leaves);
}

}  // namespace perfcast::models
