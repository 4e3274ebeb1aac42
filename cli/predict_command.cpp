#include "cli/predict_command.hpp"

#include <fmt/format.h>
#include <memory>
#include <sstream>

#include "engine/api/answers.hpp"
#include "engine/api/request_limits.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/hardware_db.hpp"
#include "engine/predict/inference.hpp"
#include "engine/sweep/scaling.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/predict/training.hpp"
#include "engine/calibrate/uncertainty.hpp"
#include "engine/writers/calibration_writers.hpp"
#include "engine/writers/inference_writers.hpp"
#include "engine/writers/training_writers.hpp"

namespace perfcast::cli {
namespace {

struct PredictOptions {
  std::string scenario, order{default_order()}, format = "table", calibration;
  bool detail = false, uncertainty = false, ignore_memory = false;
  int samples = 200;
};

int run(const GlobalOptions& global, const PredictOptions& o) {
  if (o.uncertainty && o.format == "csv")
    throw InputError({}, "--uncertainty: give --format table or json (the intervals do not fit the CSV's one row)");
  HardwareDb db = HardwareDb::load(global.hardware_db);
  const Scenario s = load_scenario(o.scenario, default_workloads_dir(), db);
  const api::PredictAnswer a =
      api::predict(s, {.calibration = o.calibration, .order = o.order, .uncertainty = o.uncertainty, .samples = o.samples,
                               .ignore_memory = o.ignore_memory});
  if (o.format == "json") {
    fmt::print("{}\n", api::to_json(a).dump(2));
    return 0;
  }
  // The bands always; --uncertainty adds the parameters' spread (or, calibrated, the profile's).
  std::string uncertainty = a.bands ? bands_text(*a.bands) : "";
  if (a.parameter_spread) uncertainty += uncertainty_text(*a.parameter_spread, "Parameter spread from the priors");
  else if (a.uncertainty) uncertainty += uncertainty_text(*a.uncertainty);
  if (const auto* p = std::get_if<InferencePrediction>(&a.prediction))
    fmt::print("{}", o.format == "csv" ? inference_to_csv(*p) : inference_to_table(*p, o.detail) + uncertainty);
  else {
    const auto& t = std::get<TrainingPrediction>(a.prediction);
    fmt::print("{}", o.format == "csv" ? training_to_csv(t) : training_to_table(t, o.detail) + uncertainty);
  }
  return 0;
}

struct ScalingOptions {
  std::string scenario, devices = "8:16384:2", format = "table";
};

int run_scaling(const GlobalOptions& global, const ScalingOptions& o) {
  const std::vector<int> counts = parse_device_counts(o.devices);
  HardwareDb db = HardwareDb::load(global.hardware_db);
  Scenario s = load_scenario(o.scenario, default_workloads_dir(), db);
  ScalingReport r = scaling_for_scenario(s, counts);
  if (o.format == "json") fmt::print("{}\n", scaling_to_json(r).dump(2));
  else if (o.format == "csv") fmt::print("{}", scaling_to_csv(r));
  else fmt::print("{}", scaling_to_table(r));
  return 0;
}

}  // namespace

void add_scaling_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<ScalingOptions>();
  CLI::App* cmd = app.add_subcommand("scaling", "Predicted strong/weak scaling over device counts, with Amdahl and Gustafson fits");
  cmd->add_option("scenario", o->scenario, "Training scenario file")->required();
  cmd->add_option("--devices", o->devices, "Device counts: FIRST:LAST[:FACTOR], or a list 64,128,192")->capture_default_str();
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run_scaling(options, *o); }; });
}

void add_predict_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* cmd = app.add_subcommand("predict", "Predict a training run (step time, MFU, time-to-train, goodput) or inference (TTFT, TPOT, throughput, edge latency)");
  cmd->add_option("scenario", o->scenario, "Scenario file")->required();
  cmd->add_option("--order", o->order, "Placement order of the parallel dimensions, innermost first")->capture_default_str();
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->add_flag("--detail", o->detail, "Per-rank times and every assumption");
  cmd->add_option("--calibration", o->calibration, "A calibration profile (perfcast calibrate -o) to predict with");
  cmd->add_flag("--uncertainty", o->uncertainty,
                "P10/P50/P90 of the headline figures from the parameters' spread (the profile's, else each default's prior)");
  cmd->add_option("--samples", o->samples, "Parameter draws for --uncertainty")->capture_default_str()->check(CLI::Range(api::limits::samples.min, api::limits::samples.max));
  cmd->add_flag("--ignore-memory", o->ignore_memory, "Training: time a layout even where the memory model says it does not fit");
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
