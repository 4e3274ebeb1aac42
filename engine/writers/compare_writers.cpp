#include "engine/writers/compare_writers.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "engine/writers/calibration_writers.hpp"
#include "engine/writers/text_table.hpp"

namespace perfcast {
namespace {

bool is_best(const CompareReport& r, std::string_view metric, std::size_t row) {
  for (const CompareBest& b : r.best)
    if (b.metric == metric) return b.row == static_cast<int>(row);
  return false;
}

std::string cell(const std::optional<double>& v, const std::string& text, bool best) {
  if (!v) return "-";
  return best ? text + " *" : text;
}

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

// Row i's band of `figure`, when it has one.
const HeadlineBand* band_of(const std::vector<HeadlineBands>& bands, std::size_t i, std::string_view figure) {
  if (i >= bands.size()) return nullptr;
  for (const HeadlineBand& f : bands[i].figures)
    if (f.name == figure) return &f;
  return nullptr;
}

// The figures the table ranks first: time (a job's wall time, or tokens/s) and cost.
std::string_view time_figure(bool training) { return training ? "wall_s" : "tokens_per_s"; }
std::string_view cost_figure(bool training) { return training ? "usd" : "usd_per_million_tokens"; }

std::string time_band_text(const CompareRow& x, const HeadlineBand& b) {
  return x.training ? fmt::format("{} - {}", duration_text(b.band.p10), duration_text(b.band.p90))
                    : fmt::format("{:.4g} - {:.4g} tokens/s", b.band.p10, b.band.p90);
}
std::string cost_band_text(const CompareRow& x, const HeadlineBand& b) {
  return x.training ? fmt::format("{} - {}", usd_text(b.band.p10), usd_text(b.band.p90))
                    : fmt::format("${:.4g} - ${:.4g} per M tokens", b.band.p10, b.band.p90);
}

// Under the table: each row's time and cost at P10-P90, then the cases behind each distinct band.
std::string bands_section(const CompareReport& r, const std::vector<HeadlineBands>& bands) {
  TextTable t({"hardware", "paid as", "region", r.training ? "wall time P10 - P90" : "tokens/s P10 - P90", "cost P10 - P90", "judged by"});
  std::vector<std::string> bases, without;
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const CompareRow& x = r.rows[i];
    if (!x.error.empty() || i >= bands.size()) continue;
    const HeadlineBand* time = band_of(bands, i, time_figure(x.training));
    const HeadlineBand* cost = band_of(bands, i, cost_figure(x.training));
    if (!time && !cost) {
      for (const std::string& w : bands[i].without)
        if (std::find(without.begin(), without.end(), w) == without.end()) without.push_back(w);
      continue;
    }
    const EmpiricalBand& basis = (time ? time : cost)->basis;
    const std::string b = basis.basis();
    auto at = std::find(bases.begin(), bases.end(), b);
    if (at == bases.end()) at = bases.insert(at, b);
    t.add_row({x.hardware, x.cost, x.region, time ? time_band_text(x, *time) : "-", cost ? cost_band_text(x, *cost) : "-",
               fmt::format("[{}]{}", at - bases.begin() + 1, basis.far() ? " FAR" : "")});
  }
  std::string out;
  if (!bases.empty()) {
    out += "\nBands: where reality fell on validated cases like each row (P10-P90 of held-out residuals, docs/models.md F-UNC-2; "
           "energy, CO2e and perf/$ move with them)\n" + t.render();
    for (std::size_t k = 0; k < bases.size(); ++k) out += fmt::format("  [{}] {}\n", k + 1, bases[k]);
  }
  for (const std::string& w : without) out += "no band: " + w + "\n";
  return out;
}

}  // namespace

