#include "engine/calibrate/empirical_bands.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

#include "engine/calibrate/uncertainty.hpp"

namespace perfcast {
namespace {

struct Weighted {
  double value = 0, weight = 0;
};

void sort_by_value(std::vector<Weighted>& v) {
  std::sort(v.begin(), v.end(), [](const Weighted& a, const Weighted& b) { return a.value < b.value; });
}

// Each source weighs one, shared by its cases.
std::vector<Weighted> source_weighted(const std::vector<const Residual*>& pool) {
  std::map<std::string_view, int> per_source;
  for (const Residual* r : pool) ++per_source[r->source];
  std::vector<Weighted> out;
  out.reserve(pool.size());
  for (const Residual* r : pool) out.push_back({r->slowness, 1.0 / per_source[r->source]});
  sort_by_value(out);
  return out;
}

// The weighted quantile at `level`: each value at the middle of its weight's span of the cumulative
// share, linear between them, the ends held (Hyndman & Fan's definition 5 with weights).
double weighted_quantile(const std::vector<Weighted>& sorted, double level) {
  double total = 0;
  for (const Weighted& w : sorted) total += w.weight;
  double below = 0, previous_at = 0, previous = sorted.front().value;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const double at = (below + sorted[i].weight / 2) / total;
    if (level <= at) {
      if (i == 0) return sorted[0].value;
      return previous + (sorted[i].value - previous) * (level - previous_at) / (at - previous_at);
    }
    below += sorted[i].weight, previous_at = at, previous = sorted[i].value;
  }
  return sorted.back().value;
}

// Kish's effective sample size of the weights: what the conformal correction counts.
double effective_cases(const std::vector<Weighted>& w) {
  double sum = 0, squares = 0;
  for (const Weighted& x : w) sum += x.weight, squares += x.weight * x.weight;
  return squares > 0 ? sum * sum / squares : 0;
}

int sources_in(const std::vector<const Residual*>& pool) {
  std::set<std::string_view> s;
  for (const Residual* r : pool) s.insert(r->source);
  return int(s.size());
}

double weighted_median(const std::vector<const Residual*>& pool) { return weighted_quantile(source_weighted(pool), 0.5); }

// The variance between groups' medians, each group weighed by its sources; groups by feature `f`
// (or by source when f < 0). Zero with fewer than two groups.
double between_group_variance(const std::vector<const Residual*>& pool, int f) {
  std::map<std::string_view, std::vector<const Residual*>> groups;
  for (const Residual* r : pool) {
    const std::string_view key = f < 0 ? std::string_view(r->source) : std::string_view(r->features.values[std::size_t(f)]);
    if (!key.empty()) groups[key].push_back(r);
  }
  if (groups.size() < 2) return 0;
  double weight = 0, mean = 0;
  std::vector<std::pair<double, double>> medians;  // (median, weight)
  for (const auto& [key, g] : groups) {
    const double w = sources_in(g);
    medians.emplace_back(weighted_median(g), w);
    weight += w, mean += w * medians.back().first;
  }
  mean /= weight;
  double variance = 0;
  for (const auto& [m, w] : medians) variance += w * (m - mean) * (m - mean);
  return variance / weight;
}

}  // namespace

std::string source_group(std::string_view source) {
  std::size_t end = source.size();
  for (std::string_view stop : {", ", " (", " @ "}) end = std::min(end, source.find(stop));
  return std::string(source.substr(0, end));
}

bool is_rate(units::Dimension d) { return d == units::dim::hertz || d == units::dim::ops_per_second || d == units::dim::bytes_per_second; }

std::vector<Residual> residuals_of(const std::vector<CaseScore>& scores) {
  std::vector<Residual> out;
  for (const CaseScore& s : scores) {
    if (!s.held_out || s.features.kind().empty() || !(s.measured > 0) || !(s.predicted > 0)) continue;
    const double ratio = s.measured / s.predicted;
    out.push_back({s.id, source_group(s.source), s.features, is_rate(s.dimension) ? -std::log(ratio) : std::log(ratio)});
  }
  return out;
}

