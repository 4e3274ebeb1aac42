#include "cli/ingest_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>

#include "cli/option_checks.hpp"
#include "cli/output_file.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/hardware_db.hpp"
#include "engine/ingest/aiperf_export.hpp"
#include "engine/ingest/measurements.hpp"
#include "engine/ingest/megatron_log.hpp"
#include "engine/ingest/mlperf_summary.hpp"
#include "engine/ingest/nccl_tests.hpp"
#include "engine/ingest/trtllm_bench.hpp"
#include "engine/ingest/vllm_bench.hpp"
#include "engine/core/input_file.hpp"
#include "engine/ingest/case_writers.hpp"

namespace perfcast::cli {
namespace {

// The input files and the scenario they are scored with: what an output file may not overwrite.
std::vector<std::string> with_scenario(std::vector<std::string> files, const std::string& scenario) {
  if (!scenario.empty()) files.push_back(scenario);
  return files;
}

// The cases on stdout, or in `output` when given.
int emit(const std::string& cases, const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty()) fmt::print("{}", cases);
  else write_output_file(output, cases, "validation cases", inputs);
  return 0;
}

struct NcclOptions {
  std::vector<std::string> files;
  std::string system, op, algo, source, output;
};

int run_nccl(const GlobalOptions& global, const NcclOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  db.system(o.system);  // an unknown system is named here, with a suggestion
  std::optional<models::Collective> op;
  if (!o.op.empty()) {
    op = models::collective_from(o.op);
    if (!op) throw InputError({}, fmt::format("--op '{}': not a collective (all_reduce, all_gather, reduce_scatter, all_to_all, "
                                              "broadcast, reduce, send_recv)", o.op));
  }
  std::optional<models::CollectiveAlgorithm> algo;
  if (!o.algo.empty()) {
    algo = models::algorithm_from(o.algo);
    if (!algo)
      throw InputError({}, fmt::format("--algo '{}': not an NCCL algorithm ({}, or NCCL_ALGO's spelling)", o.algo,
                                       fmt::join(models::algorithm_choices().subspan(1), ", ")));
  }
  std::string out;
  for (const std::string& f : o.files) {
    const NcclTestsRun run = parse_nccl_tests(read_input_file(f, "nccl-tests output"), f, op);
    out += collective_cases_toml(run, o.system, o.source, algo);
  }
  return emit(out, o.output, o.files);
}

struct MegatronOptions {
  std::vector<std::string> files;
  std::string system, source, output;
};

int run_megatron(const GlobalOptions& global, const MegatronOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  db.system(o.system);
  std::string out;
  for (const std::string& f : o.files) out += megatron_case_toml(parse_megatron_log(read_input_file(f, "Megatron-LM log"), f), o.system, db, o.source);
  return emit(out, o.output, o.files);
}

struct VllmOptions {
  std::vector<std::string> files;
  std::string scenario, source, output;
};

enum class ServingTool { vllm, mlperf, trtllm, aiperf };

// One case file per result: vLLM serving or throughput JSON (told apart by their keys), an MLPerf
// summary, a trtllm-bench report, or an AIPerf / GenAI-Perf export.
int run_serving_result(const GlobalOptions& global, const VllmOptions& o, ServingTool tool) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  std::string out;
  for (const std::string& f : o.files) {
    if (tool == ServingTool::mlperf) {
      out += mlperf_case_toml(parse_mlperf_summary(read_input_file(f, "MLPerf summary"), f), o.scenario, db, o.source);
    } else if (tool == ServingTool::aiperf) {
      out += aiperf_cases_toml(parse_aiperf_export(read_input_file(f, "AIPerf / GenAI-Perf export"), f), o.scenario, db, o.source);
    } else if (tool == ServingTool::trtllm) {
      out += trtllm_cases_toml(parse_trtllm_bench(read_input_file(f, "trtllm-bench report"), f), o.scenario, db, o.source);
    } else {
      const std::string text = read_input_file(f, "vLLM result");
      out += is_vllm_throughput(text) ? vllm_throughput_cases_toml(parse_vllm_throughput(text, f), o.scenario, db, o.source)
                                      : vllm_cases_toml(parse_vllm_serving(text, f), o.scenario, db, o.source);
    }
  }
  return emit(out, o.output, with_scenario(o.files, o.scenario));
}

struct MeasurementsOptions {
  std::string file, output;
};

int run_measurements(const GlobalOptions& global, const MeasurementsOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  const std::vector<Measurement> rows = parse_measurements(read_input_file(o.file, "measurements file"), o.file);
  const std::string out = scenario_cases_toml(rows, o.file, db);
  return emit(out, o.output, {o.file});
}

}  // namespace

