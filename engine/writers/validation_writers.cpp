#include "engine/writers/validation_writers.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/core/units.hpp"
#include "engine/writers/text_table.hpp"

namespace perfcast {
namespace {

std::string value_text(double v, units::Dimension d) {
  if (d == units::dim::ops_per_second) return fmt::format("{:.1f} TFLOP/s", v / 1e12);
  if (d == units::dim::bytes_per_second)
    return v >= 1e12 ? fmt::format("{:.3f} TB/s", v / 1e12) : fmt::format("{:.4g} GB/s", v / 1e9);
  if (d == units::dim::bytes) return v >= 1e9 ? fmt::format("{:.4g} GB", v / 1e9) : fmt::format("{:.6g} B", v);
  return fmt::format("{:.4g}", v);
}

nlohmann::json summary_json(const ValidationSummary& v) {
  return {{"cases", v.cases}, {"scored", v.scored}, {"held_out", v.held_out}, {"within_tolerance", v.within_tolerance},
          {"median_abs_error", v.median_abs_error}, {"mean_abs_error", v.mean_abs_error}, {"max_abs_error", v.max_abs_error}};
}

std::string summary_line(const std::string& label, const ValidationSummary& v) {
  // Nothing held out has no error to summarise: say so rather than print a 0.0 % median.
  if (v.held_out == 0)
    return fmt::format("{}: {} cases, {} scored, none held out; {} of {} within tolerance\n", label, v.cases, v.scored,
                       v.within_tolerance, v.scored);
  return fmt::format("{}: {} cases, {} scored, {} held-out; held-out |error| median {:.1f}%, mean {:.1f}%, max {:.1f}%; {} of {} within tolerance\n",
                     label, v.cases, v.scored, v.held_out, 100 * v.median_abs_error, 100 * v.mean_abs_error, 100 * v.max_abs_error,
                     v.within_tolerance, v.scored);
}

// The groupings every writer summarises by: the key, its JSON object, its table label, its markdown title.
struct Grouping {
  SummaryKey key;
  const char *json, *label, *title;
};
constexpr Grouping kGroupings[] = {{SummaryKey::kind, "by_kind", "kind", "suite"},
                                   {SummaryKey::source, "by_source", "source", "source"},
                                   {SummaryKey::engine, "by_engine", "engine", "engine"},
                                   {SummaryKey::vendor, "by_vendor", "vendor", "vendor"}};

// A table cell: a '|' would end it.
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

nlohmann::json validation_to_json(const ValidationReport& r) {
  const std::vector<CaseScore>& scores = r.scores;
  const std::vector<CaseScore>& before = r.before;
  nlohmann::json j;
  j["files"] = nlohmann::json::array();
  for (const auto& f : r.files) j["files"].push_back(f.string());
  j["cases"] = nlohmann::json::array();
  for (const CaseScore& s : scores) {
    nlohmann::json c{{"id", s.id}, {"kind", s.kind}, {"source", s.source}, {"subject", s.subject}, {"measured", s.measured}};
    if (s.scored) {
      c["predicted"] = s.predicted;
      c["error"] = s.error;
      c["held_out"] = s.held_out;
      c["within_tolerance"] = s.within_tolerance;
      c["tolerance"] = s.tolerance;
      c["detail"] = s.detail;
      if (!s.used_for.empty()) c["used_for"] = s.used_for;
      if (!s.profile_used.empty()) c["harness_profile"] = s.profile_used;
    } else {
      c["skipped"] = s.skip;
    }
    j["cases"].push_back(c);
  }
  j["summary"] = summary_json(summarise(scores));
  if (r.profile) {
    j["calibration"] = {{"profile", *r.profile},
                        {"fitted_cases_excluded", r.fitted},
                        {"other_device_cases_with_defaults", r.other_device},
                        {"summary_before", summary_json(summarise(before))}};
    for (const auto& [kind, summary] : summarise_by(before, SummaryKey::kind)) j["calibration"]["by_kind_before"][kind] = summary_json(summary);
    for (std::size_t i = 0; i < scores.size(); ++i)
      if (scores[i].scored) j["cases"][i]["error_before"] = before[i].error;
  }
  for (const Grouping& g : kGroupings)
    for (const auto& [name, summary] : summarise_by(scores, g.key)) j[g.json][name] = summary_json(summary);
  return j;
}

std::string validation_to_csv(const ValidationReport& r) {
  const std::vector<CaseScore>& scores = r.scores;
  std::string out = "id,kind,subject,measured,predicted,error,held_out,within_tolerance,skipped\n";
  for (const CaseScore& s : scores)
    out += fmt::format("{},{},{},{:.6g},{:.6g},{:.6g},{},{},{}\n", csv_field(s.id), s.kind, csv_field(s.subject), s.measured, s.predicted, s.error,
                       s.held_out, s.within_tolerance, csv_field(s.skip));
  return out;
}

std::string validation_to_table(const ValidationReport& r) {
  const std::vector<CaseScore>& scores = r.scores;
  const std::vector<CaseScore>& before = r.before;
  std::vector<std::string> header{"case", "kind", "subject", "measured", "predicted", "error", "detail", "note"};
  if (r.profile) header.insert(header.begin() + 6, "default error");
  TextTable t(header);
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const CaseScore& s = scores[i];
    auto row = [&](std::vector<std::string> cells) {
      if (r.profile) cells.insert(cells.begin() + 6, before[i].scored ? fmt::format("{:+.2f}%", 100 * before[i].error) : "-");
      t.add_row(cells);
    };
    if (!s.scored) {
      row({s.id, s.kind, s.subject, value_text(s.measured, s.dimension), "-", "-", "-", "skipped: " + s.skip});
      continue;
    }
    std::string note = s.used_for == "calibration" ? "fitted by the profile, not held-out"
                       : !s.held_out              ? "source of a default, not held-out"
                       : s.within_tolerance       ? ""
                                                  : fmt::format("outside ±{:.1f}%", 100 * s.tolerance);
    row({s.id, s.kind, s.subject, value_text(s.measured, s.dimension), value_text(s.predicted, s.dimension),
         fmt::format("{:+.2f}%", 100 * s.error), s.detail, note});
  }
  std::string out = t.render() + "\n";
  for (const Grouping& g : kGroupings)
    for (const auto& [name, summary] : summarise_by(scores, g.key)) out += summary_line(std::string(g.label) + " " + name, summary);
  const ValidationSummary all = summarise(scores);
  out += summary_line("all", all);
  if (r.profile) {
    out += fmt::format("\ncalibration {}: {} fitted case(s) not scored as held-out; {} case(s) on devices the profile was not fitted on "
                       "scored with the defaults\n", *r.profile, r.fitted, r.other_device);
    for (const auto& [kind, summary] : summarise_by(before, SummaryKey::kind)) out += summary_line("defaults, kind " + kind, summary);
    out += summary_line("defaults, all", summarise(before));
  }
  if (all.within_tolerance != all.scored) out += fmt::format("{} scored case(s) outside their tolerance\n", all.scored - all.within_tolerance);
  return out;
}

std::string validation_to_markdown(const ValidationReport& r) {
  auto summaries = [](const std::string& title, const std::vector<std::pair<std::string, ValidationSummary>>& rows) {
    std::string out = fmt::format("\n## By {}\n\n| {} | cases | scored | held-out | median abs error | mean | max | within tolerance |\n"
                                  "|---|---:|---:|---:|---:|---:|---:|---:|\n", title, title);
    auto percent = [](const ValidationSummary& v, double x) { return v.held_out ? fmt::format("{:.1f} %", 100 * x) : std::string("-"); };
    for (const auto& [name, v] : rows)
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} of {} |\n", markdown_cell(name), v.cases, v.scored, v.held_out,
                         percent(v, v.median_abs_error), percent(v, v.mean_abs_error), percent(v, v.max_abs_error), v.within_tolerance, v.scored);
    return out;
  };
  const ValidationSummary all = summarise(r.scores);
  std::string out = fmt::format(
      "# Validation results\n\nWritten by `perfcast validate --format markdown{}`: every case in validation/ scored against "
      "today's models. Errors are predicted/measured − 1; the summaries count held-out cases only (not the source of a default, "
      "not fitted by a profile).\n\n**All:** {} cases, {} scored, {} held-out; held-out median |error| {:.1f} %, mean {:.1f} %, "
      "max {:.1f} %; {} of {} within tolerance.\n",
      r.profile ? " --calibration " + *r.profile : "", all.cases, all.scored, all.held_out, 100 * all.median_abs_error,
      100 * all.mean_abs_error, 100 * all.max_abs_error, all.within_tolerance, all.scored);
  for (const Grouping& g : kGroupings) out += summaries(g.title, summarise_by(r.scores, g.key));
  out += coverage_to_markdown(coverage(r.scores));
  out += "\n## Cases\n\n| case | suite | measured | predicted | error | note |\n|---|---|---:|---:|---:|---|\n";
  for (const CaseScore& s : r.scores) {
    const std::string profile = s.profile_used.empty() ? "the profile" : s.profile_used;
    std::string note = !s.scored                        ? "skipped: " + s.skip
                       : s.used_for == "calibration"    ? "fitted by " + profile
                       : !s.held_out                    ? "source of a default"
                       : s.within_tolerance             ? ""
                                                        : fmt::format("outside ±{:.1f} %", 100 * s.tolerance);
    if (s.held_out && !s.profile_used.empty()) note = "with its harness's profile " + s.profile_used + (note.empty() ? "" : "; " + note);
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", markdown_cell(s.id), s.kind, value_text(s.measured, s.dimension),
                       s.scored ? value_text(s.predicted, s.dimension) : "-", s.scored ? fmt::format("{:+.1f} %", 100 * s.error) : "-", markdown_cell(note));
  }
  return out;
}

