#include "cli/validate_command.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>

#include "engine/calibrate/calibration.hpp"
#include "engine/core/edit_distance.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/hardware_db.hpp"
#include "engine/validate/validation.hpp"
#include "engine/writers/validation_writers.hpp"

namespace perfcast::cli {
namespace {

struct ValidateOptions {
  std::string cases, kind, source, calibration;
  std::string format = "table";
};

// A filter that matches no case in the files would score nothing and pass: refuse it, naming what is there.
void check_filters(const ValidateOptions& o, const std::vector<CaseScore>& all) {
  std::vector<std::string> kinds;
  bool source_seen = o.source.empty();
  for (const CaseScore& s : all) {
    if (std::find(kinds.begin(), kinds.end(), s.kind) == kinds.end()) kinds.push_back(s.kind);
    if (!source_seen && (o.kind.empty() || s.kind == o.kind) && s.source.find(o.source) != std::string::npos) source_seen = true;
  }
  if (!o.kind.empty() && std::find(kinds.begin(), kinds.end(), o.kind) == kinds.end())
    throw InputError({}, fmt::format("validate --kind '{}': no case of that kind in the files scored{}; their kinds: {}", o.kind,
                                     did_you_mean(o.kind, kinds), fmt::join(kinds, ", ")));
  if (!source_seen)
    throw InputError({}, fmt::format("validate --source '{}': no{} case's source contains it", o.source,
                                     o.kind.empty() ? "" : " " + o.kind));
}

int run(const GlobalOptions& global, const ValidateOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  ValidationReport r;
  r.files = o.cases.empty() ? validation_files(default_validation_dir()) : std::vector<std::filesystem::path>{o.cases};
  auto wanted = [&](const CaseScore& s) {
    return (o.kind.empty() || s.kind == o.kind) && (o.source.empty() || s.source.find(o.source) != std::string::npos);
  };
  // With a profile: `before` holds the defaults' scores of the same cases, fitted ones not held-out.
  if (!o.calibration.empty()) {
    const CalibratedScores all = score_with_profile(r.files, db, load_calibration_profile(o.calibration));
    check_filters(o, all.after);
    CalibratedScores calibrated = keep_cases(all, wanted);  // counted over the kept cases, as the table shows them
    r.profile = o.calibration, r.fitted = calibrated.fitted, r.other_device = calibrated.other_device;
    r.scores = std::move(calibrated.after), r.before = std::move(calibrated.before);
  } else {
    std::vector<CaseScore> all;
    for (const auto& file : r.files)
      for (CaseScore& s : score_file(file, db)) all.push_back(std::move(s));
    check_filters(o, all);
    for (CaseScore& s : all)
      if (wanted(s)) r.scores.push_back(std::move(s));
  }
  if (o.format == "json") fmt::print("{}\n", validation_to_json(r));
  else if (o.format == "csv") fmt::print("{}", validation_to_csv(r));
  else if (o.format == "markdown") fmt::print("{}", validation_to_markdown(r));
  else fmt::print("{}", validation_to_table(r));
  const ValidationSummary v = summarise(r.scores);
  return v.within_tolerance == v.scored ? 0 : 4;
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
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv", "markdown"}))->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
