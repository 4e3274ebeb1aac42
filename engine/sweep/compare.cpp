#include "engine/sweep/compare.hpp"

#include <algorithm>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/predict/economics.hpp"
#include "engine/core/errors.hpp"
#include "engine/predict/inference.hpp"
#include "engine/predict/training.hpp"

namespace perfcast {
namespace {

void fill_from(CompareRow& row, const Economics& e) {
  row.tokens_per_s = e.tokens_per_s;
  row.offer = e.offer;
  row.usd = e.usd;
  row.usd_per_million_tokens = e.usd_per_million_tokens;
  row.tokens_per_usd = e.tokens_per_usd;
  row.kwh = e.job_kwh ? e.job_kwh : e.job_it_kwh;
  row.kwh_per_million_tokens = e.kwh_per_million_tokens;
  if (e.co2e_kg) row.co2e_kg = *e.co2e_kg + e.embodied_kg.value_or(0);
  row.co2e_kg_per_million_tokens = e.co2e_kg_per_million_tokens;
  row.tokens_per_s_per_kw = e.tokens_per_s_per_kW;
  row.wall_s = e.job_wall_s;
  row.hosts_counted = e.hosts_counted;
}

CompareRow evaluate(const ScenarioVariant& v) {
  CompareRow row{.hardware = v.hardware, .cost = v.cost, .region = v.region, .error = v.error};
  if (!v.scenario) return row;
  const Scenario& s = *v.scenario;
  try {
    row.accelerator = s.hardware.accelerator;
    row.devices = s.hardware.count;
    row.training = s.training.has_value();
    const std::optional<Economics> e = row.training ? predict_training(s).economics : predict_inference(s).economics;
    if (!e) throw InputError({s.file, 0, 0}, fmt::format("no power figure for {}: energy and cost unknown", s.hardware.accelerator));
    fill_from(row, *e);
    // What kind of capacity the offer is, beside how it was chosen.
    std::vector<std::string> notes;
    if (!v.offer_note.empty()) notes.push_back(v.offer_note);
    if (s.hw.offer && s.cost.spot) notes.push_back("spot: preemptible capacity, reclaimed at the provider's notice");
    if (s.hw.offer && s.hw.offer->community) notes.push_back("community cloud: third-party hosts, no provider SLA");
    row.offer_note = fmt::format("{}", fmt::join(notes, "; "));
  } catch (const InputError& e) {
    row.error = e.message();
  }
  return row;
}

// The row minimising `key` (maximising when `larger`), among rows that qualify.
int best_row(const CompareReport& r, const std::function<std::optional<double>(const CompareRow&)>& key, bool larger) {
  int best = -1;
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const CompareRow& row = r.rows[i];
    const std::optional<double> v = key(row);
    if (!row.error.empty() || !row.meets_deadline || !v) continue;
    const std::optional<double> b = best >= 0 ? key(r.rows[best]) : std::nullopt;
    if (!b || (larger ? *v > *b : *v < *b)) best = static_cast<int>(i);
  }
  return best;
}

}  // namespace

CompareReport compare(const std::vector<ScenarioVariant>& variants, const std::string& scenario_file,
                      std::optional<double> deadline_s) {
  CompareReport report{.scenario = scenario_file, .deadline_s = deadline_s};
  for (const ScenarioVariant& v : variants) report.rows.push_back(evaluate(v));
  // The scenario's kind, from its file: right even when every variant was refused.
  if (!variants.empty()) report.training = variants.front().training;
  for (CompareRow& row : report.rows)
    if (deadline_s && row.wall_s) row.meets_deadline = *row.wall_s <= *deadline_s;

  using Key = std::function<std::optional<double>(const CompareRow&)>;
  const bool t = report.training;
  const std::vector<std::tuple<std::string, Key, bool>> metrics = {
      {"time", t ? Key([](const CompareRow& x) { return x.wall_s; }) : Key([](const CompareRow& x) { return x.tokens_per_s; }), !t},
      {"cost", t ? Key([](const CompareRow& x) { return x.usd; }) : Key([](const CompareRow& x) { return x.usd_per_million_tokens; }), false},
      {"energy", t ? Key([](const CompareRow& x) { return x.kwh; }) : Key([](const CompareRow& x) { return x.kwh_per_million_tokens; }), false},
      {"co2e", t ? Key([](const CompareRow& x) { return x.co2e_kg; }) : Key([](const CompareRow& x) { return x.co2e_kg_per_million_tokens; }), false},
      {"perf_per_usd", [](const CompareRow& x) { return x.tokens_per_usd; }, true},
      {"perf_per_watt", [](const CompareRow& x) { return x.tokens_per_s_per_kw; }, true},
  };
  // Energy counted with the hosts on some rows and without on others is not comparable: those
  // metrics are not ranked, and the report says which rows lack their hosts.
  std::vector<std::string> uncounted;
  bool counted = false;
  for (const CompareRow& row : report.rows) {
    if (!row.error.empty()) continue;
    if (row.hosts_counted) counted = true;
    else if (std::find(uncounted.begin(), uncounted.end(), row.accelerator) == uncounted.end()) uncounted.push_back(row.accelerator);
  }
  const bool mixed = counted && !uncounted.empty();
  for (const auto& [name, key, larger] : metrics) {
    if (mixed && (name == "energy" || name == "co2e" || name == "perf_per_watt")) {
      report.best.push_back({name, -1, fmt::format("not ranked: the hosts of {} are not counted (no node power in the database)",
                                                   fmt::join(uncounted, ", "))});
      continue;
    }
    report.best.push_back({name, best_row(report, key, larger), ""});
  }
  return report;
}

}  // namespace perfcast
