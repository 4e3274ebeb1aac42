// Serving: the queueing formulas against MODELS-REFERENCE E13, the convolved wait tail, SLO
// goodput over the simulated engine, and capacity sizing.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "engine/predict/capacity.hpp"
#include "engine/core/errors.hpp"
#include "engine/predict/engine_serving.hpp"
#include "engine/predict/inference.hpp"
#include "models/scheduler_simulation.hpp"
#include "engine/data/scenario_reader.hpp"
#include "models/queueing.hpp"
#include "models/serving.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;
using namespace perfcast::models;

TEST_CASE("E13: M/M/c Erlang C, M/M/1, M/D/1, M/G/1 and the fan-out tail") {
  // λ = 10/s, E[S] = 1 s, c = 12.
  CHECK(erlang_c(12, 10) == doctest::Approx(0.449388).epsilon(1e-6));
  const QueueResult q = mmc(10, 1, 12);
  CHECK(q.wait.mean_wait_s == doctest::Approx(0.224694).epsilon(1e-6));
  CHECK(q.mean_response_s == doctest::Approx(1.224694).epsilon(1e-6));
  CHECK(wait_quantile(q.wait, 0.99) == doctest::Approx(1.902651).epsilon(1e-6));
  CHECK(q.mean_in_queue == doctest::Approx(2.24694).epsilon(1e-6));  // Little
  // ρ = 0.8, E[S] = 100 ms.
  CHECK(mm1(8, 0.1).wait.mean_wait_s == doctest::Approx(0.4));
  CHECK(mg1(8, 0.1, 0).wait.mean_wait_s == doctest::Approx(0.2));
  CHECK(mg1(8, 0.1, 4).wait.mean_wait_s == doctest::Approx(1.0));
  CHECK(mm1_response_quantile(8, 0.1, 0.99) == doctest::Approx(2.302585).epsilon(1e-6));
  CHECK(fanout_slow_probability(0.01, 100) == doctest::Approx(0.633968).epsilon(1e-6));
  CHECK(fanout_slow_probability(0.001, 100) == doctest::Approx(0.095208).epsilon(1e-6));
  // M/M/1 is M/M/c with one server; Erlang C of one server is ρ.
  CHECK(erlang_c(1, 0.8) == doctest::Approx(0.8));
  // Kingman and Allen–Cunneen reduce to the Poisson forms at C_a² = 1 (and C_s² = 1 for M/M/c).
  CHECK(gg1(8, 0.1, 1, 4).wait.mean_wait_s == doctest::Approx(mg1(8, 0.1, 4).wait.mean_wait_s));
  CHECK(ggc(10, 1, 12, 1, 1).wait.mean_wait_s == doctest::Approx(q.wait.mean_wait_s));
  CHECK(ggc(10, 1, 12, 1, 0).wait.mean_wait_s == doctest::Approx(q.wait.mean_wait_s / 2));
  // Erlang B recursion stays finite where c! would overflow.
  const double big = erlang_c(2000, 1990);
  CHECK(std::isfinite(big));
  CHECK(big > 0);
  CHECK(big < 1);
}

TEST_CASE("the convolved wait tail: reduces to one wait, integrates to the sum of the means, Erlang-2 continuity") {
  const WaitTime a{0.4, 0.2}, b{0.3, 0.05}, none{0, 0};
  CHECK(wait_sum_quantile(a, none, 0.99) == doctest::Approx(wait_quantile(a, 0.99)).epsilon(1e-9));
  CHECK(wait_sum_quantile(none, b, 0.95) == doctest::Approx(wait_quantile(b, 0.95)).epsilon(1e-9));
  CHECK(wait_sum_quantile(a, b, 0.99) == doctest::Approx(wait_sum_quantile(b, a, 0.99)).epsilon(1e-9));
  CHECK(wait_sum_tail(a, b, 0) == doctest::Approx(1 - 0.6 * 0.7));
  // E[X + Y] = ∫ P(X + Y > t) dt (Simpson on [0, 40 s], the tail is ~e^-40 there).
  const int n = 40000;
  const double h = 40.0 / n;
  double integral = wait_sum_tail(a, b, 0) + wait_sum_tail(a, b, 40);
  for (int i = 1; i < n; ++i) integral += (i % 2 ? 4 : 2) * wait_sum_tail(a, b, i * h);
  CHECK(integral * h / 3 == doctest::Approx(0.25).epsilon(1e-6));
  // Equal rates use the Erlang-2 form; nearly equal rates must agree with it.
  const WaitTime c{0.5, 0.1}, d{0.5, 0.1}, d2{0.5, 0.1 * (1 + 1e-6)};
  CHECK(wait_sum_tail(c, d, 0.3) == doctest::Approx(wait_sum_tail(c, d2, 0.3)).epsilon(1e-5));
  CHECK(wait_sum_quantile(a, b, 0.99) > wait_quantile(a, 0.99));
}

