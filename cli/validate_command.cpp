#include "cli/validate_command.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>

#include "engine/api/answers.hpp"
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

int run(const GlobalOptions& global, const ValidateOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  const ValidationReport r = api::validation_report({.cases = o.cases, .kind = o.kind, .source = o.source, .calibration = o.calibration}, db);
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
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv", "markdown"}))->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
