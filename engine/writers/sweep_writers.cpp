#include "engine/writers/sweep_writers.hpp"

#include "engine/writers/calibration_writers.hpp"

#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/core/units.hpp"
#include "engine/writers/json_reader.hpp"
#include "engine/writers/sweep_columns.hpp"
#include "engine/writers/text_table.hpp"
#include "engine/writers/inference_writers.hpp"
#include "engine/writers/training_writers.hpp"

namespace perfcast {
namespace {

using nlohmann::json;

constexpr auto& kRecompute = models::kRecomputeKeys;
constexpr auto& kSchedule = models::kScheduleKeys;

std::string thousands(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string metric_text(SweepMetric m, double v) {
  switch (m) {
    case SweepMetric::time_to_train:
    case SweepMetric::step_time: return duration_text(v);
    case SweepMetric::tokens_per_s: return fmt::format("{:.4g} tokens/s", v);
    case SweepMetric::mfu: return percent_text(v);
    case SweepMetric::memory: return units::format_binary_bytes(v, 1);
    case SweepMetric::usd: return usd_text(v);
    case SweepMetric::co2: return mass_text(v);
    case SweepMetric::energy: return fmt::format("{:.4g} MWh", v / 3.6e9);
    case SweepMetric::tokens_per_dollar: return fmt::format("{:.4g} tokens/$", v);
  }
  return "";
}

// Table, JSON and CSV of a row, all from the column tables (engine/writers/sweep_columns): the
// figures a sweep knows (job and money figures only when the scenario has them).
template <class Figures>
std::vector<std::string> header(std::span<const FigureColumn<Figures>> columns, bool job, bool economics) {
  std::vector<std::string> h = {"#", "layout"};
  for (const auto& c : columns)
    if (!c.heading.empty() && known(c.known, job, economics)) h.emplace_back(c.heading);
  return h;
}

template <class Row, class Figures>
std::vector<std::string> cells(std::span<const FigureColumn<Figures>> columns, bool job, bool economics, const std::string& rank,
                               const Row& x) {
  std::vector<std::string> c = {rank, layout_label(x.layout)};
  for (const auto& col : columns)
    if (!col.heading.empty() && known(col.known, job, economics)) c.push_back(col.text(x.figures.*col.member));
  return c;
}

template <class Layout>
json layout_json(std::span<const LayoutColumn<Layout>> columns, const Layout& l) {
  json out = json::object();
  for (const auto& c : columns) out[std::string(c.key)] = c.get(l);
  return out;
}

template <class Figures>
json figures_json(std::span<const FigureColumn<Figures>> columns, bool job, bool economics, const Figures& f) {
  json out = json::object();
  for (const auto& c : columns) out[std::string(c.key)] = known(c.known, job, economics) ? json(f.*c.member) : json(nullptr);
  return out;
}

template <class Layout, class Figures>
std::string csv_header(std::span<const LayoutColumn<Layout>> layout, std::span<const FigureColumn<Figures>> figures, bool job, bool economics) {
  std::string out = "rank,id";
  for (const auto& c : layout) out += fmt::format(",{}", c.csv_key.empty() ? c.key : c.csv_key);
  for (const auto& c : figures)
    if (known(c.known, job, economics)) out += fmt::format(",{}", c.key);
  return out + "\n";
}

template <class Row, class Layout, class Figures>
std::string csv_row(std::span<const LayoutColumn<Layout>> layout, std::span<const FigureColumn<Figures>> figures, bool job, bool economics,
                    std::size_t rank, const Row& x) {
  std::string out = fmt::format("{},{}", rank, x.id);
  for (const auto& c : layout) out += "," + csv_cell(c.get(x.layout));
  for (const auto& c : figures)
    if (known(c.known, job, economics)) out += fmt::format(",{}", x.figures.*c.member);
  return out + "\n";
}

json layout_json(const SweepLayout& l) { return layout_json(training_layout_columns(), l); }
json figures_json(const SweepResult& r, const SweepFigures& f) { return figures_json(training_figure_columns(), r.job, r.economics, f); }

json row_json(const SweepResult& r, const SweepRow& x) {
  return {{"id", x.id}, {"layout", layout_json(x.layout)}, {"figures", figures_json(r, x.figures)}};
}

template <class T>
json list(const std::vector<T>& v) {
  json out = json::array();
  for (const T& x : v) out.push_back(x);
  return out;
}

// ---- Reading a shard back ----------------------------------------------------------------------

struct Reader : JsonReader {
  SweepMetric metric(const std::string& name) const {
    for (int m = 0; m < kSweepMetrics; ++m)
      if (name_of(SweepMetric(m)) == name) return SweepMetric(m);
    fail(fmt::format("unknown metric '{}'", name));
  }
  SweepLayout layout(const json& j) const {
    SweepLayout l;
    for (const auto& c : training_layout_columns())
      if (c.set) set(c.set, l, j, std::string(c.key));
    if (const std::string fault = layout_fault(l); !fault.empty()) fail("layout: " + fault);
    return l;
  }
  SweepRow row(const json& j) const {
    check_figures(j, "a row");
    SweepRow x;
    x.id = get<std::uint64_t>(j, "id");
    x.layout = layout(at(j, "layout"));
    const json& f = at(j, "figures");
    for (const auto& c : training_figure_columns()) x.figures.*c.member = number(f, std::string(c.key).c_str());
    return x;
  }
};

std::string drops_text(const std::array<std::uint64_t, kLayoutRules>& rules, std::uint64_t memory, double capacity_B,
                       const std::vector<std::string>& constraints, const std::vector<std::uint64_t>& broke) {
  std::string out = "Dropped:\n";
  std::vector<std::pair<std::uint64_t, std::string>> drops;
  for (int i = 0; i < kLayoutRules; ++i)
    if (rules[std::size_t(i)]) drops.emplace_back(rules[std::size_t(i)], std::string(describe(LayoutRule(i))));
  std::sort(drops.begin(), drops.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [n, why] : drops) out += fmt::format("  {:>13}  {}\n", thousands(n), why);
  out += fmt::format("  {:>13}  do not fit in {} of device memory\n", thousands(memory), units::format_binary_bytes(capacity_B, 1));
  for (std::size_t i = 0; i < constraints.size(); ++i) out += fmt::format("  {:>13}  break {}\n", thousands(broke[i]), constraints[i]);
  return out;
}

// The best rows, the Pareto front and the scenario's own layout against the best: what both sweep
// tables show, in each sweep's columns and with its metric wording.
template <class Result, class Cells, class MetricText>
std::string ranking_text(const Result& r, const std::vector<std::string>& header, Cells cells, MetricText metric_text) {
  std::string out;
  if (r.best.empty()) {
    out += "No layout fits and meets the constraints.\n";
  } else {
    TextTable t(header);
    for (std::size_t i = 0; i < r.best.size(); ++i) t.add_row(cells(std::to_string(i + 1), r.best[i]));
    out += fmt::format("Best {} by {}:\n", r.best.size(), name_of(r.objective)) + t.render();
  }
  if (!r.front.empty()) {
    std::string names;
    for (const auto m : r.pareto) names += (names.empty() ? "" : ", ") + std::string(name_of(m));
    TextTable t(header);
    for (std::size_t i = 0; i < r.front.size(); ++i) t.add_row(cells(std::to_string(i + 1), r.front[i]));
    out += fmt::format("\nPareto front ({}): {} layouts no other beats on every one\n", names, r.front.size()) + t.render();
  }
  const double own = r.baseline.figures.value(r.objective);
  out += fmt::format("\nThe scenario's own layout, {}: {} {}{}", layout_label(r.baseline.layout), name_of(r.objective), metric_text(r.objective, own),
                     r.baseline_fits ? "" : " (does not fit in memory)");
  if (!r.best.empty() && own > 0) {
    const double best_value = r.best.front().figures.value(r.objective);
    const double gain = higher_is_better(r.objective) ? best_value / own - 1 : 1 - best_value / own;
    out += fmt::format("; the best is {} {} ({}); {} feasible layouts beat it\n", percent_text(std::abs(gain)), gain >= 0 ? "better" : "worse",
                       metric_text(r.objective, best_value), thousands(r.counts.better_than_baseline));
  } else {
    out += "\n";
  }
  return out;
}

// The JSON both sweeps share: the constraints with what each dropped, the front's metrics, the
// drops by layout rule, and the best rows with their full predictions.
template <class Result>
json constraints_json(const Result& r) {
  json out = json::array();
  for (std::size_t i = 0; i < r.constraints.size(); ++i)
    out.push_back({{"text", r.constraints[i].text}, {"metric", name_of(r.constraints[i].metric)}, {"at_most", r.constraints[i].at_most},
                   {"bound", r.constraints[i].bound}, {"dropped", r.counts.constraint[i]}});
  return out;
}

template <class Result>
json pareto_metrics_json(const Result& r) {
  json out = json::array();
  for (const auto m : r.pareto) out.push_back(name_of(m));
  return out;
}

json rule_drops_json(const SweepCounts& c) {
  json out = json::object();
  for (int i = 0; i < kLayoutRules; ++i) out[std::string(describe(LayoutRule(i)))] = c.rule[std::size_t(i)];
  return out;
}

template <class Row, class Prediction, class RowJson, class PredictionJson>
json best_json(const std::vector<Row>& rows, const std::vector<Prediction>& predictions, const std::vector<HeadlineBands>& bands,
               RowJson row_json, PredictionJson prediction_json) {
  json out = json::array();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    json row = row_json(rows[i]);
    if (i < predictions.size()) row["prediction"] = prediction_json(predictions[i]);
    if (i < bands.size()) row["bands"] = bands_json(bands[i]);
    out.push_back(row);
  }
  return out;
}

std::string serve_metric_text(ServeMetric m, double v) {
  switch (m) {
    case ServeMetric::ttft:
    case ServeMetric::tpot:
    case ServeMetric::e2e: return duration_text(v);
    case ServeMetric::tokens_per_s:
    case ServeMetric::tokens_per_s_per_device: return fmt::format("{:.4g} tokens/s", v);
    case ServeMetric::usd_per_mtok: return fmt::format("${:.4g}/M tokens", v);
    case ServeMetric::co2_per_mtok: return fmt::format("{:.4g} kg/M tokens", v);
    case ServeMetric::memory: return units::format_binary_bytes(v, 1);
  }
  return "";
}

json serve_row_json(const ServeRow& x, bool economics) {
  return {{"id", x.id},
          {"layout", layout_json(serving_layout_columns(), x.layout)},
          {"figures", figures_json(serving_figure_columns(), false, economics, x.figures)}};
}

}  // namespace

// The keys both sweeps' JSON share: what was swept and ranked, the counts, the best rows and the
// front, and how long it took.
template <class Result>
json shared_sweep_json(const Result& r, json best, json front) {
  const SweepCounts& c = r.counts;
  return {{"scenario", r.scenario},
          {"workload", r.workload},
          {"accelerator", r.accelerator},
          {"objective", name_of(r.objective)},
          {"higher_is_better", higher_is_better(r.objective)},
          {"constraints", constraints_json(r)},
          {"pareto_metrics", pareto_metrics_json(r)},
          {"top", r.top},
          {"capacity_B", r.capacity_B},
          {"counts",
           {{"combinations", c.combinations}, {"dropped_by_rule", rule_drops_json(c)}, {"dropped_by_memory", c.memory}, {"timed", c.timed},
            {"feasible", c.feasible}, {"better_than_baseline", c.better_than_baseline}}},
          {"best", std::move(best)},
          {"pareto_front", std::move(front)},
          {"seconds", r.seconds},
          {"threads", r.threads}};
}

std::string sweep_to_table(const ServeResult& r, const std::vector<InferencePrediction>& best, const std::vector<HeadlineBands>& bands) {
  const SweepCounts& c = r.counts;
  std::string out = fmt::format("Inference sweep of {} on {} ({}): objective {} ({} is better)\n", r.workload, r.accelerator, r.scenario,
                                name_of(r.objective), higher_is_better(r.objective) ? "higher" : "lower");
  out += fmt::format("{} combinations (tp, pp, ep, batch, weight and KV dtypes{})\n", thousands(c.combinations),
                     r.space.devices.size() > 1 ? fmt::format(" over {} device counts", r.space.devices.size()) : "");
  std::vector<std::string> texts;
  for (const ServeConstraint& k : r.constraints) texts.push_back(k.text);
  out += drops_text(c.rule, c.memory, r.capacity_B, texts, c.constraint);
  out += fmt::format("{} layouts timed, {} feasible\n\n", thousands(c.timed), thousands(c.feasible));
  out += ranking_text(r, header(serving_figure_columns(), false, r.economics),
                      [&](const std::string& rank, const ServeRow& x) { return cells(serving_figure_columns(), false, r.economics, rank, x); },
                      serve_metric_text);
  if (!best.empty()) out += "\nThe best layout in full (perfcast predict on it):\n\n" + inference_to_table(best.front(), false);
  if (!bands.empty()) out += bands_text(bands.front());
  out += fmt::format("\n{} combinations in {:.3g} s on {} thread{} ({:.3g} layouts/s; each timed layout is a full predict)\n",
                     thousands(c.combinations), r.seconds, r.threads, r.threads == 1 ? "" : "s", r.seconds > 0 ? double(c.combinations) / r.seconds : 0);
  return out;
}

json sweep_to_json(const ServeResult& r, const std::vector<InferencePrediction>& best, const std::vector<HeadlineBands>& bands) {
  const json rows = best_json(r.best, best, bands, [&](const ServeRow& x) { return serve_row_json(x, r.economics); }, inference_to_json);
  json front = json::array();
  for (const ServeRow& x : r.front) front.push_back(serve_row_json(x, r.economics));
  json baseline = serve_row_json(r.baseline, r.economics);
  baseline.erase("id");
  baseline["fits"] = r.baseline_fits;
  json sweep = shared_sweep_json(r, rows, front);
  sweep.update({{"kind", "inference"}, {"baseline", baseline}});
  return {{"sweep", sweep}};
}

std::string sweep_to_csv(const ServeResult& r) {
  std::string out = csv_header(serving_layout_columns(), serving_figure_columns(), false, r.economics);
  for (std::size_t i = 0; i < r.best.size(); ++i)
    out += csv_row(serving_layout_columns(), serving_figure_columns(), false, r.economics, i + 1, r.best[i]);
  return out;
}

std::string sweep_to_table(const SweepResult& r, const std::vector<TrainingPrediction>& best, const std::vector<HeadlineBands>& bands) {
  const SweepCounts& c = r.counts;
  std::string out = fmt::format("Sweep of {} on {} ({}, stack {}): objective {} ({} is better){}\n", r.workload, r.accelerator, r.scenario, r.stack,
                                name_of(r.objective), higher_is_better(r.objective) ? "higher" : "lower",
                                r.shards > 1 ? fmt::format(", shard {}/{}", r.shard, r.shards) : "");
  std::string counts_line = fmt::format("{} combinations", thousands(c.combinations));
  if (r.space.devices.size() > 1)
    counts_line += fmt::format(" over {} device counts ({}–{})", r.space.devices.size(), r.space.devices.front(), r.space.devices.back());
  out += counts_line + fmt::format("; {} not distinct (a schedule without pp, a ZeRO stage without dp x cp)\n", thousands(c.repeats));
  std::vector<std::string> texts;
  for (const SweepConstraint& k : r.constraints) texts.push_back(k.text);
  out += drops_text(c.rule, c.memory, r.capacity_B, texts, c.constraint);
  out += fmt::format("{} layouts timed, {} feasible\n\n", thousands(c.timed), thousands(c.feasible));
  out += ranking_text(r, header(training_figure_columns(), r.job, r.economics),
                      [&](const std::string& rank, const SweepRow& x) { return cells(training_figure_columns(), r.job, r.economics, rank, x); },
                      metric_text);
  if (!best.empty()) out += "\nThe best layout in full (perfcast predict on it):\n\n" + training_to_table(best.front(), false);
  if (!bands.empty()) out += bands_text(bands.front());
  const double per_s = r.seconds > 0 ? double(c.combinations) / r.seconds : 0;
  out += fmt::format("\n{} combinations in {:.3g} s on {} thread{}: {:.3g} layouts/s ({:.3g} timed/s)\n", thousands(c.combinations), r.seconds,
                     r.threads, r.threads == 1 ? "" : "s", per_s, r.seconds > 0 ? double(c.timed) / r.seconds : 0);
  return out;
}

json sweep_to_json(const SweepResult& r, const std::vector<TrainingPrediction>& best, const std::vector<HeadlineBands>& bands) {
  const SweepCounts& c = r.counts;
  const json rows = best_json(r.best, best, bands, [&](const SweepRow& x) { return row_json(r, x); }, training_to_json);
  json front = json::array();
  for (const SweepRow& x : r.front) front.push_back(row_json(r, x));
  std::vector<std::string> recompute;
  json pipeline = json::array();
  for (models::Recompute x : r.space.recompute) recompute.emplace_back(kRecompute[int(x)]);
  for (const PipelineChoice& x : r.space.pipeline) pipeline.push_back({{"schedule", kSchedule[int(x.schedule)]}, {"vp", x.vp}});
  std::vector<bool> sp(r.space.sequence_parallel.begin(), r.space.sequence_parallel.end());
  json sweep = shared_sweep_json(r, rows, front);
  sweep["counts"]["repeats"] = c.repeats;
  sweep.update({{"scenario_file", r.scenario_file},
                {"stack", r.stack},
            {"shard", r.shard},
            {"shards", r.shards},
            {"job", r.job},
            {"economics", r.economics},
            {"space",
             {{"devices", list(r.space.devices)}, {"tp", list(r.space.tp)}, {"cp", list(r.space.cp)}, {"pp", list(r.space.pp)},
              {"ep", list(r.space.ep)}, {"micro_batch", list(r.space.micro_batch)}, {"recompute", recompute},
              {"sequence_parallel", sp}, {"zero", list(r.space.zero)}, {"pipeline", pipeline},
              {"combinations", r.space.size()}}},
            {"baseline", {{"layout", layout_json(r.baseline.layout)}, {"figures", figures_json(r, r.baseline.figures)}, {"fits", r.baseline_fits}}},
            {"layouts_per_s", r.seconds > 0 ? double(c.combinations) / r.seconds : 0.0}});
  return {{"sweep", sweep}};
}

std::string sweep_to_csv(const SweepResult& r) {
  std::string out = csv_header(training_layout_columns(), training_figure_columns(), r.job, r.economics);
  for (std::size_t i = 0; i < r.best.size(); ++i)
    out += csv_row(training_layout_columns(), training_figure_columns(), r.job, r.economics, i + 1, r.best[i]);
  return out;
}

SweepResult sweep_from_json(const json& doc, const std::string& file) {
  const Reader in{{file, "not a perfcast sweep shard"}};
  const json& j = in.at(doc, "sweep");
  SweepResult r;
  r.scenario_file = in.get<std::string>(j, "scenario_file");
  r.stack = in.get<std::string>(j, "stack");
  r.scenario = in.get<std::string>(j, "scenario");
  r.workload = in.get<std::string>(j, "workload");
  r.accelerator = in.get<std::string>(j, "accelerator");
  r.objective = in.metric(in.get<std::string>(j, "objective"));
  for (const json& c : in.at(j, "constraints"))
    r.constraints.push_back({in.metric(in.get<std::string>(c, "metric")), in.get<bool>(c, "at_most"), in.number(c, "bound"), in.get<std::string>(c, "text")});
  for (const json& m : in.at(j, "pareto_metrics")) r.pareto.push_back(in.metric(m.is_string() ? m.get<std::string>() : ""));
  r.top = in.get<int>(j, "top"), r.shard = in.get<int>(j, "shard"), r.shards = in.get<int>(j, "shards");
  if (r.shards < 1 || r.shard < 0 || r.shard >= r.shards) in.fail("shard outside 0..shards-1");
  r.job = in.get<bool>(j, "job"), r.economics = in.get<bool>(j, "economics");
  const json& sp = in.at(j, "space");
  r.space.devices = in.get<std::vector<int>>(sp, "devices");
  r.space.tp = in.get<std::vector<int>>(sp, "tp"), r.space.cp = in.get<std::vector<int>>(sp, "cp");
  r.space.pp = in.get<std::vector<int>>(sp, "pp"), r.space.ep = in.get<std::vector<int>>(sp, "ep");
  r.space.micro_batch = in.get<std::vector<double>>(sp, "micro_batch");
  for (const json& x : in.at(sp, "recompute")) r.space.recompute.push_back(models::Recompute(in.index(json{{"v", x}}, "v", kRecompute)));
  r.space.sequence_parallel = in.get<std::vector<bool>>(sp, "sequence_parallel");
  r.space.zero = in.get<std::vector<int>>(sp, "zero");
  for (const json& x : in.at(sp, "pipeline")) r.space.pipeline.push_back({models::Schedule(in.index(x, "schedule", kSchedule)), in.get<int>(x, "vp")});
  r.capacity_B = in.number(j, "capacity_B");
  const json& c = in.at(j, "counts");
  r.counts.combinations = in.get<std::uint64_t>(c, "combinations");
  r.counts.repeats = in.get<std::uint64_t>(c, "repeats");
  const json& drops = in.at(c, "dropped_by_rule");
  for (int i = 0; i < kLayoutRules; ++i) r.counts.rule[std::size_t(i)] = in.get<std::uint64_t>(drops, std::string(describe(LayoutRule(i))).c_str());
  r.counts.memory = in.get<std::uint64_t>(c, "dropped_by_memory");
  for (const json& x : in.at(j, "constraints")) r.counts.constraint.push_back(in.get<std::uint64_t>(x, "dropped"));
  r.counts.timed = in.get<std::uint64_t>(c, "timed"), r.counts.feasible = in.get<std::uint64_t>(c, "feasible");
  r.counts.better_than_baseline = in.get<std::uint64_t>(c, "better_than_baseline");
  for (const json& x : in.at(j, "best")) r.best.push_back(in.row(x));
  for (const json& x : in.at(j, "pareto_front")) r.front.push_back(in.row(x));
  const json& b = in.at(j, "baseline");
  r.baseline = in.row(json{{"id", 0}, {"layout", in.at(b, "layout")}, {"figures", in.at(b, "figures")}});
  r.baseline_fits = in.get<bool>(b, "fits");
  r.seconds = in.number(j, "seconds"), r.threads = in.get<int>(j, "threads");
  return r;
}

}  // namespace perfcast
