#include "models/scaling.hpp"

#include <cmath>

namespace perfcast::models {

double amdahl_speedup(double f, double n) { return 1 / ((1 - f) + f / n); }
double gustafson_speedup(double s, double n) { return n - s * (n - 1); }
double strong_scaling_efficiency(double n0, double t0, double n, double t) { return n0 * t0 / (n * t); }
double weak_scaling_efficiency(double n0, double x0, double n, double x) { return x / (n / n0 * x0); }

namespace {

// One-parameter least squares y = a·x, then the relative RMS error of `model` at the fit.
template <class X, class Y, class Model>
Fit fit_through_origin(std::span<const ScalingPoint> points, X x_of, Y y_of, Model model) {
  double xy = 0, xx = 0;
  for (const ScalingPoint& p : points) {
    if (p.workers_ratio == 1) continue;
    xy += x_of(p) * y_of(p);
    xx += x_of(p) * x_of(p);
  }
  Fit f;
  if (xx == 0) return f;
  f.value = xy / xx;
  double sum = 0;
  int n = 0;
  for (const ScalingPoint& p : points) {
    const double r = model(f.value, p.workers_ratio) / p.speedup - 1;
    sum += r * r;
    ++n;
  }
  f.rms_error = n > 0 ? std::sqrt(sum / n) : 0;
  return f;
}

}  // namespace

Fit fit_amdahl(std::span<const ScalingPoint> points) {
  return fit_through_origin(
      points, [](const ScalingPoint& p) { return 1 / p.workers_ratio - 1; }, [](const ScalingPoint& p) { return 1 / p.speedup - 1; },
      amdahl_speedup);
}

Fit fit_gustafson(std::span<const ScalingPoint> points) {
  return fit_through_origin(
      points, [](const ScalingPoint& p) { return p.workers_ratio - 1; }, [](const ScalingPoint& p) { return p.workers_ratio - p.speedup; },
      gustafson_speedup);
}

}  // namespace perfcast::models