namespace {

// Steps of 5 ms + 20 us per token + 30 us per decoding sequence; 200 running, 4096 tokens a step;
// 1000-token prompts, 101 output tokens.
RateModel linear_rate_model() {
  RateModel m;
  m.costs = {{{1, 0.005 + 20e-6}, {8192, 0.005 + 8192 * 20e-6}}, {{0, 0}, {200, 200 * 30e-6}}, 0};
  m.limits.limits = {.max_sequences = 200, .max_step_tokens = 4096};
  m.shape = {1000, 101};
  m.saturation_rate = simulate_serving(m.costs, m.limits.limits, m.shape, {.kind = LoadKind::closed_loop, .concurrency = 205}, 0.99)
                          .requests_per_s;
  return m;
}

}  // namespace

TEST_CASE("SLO goodput is the edge of the SLO, to the bisection's 0.5 % of saturation") {
  const RateModel m = linear_rate_model();
  const Slo slo{std::nullopt, 0.02, 0.99};
  const auto rate = slo_rate_of(m, slo);
  REQUIRE(rate);
  CHECK(meets(serve_at(m, *rate), slo));
  CHECK_FALSE(meets(serve_at(m, *rate + 0.005 * m.saturation_rate), slo));
  // A TTFT bound below one prompt's step cannot be met at any load.
  CHECK_FALSE(slo_rate_of(m, Slo{0.02, std::nullopt, 0.99}));
  // A loose bound is met up to saturation.
  CHECK(*slo_rate_of(m, Slo{1e6, 1e6, 0.99}) == doctest::Approx(m.saturation_rate));
  // The point's figures: Little over the replica, the load against saturation.
  const ServingPoint p = serve_at(m, 0.5 * m.saturation_rate);
  CHECK(p.load == doctest::Approx(0.5));
  CHECK(p.output_tokens_per_s == doctest::Approx(101 * p.rate));
  CHECK(p.concurrency == doctest::Approx(p.rate * p.e2e_mean_s).epsilon(0.05));  // the sample's rate, within its noise
}

namespace {

Scenario scenario(const std::string& serving, const std::string& model = "preset = \"llama3-70b\"", const std::string& inference = "") {
  return parse_scenario(fmt::format(R"(
[model]
{}
[hardware]
system = "dgx-h100"
nodes = 1
[inference]
input_len = 2048
output_len = 512
weight_dtype = "fp8"
kv_dtype = "fp8"
compute_dtype = "fp8"
{}
[parallelism]
tp = 4
dp = 2
[serving]
{})",
                                    model, inference, serving),
                        "test.toml", PERFCAST_DEFAULT_WORKLOADS, shipped_db());
}