namespace {

// The coverage rows: the pooled one, then by kind, then by source.
template <class Row>
void for_each_row(const CoverageReport& c, Row row) {
  row("pooled", c.pooled);
  for (const CoverageRow& k : c.by_kind) row("kind", k);
  for (const CoverageRow& k : c.by_source) row("source", k);
}

std::string coverage_note(const CoverageReport& c) {
  return fmt::format("Each held-out case scored against the P10-P90 and P25-P75 band its own features get from the other sources' cases "
                     "(leave-one-source-out; docs/models.md F-UNC-2). Nominal: 80 % and 50 %. Averaged by source: {:.0f} % inside "
                     "P10-P90.{}",
                     100 * c.source_average_80,
                     c.sources_without_band ? fmt::format(" {} case(s) have no other source of their kind and no band.", c.sources_without_band)
                                            : std::string());
}

}  // namespace

std::string coverage_to_table(const CoverageReport& c) {
  TextTable t({"group", "name", "cases", "in P10-P90", "in P25-P75", "far", "median P90/P10"});
  for_each_row(c, [&](std::string_view group, const CoverageRow& r) {
    t.add_row({std::string(group), r.key.size() > 70 ? r.key.substr(0, 67) + "..." : r.key, std::to_string(r.cases),
               fmt::format("{:.0f} %", 100 * r.share_80()), fmt::format("{:.0f} %", 100 * r.share_50()), std::to_string(r.far),
               fmt::format("{:.2f}", r.median_width)});
  });
  return t.render() + "\n" + coverage_note(c) + "\n";
}

