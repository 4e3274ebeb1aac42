// `perfcast plan` on the README's question (DESIGN.md "Speed"): Llama-3-70B on 15T tokens over every
// system of the database, 1-4,096 nodes, every offer, spot and purchase in every region, deadline
// 60 days. Reports
//   units/s     system x node-count units swept (each one training sweep) per wall second;
//   layouts/s   distinct layouts judged (rules, memory, time) per wall second;
//   timed/s     layouts timed in full;
//   rows/s      candidates priced (unit x payment).
// And the serving question: Llama-3-70B at 200 requests/s under p99 TTFT 1 s and TPOT 50 ms, every
// system, replica layout, precision, offer and purchase region. Reports
//   layouts/s   replica layouts judged (rules, memory);
//   simulated/s replica layouts sized by the engine simulation (capacity's SLO search);
//   rows/s      fleets priced (replica layout x payment).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <thread>

#include "engine/data/hardware_db.hpp"
#include "engine/data/plan_candidates.hpp"
#include "engine/sweep/plan.hpp"
#include "engine/sweep/scaling.hpp"
#include "engine/sweep/serving_plan.hpp"

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

void llama3_70b_200_rps_all_hardware(benchmark::State& state) {
  const std::string file = (std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios" / "llama3-70b-h100-serving.toml").string();
  PlanSpace space;
  space.nodes = {1};
  ServingPlanRequest r;
  r.rate = 200;
  r.threads = int(state.range(0));
  std::uint64_t layouts = 0, simulated = 0, priced = 0;
  for (auto _ : state) {
    const PlanCandidates c = plan_candidates(file, space, db());
    const ServingPlanReport report = serving_plan(c, file, r);
    benchmark::DoNotOptimize(report.best.data());
    layouts += report.layouts, simulated += report.simulated, priced += report.priced;
  }
  using benchmark::Counter;
  state.counters["layouts/s"] = Counter(double(layouts), Counter::kIsRate);
  state.counters["simulated/s"] = Counter(double(simulated), Counter::kIsRate);
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
BENCHMARK(llama3_70b_200_rps_all_hardware)->Apply(threads);
