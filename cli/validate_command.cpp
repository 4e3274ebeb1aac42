#include "cli/validate_command.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>

#include "cli/output_file.hpp"
#include "engine/api/answers.hpp"
#include "engine/calibrate/empirical_bands.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/hardware_db.hpp"
#include "engine/validate/validation.hpp"
#include "engine/writers/validation_writers.hpp"

namespace perfcast::cli {
namespace {

struct ValidateOptions {
  std::string cases, kind, source, calibration, write_residuals;
  std::string format = "table";
  bool coverage = false;
};

int run(const GlobalOptions& global, const ValidateOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  if (!o.write_residuals.empty() && !(o.cases.empty() && o.kind.empty() && o.source.empty() && o.calibration.empty()))
    throw InputError({}, "--write-residuals: the bands' table is every shipped case scored with the defaults; give it without --cases, "
                         "--kind, --source and --calibration");
  const ValidationReport r = api::validation_report({.cases = o.cases, .kind = o.kind, .source = o.source, .calibration = o.calibration}, db);
  if (!o.write_residuals.empty()) {
    write_output_file(o.write_residuals, api::residual_table(r).dump(1) + "\n", "validation residuals");
    fmt::print("wrote {}\n", o.write_residuals);
    return 0;
  }
  if (o.coverage) {
    const CoverageReport c = coverage(r.scores);
    if (o.format == "json") fmt::print("{}\n", coverage_to_json(c).dump(2));
    else if (o.format == "markdown") fmt::print("{}", coverage_to_markdown(c));
    else if (o.format == "csv") throw InputError({}, "--coverage: give --format table, json or markdown");
    else fmt::print("{}", coverage_to_table(c));
    return 0;
  }
  if (o.format == "json") fmt::print("{}\n", validation_to_json(r).dump(2));
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
  cmd->add_option("--calibration", o->calibration, "Score with this calibration profile (every case, in place of a harness profile a case "
                  "names); its fitted cases are never held-out, and the defaults' errors are shown beside");
  cmd->add_flag("--coverage", o->coverage, "The share of held-out cases inside the empirical P10-P90 and P25-P75 bands their features get "
                "from the other sources (leave-one-source-out), pooled, by kind and by source");
  cmd->add_option("--write-residuals", o->write_residuals, "Write the held-out residuals the empirical bands are drawn from "
                  "(validation/residuals.json ships them) and exit");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv", "markdown"}))->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