std::string compare_to_table(const CompareReport& r, const std::vector<HeadlineBands>& bands) {
  std::string out = fmt::format("Compare {} ({}){}; * marks the best of each column{}\n\n", r.scenario,
                                r.training ? "training job" : "inference, per million output tokens",
                                r.deadline_s ? fmt::format(", deadline {}", duration_text(*r.deadline_s)) : "",
                                r.deadline_s ? " among rows that meet the deadline" : "");
  const bool t = r.training;
  TextTable table({"hardware", "paid as", "region", "devices", t ? "wall time" : "tokens/s", t ? "cost" : "$/M tokens",
                   t ? "energy" : "kWh/M tokens", t ? "CO2e" : "kg CO2e/M tokens", "tokens/$", "tokens/s/kW", "note"});
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const CompareRow& x = r.rows[i];
    if (!x.error.empty()) {
      table.add_row({x.hardware, x.cost, x.region, "-", "-", "-", "-", "-", "-", "-", "n/a: " + x.error});
      continue;
    }
    const std::string paid = x.offer.empty() ? x.cost : (x.cost == x.offer ? x.offer : fmt::format("{} ({})", x.cost, x.offer));
    table.add_row({x.hardware, paid, x.region, fmt::format("{} × {}", x.devices, x.accelerator),
                   t ? cell(x.wall_s, x.wall_s ? duration_text(*x.wall_s) : "", is_best(r, "time", i))
                     : cell(x.tokens_per_s, x.tokens_per_s ? fmt::format("{:.4g}", *x.tokens_per_s) : "", is_best(r, "time", i)),
                   t ? cell(x.usd, x.usd ? usd_text(*x.usd) : "", is_best(r, "cost", i))
                     : cell(x.usd_per_million_tokens, x.usd_per_million_tokens ? fmt::format("${:.4g}", *x.usd_per_million_tokens) : "",
                            is_best(r, "cost", i)),
                   t ? cell(x.kwh, x.kwh ? fmt::format("{:.4g} MWh", *x.kwh / 1e3) : "", is_best(r, "energy", i))
                     : cell(x.kwh_per_million_tokens, x.kwh_per_million_tokens ? fmt::format("{:.4g}", *x.kwh_per_million_tokens) : "",
                            is_best(r, "energy", i)),
                   t ? cell(x.co2e_kg, x.co2e_kg ? fmt::format("{:.4g} t", *x.co2e_kg / 1e3) : "", is_best(r, "co2e", i))
                     : cell(x.co2e_kg_per_million_tokens,
                            x.co2e_kg_per_million_tokens ? fmt::format("{:.4g}", *x.co2e_kg_per_million_tokens) : "", is_best(r, "co2e", i)),
                   cell(x.tokens_per_usd, x.tokens_per_usd ? fmt::format("{:.4g}", *x.tokens_per_usd) : "", is_best(r, "perf_per_usd", i)),
                   cell(x.tokens_per_s_per_kw, x.tokens_per_s_per_kw ? fmt::format("{:.4g}", *x.tokens_per_s_per_kw) : "",
                        is_best(r, "perf_per_watt", i)),
                   x.meets_deadline ? "" : "misses the deadline"});
  }
  out += table.render();
  out += bands_section(r, bands);
  bool offers_titled = false;
  for (const CompareRow& x : r.rows) {
    if (x.offer_note.empty() || !x.error.empty()) continue;
    if (!offers_titled) out += "\nOffers:\n", offers_titled = true;
    out += fmt::format("  {} · {}: {}\n", x.hardware, x.cost, x.offer_note);
  }
  out += "\nBest:\n";
  for (const CompareBest& b : r.best) {
    if (b.row < 0) {
      out += fmt::format("  {:<14} {}\n", b.metric, b.not_ranked.empty() ? "none qualifies" : b.not_ranked);
      continue;
    }
    const CompareRow& x = r.rows[b.row];
    out += fmt::format("  {:<14} {} · {} · {}\n", b.metric, x.hardware, x.cost, x.region);
  }
  out += t ? "CO2e = operational (location-based, region grid × PUE) + embodied where the database has a figure; energy at the facility "
             "when a region is known.\n"
           : "Per million output tokens at full occupancy, every replica alike.\n";
  return out;
}

