#include "models/serving.hpp"

#include <algorithm>

namespace perfcast::models {

double step_at(const ReplicaTimes& r, double batch) { return interpolate_steps(r.decode, batch); }

double interpolate_steps(const std::vector<StepPoint>& d, double batch) {
  if (d.size() == 1 || batch <= d.front().batch) return d.front().step_s;
  auto hi = std::lower_bound(d.begin(), d.end(), batch, [](const StepPoint& p, double b) { return p.batch < b; });
  if (hi == d.end()) hi = d.end() - 1;
  const StepPoint& a = *(hi - 1);
  const StepPoint& b = *hi;
  return a.step_s + (b.step_s - a.step_s) * (batch - a.batch) / (b.batch - a.batch);
}

bool meets(const ServingPoint& p, const Slo& slo) {
  return (!slo.ttft_s || p.ttft_p_s <= *slo.ttft_s) && (!slo.tpot_s || p.tpot_p_s <= *slo.tpot_s);
}

}  // namespace perfcast::models
