#include "cli/sweep_command.hpp"

#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <tuple>
#include <unistd.h>

#include "cli/output_file.hpp"
#include "engine/api/request_limits.hpp"
#include "engine/data/calibration_profile.hpp"
#include "engine/calibrate/headline_bands.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/residual_table.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/sweep/inference_sweep.hpp"
#include "engine/core/input_file.hpp"
#include "engine/sweep/scaling.hpp"
#include "engine/sweep/training_sweep.hpp"
#include "engine/writers/sweep_writers.hpp"

namespace perfcast::cli {
namespace {

struct SweepOptions {
  std::string scenario, devices, objective = "time", pareto, shard, format = "table", weight_dtypes, kv_dtypes, calibration;
  std::vector<std::string> constraints;
  int top = 20, threads = 0;
  bool progress = true;
};

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  for (char c : text + ",") {
    if (c == ',') {
      if (!word.empty()) out.push_back(word);
      word.clear();
    } else if (c != ' ') {
      word += c;
    }
  }
  return out;
}

// A bar on a terminal for sweeps that last over a second; nothing when stderr is not a terminal.
std::function<void(std::uint64_t, std::uint64_t)> progress_bar() {
  if (!isatty(STDERR_FILENO)) return {};
  const auto start = std::chrono::steady_clock::now();
  auto shown = std::make_shared<bool>(false);
  return [start, shown](std::uint64_t done, std::uint64_t total) {
    const bool finished = done >= total;
    if (finished) {
      if (*shown) fmt::print(stderr, "\r\033[K");
      return;
    }
    if (std::chrono::steady_clock::now() - start < std::chrono::seconds(1)) return;
    *shown = true;
    constexpr int kWidth = 40;
    const double f = total ? double(done) / double(total) : 1;
    const int fill = int(f * kWidth);
    fmt::print(stderr, "\r[{}{}] {:3.0f}% of {} units", std::string(std::size_t(fill), '#'), std::string(std::size_t(kWidth - fill), ' '),
               100 * f, total);
    std::fflush(stderr);
  };
}

// The best rows with their predictions and, uncalibrated, their empirical bands (the bands describe the defaults).
template <class Result, class Predictions>
void print(const Scenario& s, const Result& r, const Predictions& best, const std::string& calibration, const std::string& format) {
  const std::vector<HeadlineBands> bands = calibration.empty() ? sweep_bands(s, r.best, best, shipped_residuals().cases) : std::vector<HeadlineBands>{};
  if (format == "json") fmt::print("{}\n", sweep_to_json(r, best, bands).dump(2));
  else if (format == "csv") fmt::print("{}", sweep_to_csv(r));
  else fmt::print("{}", sweep_to_table(r, best, bands));
}

// An [inference] scenario: serving layouts, each a full predict.
int run_inference(const Scenario& s, const SweepOptions& o) {
  if (!o.shard.empty()) throw InputError({}, "--shard: an inference space (thousands of layouts) is swept in one run");
  ServeRequest r;
  if (!o.devices.empty()) r.devices = parse_device_counts(o.devices);
  r.objective = o.objective;
  r.constraints = o.constraints;
  r.pareto = split_words(o.pareto);
  r.weight_dtypes = split_words(o.weight_dtypes);
  r.kv_dtypes = split_words(o.kv_dtypes);
  r.top = o.top;
  r.threads = o.threads;
  if (o.progress) r.progress = progress_bar();
  const InferenceOptions options = with_params(InferenceOptions{}, profile_params(o.calibration));
  const ServeResult result = inference_sweep(s, r, options);
  print(s, result, predict_rows(s, result.best, options), o.calibration, o.format);
  return 0;
}

int run(const GlobalOptions& global, const SweepOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  const Scenario s = load_scenario(o.scenario, default_workloads_dir(), db);
  if (s.inference) return run_inference(s, o);
  if (!o.weight_dtypes.empty() || !o.kv_dtypes.empty())
    throw InputError({}, "--weight-dtypes and --kv-dtypes search inference scenarios; training precision is the scenario's");
  SweepRequest r;
  if (!o.devices.empty()) r.devices = parse_device_counts(o.devices);
  r.objective = o.objective;
  r.constraints = o.constraints;
  r.pareto = split_words(o.pareto);
  r.top = o.top;
  r.threads = o.threads;
  if (!o.shard.empty()) std::tie(r.shard, r.shards) = parse_shard(o.shard);
  if (o.progress) r.progress = progress_bar();
  const TrainingOptions options = with_params(TrainingOptions{}, profile_params(o.calibration));
  const SweepResult result = sweep(s, r, options);
  print(s, result, predict_rows(s, result.best, options), o.calibration, o.format);
  return 0;
}

struct MergeOptions {
  std::vector<std::string> files;
  std::string calibration;
  std::string format = "table";
};

int run_merge(const GlobalOptions& global, const MergeOptions& o) {
  std::vector<SweepResult> shards;
  for (const std::string& f : o.files)
    shards.push_back(sweep_from_json(read_shard_json(f, "sweep shard", "write shards with perfcast sweep --format json --shard i/N"), f));
  const SweepResult merged = merge_sweeps(shards, o.files);
  HardwareDb db = HardwareDb::load(global.hardware_db);
  const Scenario s = load_scenario(merged.scenario_file, default_workloads_dir(), db);
  print(s, merged, predict_rows(s, merged.best, with_params(TrainingOptions{}, profile_params(o.calibration))), o.calibration, o.format);
  return 0;
}

}  // namespace

