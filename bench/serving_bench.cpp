// Time of the serving engine's steady states (README "Serving engines"): a whole `batch = "max"`
// prediction, a closed loop of 64 clients (vLLM's scheduler and SGLang's), and `capacity --rate` with its SLO bisection, each with
// the simulated engine steps per second. Run ./build/perfcast_bench --benchmark_filter=serving.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <optional>

#include "engine/data/hardware_db.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/predict/capacity.hpp"
#include "engine/predict/engine_serving.hpp"

namespace {

using namespace perfcast;

Scenario serving_scenario(const char* file) {
  static const HardwareDb db = HardwareDb::load(PERFCAST_DEFAULT_HARDWARE_DB);
  return load_scenario(std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios" / file, PERFCAST_DEFAULT_WORKLOADS, db);
}

void serving_max_throughput_70b_h200(benchmark::State& state) {
  const Scenario s = serving_scenario("llama3.1-70b-h200-fp8-max-throughput.toml");
  double steps = 0;
  for (auto _ : state) {
    const InferencePrediction p = predict_inference(s);
    steps += double(p.engine->result.steps);
    benchmark::DoNotOptimize(p.output_tokens_per_s);
  }
  state.counters["engine steps/s"] = benchmark::Counter(steps, benchmark::Counter::kIsRate);
}

// A closed loop of 64 clients on the scenario's engine, or another's.
void closed_loop_64(benchmark::State& state, std::optional<models::ServingEngine> engine) {
  Scenario s = serving_scenario("llama3-70b-4xh100-fp8.toml");
  if (engine) s.inference->engine = engine;
  double steps = 0;
  for (auto _ : state) {
    const CapacityReport c = capacity_for_scenario(s, {.concurrency = 64});
    steps += double(c.closed_loop->result.steps);
    benchmark::DoNotOptimize(c.closed_loop->result.ttft_mean_s);
  }
  state.counters["engine steps/s"] = benchmark::Counter(steps, benchmark::Counter::kIsRate);
}

void serving_concurrency_64_70b_4xh100(benchmark::State& state) { closed_loop_64(state, std::nullopt); }
// SGLang's scheduler: prompt and decode steps apart (F-SRV-2, unmixed).
void serving_concurrency_64_70b_4xh100_sglang(benchmark::State& state) { closed_loop_64(state, models::ServingEngine::sglang); }

void serving_capacity_rate_70b_4xh100(benchmark::State& state) {
  const Scenario s = serving_scenario("llama3-70b-4xh100-fp8.toml");
  for (auto _ : state) {
    const CapacityReport c = capacity_for_scenario(s, {.rate = 200, .ttft_slo_s = 1.0, .tpot_slo_s = 0.05});
    benchmark::DoNotOptimize(c.replicas);
  }
}

}  // namespace

BENCHMARK(serving_max_throughput_70b_h200)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(serving_concurrency_64_70b_4xh100)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(serving_concurrency_64_70b_4xh100_sglang)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(serving_capacity_rate_70b_4xh100)->UseRealTime()->Unit(benchmark::kMillisecond);
