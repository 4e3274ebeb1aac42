// Cost, energy and carbon: the formulas against MODELS-REFERENCE E16/E17, the prediction's
// accounting against hand arithmetic, break-even, spot, bad [cost]/[region] input and compare.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "engine/data/scenario_variants.hpp"
#include "engine/sweep/compare.hpp"
#include "engine/predict/economics.hpp"
#include "engine/core/errors.hpp"
#include "engine/predict/inference.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/predict/training.hpp"
#include "engine/validate/validation.hpp"
#include "models/cost.hpp"
#include "models/energy.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;

namespace {

using models::kJoulesPerKwh;

const std::string kTraining = R"(
[model]
preset = "llama3-70b"
[hardware]
system = "dgx-h100"
nodes = 16
[training]
seq_len = 8192
global_batch = 128
precision = "fp8"
tokens = 1e12
[parallelism]
tp = 4
pp = 4
cp = 2
sequence_parallel = true
)";

Scenario training_with(const std::string& extra) {
  return parse_scenario(kTraining + extra, "cost.toml", PERFCAST_DEFAULT_WORKLOADS, shipped_db());
}

std::string error_of(const std::string& extra) {
  try {
    const Scenario s = training_with(extra);
    predict_training(s);
  } catch (const InputError& e) {
    return e.message();
  }
  return "";
}

}  // namespace