std::optional<EmpiricalBand> band_for(std::span<const Residual> table, const BandFeatures& q, std::string_view exclude_source) {
  std::vector<const Residual*> pool;
  for (const Residual& r : table)
    if (r.features.kind() == q.kind() && r.source != exclude_source) pool.push_back(&r);
  if (sources_in(pool) < kMinSources || int(pool.size()) < kMinCases) return std::nullopt;
  EmpiricalBand b;
  b.kind = q.kind();
  double widening = 0;  // variance of ln added for unseen features
  for (std::size_t f = 1; f < kBandFeatureNames.size(); ++f) {
    const std::string& want = q.values[f];
    if (want.empty()) continue;
    std::vector<const Residual*> sub;
    bool stated = false;  // whether any case of the pool states this feature at all
    for (const Residual* r : pool) {
      stated = stated || !r->features.values[f].empty();
      if (r->features.values[f] == want) sub.push_back(r);
    }
    if (!sub.empty() && sources_in(sub) >= kMinSources && int(sub.size()) >= kMinCases) {
      pool = std::move(sub);
      b.narrowed.push_back(fmt::format("{} = {}", kBandFeatureNames[f], want));
    } else if (sub.empty() && stated) {
      b.unseen.push_back(fmt::format("{} = {}", kBandFeatureNames[f], want));
      const double between = between_group_variance(pool, int(f));
      widening += between > 0 ? between : between_group_variance(pool, -1);
    }
  }
  // Random effects over sources (Higgins, Thompson & Spiegelhalter 2009, the prediction interval of a
  // new study): each source's median is its offset, spread between sources with variance tau^2; a new
  // source's offset is t_{k-1} * sqrt(tau^2 (1 + 1/k)) from their mean. Within a source, the cases'
  // deviations from its median, each source weighing one, with the conformal correction on their count.
  std::map<std::string_view, std::vector<const Residual*>> by_source;
  for (const Residual* r : pool) by_source[r->source].push_back(r);
  std::vector<double> medians;
  std::vector<Weighted> deviations;
  for (const auto& [source, cases] : by_source) {
    medians.push_back(weighted_median(cases));
    for (const Residual* r : cases) deviations.push_back({r->slowness - medians.back(), 1.0 / double(cases.size())});
  }
  sort_by_value(deviations);
  const double k = double(medians.size()), n = effective_cases(deviations);
  double mean = 0, tau2 = 0;
  for (double m : medians) mean += m / k;
  for (double m : medians) tau2 += (m - mean) * (m - mean) / (k - 1);
  auto upper = [&](double level) { return weighted_quantile(deviations, std::min(1.0, level * (1 + 1 / n))); };
  auto lower = [&](double level) { return weighted_quantile(deviations, std::max(0.0, 1 - (1 - level) * (1 + 1 / n))); };
  const boost::math::students_t t(k - 1);
  const double offset_sd = std::sqrt(tau2 * (1 + 1 / k) + widening);
  const double t90 = boost::math::quantile(t, 0.9) * offset_sd, t75 = boost::math::quantile(t, 0.75) * offset_sd;
  const double w50 = weighted_quantile(deviations, 0.5);
  b.cases = int(pool.size()), b.sources = int(k);
  b.widening_sd = std::sqrt(widening);
  b.between_sources_sd = std::sqrt(tau2);
  b.p50 = mean + w50;
  b.p10 = b.p50 - std::hypot(w50 - lower(0.1), t90), b.p90 = b.p50 + std::hypot(upper(0.9) - w50, t90);
  b.p25 = b.p50 - std::hypot(w50 - lower(0.25), t75), b.p75 = b.p50 + std::hypot(upper(0.75) - w50, t75);
  return b;
}

std::string EmpiricalBand::basis() const {
  std::string out = fmt::format("{} validated {} case(s) from {} source(s)", cases, kind, sources);
  if (!narrowed.empty()) out += fmt::format(" sharing {}", fmt::join(narrowed, ", "));
  if (!unseen.empty())
    out += fmt::format("; far from validation: no case has {}, band widened by sd {:.2f} of ln", fmt::join(unseen, ", "), widening_sd);
  return out;
}

FigureBand figure_band(const EmpiricalBand& b, double point, bool rate) {
  if (rate) return {point * std::exp(-b.p90), point * std::exp(-b.p50), point * std::exp(-b.p10)};
  return {point * std::exp(b.p10), point * std::exp(b.p50), point * std::exp(b.p90)};
}

CoverageReport coverage(const std::vector<CaseScore>& scores) {
  const std::vector<Residual> table = residuals_of(scores);
  struct Tally {
    CoverageRow row;
    std::vector<double> widths;
  };
  Tally pooled;
  std::vector<std::pair<std::string, Tally>> kinds, sources;
  auto at = [](std::vector<std::pair<std::string, Tally>>& v, const std::string& key) -> Tally& {
    auto it = std::find_if(v.begin(), v.end(), [&](const auto& x) { return x.first == key; });
    if (it == v.end()) it = v.insert(v.end(), {key, Tally{{.key = key}, {}}});
    return it->second;
  };
  CoverageReport out;
  for (const Residual& r : table) {
    const std::optional<EmpiricalBand> b = band_for(table, r.features, r.source);  // r.source is its group
    if (!b) {
      ++out.sources_without_band;
      continue;
    }
    for (Tally* t : {&pooled, &at(kinds, r.features.kind()), &at(sources, r.source)}) {
      ++t->row.cases;
      t->row.inside_80 += r.slowness >= b->p10 && r.slowness <= b->p90;
      t->row.inside_50 += r.slowness >= b->p25 && r.slowness <= b->p75;
      t->row.far += b->far();
      t->widths.push_back(std::exp(b->p90 - b->p10));
    }
  }
  auto finish = [](Tally& t) {
    t.row.median_width = quantile(t.widths, 0.5);
    return t.row;
  };
  out.pooled = finish(pooled);
  out.pooled.key = "all";
  for (auto& [k, t] : kinds) out.by_kind.push_back(finish(t));
  double sum = 0;
  for (auto& [k, t] : sources) out.by_source.push_back(finish(t)), sum += out.by_source.back().share_80();
  out.source_average_80 = out.by_source.empty() ? 0 : sum / double(out.by_source.size());
  return out;
}

}  // namespace perfcast