nlohmann::json coverage_to_json(const CoverageReport& c) {
  auto row = [](const CoverageRow& r) {
    return nlohmann::json{{"cases", r.cases},           {"inside_p10_p90", r.inside_80}, {"inside_p25_p75", r.inside_50},
                          {"share_p10_p90", r.share_80()}, {"share_p25_p75", r.share_50()}, {"far", r.far},
                          {"median_p90_over_p10", r.median_width}};
  };
  nlohmann::json j{{"pooled", row(c.pooled)}, {"source_average_p10_p90", c.source_average_80}, {"without_band", c.sources_without_band}};
  for (const CoverageRow& r : c.by_kind) j["by_kind"][r.key] = row(r);
  for (const CoverageRow& r : c.by_source) j["by_source"][r.key] = row(r);
  return j;
}

std::string coverage_to_markdown(const CoverageReport& c) {
  std::string out = "\n## Coverage of the empirical bands\n\n" + coverage_note(c) +
                    "\n\n| group | name | cases | in P10-P90 | in P25-P75 | far from validation | median P90/P10 |\n|---|---|---:|---:|---:|---:|---:|\n";
  for_each_row(c, [&](std::string_view group, const CoverageRow& r) {
    out += fmt::format("| {} | {} | {} | {:.0f} % | {:.0f} % | {} | {:.2f} |\n", group, markdown_cell(r.key), r.cases, 100 * r.share_80(),
                       100 * r.share_50(), r.far, r.median_width);
  });
  return out;
}

}  // namespace perfcast
