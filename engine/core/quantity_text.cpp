#include "engine/core/quantity_text.hpp"

#include <fmt/format.h>

namespace perfcast {

std::string duration_text(double s) {
  if (s >= 86400 * 2) return fmt::format("{:.1f} days", s / 86400);
  if (s >= 7200) return fmt::format("{:.1f} h", s / 3600);
  if (s >= 120) return fmt::format("{:.1f} min", s / 60);
  if (s >= 1) return fmt::format("{:.3f} s", s);
  return fmt::format("{:.3f} ms", s * 1e3);
}

std::string usd_text(double usd) {
  if (usd >= 1e6) return fmt::format("${:.4g}M", usd / 1e6);
  if (usd >= 1e3) return fmt::format("${:.4g}k", usd / 1e3);
  return fmt::format("${:.4g}", usd);
}

std::string mass_text(double kg) { return kg >= 1e3 ? fmt::format("{:.4g} t", kg / 1e3) : fmt::format("{:.4g} kg", kg); }

std::string percent_text(double x) { return fmt::format("{:.1f}%", 100 * x); }

}  // namespace perfcast
