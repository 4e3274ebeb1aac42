#include "engine/ingest/case_writers.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <sstream>
#include <toml++/toml.h>

#include "engine/core/errors.hpp"
#include "engine/validate/inference_cases.hpp"
#include "engine/core/input_file.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/validate/training_cases.hpp"
#include "engine/data/workload_reader.hpp"
#include "engine/layout/rules.hpp"

namespace perfcast {
namespace {

// One tolerance for every size of a run: nccl-tests times each size over the same iterations, so a
// user's curve is measured alike across it and calibrate weighs its points alike (a tolerance of 1.0
// below 64 MiB, as validation/collectives.toml states the model's latency-bound error, let the
// priors outvote those sizes). 0.15: collectives.toml's bandwidth-bound tolerance.
constexpr double kCurveTolerance = 0.15;

std::string slug(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '-';
  return s;
}

// A case file: schema_version, its suite, the cases, under a comment saying where they came from.
std::string case_file(const std::string& suite, toml::array cases, const std::string& origin) {
  toml::table doc;
  doc.insert("schema_version", 1);
  doc.insert("suite", suite);
  doc.insert("case", std::move(cases));
  std::ostringstream out;
  out << "# " << suite << " cases read from " << origin << " by perfcast ingest.\n" << doc << "\n";
  return out.str();
}

// A scenario file read once: loaded through the scenario checks, and as the TOML tables a case
// inlines (schema_version dropped).
struct ScenarioFile {
  Scenario scenario;
  toml::table table;
};

ScenarioFile read_scenario_file(const std::filesystem::path& file, const HardwareDb& db) {
  const std::string text = read_input_file(file, "scenario file");
  ScenarioFile f{parse_scenario(text, file.string(), default_workloads_dir(), db), toml::parse(text, file.string())};
  f.table.erase("schema_version");
  return f;
}

// The LLM serving scenario a serving benchmark ran, without [serving]: the case sets its own load.
ScenarioFile read_serving_scenario(const std::string& file, const HardwareDb& db, std::string_view tool) {
  ScenarioFile f = read_scenario_file(file, db);
  if (!f.scenario.inference || !f.scenario.workload.is_transformer())
    throw InputError({file, 0, 0}, fmt::format("{}: the scenario must be an LLM [inference] scenario (model, hardware, layout)", tool));
  f.table.erase("serving");
  return f;
}

// One [[case]] of a training or inference case file: what every writer here puts in it.
toml::table scenario_case(std::string id, std::string source, std::string_view metric, double measured, std::string notes,
                          toml::table scenario, std::optional<double> tolerance = std::nullopt) {
  toml::table c;
  c.insert("id", std::move(id));
  c.insert("source", std::move(source));
  c.insert("metric", metric);
  c.insert("measured", measured);
  if (tolerance) c.insert("tolerance", *tolerance);
  if (!notes.empty()) c.insert("notes", std::move(notes));
  c.insert("scenario", std::move(scenario));
  return c;
}

}  // namespace

std::string collective_cases_toml(const NcclTestsRun& run, const std::string& system, const std::string& source,
                                  std::optional<models::CollectiveAlgorithm> algorithm) {
  if (!algorithm) algorithm = run.algorithm;
  toml::array cases;
  const std::string stem = slug(std::filesystem::path(run.file).stem().string());
  for (const NcclTestsRow& row : run.rows) {
    toml::table c;
    c.insert("id", fmt::format("{}-{:.0f}B", stem, row.bytes));
    c.insert("source", source.empty() ? fmt::format("nccl-tests output {}", run.file) : source);
    c.insert("system", system);
    c.insert("op", std::string(models::name_of(run.op)));
    if (algorithm) c.insert("algorithm", std::string(models::name_of(*algorithm)));
    c.insert("gpus", run.ranks);
    c.insert("bytes", static_cast<std::int64_t>(row.bytes));
    // busbw from the time (nccl-tests' own definition: size / time × the collective's factor),
    // which keeps the digits the printed GB/s rounds away at small sizes.
    const double busbw = row.bytes / row.out_of_place.time_s * models::bus_factor(run.op, run.ranks);
    c.insert("measured_busbw", fmt::format("{:.6g} GB/s", busbw / 1e9));
    c.insert("tolerance", kCurveTolerance);
    c.insert("notes", fmt::format("line {}: out-of-place, {} {} elements of {}; {} GPUs on {} host{}{}; time {:.4g} us, printed busbw {:.4g} GB/s", row.line, row.count,
                                  row.redop, row.type, run.ranks, run.hosts, run.hosts == 1 ? "" : "s",
                                  run.device.empty() ? "" : ", " + run.device, row.out_of_place.time_s * 1e6, row.out_of_place.busbw_Bps / 1e9));
    cases.push_back(std::move(c));
  }
  return case_file("collective", std::move(cases), "the nccl-tests output " + run.file);
}

std::string scenario_cases_toml(const std::vector<Measurement>& rows, const std::string& file, const HardwareDb& db) {
  const std::filesystem::path base = std::filesystem::path(file).parent_path();
  std::string suite;
  toml::array cases;
  for (const Measurement& m : rows) {
    const FilePosition where{file, m.line, 1};
    const std::filesystem::path path = base / m.scenario;
    ScenarioFile read = read_scenario_file(path, db);
    const Scenario& s = read.scenario;
    const std::string phase = s.training ? "training" : "inference";
    if (suite.empty()) suite = phase;
    if (phase != suite)
      throw InputError(where, fmt::format("measurements: {} is an {} scenario after {} ones; one case file holds one suite, so split the rows",
                                          m.scenario, phase, suite));
    const auto names = phase == "training" ? training_metric_names() : inference_metric_names();
    if (std::find(names.begin(), names.end(), std::string_view(m.metric)) == names.end()) {
      std::string list;
      for (std::string_view n : names) list += (list.empty() ? "" : ", ") + std::string(n);
      throw InputError(where, fmt::format("measurements: '{}' is not a {} metric (one of: {})", m.metric, phase, list));
    }
    cases.push_back(scenario_case(m.id.empty() ? fmt::format("{}-{}", slug(std::filesystem::path(file).stem().string()), m.line) : m.id,
                                  m.source.empty() ? fmt::format("measured: {}", file) : m.source, m.metric, m.value, m.notes,
                                  std::move(read.table), m.tolerance));
  }
  return case_file(suite, std::move(cases), file);
}

std::string megatron_case_toml(const MegatronRun& run, const std::string& system, const HardwareDb& db, const std::string& source) {
  toml::table scenario = megatron_scenario(run, system, db.system(system).devices_per_node);
  {
    std::ostringstream text;
    text << scenario;
    parse_scenario(text.str(), run.file + " (its arguments as a scenario)", default_workloads_dir(), db);  // the loader's checks
  }
  std::vector<double> tflops;
  for (std::size_t i = run.iterations.size() > 1 ? 1 : 0; i < run.iterations.size(); ++i)
    if (run.iterations[i].tflops_per_gpu) tflops.push_back(*run.iterations[i].tflops_per_gpu);
  std::sort(tflops.begin(), tflops.end());
  toml::array cases;
  cases.push_back(scenario_case(
      slug(std::filesystem::path(run.file).stem().string()), source.empty() ? fmt::format("Megatron-LM log {}", run.file) : source,
      "step_time_s", run.median_step_s,
      fmt::format("median 'elapsed time per iteration' of {} logged intervals after the first (warm-up){}", run.iterations_used,
                  tflops.empty() ? std::string()
                                 : fmt::format("; Megatron's own throughput per GPU {:.4g} TFLOP/s (its FLOP formula, not scored)",
                                               tflops[tflops.size() / 2])),
      std::move(scenario)));
  return case_file("training", std::move(cases), "the Megatron-LM log " + run.file);
}

std::string mlperf_case_toml(const MlperfSummary& run, const std::string& scenario_file, const HardwareDb& db, const std::string& source) {
  if (!run.valid) throw InputError({run.file, 0, 0}, "MLPerf summary: the result is not VALID ('Result is : VALID' missing)");
  if (run.scenario != "Offline")
    throw InputError({run.file, 0, 0}, fmt::format("MLPerf summary: scenario {} is bounded by latency targets; only Offline runs compare with "
                                                   "perfcast's throughput (use perfcast capacity for Server)", run.scenario));
  if (!run.tokens_per_s) throw InputError({run.file, 0, 0}, "MLPerf summary: no tokens per second (not an LLM benchmark?)");
  ScenarioFile read = read_serving_scenario(scenario_file, db, "MLPerf summary");
  const Scenario& s = read.scenario;
  toml::array cases;
  cases.push_back(scenario_case(slug(run.sut.empty() ? std::filesystem::path(run.file).stem().string() : run.sut),
                                source.empty() ? fmt::format("MLPerf Inference summary {}", run.file) : source,
                                "output_tokens_per_s_per_device", *run.tokens_per_s / s.hardware.count,
                                fmt::format("{} Offline, {} mode: {:.6g} tokens/s over the scenario's {} devices; the scenario's batch and "
                                            "lengths stand for the run's mix",
                                            run.sut, run.mode, *run.tokens_per_s, s.hardware.count),
                                std::move(read.table)));
  return case_file("inference", std::move(cases), "the MLPerf summary " + run.file);
}

std::string vllm_throughput_cases_toml(const VllmThroughputRun& run, const std::string& scenario_file, const HardwareDb& db,
                                       const std::string& source) {
  ScenarioFile read = read_serving_scenario(scenario_file, db, "vLLM throughput benchmark");
  const Scenario& s = read.scenario;
  const double in = s.inference->input_len, out = s.inference->output_len;
  const double expected = run.requests * (in + out);
  if (std::fabs(run.total_tokens / expected - 1) > 0.01)
    throw InputError({run.file, 0, 0}, fmt::format("vLLM throughput benchmark: total_num_tokens {:g} is not num_requests {:g} x ({:g} input + "
                                                   "{:g} output) of {}: set the scenario's lengths to the run's --input-len/--output-len",
                                                   run.total_tokens, run.requests, in, out, scenario_file));
  const double output_tokens = run.total_output_tokens.value_or(run.requests * out);
  const int replica_devices = s.parallelism.tp * s.parallelism.pp;
  if (s.hardware.count != replica_devices)
    throw InputError({run.file, 0, 0}, fmt::format("vLLM throughput benchmark: the run is one replica of tp x pp = {} devices; the scenario {} has {}",
                                                   replica_devices, scenario_file, s.hardware.count));
  // The engine simulated over the same dataset: every request queued at once on an idle engine (F-SRV-2).
  toml::table& inference = *read.table["inference"].as_table();
  inference.insert_or_assign("batch", "max");
  inference.insert_or_assign("engine", "vllm");
  toml::table serving;  // read_serving_scenario dropped the file's own [serving]
  serving.insert_or_assign("benchmark_requests", static_cast<std::int64_t>(std::round(run.requests)));
  read.table.insert_or_assign("serving", serving);
  toml::array cases;
  cases.push_back(scenario_case(
      fmt::format("{}-output_tokens_per_s_per_device", slug(std::filesystem::path(run.file).stem().string())),
      source.empty() ? fmt::format("vLLM benchmark_throughput result {}", run.file) : source, "output_tokens_per_s_per_device",
      output_tokens / run.elapsed_s / replica_devices,
      fmt::format("offline vLLM run: {:g} requests queued at once, {:g} s; output tokens {} / elapsed / the replica's {} devices; scored "
                  "against vLLM's offline engine simulated over the same {:g} requests (batch = \"max\", [serving] benchmark_requests)",
                  run.requests, run.elapsed_s, run.total_output_tokens ? "as recorded" : "= requests x output_len", replica_devices,
                  std::round(run.requests)),
      std::move(read.table)));
  return case_file("inference", std::move(cases), "the vLLM result " + run.file);
}

std::string trtllm_cases_toml(const TrtllmBenchRun& run, const std::string& scenario_file, const HardwareDb& db, const std::string& source) {
  ScenarioFile read = read_serving_scenario(scenario_file, db, "trtllm-bench");
  const Scenario& s = read.scenario;
  if (s.parallelism.tp != run.tp || s.parallelism.pp != run.pp)
    throw InputError({run.file, 0, 0}, fmt::format("trtllm-bench: the run used TP {} PP {}, the scenario {} has tp {} pp {}", run.tp, run.pp,
                                                   scenario_file, s.parallelism.tp, s.parallelism.pp));
  // The engine simulated under the run's protocol (F-SRV-2): its dataset of N requests, its scheduler
  // limits, and either every request queued at once (batch = "max") or the --concurrency clients.
  toml::table& scenario = read.table;
  toml::table& inference = *scenario["inference"].as_table();
  inference.insert_or_assign("engine", "trtllm");
  inference.insert_or_assign("input_len", static_cast<std::int64_t>(std::round(run.input_len)));
  inference.insert_or_assign("output_len", static_cast<std::int64_t>(std::round(run.output_len)));
  toml::table serving;  // read_serving_scenario dropped the file's own [serving]
  serving.insert_or_assign("benchmark_requests", static_cast<std::int64_t>(run.requests));
  if (run.max_batch_size) serving.insert_or_assign("max_concurrency", static_cast<std::int64_t>(*run.max_batch_size));
  if (run.max_num_tokens) serving.insert_or_assign("max_batched_tokens", static_cast<std::int64_t>(*run.max_num_tokens));
  const bool at_once = run.all_at_once();
  const double clients = at_once ? run.requests : std::max(1.0, std::round(*run.concurrency));
  if (at_once) {
    inference.insert_or_assign("batch", "max");
  } else {
    inference.erase("batch");
    serving.insert_or_assign("concurrency", static_cast<std::int64_t>(clients));
  }
  scenario.insert_or_assign("serving", serving);
  const std::string limits =
      run.max_batch_size || run.max_num_tokens
          ? fmt::format("; the run's limits: max batch size {}, max tokens {}", run.max_batch_size ? fmt::format("{:g}", *run.max_batch_size) : "the engine's",
                        run.max_num_tokens ? fmt::format("{:g}", *run.max_num_tokens) : "the engine's")
          : std::string();
  const std::string notes = fmt::format(
      "trtllm-bench throughput{}{}: {:g} requests {}, {} concurrent on average, mean {:.4g} input and {:.4g} output tokens{}; scored against "
      "the engine simulated over the same dataset",
      run.model.empty() ? "" : " of " + run.model, run.version.empty() ? "" : ", TensorRT-LLM " + run.version, run.requests,
      at_once ? "queued at once" : fmt::format("from {:g} clients (issued over the run)", clients),
      run.concurrency ? fmt::format("{:.4g}", *run.concurrency) : std::string("(not reported)"), run.input_len, run.output_len, limits);
  const std::string stem = slug(std::filesystem::path(run.file).stem().string());
  toml::array cases;
  auto add = [&](const std::string& metric, double value, const char* what) {
    cases.push_back(scenario_case(fmt::format("{}-{}", stem, metric),
                                  source.empty() ? fmt::format("trtllm-bench report {}", run.file) : source, metric, value,
                                  fmt::format("{} ({})", notes, what), scenario));
  };
  if (at_once) {
    add("output_tokens_per_s_per_device", run.per_gpu_output_tokens_per_s, "Per GPU Output Throughput");
    add("latency_s", run.avg_request_latency_s, "Average request latency (ms)");
    if (run.avg_ttft_s) add("ttft_s", *run.avg_ttft_s, "Average time-to-first-token [TTFT] (ms)");
  } else {
    add("serving_output_tokens_per_s", run.per_gpu_output_tokens_per_s * run.tp * run.pp, "Per GPU Output Throughput x TP x PP");
    add("serving_e2e_mean_s", run.avg_request_latency_s, "Average request latency (ms)");
    if (run.avg_ttft_s) add("serving_ttft_mean_s", *run.avg_ttft_s, "Average time-to-first-token [TTFT] (ms)");
  }
  return case_file("inference", std::move(cases), "the trtllm-bench report " + run.file);
}

std::string vllm_cases_toml(const VllmServingRun& run, const std::string& scenario_file, const HardwareDb& db, const std::string& source) {
  ScenarioFile read = read_serving_scenario(scenario_file, db, "vLLM benchmark");
  const Scenario& s = read.scenario;
  toml::table& scenario = read.table;
  const double input_len = std::round(run.total_input_tokens / run.completed);
  const double output_len = std::round(run.total_output_tokens / run.completed);
  const int replicas = data_parallel(s.parallelism, s.hardware.count);
  toml::table& inference = *scenario["inference"].as_table();
  inference.insert_or_assign("input_len", static_cast<std::int64_t>(input_len));
  inference.insert_or_assign("output_len", static_cast<std::int64_t>(output_len));
  // The load as the benchmark applied it: --max-concurrency clients with --request-rate inf, or
  // arrivals at the rate (gamma gaps of shape --burstiness).
  toml::table serving;  // read_serving_scenario dropped the file's own [serving]
  std::string load;
  if (run.all_at_once) {
    const double clients = std::min(run.max_concurrency.value_or(run.completed), run.completed);
    serving.insert_or_assign("concurrency", static_cast<std::int64_t>(std::max(1.0, std::round(clients / replicas))));
    serving.insert_or_assign("benchmark_requests", static_cast<std::int64_t>(std::max(1.0, std::round(run.completed / replicas))));
    load = fmt::format("{:g} clients (--max-concurrency, request_rate inf)", clients);
  } else {
    serving.insert_or_assign("arrival_rate", *run.request_rate);
    if (run.burstiness) serving.insert_or_assign("arrival_cv2", 1 / *run.burstiness);
    load = fmt::format("{:g} requests/s (burstiness {:g})", *run.request_rate, run.burstiness.value_or(1));
  }
  scenario.insert_or_assign("serving", serving);
  const std::string stem = slug(std::filesystem::path(run.file).stem().string());
  const std::string notes = fmt::format("vLLM {} run of {}: {:g} requests at {}, mean {:g} input and {:g} output tokens, scored against the "
                                        "engine simulated {}",
                                        run.backend.empty() ? "benchmark" : run.backend, run.model_id.empty() ? "the model" : run.model_id,
                                        run.completed, load, input_len, output_len,
                                        run.all_at_once ? "over the same finite benchmark from an idle engine (ramp-up and drain included)"
                                                        : "in its steady state at the rate (the run includes its ramp-up and drain)");
  toml::array cases;
  auto add = [&](const char* metric, double value, const char* what) {
    cases.push_back(scenario_case(fmt::format("{}-{}", stem, metric),
                                  source.empty() ? fmt::format("vLLM benchmark_serving result {}", run.file) : source, metric, value,
                                  fmt::format("{} ({})", notes, what), scenario));
  };
  add("serving_output_tokens_per_s", run.output_throughput / replicas,
      fmt::format("output_throughput over the scenario's {} replica(s)", replicas).c_str());
  add("serving_ttft_mean_s", run.mean_ttft_s, "mean_ttft_ms");
  if (run.mean_tpot_s) add("serving_tpot_mean_s", *run.mean_tpot_s, "mean_tpot_ms");
  if (run.mean_e2el_s) add("serving_e2e_mean_s", *run.mean_e2el_s, "mean_e2el_ms");
  if (run.median_ttft_s) add("serving_ttft_p50_s", *run.median_ttft_s, "median_ttft_ms");
  if (run.median_tpot_s) add("serving_tpot_p50_s", *run.median_tpot_s, "median_tpot_ms");
  if (run.median_e2el_s) add("serving_e2e_p50_s", *run.median_e2el_s, "median_e2el_ms");
  if (run.median_itl_s) add("serving_itl_p50_s", *run.median_itl_s, "median_itl_ms");
  return case_file("inference", std::move(cases), "the vLLM result " + run.file);
}

std::string aiperf_cases_toml(const AiperfRun& run, const std::string& scenario_file, const HardwareDb& db, const std::string& source) {
  ScenarioFile read = read_serving_scenario(scenario_file, db, run.tool + " export");
  const Scenario& s = read.scenario;
  toml::table& scenario = read.table;
  const double input_len = std::round(run.input_tokens), output_len = std::round(run.output_tokens);
  const int replicas = data_parallel(s.parallelism, s.hardware.count);
  toml::table& inference = *scenario["inference"].as_table();
  inference.insert_or_assign("input_len", static_cast<std::int64_t>(input_len));
  inference.insert_or_assign("output_len", static_cast<std::int64_t>(output_len));
  toml::table serving;  // read_serving_scenario dropped the file's own [serving]
  if (run.output_tokens_std && *run.output_tokens_std > 0)
    serving.insert_or_assign("length_cv2", std::pow(*run.output_tokens_std / run.output_tokens, 2));
  std::string load;
  if (run.concurrency) {
    serving.insert_or_assign("concurrency", static_cast<std::int64_t>(std::max(1.0, std::round(*run.concurrency / replicas))));
    if (run.requests)
      serving.insert_or_assign("benchmark_requests", static_cast<std::int64_t>(std::max(1.0, std::round(*run.requests / replicas))));
    load = run.requests ? fmt::format("{:g} clients, {:g} requests measured", *run.concurrency, *run.requests)
                        : fmt::format("{:g} clients (measurement windows: the steady state)", *run.concurrency);
  } else {
    serving.insert_or_assign("arrival_rate", *run.request_rate);
    serving.insert_or_assign("arrival_cv2", run.constant_rate ? 0.0 : 1.0);
    load = fmt::format("{:g} requests/s ({})", *run.request_rate, run.constant_rate ? "evenly spaced" : "Poisson");
  }
  scenario.insert_or_assign("serving", serving);
  const std::string stem = slug(std::filesystem::path(run.file).stem().string());
  const std::string notes =
      fmt::format("{} run of {}: {}, mean {:g} input and {:g} output tokens, scored against the engine simulated {}", run.tool,
                  run.model.empty() ? "the model" : run.model, load, input_len, output_len,
                  run.concurrency && run.requests ? "over the same finite benchmark from an idle engine (ramp-up and drain included)"
                                                  : "in its steady state");
  toml::array cases;
  auto add = [&](const char* metric, double value, const char* what) {
    cases.push_back(scenario_case(fmt::format("{}-{}", stem, metric),
                                  source.empty() ? fmt::format("{} export {}", run.tool, run.file) : source, metric, value,
                                  fmt::format("{} ({})", notes, what), scenario));
  };
  add("serving_output_tokens_per_s", run.output_tokens_per_s / replicas,
      fmt::format("output_token_throughput over the scenario's {} replica(s)", replicas).c_str());
  if (run.ttft) add("serving_ttft_mean_s", run.ttft->mean_s, "time_to_first_token avg");
  if (run.itl) add("serving_tpot_mean_s", run.itl->mean_s, "inter_token_latency avg: (latency - TTFT) / (output tokens - 1)");
  add("serving_e2e_mean_s", run.latency.mean_s, "request_latency avg");
  if (run.ttft && run.ttft->p50_s) add("serving_ttft_p50_s", *run.ttft->p50_s, "time_to_first_token p50");
  if (run.itl && run.itl->p50_s) add("serving_tpot_p50_s", *run.itl->p50_s, "inter_token_latency p50");
  if (run.latency.p50_s) add("serving_e2e_p50_s", *run.latency.p50_s, "request_latency p50");
  return case_file("inference", std::move(cases), fmt::format("the {} export {}", run.tool, run.file));
}

}  // namespace perfcast
