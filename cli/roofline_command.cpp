#include "cli/roofline_command.hpp"

#include <fmt/format.h>
#include <memory>

#include "cli/output_file.hpp"
#include "engine/data/calibration_profile.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/hardware_resolution.hpp"
#include "engine/predict/roofline.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/data/workload_reader.hpp"
#include "engine/writers/roofline_writers.hpp"

namespace perfcast::cli {
namespace {

struct RooflineOptions {
  std::string scenario, hw, op, workload, phase = "training", precision, format = "table", svg;
  double batch = 1, seq = 2048, context = 2048;
  int tp = 1;
  std::string calibration;
};

models::Phase phase_of(const std::string& p) {
  return p == "prefill" ? models::Phase::prefill : p == "decode" ? models::Phase::decode : models::Phase::training;
}

int run(const GlobalOptions& global, const RooflineOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  const models::Efficiency e = profile_params(o.calibration).efficiency;
  RooflineReport report;
  if (!o.scenario.empty()) {
    if (!o.op.empty() || !o.workload.empty()) throw InputError({}, "give a scenario file or --op/--workload, not both");
    Scenario s = load_scenario(o.scenario, default_workloads_dir(), db);
    std::optional<ResolvedHardware> other;
    if (!o.hw.empty()) {
      other = resolve_accelerator(db, o.hw);
      hold_at_power_limit(*other);  // a scenario's run, on another device
    }
    report = roofline_for_scenario(s, other ? &*other : nullptr, e);
  } else {
    if (o.hw.empty()) throw InputError({}, "--hw <accelerator> is required without a scenario file");
    const ResolvedHardware a = resolve_accelerator(db, o.hw);
    if (!o.op.empty()) {
      report = roofline_for_op(o.op, a, e);
    } else if (!o.workload.empty()) {
      Workload w = load_preset(default_workloads_dir(), o.workload);
      PresetRun run{.phase = phase_of(o.phase), .batch = o.batch, .seq_len = o.seq, .context_len = o.context, .tp = o.tp};
      if (!o.precision.empty()) {
        auto p = precision_from(o.precision);
        if (!p) throw InputError({}, fmt::format("--precision: unknown format '{}'", o.precision));
        run.precision = p;
      }
      report = roofline_for_preset(w, a, run, e);
    } else {
      throw InputError({}, "give a scenario file, --op <spec> or --workload <preset>");
    }
  }
  if (!o.svg.empty()) write_output_file(o.svg, roofline_to_svg(report), "SVG file");
  if (o.format == "json") fmt::print("{}\n", roofline_to_json(report).dump(2));
  else if (o.format == "csv") fmt::print("{}", roofline_to_csv(report));
  else fmt::print("{}", roofline_to_table(report));
  return 0;
}

}  // namespace

void add_roofline_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<RooflineOptions>();
  CLI::App* cmd = app.add_subcommand("roofline", "Per-op roofline: FLOPs, bytes, intensity, bound, time and share");
  cmd->add_option("scenario", o->scenario, "Scenario file (every op of one layer of its workload)");
  cmd->add_option("--hw", o->hw, "Accelerator (overrides the scenario's)");
  cmd->add_option("--op", o->op, "One op: gemm:M=8192,N=8192,K=8192,dtype=bf16 or memory:read=1GB,write=1GB");
  cmd->add_option("--workload", o->workload, "Workload preset (scenarios/workloads/<name>.toml)");
  cmd->add_option("--phase", o->phase, "With --workload: training, prefill or decode")
      ->check(CLI::IsMember({"training", "prefill", "decode"}))
      ->capture_default_str();
  cmd->add_option("--batch", o->batch, "With --workload: sequences (images) per micro-batch")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--seq", o->seq, "With --workload: tokens per sequence")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--context", o->context, "With --workload --phase decode: tokens in the KV cache")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--tp", o->tp, "With --workload: tensor-parallel size")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--precision", o->precision, "With --workload: math format (default: bf16, else fp16, else int8)");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->add_option("--calibration", o->calibration, "Time the ops with this calibration profile's efficiencies");
  cmd->add_option("--svg", o->svg, "Also write the roofline chart to this SVG file");
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
