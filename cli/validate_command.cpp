#include "cli/validate_command.hpp"

#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "engine/calibrate/calibration.hpp"
#include "engine/data/hardware_db.hpp"
#include "engine/core/units.hpp"
#include "engine/validate/validation.hpp"
#include "engine/writers/text_table.hpp"

namespace perfcast::cli {
namespace {

struct ValidateOptions {
  std::string cases, kind, source, calibration;
  std::string format = "table";
};

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
  return fmt::format("{}: {} cases, {} scored, {} held-out; held-out |error| median {:.1f}%, mean {:.1f}%, max {:.1f}%; {} of {} within tolerance\n",
                     label, v.cases, v.scored, v.held_out, 100 * v.median_abs_error, 100 * v.mean_abs_error, 100 * v.max_abs_error,
                     v.within_tolerance, v.scored);
}

int run(const GlobalOptions& global, const ValidateOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  std::vector<std::filesystem::path> files =
      o.cases.empty() ? validation_files(default_validation_dir()) : std::vector<std::filesystem::path>{o.cases};
  auto wanted = [&](const CaseScore& s) {
    return (o.kind.empty() || s.kind == o.kind) && (o.source.empty() || s.source.find(o.source) != std::string::npos);
  };
  // With a profile: `before` holds the defaults' scores of the same cases, fitted ones not held-out.
  std::optional<CalibrationProfile> profile;
  CalibratedScores calibrated;
  std::vector<CaseScore> scores, before;
  if (!o.calibration.empty()) {
    profile = load_calibration_profile(o.calibration);
    calibrated = score_with_profile(files, db, *profile);
    for (std::size_t i = 0; i < calibrated.after.size(); ++i)
      if (wanted(calibrated.after[i])) scores.push_back(calibrated.after[i]), before.push_back(calibrated.before[i]);
  } else {
    for (const auto& file : files)
      for (CaseScore& s : score_file(file, db))
        if (wanted(s)) scores.push_back(std::move(s));
  }
  const ValidationSummary v = summarise(scores);
  const bool all_within = v.within_tolerance == v.scored;
  if (o.format == "json") {
    nlohmann::json j;
    j["files"] = nlohmann::json::array();
    for (const auto& f : files) j["files"].push_back(f.string());
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
      } else {
        c["skipped"] = s.skip;
      }
      j["cases"].push_back(c);
    }
    j["summary"] = summary_json(v);
    if (profile) {
      j["calibration"] = {{"profile", o.calibration},
                          {"fitted_cases_excluded", calibrated.fitted},
                          {"other_device_cases_with_defaults", calibrated.other_device},
                          {"summary_before", summary_json(summarise(before))}};
      for (const auto& [kind, summary] : summarise_by(before, false)) j["calibration"]["by_kind_before"][kind] = summary_json(summary);
      for (std::size_t i = 0; i < scores.size(); ++i)
        if (scores[i].scored) j["cases"][i]["error_before"] = before[i].error;
    }
    for (const auto& [kind, summary] : summarise_by(scores, false)) j["by_kind"][kind] = summary_json(summary);
    for (const auto& [source, summary] : summarise_by(scores, true)) j["by_source"][source] = summary_json(summary);
    fmt::print("{}\n", j.dump(2));
    return all_within ? 0 : 4;
  }
  if (o.format == "csv") {
    fmt::print("id,kind,subject,measured,predicted,error,held_out,within_tolerance,skipped\n");
    for (const CaseScore& s : scores)
      fmt::print("{},{},{},{:.6g},{:.6g},{:.6g},{},{},{}\n", csv_field(s.id), s.kind, csv_field(s.subject), s.measured, s.predicted, s.error,
                 s.held_out, s.within_tolerance, csv_field(s.skip));
    return all_within ? 0 : 4;
  }
  std::vector<std::string> header{"case", "kind", "subject", "measured", "predicted", "error", "detail", "note"};
  if (profile) header.insert(header.begin() + 6, "default error");
  TextTable t(header);
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const CaseScore& s = scores[i];
    auto row = [&](std::vector<std::string> cells) {
      if (profile) cells.insert(cells.begin() + 6, before[i].scored ? fmt::format("{:+.2f}%", 100 * before[i].error) : "-");
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
  fmt::print("{}\n", t.render());
  for (const auto& [kind, summary] : summarise_by(scores, false)) fmt::print("{}", summary_line("kind " + kind, summary));
  for (const auto& [source, summary] : summarise_by(scores, true)) fmt::print("{}", summary_line("source " + source, summary));
  fmt::print("{}", summary_line("all", v));
  if (profile) {
    fmt::print("\ncalibration {}: {} fitted case(s) not scored as held-out; {} case(s) on devices the profile was not fitted on "
               "scored with the defaults\n", o.calibration, calibrated.fitted, calibrated.other_device);
    for (const auto& [kind, summary] : summarise_by(before, false)) fmt::print("{}", summary_line("defaults, kind " + kind, summary));
    fmt::print("{}", summary_line("defaults, all", summarise(before)));
  }
  if (!all_within) fmt::print("{} scored case(s) outside their tolerance\n", v.scored - v.within_tolerance);
  return all_within ? 0 : 4;
}

}  // namespace

void add_validate_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand("validate", "Score predictions against the measured and published cases in validation/");
  cmd->add_option("--cases", o->cases, "One case file (default: every validation/*.toml)");
  cmd->add_option("--kind", o->kind, "Only cases of this kind (gemm, memory, host_link, model_states, kv_cache, ...)");
  cmd->add_option("--source", o->source, "Only cases whose source contains this text");
  cmd->add_option("--calibration", o->calibration, "Score with this calibration profile; its fitted cases are never held-out, "
                  "and the defaults' errors are shown beside");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
