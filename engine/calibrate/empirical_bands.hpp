#pragma once
// Empirical prediction bands (F-UNC-2): a question's P10..P90 from how wrong the model has been on
// validated cases like it, not from the parameters' priors. The cases are narrowed, feature by
// feature (spec/residuals.hpp), to those that share the question's while at least kMinSources
// sources and kMinCases cases remain; a new source's offset is drawn from the spread between the
// sources' medians (random effects, t with k - 1 degrees of freedom), the cases' deviations within a
// source carry split conformal prediction's finite-sample correction; a feature whose value no
// validated case of the pool has widens the band by the spread between that feature's values (or
// between sources) instead of borrowing confidence.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/spec/residuals.hpp"
#include "engine/validate/validation.hpp"

namespace perfcast {

inline constexpr int kMinSources = 3;  // no band stands on one or two sources' habits
inline constexpr int kMinCases = 10;   // ⌈(n+1)·0.9⌉ ≤ n: a finite conformal P90 needs n ≥ 9

struct EmpiricalBand {
  // Quantiles of slowness: ln(reality / prediction) for a time (a rate's are the reciprocals).
  double p10 = 0, p25 = 0, p50 = 0, p75 = 0, p90 = 0;
  int cases = 0, sources = 0;
  std::string kind;
  std::vector<std::string> narrowed;  // "figure = ttft", ...: what the cases share with the question
  std::vector<std::string> unseen;    // "vendor = amd": no validated case of the pool has it (widened)
  double widening_sd = 0;             // sd of ln added for them
  double between_sources_sd = 0;      // sd of ln between the sources' medians
  bool far() const { return !unseen.empty(); }
  std::string basis() const;          // one line: the cases behind the band and what they share
};

// The band of a question from `table`, leaving out the cases of `exclude_source` (validate's
// leave-one-source-out; a source_group); none when fewer than kMinSources sources or kMinCases cases of the
// question's kind remain: too little to say how wrong the model is on a question like it.
std::optional<EmpiricalBand> band_for(std::span<const Residual> table, const BandFeatures& question,
                                      std::string_view exclude_source = {});

// A figure's P10/P50/P90 in its own unit, from its point value: a time (or a cost, an energy) is
// multiplied by e^slowness, a rate divided.
struct FigureBand {
  double p10 = 0, p50 = 0, p90 = 0;
};
FigureBand figure_band(const EmpiricalBand& b, double point, bool rate);

// Who published a case: its source up to the first ", ", " (" or " @ " ("Azure/AI-benchmarking-guide",
// "Narayanan et al.", "gpustack/gpustack"). A publisher's pages and tables are one source to the bands:
// leaving one out leaves them all out, and together they weigh one.
std::string source_group(std::string_view source);
// Whether a validated figure of this dimension is a rate (more is faster).
bool is_rate(units::Dimension d);
// The residuals of the held-out scored cases that carry features and positive figures.
std::vector<Residual> residuals_of(const std::vector<CaseScore>& scores);

// validate --coverage: each held-out case against the band its own features get from the other
// sources' cases; the share inside P10..P90 and P25..P75, pooled and by kind and source.
struct CoverageRow {
  std::string key;
  int cases = 0, inside_80 = 0, inside_50 = 0, far = 0;
  double median_width = 0;  // median P90 / P10 of the bands
  double share_80() const { return cases ? double(inside_80) / cases : 0; }
  double share_50() const { return cases ? double(inside_50) / cases : 0; }
};
struct CoverageReport {
  CoverageRow pooled;
  std::vector<CoverageRow> by_kind, by_source;
  int sources_without_band = 0;  // cases whose kind has no other source: no band to score
  double source_average_80 = 0;  // the mean over sources of their P10..P90 share
};
CoverageReport coverage(const std::vector<CaseScore>& scores);

}  // namespace perfcast
