// The server time of one recompute of the what-if page (README "The web page"): the requests the
// page sends when a field changes, answered by web::answer from the request's JSON text, as the
// server does without the socket. Run ./build/perfcast_bench --benchmark_filter=web.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "web/api.hpp"
#include "web/site.hpp"

namespace {

using namespace perfcast;

const web::Site& site() {
  static const web::Site s(PERFCAST_DEFAULT_HARDWARE_DB, std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios");
  return s;
}

std::string request_of(const char* preset) {
  for (const web::Preset& p : site().presets())
    if (p.name == preset) return nlohmann::json{{"scenario", p.scenario}}.dump();
  throw std::logic_error(std::string("no preset ") + preset);
}

// The endpoints of one recompute, in the page's order.
void recompute(benchmark::State& state, const char* preset, std::initializer_list<const char*> endpoints) {
  const std::string body = request_of(preset);
  for (auto _ : state)
    for (const char* endpoint : endpoints) {
      const web::Reply r = web::answer(site(), "POST", endpoint, {}, body);
      if (r.status != 200) state.SkipWithError(r.body.c_str());
      benchmark::DoNotOptimize(r.body.data());
    }
}

void web_recompute_training_70b_64xh100(benchmark::State& state) {
  recompute(state, "llama3-70b-h100-training", {"/api/predict", "/api/roofline"});
}
void web_recompute_serving_70b_8xh100(benchmark::State& state) {
  recompute(state, "llama3-70b-h100-serving", {"/api/predict", "/api/roofline", "/api/capacity"});
}
void web_sweep_training_70b_64xh100(benchmark::State& state) { recompute(state, "llama3-70b-h100-training", {"/api/sweep"}); }

}  // namespace

BENCHMARK(web_recompute_training_70b_64xh100)->Unit(benchmark::kMillisecond);
BENCHMARK(web_recompute_serving_70b_8xh100)->Unit(benchmark::kMillisecond);
BENCHMARK(web_sweep_training_70b_64xh100)->Unit(benchmark::kMillisecond);