nlohmann::json compare_to_json(const CompareReport& r, const std::vector<HeadlineBands>& bands) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const CompareRow& x = r.rows[i];
    nlohmann::json j{{"hardware", x.hardware}, {"cost", x.cost}, {"region", x.region}};
    if (!x.error.empty()) {
      j["error"] = x.error;
      rows.push_back(j);
      continue;
    }
    j.update({{"accelerator", x.accelerator}, {"devices", x.devices}, {"offer", x.offer}, {"wall_s", optional_json(x.wall_s)},
              {"tokens_per_s", optional_json(x.tokens_per_s)}, {"usd", optional_json(x.usd)},
              {"usd_per_million_tokens", optional_json(x.usd_per_million_tokens)}, {"kwh", optional_json(x.kwh)},
              {"kwh_per_million_tokens", optional_json(x.kwh_per_million_tokens)}, {"co2e_kg", optional_json(x.co2e_kg)},
              {"co2e_kg_per_million_tokens", optional_json(x.co2e_kg_per_million_tokens)},
              {"tokens_per_usd", optional_json(x.tokens_per_usd)}, {"tokens_per_s_per_kw", optional_json(x.tokens_per_s_per_kw)},
              {"meets_deadline", x.meets_deadline}});
    if (!x.offer_note.empty()) j["offer_note"] = x.offer_note;
    for (auto it = j.begin(); it != j.end();) it = it->is_null() ? j.erase(it) : std::next(it);
    if (i < bands.size()) j["bands"] = bands_json(bands[i]);
    rows.push_back(j);
  }
  nlohmann::json best = nlohmann::json::object();
  nlohmann::json not_ranked = nlohmann::json::object();
  for (const CompareBest& b : r.best) {
    best[b.metric] = b.row >= 0 ? nlohmann::json(b.row) : nlohmann::json(nullptr);
    if (!b.not_ranked.empty()) not_ranked[b.metric] = b.not_ranked;
  }
  nlohmann::json out{{"scenario", r.scenario}, {"kind", r.training ? "training" : "inference"}, {"rows", rows}, {"best_row", best}};
  if (!not_ranked.empty()) out["not_ranked"] = not_ranked;
  if (r.deadline_s) out["deadline_s"] = *r.deadline_s;
  return out;
}

std::string compare_to_csv(const CompareReport& r, const std::vector<HeadlineBands>& bands) {
  std::string out =
      "hardware,cost,region,accelerator,devices,offer,wall_s,tokens_per_s,usd,usd_per_million_tokens,kwh,kwh_per_million_tokens,"
      "co2e_kg,co2e_kg_per_million_tokens,tokens_per_usd,tokens_per_s_per_kw,meets_deadline,offer_note,error,"
      "wall_s_p10,wall_s_p90,tokens_per_s_p10,tokens_per_s_p90,usd_p10,usd_p90,usd_per_million_tokens_p10,usd_per_million_tokens_p90\n";
  auto num = [](const std::optional<double>& v) { return v ? fmt::format("{:.9g}", *v) : std::string(); };
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const CompareRow& x = r.rows[i];
    std::string banded;
    for (std::string_view figure : {"wall_s", "tokens_per_s", "usd", "usd_per_million_tokens"}) {
      const HeadlineBand* b = band_of(bands, i, figure);
      banded += b ? fmt::format(",{:.9g},{:.9g}", b->band.p10, b->band.p90) : ",,";
    }
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}{}\n", csv_field(x.hardware), csv_field(x.cost), csv_field(x.region),
                       x.accelerator, x.error.empty() ? fmt::format("{}", x.devices) : "", x.offer, num(x.wall_s), num(x.tokens_per_s),
                       num(x.usd), num(x.usd_per_million_tokens), num(x.kwh), num(x.kwh_per_million_tokens), num(x.co2e_kg),
                       num(x.co2e_kg_per_million_tokens), num(x.tokens_per_usd), num(x.tokens_per_s_per_kw),
                       x.error.empty() ? (x.meets_deadline ? "true" : "false") : "", csv_field(x.offer_note), csv_field(x.error), banded);
  }
  return out;
}

}  // namespace perfcast
