#include "models/serving.hpp"

#include <algorithm>
#include <cmath>

namespace perfcast::models {

std::vector<double> step_grid(double limit) {
  std::vector<double> grid;
  for (double b = 1; b < limit; b = std::max(b + 1, std::round(b * std::sqrt(2.0)))) grid.push_back(b);
  grid.push_back(std::max(1.0, std::floor(limit)));
  return grid;
}

double step_at(const ReplicaTimes& r, double batch) { return interpolate_steps(r.decode, batch); }

double interpolate_steps(const std::vector<StepPoint>& d, double batch) {
  if (d.size() == 1 || batch <= d.front().batch) return d.front().step_s;
  auto hi = std::lower_bound(d.begin(), d.end(), batch, [](const StepPoint& p, double b) { return p.batch < b; });
  if (hi == d.end()) hi = d.end() - 1;
  const StepPoint& a = *(hi - 1);
  const StepPoint& b = *hi;
  return a.step_s + (b.step_s - a.step_s) * (batch - a.batch) / (b.batch - a.batch);
}

bool meets(double ttft_p_s, double tpot_p_s, const Slo& slo) {
  return (!slo.ttft_s || ttft_p_s <= *slo.ttft_s) && (!slo.tpot_s || tpot_p_s <= *slo.tpot_s);
}

bool meets(const ServingPoint& p, const Slo& slo) { return meets(p.ttft_p_s, p.tpot_p_s, slo); }

}  // namespace perfcast::models
