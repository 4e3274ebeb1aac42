#include "engine/predict/collective.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "engine/core/errors.hpp"

namespace perfcast {
namespace {

std::optional<double> parse_size(std::string_view s) {
  if (s.empty()) return std::nullopt;
  double scale = 1;
  switch (s.back()) {
    case 'K': case 'k': scale = 1024.0; break;
    case 'M': case 'm': scale = 1024.0 * 1024; break;
    case 'G': case 'g': scale = 1024.0 * 1024 * 1024; break;
    default: break;
  }
  if (scale != 1) s.remove_suffix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v) || v <= 0) return std::nullopt;
  return v * scale;
}

}  // namespace

std::vector<double> parse_size_range(std::string_view text, std::string_view option) {
  auto bad = [&](std::string_view why) {
    return InputError({}, fmt::format("{} '{}': {} (expected MIN:MAX:FACTOR such as 8:8G:2, or one size such as 1G)",
                                      option, text, why));
  };
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(':', start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (parts.size() != 1 && parts.size() != 3) throw bad("give one size or three fields");
  auto lo = parse_size(parts[0]);
  if (!lo || *lo < 1) throw bad("the size is not a whole number of bytes, at least 1");
  if (*lo > models::kMaxCollectiveBytes) throw bad("above 1024G (1 TiB): no device holds such a buffer");
  if (parts.size() == 1) return {*lo};
  auto hi = parse_size(parts[1]);
  if (hi && *hi > models::kMaxCollectiveBytes) throw bad("the largest size is above 1024G (1 TiB): no device holds such a buffer");
  double factor = 0;
  auto [ptr, ec] = std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), factor);
  if (!hi) throw bad("the largest size is not a positive number of bytes");
  if (ec != std::errc() || ptr != parts[2].data() + parts[2].size() || !(factor > 1)) throw bad("the factor must be > 1");
  if (*hi < *lo) throw bad("the largest size is below the smallest");
  std::vector<double> sizes;
  for (double s = *lo; s <= *hi * (1 + 1e-12) && sizes.size() < 10'000; s *= factor) sizes.push_back(std::round(s));
  return sizes;
}

CollectiveSweep collective_sweep(const CollectiveRequest& r) {
  CollectiveSweep out;
  out.request = r;
  out.topology = system_topology(r.hardware);
  out.topology.oversubscription = r.oversubscription;
  if (r.collnet && !out.topology.scale_out_reduction)
    throw InputError({}, fmt::format("--collnet: {}'s scale-out network {} does not reduce in the network (no SHARP); CollNet "
                                     "needs InfiniBand switches with SHARP",
                                     out.topology.name, out.topology.scale_out.empty() ? "(none)" : out.topology.scale_out));
  out.topology.collnet = r.collnet;
  const int gpus = r.gpus > 0 ? r.gpus : out.topology.devices_per_node;
  out.request.gpus = gpus;
  out.fabric = fabric_for_first(out.topology, gpus);
  out.params = models::default_collective_params();
  for (double s : r.sizes_B) {
    auto t = models::best_collective_time(r.op, s, out.fabric, out.params, r.algorithm);
    if (!t)
      throw InputError({}, fmt::format("--algo {} cannot run {} on {} GPUs of {} ({})", models::name_of(*r.algorithm),
                                       models::name_of(r.op), gpus, out.topology.name, models::where_it_runs(*r.algorithm)));
    out.rows.push_back(*t);
  }
  return out;
}

}  // namespace perfcast