std::string capacity_error(const Scenario& s, const CapacityRequest& r = {}) {
  try {
    capacity_for_scenario(s, r);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("capacity: replicas for a rate meet the SLO, and one fewer would not, predict agrees at the same rate") {
  const Scenario s = scenario("arrival_rate = 8\nttft_slo_s = 1.0\ntpot_slo_s = 0.05");
  CapacityRequest req;
  req.rate = 200;
  const CapacityReport c = capacity_for_scenario(s, req);
  REQUIRE(c.slo_rate);
  REQUIRE(c.replicas);
  CHECK(c.devices_per_replica == 4);
  CHECK(*c.devices == 4 * *c.replicas);
  CHECK(*c.replicas * *c.slo_rate >= 200);
  CHECK((*c.replicas - 1) * *c.slo_rate < 200);
  CHECK(meets(*c.at_target, c.slo));
  CHECK(c.at_target->rate == doctest::Approx(200.0 / *c.replicas));
  CHECK(*c.slo_rate < c.saturation_rate);
  CHECK(c.curve.size() == 10);
  CHECK(c.curve.front().meets_slo);
  // The replica's decode steps are predict's.
  CHECK(c.replica.decode.front().step_s == doctest::Approx(decode_step_seconds(s, 1, 2048 + 256)));
  CHECK(c.replica.prefill_s == doctest::Approx(prefill_seconds(s, 1)));

  // predict at [serving] arrival_rate = 8 over dp = 2 is capacity's steady state at 4/s.
  const InferencePrediction p = predict_inference(s);
  REQUIRE(p.serving);
  const ServingPoint at4 = serve_at(rate_model(s), 4);
  CHECK(p.serving->rate == doctest::Approx(4));
  CHECK(p.serving->ttft_p_s == doctest::Approx(at4.ttft_p_s));
  CHECK(p.serving->tpot_mean_s == doctest::Approx(at4.tpot_mean_s));

  // max_concurrency caps the slots, and so the saturation rate.
  const CapacityReport capped = capacity_for_scenario(scenario("ttft_slo_s = 1.0\nmax_concurrency = 16"), {});
  CHECK(capped.replica.max_concurrency == 16);
  CHECK(capped.saturation_rate < c.saturation_rate);
  CHECK_FALSE(capped.replicas);  // no target rate
}

TEST_CASE("capacity --disaggregated: a prefill pool by TTFT with the KV hand-over, a decode pool by TPOT") {
  const Scenario s = scenario("ttft_slo_s = 1.0\ntpot_slo_s = 0.05");
  const CapacityReport c = capacity_for_scenario(s, {.rate = 200, .disaggregated = true});
  REQUIRE(c.disaggregated);
  const DisaggregatedPlan& d = *c.disaggregated;
  // Llama 3 70B KV in FP8: 80 layers x 8 KV heads x 128 x 2 (K, V) x 1 B = 160 KiB a token, a
  // quarter on each of tp 4 devices: 2048 tokens = 80 MiB over a 400 Gb/s NIC per GPU (DGX H100).
  CHECK(d.kv_bytes_per_device == doctest::Approx(2048.0 * 80 * 8 * 128 * 2 / 4));
  CHECK(d.kv_transfer_s == doctest::Approx(d.kv_bytes_per_device / 50e9));
  REQUIRE(d.devices);
  CHECK(*d.devices == 4 * (*d.prefill_replicas + *d.decode_replicas));
  CHECK(*d.prefill_replicas * *d.prefill_slo_rate >= 200);
  CHECK((*d.prefill_replicas - 1) * *d.prefill_slo_rate < 200);
  CHECK(d.prefill_point->ttft_p_s + d.kv_transfer_s <= 1.0);
  CHECK(d.decode_point->tpot_p_s <= 0.05);
  // Decode replicas carry no prompts: their TPOT at a rate beats a colocated replica's.
  CHECK(*d.decode_slo_rate > *c.slo_rate);
  CHECK(capacity_error(s, {.rate = 200, .tpot_slo_s = 0.05, .disaggregated = true}).empty());
  CHECK(capacity_error(scenario("tpot_slo_s = 0.05"), {.rate = 200, .disaggregated = true}).find("--ttft-slo") != std::string::npos);
}

TEST_CASE("predict past saturation says the replica is overloaded") {
  const InferencePrediction p = predict_inference(scenario("arrival_rate = 1000"));
  REQUIRE(p.serving);  // the simulated window, its queue growing: validation scores a measured overload against it
  CHECK(p.serving->load > 1);
  CHECK(p.bottleneck.find("overloaded") != std::string::npos);
}

TEST_CASE("capacity bad input and unmeetable SLOs") {
  CHECK(capacity_error(scenario("arrival_rate = 8")).find("no SLO") != std::string::npos);
  const CapacityReport c = capacity_for_scenario(scenario("ttft_slo_s = 0.001"), {});
  CHECK_FALSE(c.slo_rate);
  CHECK(c.slo_verdict.find("TTFT SLO") != std::string::npos);
  CHECK(c.slo_verdict.find("2048-token prompt") != std::string::npos);
  auto key_error = [](const std::string& serving) {
    try {
      scenario(serving);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(key_error("slo_percentile = 100").find("slo_percentile") != std::string::npos);
  CHECK(key_error("max_concurrency = 0").find("max_concurrency") != std::string::npos);
  CHECK(key_error("arrival_cv2 = -1").find("arrival_cv2") != std::string::npos);
  CHECK(key_error("queue = \"fifo\"").find("queue") != std::string::npos);
}

TEST_CASE("every shipped LLM inference scenario gets a capacity answer") {
  int n = 0;
  for (const auto& f : std::filesystem::directory_iterator(std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios")) {
    if (f.path().extension() != ".toml") continue;
    const Scenario s = load_scenario(f.path(), PERFCAST_DEFAULT_WORKLOADS, shipped_db());
    if (!s.inference || !s.workload.is_transformer()) continue;
    CAPTURE(f.path().string());
    CapacityRequest req;
    req.rate = 10;
    req.ttft_slo_s = 5;
    req.tpot_slo_s = 0.2;
    const CapacityReport c = capacity_for_scenario(s, req);
    CHECK(c.saturation_rate > 0);
    CHECK(std::isfinite(c.saturation_rate));
    if (c.slo_rate) CHECK(c.replicas);
    // No request's first token comes before its prompt is through prefill, and a replica serves at
    // most B_max requests per n_out decode steps at full batch (Little, F-Q-1).
    const models::ReplicaTimes& t = c.replica;
    for (const LoadPoint& l : c.curve) CHECK(l.point.ttft_p_s >= t.prefill_s * (1 - 1e-12));
    CHECK(c.saturation_rate <= t.max_concurrency / (t.output_len * t.decode.back().step_s) * (1 + 1e-9));
    ++n;
  }
  CHECK(n >= 6);
}
