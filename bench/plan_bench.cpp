// `perfcast plan` on the README's question (DESIGN.md "Speed"): Llama-3-70B on 15T tokens over every
// system of the database, 1-4,096 nodes, every offer, spot and purchase in every region, deadline
// 60 days. Reports
//   units/s     system x node-count units swept (each one training sweep) per wall second;
//   layouts/s   distinct layouts judged (rules, memory, time) per wall second;
//   timed/s     layouts timed in full;
//   rows/s      candidates priced (unit x payment).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <thread>

#include "engine/data/hardware_db.hpp"
#include "engine/data/plan_candidates.hpp"
#include "engine/sweep/plan.hpp"
#include "engine/sweep/scaling.hpp"

namespace {

using namespace perfcast;

const HardwareDb& db() {
  static const HardwareDb loaded = HardwareDb::load(PERFCAST_DEFAULT_HARDWARE_DB);
  return loaded;
}

void llama3_70b_15t_all_hardware(benchmark::State& state) {
  const std::string file = (std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios" / "llama3-70b-15t-pretrain.toml").string();
  PlanSpace space;
  space.nodes = device_counts(1, 4096, 2);
  PlanRequest r;
  r.deadline_s = 60 * 86400.0;
  r.threads = int(state.range(0));
  std::uint64_t units = 0, layouts = 0, timed = 0, priced = 0;
  for (auto _ : state) {
    // Reading the candidates (the scenario on each system, the offers and regions) is part of the answer.
    const PlanCandidates c = plan_candidates(file, space, db());
    const PlanReport report = plan(c, file, space.nodes, r);
    benchmark::DoNotOptimize(report.best.data());
    units += report.units, layouts += report.layouts, timed += report.timed, priced += report.priced;
  }
  using benchmark::Counter;
  state.counters["units/s"] = Counter(double(units), Counter::kIsRate);
  state.counters["layouts/s"] = Counter(double(layouts), Counter::kIsRate);
  state.counters["timed/s"] = Counter(double(timed), Counter::kIsRate);
  state.counters["rows/s"] = Counter(double(priced), Counter::kIsRate);
  state.counters["threads"] = double(state.range(0));
}

void threads(benchmark::internal::Benchmark* b) {
  b->Arg(1);
  if (std::thread::hardware_concurrency() > 1) b->Arg(int(std::thread::hardware_concurrency()));
  b->UseRealTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK(llama3_70b_15t_all_hardware)->Apply(threads);