TEST_CASE("E17: cloud, spot, $/M tokens and on-prem TCO") {
  using namespace models;
  CHECK(cloud_cost_usd(1024 * 720 * 3600.0, 2.50 / 3600) == doctest::Approx(1'843'200));
  const double u = spot_useful_fraction(2.0 / 86400, 15 * 60, 20 * 60);
  CHECK(u == doctest::Approx(0.951389).epsilon(1e-6));
  CHECK(1.00 / u == doctest::Approx(1.051095).epsilon(1e-6));
  CHECK(usd_per_million_tokens(20.0 / 3600, 10'000) == doctest::Approx(0.5556).epsilon(1e-4));
  // CapEx $300k per 8-GPU server, 4 years straight line; 10.2 kW × 0.8 at PUE 1.3 and $0.10/kWh; 8 % maintenance.
  const TcoInputs in{.capex_usd = 300'000, .lifetime_years = 4, .it_power_W = 10'200 * 0.8, .pue = 1.3,
                     .usd_per_J = 0.10 / kJoulesPerKwh, .maintenance_fraction = 0.08};
  const TcoYear y = tco_per_year(in);
  CHECK(y.capital == doctest::Approx(75'000));
  CHECK(y.energy == doctest::Approx(9'292.61).epsilon(1e-6));
  CHECK(y.total() == doctest::Approx(108'292.61).epsilon(1e-6));
  CHECK(usd_per_device_s(y.total(), 8, 0.9) * 3600 == doctest::Approx(1.71697).epsilon(1e-5));
  CHECK(capital_recovery_factor(0.08, 4) == doctest::Approx(0.301921).epsilon(1e-5));
  CHECK(300'000 * capital_recovery_factor(0.08, 4) == doctest::Approx(90'576).epsilon(1e-4));
}

TEST_CASE("E16: energy and carbon, operational and embodied") {
  using namespace models;
  // Llama 3.1 70B: 7.0e6 GPU-hours at 700 W (the card's PUE-adjusted figure), 2,040 t.
  const double kwh = 7.0e6 * 3600 * 700 / kJoulesPerKwh;
  CHECK(kwh == doctest::Approx(4.9e6));
  CHECK(2'040'000 / kwh == doctest::Approx(0.41633).epsilon(1e-5));
  // LLMCarbon die-only embodied: 1,024 H100 × 14.652 kg × 30 days / (5 × 365 days).
  CHECK(embodied_co2e_kg(14.652, 1024, 30 * 86400.0, 5 * kSecondsPerYear) == doctest::Approx(246.635).epsilon(1e-5));
  CHECK(shipped_db().accelerator("h100-sxm").embodied_kg == doctest::Approx(14.652));
  // P(u) = P_idle + u·(TDP − P_idle); DGX H100's node factor 10.2 kW / (8 × 700 W).
  CHECK(device_power_W(700, 140, 0.5) == doctest::Approx(420));
  CHECK(node_factor(10'200, 8, 700) == doctest::Approx(1.821429).epsilon(1e-6));
  const Activity a{.compute_s = 1, .memory_s = 2, .communication_s = 3, .idle_s = 4};
  CHECK(device_energy_J(a, 700, 140) == doctest::Approx(700 + 2 * (140 + 0.7 * 560) + 3 * 140 + 4 * 140));
}

TEST_CASE("Patterson et al. Table 4, GPT-3 from its published device-hours: energy and CO2e within 5 %") {
  // 10,000 V100 × 14.8 days × 330 W measured system power per accelerator × PUE 1.10 → 1,287 MWh; × 0.429 → 552.1 t.
  const double it_J = 10'000 * 14.8 * 86400 * 330.0;
  const double facility_J = models::facility_energy_J(it_J, 1.10);
  CHECK(facility_J / kJoulesPerKwh / 1e3 == doctest::Approx(1287).epsilon(0.05));
  CHECK(models::operational_co2e_kg(facility_J, 0.429 / kJoulesPerKwh) / 1e3 == doctest::Approx(552.1).epsilon(0.05));
}

TEST_CASE("A training prediction's cost and energy follow from its own times") {
  const Scenario s = training_with("[cost]\noffer = \"aws-p5.48xlarge\"\n[region]\nname = \"us-virginia\"\npue = 1.2\n");
  const TrainingPrediction p = predict_training(s);
  REQUIRE(p.economics);
  const Economics& e = *p.economics;
  const double wall = *p.expected_wall_s;
  CHECK(*e.usd == doctest::Approx(128 * wall * 55.04 / 8 / 3600).epsilon(1e-9));
  CHECK(*e.usd_per_hour == doctest::Approx(16 * 55.04));
  CHECK(*e.job_kwh == doctest::Approx(e.it_power_W * wall * 1.2 / kJoulesPerKwh));
  CHECK(*e.co2e_kg == doctest::Approx(*e.job_kwh * 0.32305).epsilon(1e-9));
  CHECK(e.node_factor == doctest::Approx(10'200.0 / 5'600));
  // Average power lies between idle and TDP and follows the step's activity split.
  const models::Activity a = step_activity(p);
  CHECK(a.total_s() == doctest::Approx(p.step_time_s));
  CHECK(e.device_power_W == doctest::Approx(models::device_energy_J(a, 700, 140) / p.step_time_s));
  CHECK(e.device_power_W > 140);
  CHECK(e.device_power_W < 700);
  CHECK(*e.usd_per_million_tokens == doctest::Approx(*e.usd_per_hour / 3600 / p.tokens_per_s * 1e6));
  // Embodied: 14.652 kg per H100 over 5 years.
  CHECK(*e.embodied_kg == doctest::Approx(14.652 * 128 * wall / (5 * models::kSecondsPerYear)));
}

TEST_CASE("Spot stretches the job by 1/u and bills the spot rate, reserved discounts the rate") {
  const Scenario od = training_with("[cost]\noffer = \"gcp-a3-highgpu-8g\"\n[region]\nname = \"us-virginia\"\n");
  const Scenario spot = training_with("[cost]\noffer = \"gcp-a3-highgpu-8g\"\nspot = true\nspot_preemptions_per_day = 4\n"
                                      "[region]\nname = \"us-virginia\"\n");
  const Scenario reserved = training_with("[cost]\noffer = \"gcp-a3-highgpu-8g\"\nreserved_discount = 0.4\n[region]\nname = \"us-virginia\"\n");
  const TrainingPrediction a = predict_training(od), b = predict_training(spot),
                           c = predict_training(reserved);
  const double u = 1 - 4.0 / 86400 * (a.checkpoint_interval_s / 2 + a.restart_s);
  CHECK(*b.economics->spot_useful_fraction == doctest::Approx(u));
  CHECK(*b.economics->job_wall_s == doctest::Approx(*a.expected_wall_s / u));
  CHECK(*b.economics->usd == doctest::Approx(128 * *a.expected_wall_s / u * 6.571 / 3600));
  CHECK(*c.economics->usd == doctest::Approx(0.6 * *a.economics->usd));
}

TEST_CASE("On-prem: TCO share of the job, and the break-even allocation against the cheapest cloud offer") {
  const Scenario s = training_with("[cost]\npurchase = true\nutilisation = 0.8\nmaintenance_fraction = 0.08\n"
                                   "[region]\nname = \"us-iowa\"\npue = 1.3\n");
  const TrainingPrediction p = predict_training(s);
  const Economics& e = *p.economics;
  CHECK(*e.capex_usd == doctest::Approx(16 * 270'000));
  const double per_device_s = e.tco_year->total() / (128 * models::kSecondsPerYear * 0.8);
  CHECK(*e.usd == doctest::Approx(per_device_s * 128 * *p.expected_wall_s));
  CHECK(e.tco_year->energy == doctest::Approx((0.8 * e.it_power_W + 0.2 * 140 * e.node_factor * 128) * 1.3 *
                                              models::kSecondsPerYear * 0.0679 / kJoulesPerKwh));
  REQUIRE(e.break_even_allocation);
  // At the break-even allocation the on-prem device-hour costs what the cloud's does.
  const double a = *e.break_even_allocation;
  REQUIRE(a > 0);
  REQUIRE(a < 1);
  const OfferSpec* cloud = choose_offer(shipped_db(), "h100-sxm", 128).cheapest;
  REQUIRE(cloud);
  const double idle_W = 140 * e.node_factor * 128;
  models::TcoInputs in{.capex_usd = *e.capex_usd, .lifetime_years = 5, .it_power_W = a * e.it_power_W + (1 - a) * idle_W,
                       .pue = 1.3, .usd_per_J = 0.0679 / kJoulesPerKwh, .maintenance_fraction = 0.08};
  CHECK(models::usd_per_device_s(models::tco_per_year(in).total(), 128, a) ==
        doctest::Approx(cloud->on_demand_usd_per_device_s).epsilon(1e-9));
}

TEST_CASE("Inference: energy per token and $/M output tokens over all replicas") {
  const Scenario s = parse_scenario(R"(
[model]
preset = "llama3-70b"
[hardware]
system = "dgx-h100"
nodes = 1
[inference]
input_len = 2048
output_len = 512
batch = 64
weight_dtype = "fp8"
kv_dtype = "fp8"
compute_dtype = "fp8"
[parallelism]
tp = 4
[cost]
offer = "aws-p5.48xlarge"
[region]
name = "us-oregon"
)",
                                    "serve.toml", PERFCAST_DEFAULT_WORKLOADS, shipped_db());
  const InferencePrediction p = predict_inference(s);
  REQUIRE(p.economics);
  const Economics& e = *p.economics;
  CHECK(e.tokens_per_s == doctest::Approx(2 * p.output_tokens_per_s));  // dp 2
  CHECK(*e.usd_per_million_tokens == doctest::Approx(55.04 / 3600 / e.tokens_per_s * 1e6));
  CHECK(e.joules_per_token == doctest::Approx(e.it_power_W * 1.56 / e.tokens_per_s));
  CHECK_FALSE(e.job_kwh);  // no job length: per-token figures only
}

TEST_CASE("Bad [cost] and [region] input: one line naming the key") {
  CHECK(error_of("[cost]\noffer = \"aws-p5.48xlrge\"\n").find("cost.offer:") != std::string::npos);
  CHECK(error_of("[cost]\noffer = \"aws-p5.48xlrge\"\n").find("aws-p5.48xlarge") != std::string::npos);  // suggestion
  CHECK(error_of("[region]\nname = \"us-virgina\"\n").find("us-virginia") != std::string::npos);
  CHECK(error_of("[cost]\npurchase = true\nusd_per_kwh = -0.1\n[region]\nname = \"us-iowa\"\n").find("cost.usd_per_kwh") != std::string::npos);
  CHECK(error_of("[cost]\npurchase = true\nusd_per_kwh = 0\n[region]\nname = \"us-iowa\"\n").find("cost.usd_per_kwh") != std::string::npos);
  CHECK(error_of("[cost]\npurchase = true\nlifetime_years = 0\n[region]\nname = \"us-iowa\"\n").find("cost.lifetime_years") != std::string::npos);
  CHECK(error_of("[cost]\npurchase = true\ncapex_usd = -5\n[region]\nname = \"us-iowa\"\n").find("cost.capex_usd") != std::string::npos);
  CHECK(error_of("[cost]\npurchase = true\n[region]\nname = \"us-iowa\"\npue = 0.9\n").find("region.pue") != std::string::npos);
  CHECK(error_of("[cost]\npurchase = true\n").find("needs a [region]") != std::string::npos);
  CHECK(error_of("[cost]\noffer = \"aws-p5.48xlarge\"\nspot = true\n").find("spot_preemptions_per_day") != std::string::npos);
  CHECK(error_of("[cost]\noffer = \"aws-p5.48xlarge\"\nspot = true\nspot_preemptions_per_day = 1\n").find("no published spot price") !=
        std::string::npos);
  CHECK(error_of("[cost]\noffer = \"aws-p4d.24xlarge\"\n").find("rents dgx-a100") != std::string::npos);
  CHECK(error_of("[cost]\nspot = true\n").find("name a cloud offer") != std::string::npos);
  CHECK(error_of("[cost]\noffer = \"aws-p5.48xlarge\"\npurchase = true\n").find("not both") != std::string::npos);
  CHECK(error_of("[cost]\noffer = \"aws-p5.48xlarge\"\nprice = 3\n").find("cost.price") != std::string::npos);
  CHECK(error_of("[cost]\npurchase = true\n[region]\nname = \"ca-quebec\"\n").find("no electricity price") != std::string::npos);
}

TEST_CASE("compare: every combination, rows a rule rejects say why, and a row equals predict") {
  CompareRequest r{.scenario_file = PERFCAST_SOURCE_DIR "/scenarios/llama3-70b-15t-pretrain.toml",
                   .hardware = {"system=dgx-h100,nodes=128", "system=dgx-b200,nodes=64"},
                   .cost = {"aws-p5.48xlarge", "purchase"},
                   .region = {"us-virginia", "us-oregon"},
                   .deadline_s = 120 * 86400.0};
  const CompareReport c = compare(scenario_variants(r, shipped_db()), r.scenario_file, r.deadline_s);
  REQUIRE(c.rows.size() == 8);
  CHECK(c.training);
  // AWS p5 rents H100s: the B200 rows with it are rejected with the reason.
  CHECK(c.rows[4].error.find("rents dgx-h100") != std::string::npos);
  CHECK(c.rows[0].error.empty());
  // Oregon's grid is cleaner than Virginia's; the energy is the same.
  CHECK(*c.rows[1].co2e_kg < *c.rows[0].co2e_kg);
  CHECK(*c.rows[1].kwh == doctest::Approx(*c.rows[0].kwh));
  // The first row is the scenario itself: identical to predict.
  const Scenario s = load_scenario(r.scenario_file, PERFCAST_DEFAULT_WORKLOADS, shipped_db());
  const TrainingPrediction p = predict_training(s);
  CHECK(*c.rows[0].usd == doctest::Approx(*p.economics->usd));
  CHECK(*c.rows[0].co2e_kg == doctest::Approx(*p.economics->co2e_kg + *p.economics->embodied_kg));
  // Independent of predict (F-COST-1, F-EN-2/3, F-FLOP-4): 1024 H100 at AWS p5's $55.04 per 8-GPU hour
  // over the wall time; Virginia's 0.32305 kg/kWh on the facility energy plus 14.652 kg per H100 over
  // 5 years; and 15e12 tokens of a 70.6e9-parameter model at 6N FLOPs per token take at least
  // 36.3 days at 100 % of 1024 × 1978.9 TFLOP/s (H100 SXM FP8 dense), so 30–60 % MFU puts the wall
  // time at 60.5–121 days.
  const double wall = *c.rows[0].wall_s;
  CHECK(*c.rows[0].usd == doctest::Approx(1024 * wall * 55.04 / 8 / 3600).epsilon(1e-9));
  CHECK(*c.rows[0].co2e_kg ==
        doctest::Approx(*c.rows[0].kwh * 0.32305 + 14.652 * 1024 * wall / (5 * models::kSecondsPerYear)).epsilon(1e-6));
  const double ideal_s = 6 * 70.6e9 * 15e12 / (1024 * 1978.9e12);
  CHECK(ideal_s / 86400 == doctest::Approx(36.3).epsilon(0.01));
  CHECK(wall > ideal_s / 0.6);
  CHECK(wall < ideal_s / 0.3);
  for (const CompareBest& b : c.best) {
    REQUIRE(b.row >= 0);
    CHECK(c.rows[b.row].error.empty());
  }
  CHECK_THROWS_AS(scenario_variants({.scenario_file = r.scenario_file, .hardware = {"system=dgx-h100,,nodes=1"}}, shipped_db()), InputError);
}

TEST_CASE("carbon suite: every published-hours case within its 5 % band, predicted cases within 50 %") {
  const std::vector<CaseScore> scores = score_file(std::filesystem::path(PERFCAST_DEFAULT_VALIDATION) / "carbon.toml", shipped_db());
  int published = 0, predicted = 0;
  for (const CaseScore& s : scores) {
    CAPTURE(s.id);
    if (!s.scored) continue;
    CHECK(std::isfinite(s.error));
    if (s.kind == "carbon") {
      ++published;
      CHECK(s.tolerance == doctest::Approx(0.05));
      CHECK(s.within_tolerance);
    } else {
      ++predicted;
      MESSAGE(s.id << ": predicted " << s.predicted << " vs " << s.measured << " (" << 100 * s.error << " %)");
      // Hours today 8-36 % off (docs/validation.md); the ratchet pins the median. The co2e cases also
      // differ in scope: the card multiplies hours by 400 W per GPU adjusted for PUE, we add the DGX
      // A100 hosts (node factor 6.5 kW / 3.2 kW = 2.03), so at equal hours ours is 1.7-2x the card's
      // (38 % and 55 % off today; issue 27 accounts energy one way across systems).
      CHECK(std::abs(s.error) < (s.kind == "carbon_predicted" && s.id.ends_with("-co2e") ? 0.6 : 0.5));
    }
  }
  CHECK(published == 15);
  CHECK(predicted == 4);
}

TEST_CASE("An offer must hold the job: whole nodes with a scale-out network beyond one instance") {
  auto error_of = [](const std::string& extra) {
    try {
      training_with(extra);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // 128 H100 on single community GPUs, and on whole nodes without a stated fabric: refused at the key.
  CHECK(error_of("[cost]\noffer = \"runpod-h100-sxm\"\n") ==
        "cost.toml:18:1: cost.offer: runpod-h100-sxm cannot hold 128 devices: 1 device per instance, not a whole 8-device node");
  CHECK(error_of("[cost]\noffer = \"lambda-8x-h100-sxm\"\n") ==
        "cost.toml:18:1: cost.offer: lambda-8x-h100-sxm cannot hold 128 devices: no scale-out network between instances in the database");
  CHECK(error_of("[cost]\noffer = \"azure-nd96isr-h100-v5\"\n").empty());
  // A purchase's cloud alternative is an offer that could run the same job.
  const TrainingPrediction p = predict_training(training_with("[cost]\npurchase = true\ncapex_usd = 4320000\n[region]\nname = \"us-virginia\"\n"));
  REQUIRE(p.economics);
  CHECK(p.economics->cloud_alternative == "aws-p5.48xlarge");
  const OfferSpec* one = choose_offer(shipped_db(), "h100-sxm", 1).cheapest;
  REQUIRE(one);
  CHECK(one->devices == 1);  // a single device may rent a single GPU
}
