// Layouts per second of `perfcast sweep` on fixed spaces (DESIGN.md "Speed"): the benchmark the
// README's figures come from. Run ./build/perfcast_bench (Release build); each space reports
//   layouts/s   every combination of the space judged (rules, memory, time) per wall second;
//   distinct/s  the same without the repeats skipped unjudged (schedules without pp);
//   timed/s     layouts that passed the rules and memory and were timed in full.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <thread>

#include "engine/data/hardware_db.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/sweep/training_sweep.hpp"

namespace {

using namespace perfcast;

const HardwareDb& db() {
  static const HardwareDb loaded = HardwareDb::load(PERFCAST_DEFAULT_HARDWARE_DB);
  return loaded;
}

Scenario scenario(const char* file) {
  return load_scenario(std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios" / file, PERFCAST_DEFAULT_WORKLOADS, db());
}

void run_space(benchmark::State& state, const char* file, std::vector<int> devices, int threads) {
  const Scenario s = scenario(file);
  SweepRequest r;
  r.devices = std::move(devices);
  r.threads = threads;
  r.top = 20;
  SweepCounts total;
  for (auto _ : state) {
    const SweepResult result = sweep(s, r);
    benchmark::DoNotOptimize(result.best.data());
    total.add(result.counts);
  }
  using benchmark::Counter;
  state.counters["layouts"] = double(total.combinations) / double(state.iterations());
  state.counters["layouts/s"] = Counter(double(total.combinations), Counter::kIsRate);
  state.counters["distinct/s"] = Counter(double(total.combinations - total.repeats), Counter::kIsRate);
  state.counters["timed/s"] = Counter(double(total.timed), Counter::kIsRate);
  state.counters["threads"] = threads;
}

int cores() { return int(std::max(1u, std::thread::hardware_concurrency())); }

void gpt3_175b_64_a100(benchmark::State& st) { run_space(st, "gpt3-175b-64xa100-korthikanti.toml", {}, int(st.range(0))); }
void gpt3_175b_64_a100_batch_1536(benchmark::State& st) { run_space(st, "gpt3-175b-a100-training.toml", {64}, int(st.range(0))); }
void megatron_1t_3072_a100(benchmark::State& st) { run_space(st, "megatron-1t-3072xa100.toml", {}, int(st.range(0))); }
void llama3_405b_16384_h100(benchmark::State& st) { run_space(st, "llama3-405b-16384xh100.toml", {}, int(st.range(0))); }
void llama3_405b_4096_to_16384_h100(benchmark::State& st) {
  run_space(st, "llama3-405b-16384xh100.toml", {4096, 8192, 16384}, int(st.range(0)));
}

void threads(benchmark::internal::Benchmark* b) {
  b->Arg(1);
  if (cores() > 1) b->Arg(cores());
  b->UseRealTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK(gpt3_175b_64_a100)->Apply(threads);
BENCHMARK(gpt3_175b_64_a100_batch_1536)->Apply(threads);
BENCHMARK(megatron_1t_3072_a100)->Apply(threads);
BENCHMARK(llama3_405b_16384_h100)->Apply(threads);
BENCHMARK(llama3_405b_4096_to_16384_h100)->Apply(threads);
BENCHMARK_MAIN();