void add_ingest_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  CLI::App* cmd = app.add_subcommand("ingest", "Read measured benchmark output into validation cases (perfcast validate --cases)");
  cmd->require_subcommand(1);
  auto o = std::make_shared<NcclOptions>();
  CLI::App* nccl = cmd->add_subcommand("nccl-tests", "nccl-tests output (all_reduce_perf, alltoall_perf, ...): one collective case per size");
  nccl->add_option("files", o->files, "nccl-tests output files (one run each)")->required();
  nccl->add_option("--system", o->system, "The hardware_db system it ran on, e.g. dgx-h100")->required();
  nccl->add_option("--op", o->op, "The collective, when neither the file name nor its text names the binary");
  nccl->add_option("--algo", o->algo,
                   "The algorithm NCCL ran (NCCL_ALGO), written into every case so that calibrate fits its latency and "
                   "bandwidth (default: the log's 'NCCL_ALGO set by environment' line, else NCCL's auto choice)");
  nccl->add_option("--source", o->source, "Citation for the cases (default: the file and line)");
  nccl->add_option("-o,--output", o->output, "Write the cases to this file instead of stdout")->check(output_path());
  nccl->callback([&action, &options, o] { action = [&options, o] { return run_nccl(options, *o); }; });
  auto g = std::make_shared<MegatronOptions>();
  CLI::App* megatron = cmd->add_subcommand("megatron", "Megatron-LM / NeMo training logs (arguments block and iteration times) as training cases");
  megatron->add_option("files", g->files, "Log files (one run each)")->required();
  megatron->add_option("--system", g->system, "The hardware_db system it ran on, e.g. dgx-h100")->required();
  megatron->add_option("--source", g->source, "Citation for the cases (default: the file)");
  megatron->add_option("-o,--output", g->output, "Write the cases to this file instead of stdout")->check(output_path());
  megatron->callback([&action, &options, g] { action = [&options, g] { return run_megatron(options, *g); }; });
  // The serving-result readers: result files, the scenario they ran, a citation, an output file.
  auto serving = [&](const char* name, const char* help, const char* files_help, const char* scenario_help, ServingTool tool) {
    auto r = std::make_shared<VllmOptions>();
    CLI::App* sub = cmd->add_subcommand(name, help);
    sub->add_option("files", r->files, files_help)->required();
    sub->add_option("--scenario", r->scenario, scenario_help)->required();
    sub->add_option("--source", r->source, "Citation for the cases (default: the file)");
    sub->add_option("-o,--output", r->output, "Write the cases to this file instead of stdout")->check(output_path());
    sub->callback([&action, &options, r, tool] { action = [&options, r, tool] { return run_serving_result(options, *r, tool); }; });
  };
  serving("vllm",
          "vLLM benchmark_serving.py --save-result JSON (request_rate inf) or benchmark_throughput.py --output-json as inference cases",
          "Result JSON files", "The serving scenario it ran (model, hardware, tp/pp, dtypes)", ServingTool::vllm);
  serving("mlperf", "MLPerf Inference mlperf_log_summary.txt (valid Offline LLM runs) as inference cases", "mlperf_log_summary.txt files",
          "The serving scenario standing for the system (model, devices, layout, batch, lengths)", ServingTool::mlperf);
  serving("trtllm-bench", "TensorRT-LLM trtllm-bench throughput reports as inference cases",
          "Report text files (trtllm-bench's standard output)", "The serving scenario it ran (model, hardware, tp/pp, dtypes)",
          ServingTool::trtllm);
  serving("aiperf",
          "AIPerf profile_export_aiperf.json or GenAI-Perf profile_export_genai_perf.json (a concurrency or a request rate) as serving "
          "cases",
          "Export JSON files (one run each)", "The serving scenario it ran (model, hardware, tp/pp, dtypes, engine)", ServingTool::aiperf);
  auto m = std::make_shared<MeasurementsOptions>();
  CLI::App* generic = cmd->add_subcommand("measurements", "The generic format: CSV or JSON rows of scenario, metric, value [, id, source, "
                                                          "notes, tolerance] as training or inference cases");
  generic->add_option("file", m->file, "Measurements file (.csv or .json); scenario paths are relative to it")->required();
  generic->add_option("-o,--output", m->output, "Write the cases to this file instead of stdout")->check(output_path());
  generic->callback([&action, &options, m] { action = [&options, m] { return run_measurements(options, *m); }; });
}

}  // namespace perfcast::cli
