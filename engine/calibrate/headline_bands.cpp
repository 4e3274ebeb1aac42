#include "engine/calibrate/headline_bands.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/core/errors.hpp"
#include "engine/validate/case_features.hpp"

namespace perfcast {
namespace {

// One figure judged by the cases of `kind` that measure `figure`; `rate`: more is faster.
struct Figure {
  std::string name;
  units::Dimension dimension;
  std::optional<double> value;
  std::string_view kind, figure;
  bool rate;
};

HeadlineBands bands_of(const Scenario& s, const std::vector<Figure>& figures, std::span<const Residual> table) {
  HeadlineBands out;
  // Figures judged by the same cases (training's all by the step) share one band, found once.
  std::vector<std::pair<const Figure*, std::optional<EmpiricalBand>>> found;
  for (const Figure& f : figures) {
    if (!f.value || !(*f.value > 0)) continue;
    auto same = std::find_if(found.begin(), found.end(), [&](const auto& x) { return x.first->kind == f.kind && x.first->figure == f.figure; });
    if (same == found.end()) same = found.insert(found.end(), {&f, band_for(table, scenario_features(s, f.kind, f.figure))});
    const std::optional<EmpiricalBand>& b = same->second;
    if (!b) {
      out.without.push_back(fmt::format("{}: fewer than {} sources or {} held-out {} cases validate it", f.name, kMinSources, kMinCases, f.kind));
      continue;
    }
    out.figures.push_back({f.name, f.dimension, *f.value, figure_band(*b, *f.value, f.rate), *b});
  }
  return out;
}

}  // namespace

HeadlineBands training_bands(const Scenario& s, const TrainingPrediction& p, std::span<const Residual> table) {
  using namespace units::dim;
  const std::optional<Economics>& e = p.economics;
  // Every training figure follows the step time: the cases' metrics (step time, TFLOP/s, tokens/s) are one slowness.
  return bands_of(s,
                  {{"step_time", seconds, p.step_time_s, "training", "step", false},
                   {"tokens_per_s", hertz, p.tokens_per_s, "training", "step", true},
                   {"mfu", none, p.mfu, "training", "step", true},
                   {"time_to_train", seconds, p.expected_wall_s ? p.expected_wall_s : p.time_to_train_s, "training", "step", false},
                   {"usd", usd, e ? e->usd : std::nullopt, "training", "step", false},
                   {"co2e", kg, e ? e->co2e_kg : std::nullopt, "training", "step", false}},
                  table);
}

HeadlineBands inference_bands(const Scenario& s, const InferencePrediction& p, std::span<const Residual> table) {
  using namespace units::dim;
  const std::optional<Economics>& e = p.economics;
  // A decode step's time is the inverse of the batch's token rate: TPOT is judged by the throughput cases.
  // A vision model is judged by the edge cases.
  const std::string_view kind = s.workload.is_transformer() ? "inference" : "edge";
  std::vector<Figure> figures = {{"ttft", seconds, p.ttft_s, kind, "ttft", false},
                                 {"tpot", seconds, p.tpot_s, kind, "throughput", false},
                                 {"e2e", seconds, p.e2e_s, kind, "latency", false},
                                 {"tokens_per_s_per_device", hertz, p.output_tokens_per_s_per_device, kind, "throughput", true},
                                 {"usd_per_million_tokens", usd, e ? e->usd_per_million_tokens : std::nullopt, kind, "throughput", false},
                                 {"co2e_kg_per_million_tokens", kg, e ? e->co2e_kg_per_million_tokens : std::nullopt, kind, "throughput", false}};
  auto serving = [&](const auto& r) {
    figures.push_back({"serving_ttft_mean_s", seconds, r.ttft_mean_s, "serving", "ttft", false});
    figures.push_back({"serving_tpot_mean_s", seconds, r.tpot_mean_s, "serving", "tpot", false});
    figures.push_back({"serving_e2e_mean_s", seconds, r.e2e_mean_s, "serving", "e2e", false});
    figures.push_back({"serving_output_tokens_per_s", hertz, r.output_tokens_per_s, "serving", "throughput", true});
  };
  if (p.closed_loop) serving(p.closed_loop->result);
  else if (p.serving) serving(*p.serving);
  return bands_of(s, figures, table);
}

HeadlineBands capacity_bands(const Scenario& s, const CapacityReport& c, std::span<const Residual> table) {
  using namespace units::dim;
  std::vector<Figure> figures = {{"slo_rate_per_s", none, c.slo_rate, "serving", "throughput", true},
                                 {"saturation_rate_per_s", none, c.saturation_rate, "serving", "throughput", true}};
  if (c.closed_loop) {
    const models::SimulatedServing& r = c.closed_loop->result;
    figures.push_back({"serving_ttft_mean_s", seconds, r.ttft_mean_s, "serving", "ttft", false});
    figures.push_back({"serving_tpot_mean_s", seconds, r.tpot_mean_s, "serving", "tpot", false});
    figures.push_back({"serving_output_tokens_per_s", hertz, r.output_tokens_per_s, "serving", "throughput", true});
  }
  HeadlineBands out = bands_of(s, figures, table);
  // Replicas for the target: the target over each percentile of the SLO rate, the slow end needing the most.
  auto slo = std::find_if(out.figures.begin(), out.figures.end(), [](const HeadlineBand& f) { return f.name == "slo_rate_per_s"; });
  if (c.target_rate && c.replicas && slo != out.figures.end()) {
    auto need = [&](double rate) { return std::ceil(*c.target_rate / rate - 1e-9); };
    out.figures.push_back({"replicas", none, double(*c.replicas), {need(slo->band.p90), need(slo->band.p50), need(slo->band.p10)}, slo->basis});
  }
  return out;
}

HeadlineBands compare_bands(const Scenario& s, const CompareRow& row, std::span<const Residual> table) {
  using namespace units::dim;
  const std::string_view kind = row.training ? "training" : s.workload.is_transformer() ? "inference" : "edge";
  const std::string_view figure = row.training ? "step" : "throughput";
  std::vector<Figure> figures;
  auto add = [&](std::string name, units::Dimension d, const std::optional<double>& v, bool rate) {
    figures.push_back({std::move(name), d, v, kind, figure, rate});
  };
  add("wall_s", seconds, row.wall_s, false);
  add("tokens_per_s", hertz, row.tokens_per_s, true);
  add("usd", usd, row.usd, false);
  add("usd_per_million_tokens", usd, row.usd_per_million_tokens, false);
  add("kwh", none, row.kwh, false);
  add("kwh_per_million_tokens", none, row.kwh_per_million_tokens, false);
  add("co2e_kg", kg, row.co2e_kg, false);
  add("co2e_kg_per_million_tokens", kg, row.co2e_kg_per_million_tokens, false);
  add("tokens_per_usd", none, row.tokens_per_usd, true);
  add("tokens_per_s_per_kw", none, row.tokens_per_s_per_kw, true);
  return bands_of(s, figures, table);
}

namespace {
template <class Row, class Prediction, class Bands>
std::vector<HeadlineBands> bands_of_rows(const Scenario& s, const std::vector<Row>& rows, const std::vector<Prediction>& best, Bands bands) {
  std::vector<HeadlineBands> out;
  for (std::size_t i = 0; i < rows.size() && i < best.size(); ++i) {
    Scenario x = s;
    apply_layout(x, rows[i].layout);
    out.push_back(bands(x, best[i]));
  }
  return out;
}
}  // namespace

std::vector<HeadlineBands> sweep_bands(const Scenario& s, const std::vector<SweepRow>& rows, const std::vector<TrainingPrediction>& best,
                                       std::span<const Residual> table) {
  return bands_of_rows(s, rows, best, [table](const Scenario& x, const TrainingPrediction& p) { return training_bands(x, p, table); });
}

std::vector<HeadlineBands> sweep_bands(const Scenario& s, const std::vector<ServeRow>& rows, const std::vector<InferencePrediction>& best,
                                       std::span<const Residual> table) {
  return bands_of_rows(s, rows, best, [table](const Scenario& x, const InferencePrediction& p) { return inference_bands(x, p, table); });
}

namespace {
SlownessOf slowness_of(std::span<const Residual> table, std::string_view kind, std::string_view figure) {
  return [table, kind, figure](const Scenario& s) -> std::optional<StepSlowness> {
    const std::optional<EmpiricalBand> b = band_for(table, scenario_features(s, kind, figure));
    if (!b) return std::nullopt;
    return StepSlowness{b->p10, b->p50, b->p90, b->cases, b->sources};
  };
}
}  // namespace

SlownessOf training_step_slowness(std::span<const Residual> table) { return slowness_of(table, "training", "step"); }
SlownessOf serving_rate_slowness(std::span<const Residual> table) { return slowness_of(table, "serving", "throughput"); }

std::string size_for_risk(CapacityReport& c, const HeadlineBands& b) {
  if (!c.target_rate) throw InputError({}, "--risk p90 sizes replicas for a rate: give --rate or [serving] arrival_rate");
  if (!c.replicas) throw InputError({}, fmt::format("--risk p90: no replica count to size: {}", c.slo_verdict.empty() ? "no rate meets the SLO" : c.slo_verdict));
  auto replicas = std::find_if(b.figures.begin(), b.figures.end(), [](const HeadlineBand& f) { return f.name == "replicas"; });
  if (replicas == b.figures.end())
    throw InputError({}, fmt::format("--risk p90: the SLO rate has no empirical band ({}); size with --risk p50",
                                     b.without.empty() ? "no case judges it" : b.without.front()));
  const int point = *c.replicas;
  c.replicas = int(replicas->band.p90);
  if (c.devices) c.devices = *c.replicas * c.devices_per_replica;
  c.at_target.reset();  // a replica's share of the target was the point count's
  c.assumptions.push_back(fmt::format("--risk p90: {} replica(s), the empirical band's P90 ({}); the point prediction needs {}", *c.replicas,
                                      replicas->basis.basis(), point));
  return c.assumptions.back();
}

UncertaintyReport empirical_uncertainty(const HeadlineBands& b, const UncertaintyReport& draws) {
  UncertaintyReport out;
  out.samples = draws.samples;
  std::vector<std::string> kept;
  for (const HeadlineBand& f : b.figures) out.figures.push_back({f.name, f.dimension, f.point, f.band.p10, f.band.p50, f.band.p90});
  for (const FigureInterval& f : draws.figures) {
    auto same = [&](const FigureInterval& x) { return x.name == f.name; };
    if (std::find_if(out.figures.begin(), out.figures.end(), same) == out.figures.end()) out.figures.push_back(f), kept.push_back(f.name);
  }
  out.basis = fmt::format("empirical (docs/models.md F-UNC-2): each figure's validation residuals on held-out cases like it, P10-P90 of "
                          "reality over prediction{}",
                          kept.empty() ? std::string()
                                       : fmt::format("; {} without such cases: the parameters' prior spread ({} draws)", fmt::join(kept, ", "),
                                                     draws.samples));
  return out;
}

}  // namespace perfcast
