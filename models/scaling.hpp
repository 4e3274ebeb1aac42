#pragma once
// Amdahl, Gustafson and scaling efficiency (MODELS-REFERENCE §2, F-SCAL-1..4), and least-squares
// fits of their one parameter to a predicted or measured curve.
#include <span>

namespace perfcast::models {

// F-SCAL-1: S(N) = 1 / ((1 − f) + f/N), f the parallel fraction.
double amdahl_speedup(double parallel_fraction, double n);
// F-SCAL-2: S(N) = N − s·(N − 1), s the serial fraction measured on the parallel run.
double gustafson_speedup(double serial_fraction, double n);
// F-SCAL-3: E = N0·T(N0) / (N·T(N)).
double strong_scaling_efficiency(double n0, double t0, double n, double t);
// F-SCAL-4 in throughput form: E = X(N) / ((N/N0)·X(N0)).
double weak_scaling_efficiency(double n0, double x0, double n, double x);

struct ScalingPoint {
  double workers_ratio = 1;  // N / N0
  double speedup = 1;        // T(N0)/T(N) for strong scaling, X(N)/X(N0) for weak
};

struct Fit {
  double value = 0;          // f (Amdahl) or s (Gustafson)
  double rms_error = 0;      // of the fitted speedup against the points, relative
};

// Least squares in the linearised forms: 1/S − 1 = f·(1/k − 1) (Amdahl) and k − S = s·(k − 1)
// (Gustafson), k = N/N0; points with k = 1 carry no information and are ignored.
Fit fit_amdahl(std::span<const ScalingPoint> points);
Fit fit_gustafson(std::span<const ScalingPoint> points);

}  // namespace perfcast::models
