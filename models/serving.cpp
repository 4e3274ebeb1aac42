#include "models/serving.hpp"

#include <algorithm>
#include <boost/math/distributions/poisson.hpp>
#include <cmath>
#include <stdexcept>

#include "models/queueing.hpp"

namespace perfcast::models {
namespace {

double slots(const ReplicaTimes& r) { return std::max(1.0, std::floor(r.max_concurrency)); }
// Decode steps per request: the first output token comes from the prefill.
double decode_steps(const ReplicaTimes& r) { return std::max(1.0, r.output_len - 1); }

// λ(B) = B / (n·t_step(B) + B·t_pf): the arrival rate that keeps B sequences decoding on average.
double rate_for_occupancy(const ReplicaTimes& r, double b) {
  return b / (decode_steps(r) * step_at(r, b) + b * r.prefill_s);
}

// The p-quantile of a Poisson count with this mean (0 for a vanishing mean).
double poisson_quantile(double mean, double p) {
  if (mean <= 1e-12) return 0;
  return boost::math::quantile(boost::math::poisson_distribution<double>(mean), p);
}

// A request's time per output token when B_seen sequences decode beside it and K prefills
// interleave with its decode steps.
double tpot_with(const ReplicaTimes& r, double batch_seen, double prefills) {
  return (decode_steps(r) * step_at(r, batch_seen) + prefills * r.prefill_s) / decode_steps(r);
}

}  // namespace

double step_at(const ReplicaTimes& r, double batch) { return interpolate_steps(r.decode, batch); }

double interpolate_steps(const std::vector<StepPoint>& d, double batch) {
  if (d.size() == 1 || batch <= d.front().batch) return d.front().step_s;
  auto hi = std::lower_bound(d.begin(), d.end(), batch, [](const StepPoint& p, double b) { return p.batch < b; });
  if (hi == d.end()) hi = d.end() - 1;
  const StepPoint& a = *(hi - 1);
  const StepPoint& b = *hi;
  return a.step_s + (b.step_s - a.step_s) * (batch - a.batch) / (b.batch - a.batch);
}

double saturation_rate(const ReplicaTimes& r) { return rate_for_occupancy(r, slots(r)); }

ServingPoint serve(const ReplicaTimes& r, double rate, double percentile) {
  const double saturation = saturation_rate(r);
  if (!(rate > 0 && rate < saturation)) throw std::invalid_argument("serve: the rate must lie in (0, saturation_rate)");
  ServingPoint p;
  p.rate = rate;
  p.percentile = percentile;
  p.load = rate / saturation;
  const double c = slots(r), n = decode_steps(r);

  // Mean decode occupancy: λ(B) increases with B (t_step(B)/B falls), so bisect.
  double lo = 0, hi = c;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (rate_for_occupancy(r, mid) < rate ? lo : hi) = mid;
  }
  const double b = (lo + hi) / 2;
  p.occupancy = b;
  p.slot_utilisation = b / c;
  p.prefill_share = rate * r.prefill_s;
  p.step_s = step_at(r, b);
  p.tpot_mean_s = p.step_s / (1 - p.prefill_share);
  p.output_tokens_per_s = rate * r.output_len;

  // Admission: c slots each held for the request's decode (mean b/λ), G/G/c.
  const QueueResult admission = ggc(rate, b / rate, static_cast<int>(c), r.arrival_cv2, r.length_cv2);
  // Prefill: one server, deterministic service for fixed prompt lengths, G/G/1.
  const QueueResult prefill = gg1(rate, r.prefill_s, r.arrival_cv2, r.length_cv2);
  p.admission_wait_probability = admission.wait.wait_probability;
  p.admission_wait_s = admission.wait.mean_wait_s;
  p.prefill_wait_s = prefill.wait.mean_wait_s;
  // The decode step in progress when a prompt arrives: busy a fraction f_d of the time, residual
  // uniform on [0, t_step].
  const double decoding = std::min(1 - p.prefill_share, rate * n * p.step_s / std::max(b, 1.0));
  auto residual_quantile = [&](double q) { return decoding > 1 - q ? p.step_s * (1 - (1 - q) / decoding) : 0.0; };
  p.ttft_mean_s = p.admission_wait_s + p.prefill_wait_s + decoding * p.step_s / 2 + r.prefill_s;
  auto ttft_quantile = [&](double q) {
    return wait_sum_quantile(admission.wait, prefill.wait, q) + residual_quantile(q) + r.prefill_s;
  };
  p.ttft_p50_s = ttft_quantile(0.5);
  p.ttft_p_s = ttft_quantile(percentile);

  // TPOT quantiles: the batch a request sees and the prefills that interleave with its decode.
  const double decode_time = n * p.tpot_mean_s;
  auto tpot_quantile = [&](double q) {
    const double seen = std::clamp(poisson_quantile(b, q), 1.0, c);
    return tpot_with(r, seen, poisson_quantile(rate * decode_time, q));
  };
  p.tpot_p50_s = tpot_quantile(0.5);
  p.tpot_p_s = tpot_quantile(percentile);
  p.e2e_mean_s = p.ttft_mean_s + n * p.tpot_mean_s;
  p.e2e_p_s = p.ttft_p_s + n * p.tpot_p_s;
  p.concurrency = little_in_system(rate, p.e2e_mean_s);
  return p;
}

bool meets(const ServingPoint& p, const Slo& slo) {
  return (!slo.ttft_s || p.ttft_p_s <= *slo.ttft_s) && (!slo.tpot_s || p.tpot_p_s <= *slo.tpot_s);
}

std::optional<double> slo_rate(const ReplicaTimes& r, const Slo& slo) {
  const double saturation = saturation_rate(r);
  double lo = saturation * 1e-9, hi = saturation * (1 - 1e-9);
  if (!meets(serve(r, lo, slo.percentile), slo)) return std::nullopt;
  if (meets(serve(r, hi, slo.percentile), slo)) return hi;
  for (int i = 0; i < 60 && hi - lo > 1e-9 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (meets(serve(r, mid, slo.percentile), slo) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace perfcast::models
