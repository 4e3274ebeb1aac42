#include "tests/fuzz/fuzz_targets.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <variant>

#include "engine/calibrate/calibration.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/calibration_profile.hpp"
#include "engine/data/hardware_db.hpp"
#include "engine/data/hf_config.hpp"
#include "engine/data/record_loader.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/data/workload_reader.hpp"
#include "engine/ingest/case_writers.hpp"
#include "engine/ingest/measurements.hpp"
#include "engine/ingest/megatron_log.hpp"
#include "engine/ingest/mlperf_summary.hpp"
#include "engine/ingest/nccl_tests.hpp"
#include "engine/ingest/trtllm_bench.hpp"
#include "engine/ingest/aiperf_export.hpp"
#include "engine/ingest/vllm_bench.hpp"
#include "engine/predict/inference.hpp"
#include "engine/predict/training.hpp"
#include "engine/validate/validation.hpp"
#include "engine/writers/inference_writers.hpp"
#include "engine/sweep/plan_merge.hpp"
#include "engine/writers/model_writers.hpp"
#include "engine/writers/plan_reader.hpp"
#include "engine/writers/plan_writers.hpp"
#include "engine/writers/sweep_writers.hpp"
#include "engine/writers/training_writers.hpp"
#include "web/api.hpp"
#include "web/site.hpp"

namespace perfcast::fuzz {
namespace {

const HardwareDb& db() {
  static const HardwareDb loaded = HardwareDb::load(PERFCAST_DEFAULT_HARDWARE_DB);
  return loaded;
}

// A finding: what the fuzzer and the regression test report.
[[noreturn]] void finding(const std::string& what) { throw std::logic_error("fuzz finding: " + what); }

// Every number a JSON document holds is finite (nlohmann prints nan and inf as null, hiding them).
void require_finite(const nlohmann::json& j, const std::string& path = "") {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) finding("non-finite output at " + path);
  if (j.is_object())
    for (const auto& [k, v] : j.items()) require_finite(v, path + "." + k);
  if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i) require_finite(j[i], path + "[" + std::to_string(i) + "]");
}

