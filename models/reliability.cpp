#include "models/reliability.hpp"

#include <cmath>

namespace perfcast::models {

double young_interval_s(double checkpoint_s, double mtbf_s) { return std::sqrt(2 * checkpoint_s * mtbf_s); }

double daly_interval_s(double checkpoint_s, double mtbf_s) {
  if (checkpoint_s >= 2 * mtbf_s) return mtbf_s;
  const double x = checkpoint_s / (2 * mtbf_s);
  return std::sqrt(2 * checkpoint_s * mtbf_s) * (1 + std::sqrt(x) / 3 + x / 9) - checkpoint_s;
}

double daly_wall_time_s(double solve_s, double interval_s, double checkpoint_s, double restart_s, double mtbf_s) {
  const double M = mtbf_s;
  return M * std::exp(restart_s / M) * std::expm1((interval_s + checkpoint_s) / M) * solve_s / interval_s;
}

double first_order_waste(double interval_s, double checkpoint_s, double restart_s, double mtbf_s) {
  return checkpoint_s / interval_s + (interval_s + checkpoint_s) / (2 * mtbf_s) + restart_s / mtbf_s;
}

Goodput goodput(double solve_s, double checkpoint_s, double restart_s, double mtbf_s) {
  Goodput g;
  g.mtbf_s = mtbf_s;
  if (solve_s <= 0) return g;
  // With no blocking checkpoint cost Daly's interval goes to 0; one checkpoint per second of
  // compute then bounds the lost work per failure at half a second.
  g.interval_s = checkpoint_s > 0 ? daly_interval_s(checkpoint_s, mtbf_s) : 1.0;
  g.interval_s = std::min(g.interval_s, solve_s);
  g.wall_s = daly_wall_time_s(solve_s, g.interval_s, checkpoint_s, restart_s, mtbf_s);
  g.failures = g.wall_s / mtbf_s;
  g.checkpoint_s = solve_s / g.interval_s * checkpoint_s;
  g.lost_work_s = std::max(0.0, g.wall_s - solve_s - g.checkpoint_s);
  g.fraction = solve_s / g.wall_s;
  return g;
}

}  // namespace perfcast::models
