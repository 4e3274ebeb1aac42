// Property tests over seeded random valid scenarios (issue 27): models, systems or accelerators,
// layouts, lengths, batches, precisions and stacks drawn from a fixed seed, each written as a
// scenario file's text and read by the scenario reader (what the reader or a prediction refuses is
// redrawn, not counted).
// For every scenario read:
//   - more FLOP/s, more memory bandwidth, or faster links is never slower;
//   - the memory components add up to the per-device total;
//   - training: the sweep's figures for the scenario's own layout equal predict's;
//   - the JSON output holds no nan or inf, and round-trips through its text unchanged.
// PERFCAST_PROPERTY_SCENARIOS sets how many (100,000 by default; the sanitizer build runs fewer,
// CMakeLists.txt). Failures are collected per thread and reported by the main thread.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/errors.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/predict/inference.hpp"
#include "engine/predict/training.hpp"
#include "engine/sweep/sweep_space.hpp"
#include "engine/sweep/training_sweep.hpp"
#include "engine/writers/inference_writers.hpp"
#include "engine/writers/training_writers.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;

namespace {

constexpr const char* kModels[] = {"llama3-8b",    "llama3-70b", "llama2-7b",    "llama2-13b",   "mistral-7b", "mixtral-8x7b",
                                   "gpt3-175b",    "gpt-j-6b",   "llama3.1-8b",  "megatron-gpt-1.7b", "megatron-gpt-18.4b",
                                   "llama3-405b",  "deepseek-v3", "gpt-oss-20b",  "qwen3-8b",   "gemma-3-27b",  "qwen3-235b-a22b"};
constexpr const char* kSystems[] = {"dgx-h100", "dgx-h200", "dgx-a100-80gb", "dgx-b200", "gb200-nvl72", "hgx-h100"};
constexpr const char* kAccelerators[] = {"h100-sxm", "h200", "a100-sxm-80gb", "b200", "mi300x", "l40s", "h100-pcie"};

template <class T, std::size_t N>
const T& pick(std::mt19937_64& g, const T (&items)[N]) {
  return items[std::uniform_int_distribution<std::size_t>(0, N - 1)(g)];
}
int pick(std::mt19937_64& g, std::initializer_list<int> items) {
  return *(items.begin() + std::uniform_int_distribution<std::size_t>(0, items.size() - 1)(g));
}
bool coin(std::mt19937_64& g, double p = 0.5) { return std::uniform_real_distribution<double>(0, 1)(g) < p; }

// One random scenario's text; the reader decides whether it is valid.
std::string random_scenario(std::mt19937_64& g) {
  std::string t = fmt::format("schema_version = 1\n[model]\npreset = \"{}\"\n[hardware]\n", pick(g, kModels));
  int devices = 0;
  if (coin(g, 0.6)) {
    const int nodes = pick(g, {1, 1, 2, 4, 8});
    t += fmt::format("system = \"{}\"\nnodes = {}\n", pick(g, kSystems), nodes);
    devices = nodes * 8;  // most systems; the reader refuses a layout that does not divide the real count
  } else {
    devices = pick(g, {1, 2, 4, 8});
    t += fmt::format("accelerator = \"{}\"\ncount = {}\n", pick(g, kAccelerators), devices);
  }
  const int tp = pick(g, {1, 1, 2, 4, 8});
  const int pp = pick(g, {1, 1, 1, 2, 3, 4});  // 3 splits most models unevenly (F-PIPE-4)
  if (coin(g)) {
    const int cp = pick(g, {1, 1, 1, 2});
    const int dp = std::max(1, devices / (tp * pp * cp));
    const int micro = pick(g, {1, 1, 2, 4});
    t += fmt::format("[training]\nseq_len = {}\nglobal_batch = {}\nmicro_batch = {}\nprecision = \"{}\"\nrecompute = \"{}\"\n",
                     pick(g, {1024, 2048, 4096, 8192}), dp * micro * pick(g, {1, 2, 4, 8, 16}), micro,
                     coin(g, 0.7) ? "bf16" : (coin(g) ? "fp8" : "fp16"), coin(g) ? "none" : (coin(g) ? "selective" : "full"));
    t += fmt::format("[parallelism]\ntp = {}\npp = {}\ncp = {}\nzero = {}\nsequence_parallel = {}\n", tp, pp, cp, pick(g, {0, 1, 1, 2, 3}),
                     tp > 1 && coin(g) ? "true" : "false");
  } else {
    const char* dtype = coin(g, 0.5) ? "bf16" : (coin(g) ? "fp8" : "int8");
    t += fmt::format("[inference]\ninput_len = {}\noutput_len = {}\nbatch = {}\nweight_dtype = \"{}\"\nkv_dtype = \"{}\"\n",
                     pick(g, {128, 512, 2048, 8192}), pick(g, {16, 128, 512}), pick(g, {1, 4, 16, 64, 256}), dtype,
                     coin(g) ? "bf16" : "fp8");
    t += fmt::format("[parallelism]\ntp = {}\npp = {}\n", tp, pp);
  }
  return t;
}

// Every number in `j` is finite (nlohmann prints nan and inf as null, which would hide them).
bool all_finite(const nlohmann::json& j) {
  if (j.is_number_float()) return std::isfinite(j.get<double>());
  if (j.is_structured())
    for (const auto& v : j) if (!all_finite(v)) return false;
  return true;
}

enum class Faster { flops, memory, links };

// The same hardware, 1.5x faster in one respect.
Scenario faster(Scenario s, Faster what) {
  constexpr double k = 1.5;
  for (AcceleratorSpec* a : {&s.hw.datasheet, &s.hw.device}) {
    if (what == Faster::flops)
      for (auto& p : a->peak_dense_ops_per_s) if (p) *p *= k;
    if (what == Faster::memory) {
      if (a->memory_bandwidth_Bps) *a->memory_bandwidth_Bps *= k;
      if (a->decode_attention_Bps) *a->decode_attention_Bps *= k;
    }
    if (what == Faster::links && a->scale_up_bandwidth_per_direction_Bps) *a->scale_up_bandwidth_per_direction_Bps *= k;
  }
  if (what == Faster::links)
    for (auto* link : {&s.hw.host_link, &s.hw.scale_up, &s.hw.node_host_link, &s.hw.scale_out})
      if (*link) {
        if ((*link)->bandwidth_per_direction_Bps) *(*link)->bandwidth_per_direction_Bps *= k;
        if ((*link)->per_link_bandwidth_per_direction_Bps) *(*link)->per_link_bandwidth_per_direction_Bps *= k;
        if ((*link)->ring_busbw_Bps) *(*link)->ring_busbw_Bps *= k;
      }
  return s;
}

struct Tally {
  long read = 0, refused = 0, training = 0, inference = 0, monotone_checks = 0;
  std::vector<std::string> failures;
  void fail(const std::string& scenario, const std::string& what) {
    if (failures.size() < 20) failures.push_back(what + "\n" + scenario);
  }
};

bool not_slower(double faster_s, double base_s) { return faster_s <= base_s * (1 + 1e-9) + 1e-15; }

void check_memory(const MemoryReport& m, const std::string& text, Tally& t) {
  double sum = 0;
  for (const MemoryComponent& c : m.components) sum += c.bytes;
  if (std::abs(sum - m.per_device_B) > 1e-9 * std::max(1.0, m.per_device_B))
    t.fail(text, fmt::format("memory components sum to {} B, the total says {} B", sum, m.per_device_B));
}

void check_json(const nlohmann::json& j, const std::string& text, Tally& t) {
  if (!all_finite(j)) t.fail(text, "a nan or inf in the JSON output");
  if (nlohmann::json::parse(j.dump()) != j) t.fail(text, "the JSON output does not round-trip through its text");
}

constexpr const char* kFasterNames[] = {"FLOP/s", "memory bandwidth", "link bandwidth"};

// The properties every prediction has: finite, round-tripping JSON; memory that adds up; the times
// `times_of` names never longer on hardware 1.5x faster in any one respect.
template <class Prediction>
void check_prediction(const Scenario& s, const std::string& text, Tally& t, Prediction (*predict)(const Scenario&),
                      nlohmann::json (*to_json)(const Prediction&), std::vector<double> (*times_of)(const Prediction&)) {
  const Prediction p = predict(s);  // may refuse the scenario (InputError): redrawn
  check_json(to_json(p), text, t);
  check_memory(p.memory, text, t);
  const std::vector<double> base = times_of(p);
  for (Faster f : {Faster::flops, Faster::memory, Faster::links}) {
    ++t.monotone_checks;
    const std::vector<double> quicker = times_of(predict(faster(s, f)));
    for (std::size_t i = 0; i < base.size(); ++i)
      if (!not_slower(quicker[i], base[i]))
        t.fail(text, fmt::format("more {} is slower: time {} of the prediction {} s against {} s", kFasterNames[int(f)], i, quicker[i],
                                 base[i]));
  }
}

TrainingPrediction predict_training_defaults(const Scenario& s) { return predict_training(s); }
InferencePrediction predict_inference_defaults(const Scenario& s) { return predict_inference(s); }
std::vector<double> training_times(const TrainingPrediction& p) { return {p.step_time_s}; }
std::vector<double> inference_times(const InferencePrediction& p) { return {p.ttft_s, p.tpot_s}; }

void check_training(const Scenario& s, const std::string& text, Tally& t) {
  check_prediction<TrainingPrediction>(s, text, t, predict_training_defaults, training_to_json, training_times);
  ++t.training;
  const TrainingPrediction p = predict_training(s);
  const SweepFigures row = sweep_figures(s, layout_of(s), true);
  if (row.step_s != p.step_time_s || row.memory_B != p.memory.per_device_B || row.mfu != p.mfu)
    t.fail(text, fmt::format("the sweep's row ({} s, {} B) differs from predict ({} s, {} B)", row.step_s, row.memory_B,
                             p.step_time_s, p.memory.per_device_B));
}

void check_inference(const Scenario& s, const std::string& text, Tally& t) {
  check_prediction<InferencePrediction>(s, text, t, predict_inference_defaults, inference_to_json, inference_times);
  ++t.inference;
}

Tally run_seeds(std::uint64_t first_seed, long wanted) {
  Tally t;
  std::mt19937_64 g(first_seed);
  for (long attempts = 0; t.read < wanted && attempts < wanted * 20; ++attempts) {
    const std::string text = random_scenario(g);
    try {
      const Scenario s = parse_scenario(text, "property.toml", PERFCAST_DEFAULT_WORKLOADS, shipped_db());
      if (s.training) check_training(s, text, t);
      else check_inference(s, text, t);
      ++t.read;
    } catch (const InputError&) {
      ++t.refused;
    } catch (const std::exception& e) {
      t.fail(text, std::string("an exception other than InputError: ") + e.what());
    }
  }
  return t;
}

}  // namespace

TEST_CASE("properties hold over seeded random valid scenarios") {
  const char* env = std::getenv("PERFCAST_PROPERTY_SCENARIOS");
  const long wanted = env ? std::atol(env) : 100'000;
  REQUIRE(wanted > 0);
  shipped_db();  // loaded once, before the threads share it
  const unsigned threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<Tally> tallies(threads);
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i)
    pool.emplace_back([&, i] { tallies[i] = run_seeds(20261124 + i, wanted / threads + (i < wanted % threads ? 1 : 0)); });
  for (std::thread& th : pool) th.join();
  Tally all;
  for (const Tally& t : tallies) {
    all.read += t.read, all.refused += t.refused, all.training += t.training, all.inference += t.inference;
    all.monotone_checks += t.monotone_checks;
    all.failures.insert(all.failures.end(), t.failures.begin(), t.failures.end());
  }
  MESSAGE(fmt::format("{} scenarios read ({} training, {} inference; {} drawn and refused), {} faster-hardware checks", all.read,
                      all.training, all.inference, all.refused, all.monotone_checks));
  CHECK(all.read == wanted);
  CHECK(all.training > wanted / 5);
  CHECK(all.inference > wanted / 5);
  for (const std::string& f : all.failures) FAIL_CHECK(f);
}