void add_sweep_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand("sweep", "Every layout of a scenario, ranked, with the Pareto front: training (tp, pp, vp, cp, ep, dp, "
                                              "micro-batch, recompute, ZeRO, SP, schedule) or inference (tp, pp, ep, batch, dtypes)");
  cmd->add_option("scenario", o->scenario, "Training or inference scenario file")->required();
  cmd->add_option("--devices", o->devices, "Device counts: N, FIRST:LAST[:FACTOR] (e.g. 512:4096), or 64,128,192; default the scenario's");
  cmd->add_option("--objective", o->objective,
                  "time, cost, co2, tokens_per_dollar, or a metric (training: time_to_train, step_time, tokens_per_s, mfu, memory, usd, "
                  "co2, energy; inference: ttft, tpot, e2e, tokens_per_s, tokens_per_s_per_device, usd_per_mtok, co2_per_mtok, memory)")
      ->capture_default_str();
  cmd->add_option("--weight-dtypes", o->weight_dtypes, "Inference: weight dtypes to search, e.g. bf16,fp8,int4 (default the scenario's)");
  cmd->add_option("--kv-dtypes", o->kv_dtypes, "Inference: KV-cache dtypes to search, e.g. bf16,fp8 (default the scenario's)");
  cmd->add_option("--constraint", o->constraints, "METRIC<=VALUE or METRIC>=VALUE, e.g. \"time_to_train<=60d\", \"usd<=5e6\", "
                                                  "\"memory<=70GiB\"; repeat");
  cmd->add_option("--top", o->top, "Best layouts to show")->capture_default_str()->check(CLI::Range(api::limits::top.min, api::limits::top.max));
  cmd->add_option("--pareto", o->pareto, "Metrics of a Pareto front, e.g. time,cost");
  cmd->add_option("--shard", o->shard, "Evaluate shard i of N (i/N) of the space; merge the JSON outputs with sweep-merge");
  cmd->add_option("--threads", o->threads, "Worker threads (0: every core)")->capture_default_str()->check(CLI::Range(api::limits::threads.min, api::limits::threads.max));
  cmd->add_flag("!--no-progress", o->progress, "No progress bar, even on a terminal");
  cmd->add_option("--calibration", o->calibration, "A calibration profile (perfcast calibrate -o) to predict every layout with; "
                  "shards of one sweep must all use the same one");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

void add_sweep_merge_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<MergeOptions>();
  CLI::App* cmd = app.add_subcommand("sweep-merge", "Combine the JSON outputs of sweep --shard i/N runs into one result");
  cmd->add_option("files", o->files, "Shard JSON files")->required();
  cmd->add_option("--calibration", o->calibration, "The calibration profile the shards were swept with");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run_merge(options, *o); }; });
}

}  // namespace perfcast::cli
