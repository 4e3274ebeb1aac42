#include "engine/writers/calibration_writers.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/writers/text_table.hpp"

namespace perfcast {
namespace {

std::string percent(double e) { return fmt::format("{:+.1f}%", 100 * e); }

std::string value_text(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

CalibrationErrors calibration_errors(const CalibrationResult& r) {
  std::vector<double> before, after, loo, loso;
  for (const CalibrationCase& c : r.cases) {
    before.push_back(std::fabs(c.before.error));
    after.push_back(std::fabs(c.after.error));
    if (c.leave_one_out) loo.push_back(std::fabs(c.loo_error()));
    if (c.leave_one_source_out) loso.push_back(std::fabs(c.loso_error()));
  }
  return {quantile(before, 0.5), quantile(after, 0.5), quantile(loo, 0.5), quantile(loso, 0.5), !loo.empty(), !loso.empty()};
}

std::string calibration_text(const CalibrationResult& r) {
  const CalibrationProfile& p = r.profile;
  std::string out = fmt::format("Calibration on {} case(s){}; {:.0f}% intervals (Student's t, {} degrees of freedom); "
                                "RMS residual {:.2f} tolerance(s)\n\n",
                                r.cases.size(), p.system ? " on " + *p.system : std::string(), 100 * p.confidence, p.degrees_of_freedom,
                                p.residual_scale);
  TextTable params({"parameter", "default", "fitted", "interval", "change", "informed by the cases"});
  for (const ProfileParam& q : p.params)
    params.add_row({q.name, value_text(q.default_value), value_text(q.value),
                    q.informed ? fmt::format("{} .. {}", value_text(q.low), value_text(q.high)) : "-",
                    q.informed ? percent(q.value / q.default_value - 1) : "-", q.informed ? "yes" : "no (default kept)"});
  out += params.render() + "\n\n";
  TextTable cases({"case", "kind", "measured", "default error", "fitted error", "left-out error", "source left out"});
  for (const CalibrationCase& c : r.cases)
    cases.add_row({c.before.id, c.before.kind, fmt::format("{:.4g}", c.before.measured), percent(c.before.error), percent(c.after.error),
                   c.leave_one_out ? percent(c.loo_error()) : "-", c.leave_one_source_out ? percent(c.loso_error()) : "-"});
  out += cases.render() + "\n";
  const CalibrationErrors e = calibration_errors(r);
  out += fmt::format("median |error|: defaults {:.1f}%, fitted {:.1f}%", 100 * e.before, 100 * e.after);
  if (e.has_leave_one_out) out += fmt::format(", leave-one-out {:.1f}%", 100 * e.leave_one_out);
  if (e.has_leave_one_source_out)
    out += fmt::format(", leave-one-source-out {:.1f}% (the honest figure for a source not yet seen)", 100 * e.leave_one_source_out);
  else if (e.has_leave_one_out)
    out += " (the honest figure for cases not yet run; one source only, so no leave-one-source-out)";
  out += "\n";
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  return out;
}

namespace {

std::string figure_text(double v, units::Dimension d) {
  if (d == units::dim::none) return fmt::format("{:.4g}", v);
  if (d == units::dim::usd) return fmt::format("${:.4g}", v);
  if (d == units::dim::hertz) return fmt::format("{:.4g} tokens/s", v);
  if (d == units::dim::kg) return fmt::format("{:.4g} kg", v);
  return units::format(v, d);
}

// "stack = vllm" as "vllm", "scale = 2-8" as "2-8 devices": the values a band's cases share, short.
std::string shared_text(const std::vector<std::string>& features) {
  std::string out;
  for (const std::string& f : features) {
    const std::size_t eq = f.find(" = ");
    std::string value = eq == std::string::npos ? f : f.substr(eq + 3);
    if (f.starts_with("scale = ")) value += value == "1" ? " device" : " devices";
    out += (out.empty() ? "" : ", ") + value;
  }
  return out;
}

}  // namespace

std::string uncertainty_text(const UncertaintyReport& u, std::string_view title) {
  TextTable t({"figure", "predicted", "P10", "P50", "P90"});
  for (const FigureInterval& f : u.figures)
    t.add_row({f.name, figure_text(f.point, f.dimension), figure_text(f.p10, f.dimension), figure_text(f.p50, f.dimension),
               figure_text(f.p90, f.dimension)});
  return fmt::format("\n{} ({} draws; {})\n{}\n", title, u.samples, u.basis, t.render());
}

std::string uncertainty_text(const UncertaintyReport& u) { return uncertainty_text(u, "Uncertainty"); }

std::string bands_text(const HeadlineBands& b) {
  TextTable t({"figure", "predicted", "P10", "P50", "P90", "judged by"});
  bool far = false;
  for (const HeadlineBand& f : b.figures) {
    const EmpiricalBand& e = f.basis;
    far = far || e.far();
    t.add_row({f.name, figure_text(f.point, f.dimension), figure_text(f.band.p10, f.dimension), figure_text(f.band.p50, f.dimension),
               figure_text(f.band.p90, f.dimension),
               fmt::format("{} {} cases, {} sources{}{}", e.cases, e.kind, e.sources, e.narrowed.empty() ? "" : ": " + shared_text(e.narrowed),
                           e.far() ? "; FAR: no case with " + shared_text(e.unseen) : "")});
  }
  std::string out = "\nBands: where reality fell on validated cases like this one (P10-P90 of held-out residuals, docs/models.md F-UNC-2)\n";
  if (!b.figures.empty()) out += t.render() + "\n";
  if (far) out += "FAR: no validated case shares what is named: those bands are widened by the spread between its values (or sources).\n";
  for (const std::string& w : b.without) out += "no band: " + w + "\n";
  return out;
}

nlohmann::json bands_json(const HeadlineBands& b) {
  nlohmann::json j{{"method", "empirical: held-out validation residuals of cases like the question (docs/models.md F-UNC-2)"}};
  j["figures"] = nlohmann::json::object();
  for (const HeadlineBand& f : b.figures) {
    const EmpiricalBand& e = f.basis;
    j["figures"][f.name] = {{"predicted", f.point},  {"p10", f.band.p10},     {"p50", f.band.p50},   {"p90", f.band.p90},
                            {"cases", e.cases},      {"sources", e.sources},  {"kind", e.kind},      {"shared", e.narrowed},
                            {"unseen", e.unseen},    {"far", e.far()},        {"basis", e.basis()}};
  }
  j["without"] = b.without;
  return j;
}

nlohmann::json uncertainty_json(const UncertaintyReport& u) {
  nlohmann::json j{{"samples", u.samples}, {"basis", u.basis}};
  for (const FigureInterval& f : u.figures) j["figures"][f.name] = {{"predicted", f.point}, {"p10", f.p10}, {"p50", f.p50}, {"p90", f.p90}};
  return j;
}

std::string profile_assumption(const CalibrationProfile& p, std::string_view accelerator) {
  std::string devices;
  for (const std::string& a : p.accelerators) devices += (devices.empty() ? "" : ", ") + a;
  std::string line = fmt::format("calibration profile {}: fitted on {} case(s) on {}", p.file, p.cases.size(), devices.empty() ? "no named device" : devices);
  if (!p.fitted_on(accelerator))
    line += fmt::format("; applied as is to {}, a device it was not fitted on", accelerator);
  return line;
}

nlohmann::json calibration_json(const CalibrationResult& r) {
  const CalibrationProfile& p = r.profile;
  nlohmann::json j;
  j["confidence"] = p.confidence;
  j["degrees_of_freedom"] = p.degrees_of_freedom;
  j["residual_scale"] = p.residual_scale;
  if (p.system) j["system"] = *p.system;
  j["accelerators"] = p.accelerators;
  j["evaluations"] = r.evaluations;
  for (const ProfileParam& q : p.params)
    j["parameters"][q.name] = {{"default", q.default_value}, {"value", q.value}, {"sd_log", q.sd_log},
                               {"low", q.low},           {"high", q.high},   {"informed", q.informed}};
  j["cases"] = nlohmann::json::array();
  for (const CalibrationCase& c : r.cases) {
    nlohmann::json x{{"id", c.before.id}, {"kind", c.before.kind}, {"measured", c.before.measured},
                     {"default_predicted", c.before.predicted}, {"default_error", c.before.error},
                     {"fitted_predicted", c.after.predicted}, {"fitted_error", c.after.error}};
    if (c.leave_one_out) x["leave_one_out_predicted"] = *c.leave_one_out, x["leave_one_out_error"] = c.loo_error();
    if (c.leave_one_source_out)
      x["leave_one_source_out_predicted"] = *c.leave_one_source_out, x["leave_one_source_out_error"] = c.loso_error();
    j["cases"].push_back(x);
  }
  const CalibrationErrors e = calibration_errors(r);
  j["median_abs_error"] = {{"default", e.before}, {"fitted", e.after}};
  if (e.has_leave_one_out) j["median_abs_error"]["leave_one_out"] = e.leave_one_out;
  if (e.has_leave_one_source_out) j["median_abs_error"]["leave_one_source_out"] = e.leave_one_source_out;
  j["notes"] = r.notes;
  return j;
}

}  // namespace perfcast