// Readers that take a path get the input through a file of this process's own.
class InputFile {
 public:
  explicit InputFile(std::string_view input, std::string_view extension)
      : path_(std::filesystem::temp_directory_path() /
              ("perfcast-fuzz-" + std::to_string(::getpid()) + std::string(extension))) {
    std::ofstream(path_, std::ios::binary) << input;
  }
  ~InputFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Runs `body`; an InputError is the reader refusing the input, which is what it should do.
template <class Body>
void refused_or_read(Body body) {
  try {
    body();
  } catch (const InputError&) {
  }
}

void scenario(std::string_view input) {
  refused_or_read([&] {
    const Scenario s = parse_scenario(input, "fuzz.toml", default_workloads_dir(), db());
    if (s.inference) require_finite(inference_to_json(predict_inference(s)));
    else require_finite(training_to_json(predict_training(s)));
  });
}

void hardware_record(std::string_view input) {
  for (schema::Kind kind : {schema::Kind::accelerator, schema::Kind::interconnect, schema::Kind::system, schema::Kind::offer,
                            schema::Kind::region})
    refused_or_read([&] { parse_record(input, "fuzz.toml", kind); });
}

void validation_cases(std::string_view input) {
  const InputFile f(input, ".toml");
  refused_or_read([&] {
    for (const CaseScore& s : score_file(f.path(), db()))
      if (s.scored && (!std::isfinite(s.predicted) || !std::isfinite(s.error))) finding("non-finite score of case " + s.id);
  });
}

void calibration_profile(std::string_view input) {
  const InputFile f(input, ".toml");
  refused_or_read([&] {
    const CalibrationProfile p = load_calibration_profile(f.path());
    for (const ModelParams& m : sample_params(p, 4))
      if (!std::isfinite(m.efficiency.gemm) || !std::isfinite(m.collective.nic_efficiency)) finding("non-finite parameter draw");
    (void)profile_toml(p);
  });
}

void nccl_tests(std::string_view input) {
  refused_or_read([&] {
    const NcclTestsRun run = parse_nccl_tests(input, "all_reduce_perf.txt");
    (void)collective_cases_toml(run, "dgx-h100", "");
  });
}

void megatron_log(std::string_view input) { refused_or_read([&] { parse_megatron_log(input, "fuzz.log"); }); }
void vllm_serving(std::string_view input) { refused_or_read([&] { parse_vllm_serving(input, "fuzz.json"); }); }
void vllm_throughput(std::string_view input) { refused_or_read([&] { parse_vllm_throughput(input, "fuzz.json"); }); }
void aiperf_export(std::string_view input) { refused_or_read([&] { parse_aiperf_export(input, "fuzz.json"); }); }
void trtllm_bench(std::string_view input) { refused_or_read([&] { parse_trtllm_bench(input, "fuzz.txt"); }); }
void mlperf_summary(std::string_view input) { refused_or_read([&] { parse_mlperf_summary(input, "fuzz.txt"); }); }
void measurements(std::string_view input) {
  refused_or_read([&] { parse_measurements(input, "fuzz.csv"); });
  refused_or_read([&] { parse_measurements(input, "fuzz.json"); });
}

// A config.json: read, shown, and its preset read back with the same parameter count.
void hf_config(std::string_view input) {
  refused_or_read([&] {
    const Workload w = parse_hf_config(input, "config.json");
    require_finite(model_json(w));
    const Workload back = parse_workload(model_preset_toml(w), w.name + ".toml", default_workloads_dir());
    if (models::count_parameters(back.transformer()).total != models::count_parameters(w.transformer()).total)
      finding("the imported preset counts other parameters than the config.json");
  });
}

// A request body `perfcast serve` answers (web/api.hpp), as /api/predict and /api/memory: every
// reply is a known status with one line of JSON, and an answer holds only finite numbers.
void web_request(std::string_view input) {
  static const web::Site site(PERFCAST_DEFAULT_HARDWARE_DB, std::filesystem::path(PERFCAST_DEFAULT_WORKLOADS).parent_path());
  for (const char* path : {"/api/predict", "/api/memory"}) {
    const web::Reply r = web::answer(site, "POST", path, {}, input);
    if (r.status != 200 && r.status != 400 && r.status != 413) finding("web reply status " + std::to_string(r.status) + ": " + r.body);
    if (r.body.find('\n') != std::string::npos) finding("web reply of more than one line");
    const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
    if (j.is_discarded()) finding("web reply that is not JSON: " + r.body.substr(0, 200));
    if (r.status == 200) require_finite(j);
    else if (!j.contains("error")) finding("web refusal without an error line");
  }
}

// A shard `sweep-merge` or `plan-merge` reads: read, merged when it is the whole search, written.
void merge_shard(std::string_view input) {
  refused_or_read([&] {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(input);
    } catch (const nlohmann::json::exception&) {
      return;  // the commands refuse what is not JSON in one line
    }
    const std::string file = "shard.json";
    if (j.is_object() && j.contains("sweep")) {
      const SweepResult s = sweep_from_json(j, file);
      if (s.shards == 1) (void)sweep_to_csv(merge_sweeps({s}, {file}));
      return;
    }
    const PlanShard shard = plan_from_json(j, file);
    std::visit(
        [&](const auto& r) {
          using Report = std::decay_t<decltype(r)>;
          if (r.request.shards != 1) return;
          const Report merged = merge_plans(std::vector<Report>{r}, {file});
          require_finite(plan_to_json(merged));
          (void)plan_to_table(merged);
          (void)plan_to_csv(merged);
        },
        shard);
  });
}

const std::vector<Target> kTargets = {
    {"scenario", {"scenarios/*.toml"}, scenario},
    {"hardware_record", {"hardware_db/*/*.toml"}, hardware_record},
    {"validation_cases", {"validation/*.toml"}, validation_cases},
    {"calibration_profile", {"profiles/*.toml"}, calibration_profile},
    {"nccl_tests", {"tests/data/ingest/*perf*.txt", "tests/data/ingest/multinode-16gpu.txt"}, nccl_tests},
    {"megatron_log", {"tests/data/ingest/*.log"}, megatron_log},
    {"vllm_serving", {"tests/data/ingest/vllm_serving*.json"}, vllm_serving},
    {"vllm_throughput", {"tests/data/ingest/vllm_throughput*.json"}, vllm_throughput},
    {"trtllm_bench", {"tests/data/ingest/trtllm_bench*.txt"}, trtllm_bench},
    {"aiperf_export", {"tests/data/ingest/*profile_export*.json"}, aiperf_export},
    {"mlperf_summary", {"tests/data/ingest/mlperf_log_summary*.txt"}, mlperf_summary},
    {"measurements", {"tests/data/ingest/measured.*"}, measurements},
    {"hf_config", {"tests/data/hf/*/config.json"}, hf_config},
    {"merge_shard", {"tests/data/shards/*.json"}, merge_shard},
    {"web_request", {"tests/data/web/*.json"}, web_request},
};

}  // namespace

std::span<const Target> targets() { return kTargets; }

const Target* find_target(std::string_view name) {
  for (const Target& t : kTargets)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace perfcast::fuzz
