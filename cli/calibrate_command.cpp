#include "cli/calibrate_command.hpp"

#include <fmt/format.h>
#include <memory>

#include "cli/option_checks.hpp"
#include "cli/output_file.hpp"
#include "engine/api/request_limits.hpp"
#include "engine/calibrate/calibration.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/hardware_db.hpp"
#include "engine/writers/calibration_writers.hpp"

namespace perfcast::cli {
namespace {

struct CalibrateOptions {
  std::vector<std::string> files, parameters;
  std::string system, kind, source, select, output;
  std::string format = "table";
  double confidence = 0.90;
  bool no_loo = false;
  int threads = 0;
};

// "i/N" of --select.
std::pair<int, int> parse_select(const std::string& s) {
  int i = 0, n = 0;
  char slash = 0, extra = 0;
  if (std::sscanf(s.c_str(), "%d%c%d%c", &i, &slash, &n, &extra) != 3 || slash != '/' || n < 1 || i < 0 || i >= n)
    throw InputError({}, fmt::format("--select '{}': want i/N with 0 <= i < N, e.g. 0/3 for every third case", s));
  return {i, n};
}

int run(const GlobalOptions& global, const CalibrateOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  CalibrationRequest r;
  for (const std::string& f : o.files) r.files.emplace_back(f);
  if (!o.system.empty()) r.system = o.system;
  r.kind = o.kind;
  r.source = o.source;
  r.parameters = o.parameters;
  if (!o.select.empty()) std::tie(r.select_index, r.select_of) = parse_select(o.select);
  r.confidence = o.confidence;
  r.leave_one_out = !o.no_loo;
  r.threads = o.threads;
  const CalibrationResult result = calibrate(r, db);
  if (!o.output.empty()) write_output_file(o.output, profile_toml(result.profile), "calibration profile", o.files);
  if (o.format == "json") {
    nlohmann::json j = calibration_json(result);
    if (!o.output.empty()) j["profile"] = o.output;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", calibration_text(result));
    if (o.output.empty()) fmt::print("no profile written (give -o profile.toml)\n");
    else fmt::print("profile written to {}\n", o.output);
  }
  return 0;
}

}  // namespace

void add_calibrate_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand("calibrate", "Fit the models' efficiency parameters to measured cases; write a calibration profile");
  cmd->add_option("measured", o->files, "Case files (validation/*.toml format; `perfcast ingest` writes them)")->required();
  cmd->add_option("--system", o->system, "Only cases on this system's accelerator; recorded in the profile");
  cmd->add_option("--kind", o->kind, "Only cases of this kind (gemm, memory, collective, training, inference, ...)");
  cmd->add_option("--source", o->source, "Only cases whose source contains this text");
  cmd->add_option("--parameters", o->parameters,
                  "Fit only these parameters (comma-separated names; the others keep their defaults). A fit of host-side ones "
                  "alone (kernel_overhead_s) carries to every device")
      ->delimiter(',');
  cmd->add_option("--select", o->select, "Of the chosen cases, positions i, i+N, i+2N, ... (i/N; 0/3 = a third)");
  cmd->add_option("--confidence", o->confidence, "Confidence of the intervals")->capture_default_str()->check(CLI::Range(0.5, 0.999));
  cmd->add_flag("--no-loo", o->no_loo, "Skip the leave-one-out refits");
  cmd->add_option("--threads", o->threads, "Threads for the leave-one-out refits (0: every core)")->capture_default_str()->check(CLI::Range(api::limits::threads.min, api::limits::threads.max));
  cmd->add_option("-o,--output", o->output, "Write the profile here (TOML)")->check(output_path());
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json"}))->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
