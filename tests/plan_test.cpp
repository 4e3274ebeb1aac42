// `perfcast plan`: every row it ranks equals predict on that row's scenario (count, layout, payment
// and region applied), the best rows are ordered by the objective, the front holds no dominated
// row, bounds remove what breaks them and say which removed the last candidates, shards cover the
// units once, and bad input is refused in one line. A serving plan's fleets are what `capacity`
// sizes on each row's scenario, priced by hand, and meet the SLOs.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "engine/core/errors.hpp"
#include "engine/data/plan_candidates.hpp"
#include "engine/predict/training.hpp"
#include "engine/predict/capacity.hpp"
#include "engine/sweep/plan.hpp"
#include "engine/sweep/serving_plan.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;

namespace {

const std::string kPretrain = (std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios" / "llama3-70b-15t-pretrain.toml").string();
const std::string kServing = (std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios" / "llama3-70b-h100-serving.toml").string();

PlanSpace small_space() {
  PlanSpace space;
  space.accelerators = {"h100-sxm", "b200"};
  space.nodes = {64, 128, 256};
  return space;
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

}  // namespace

TEST_CASE("plan: each ranked row equals predict on the row's scenario") {
  const PlanSpace space = small_space();
  const PlanCandidates c = plan_candidates(kPretrain, space, shipped_db());
  PlanRequest r;
  r.top = 1000;
  const PlanReport report = plan(c, kPretrain, space.nodes, r);
  REQUIRE(report.best.size() >= 6);
  std::set<Payment> kinds;
  for (const PlanRow& row : report.best) {
    kinds.insert(row.kind);
    const Scenario x = row_scenario(c, row);
    CHECK(x.hardware.count == row.devices);
    const TrainingPrediction p = predict_training(x);
    REQUIRE(p.economics);
    CHECK(close(p.economics->job_wall_s.value_or(0), row.wall_s));
    CHECK(close(p.economics->usd.value_or(0), row.usd));
    CHECK(close(p.economics->co2e_kg.value_or(0) + p.economics->embodied_kg.value_or(0), row.co2e_kg));
    CHECK(close(p.tokens_per_s, row.tokens_per_s));
    CHECK(p.memory.fits);
    if (row.kind == Payment::purchase) CHECK(row.capex_usd > 0);
  }
  // On-demand, spot and purchase rows are all priced.
  CHECK(kinds.size() == 3);
  for (std::size_t i = 1; i < report.best.size(); ++i) CHECK(report.best[i - 1].usd <= report.best[i].usd);
}

TEST_CASE("plan: the front holds no dominated row and every front row is a candidate") {
  const PlanSpace space = small_space();
  const PlanCandidates c = plan_candidates(kPretrain, space, shipped_db());
  PlanRequest r;
  r.top = 100000;
  const PlanReport all = plan(c, kPretrain, space.nodes, r);
  REQUIRE(!all.front.empty());
  for (const PlanRow& a : all.front)
    for (const PlanRow& b : all.best) {
      const bool no_worse = b.wall_s <= a.wall_s && b.usd <= a.usd && b.co2e_kg <= a.co2e_kg;
      const bool better = b.wall_s < a.wall_s || b.usd < a.usd || b.co2e_kg < a.co2e_kg;
      CHECK_FALSE((no_worse && better));
    }
  // The cheapest row and the fastest are on the front.
  const auto fastest = std::min_element(all.best.begin(), all.best.end(), [](const PlanRow& x, const PlanRow& y) { return x.wall_s < y.wall_s; });
  CHECK(std::any_of(all.front.begin(), all.front.end(), [&](const PlanRow& f) { return f.wall_s == fastest->wall_s; }));
  CHECK(std::any_of(all.front.begin(), all.front.end(), [&](const PlanRow& f) { return f.usd == all.best.front().usd; }));
}

TEST_CASE("plan: bounds drop the rows that break them and name the last") {
  const PlanSpace space = small_space();
  const PlanCandidates c = plan_candidates(kPretrain, space, shipped_db());
  PlanRequest r;
  r.top = 100000;
  const PlanReport free = plan(c, kPretrain, space.nodes, r);
  const double median_wall = free.best[free.best.size() / 2].wall_s;
  r.deadline_s = median_wall;
  r.max_devices = 1024;
  const PlanReport bounded = plan(c, kPretrain, space.nodes, r);
  REQUIRE(!bounded.best.empty());
  CHECK(bounded.best.size() < free.best.size());
  for (const PlanRow& row : bounded.best) {
    CHECK(row.wall_s <= median_wall);
    CHECK(row.devices <= 1024);
  }
  r.deadline_s = 1;  // one second: nothing trains 15T tokens that fast
  const PlanReport none = plan(c, kPretrain, space.nodes, r);
  CHECK(none.best.empty());
  CHECK(none.front.empty());
  CHECK(none.last_removed_by == "misses the deadline");
}

TEST_CASE("plan: shards cover every unit once and together give the whole plan's rows") {
  const PlanSpace space = small_space();
  const PlanCandidates c = plan_candidates(kPretrain, space, shipped_db());
  PlanRequest r;
  r.top = 100000;
  const PlanReport whole = plan(c, kPretrain, space.nodes, r);
  std::uint64_t units = 0;
  std::size_t rows = 0;
  for (int i = 0; i < 3; ++i) {
    r.shard = i, r.shards = 3;
    const PlanReport part = plan(c, kPretrain, space.nodes, r);
    units += part.units, rows += part.best.size();
  }
  CHECK(units == whole.units);
  CHECK(rows == whole.best.size());
}

TEST_CASE("plan: bad input is refused in one line") {
  PlanSpace space = small_space();
  space.accelerators = {"h100-sxmm"};
  CHECK_THROWS_AS(plan_candidates(kPretrain, space, shipped_db()), InputError);
  space.accelerators = {"jetson-orin-nano-8gb"};  // no system is built from it
  CHECK_THROWS_WITH_AS(plan_candidates(kPretrain, space, shipped_db()), doctest::Contains("no system in the database"), InputError);
  space = small_space();
  space.regions = {"atlantis"};
  CHECK_THROWS_AS(plan_candidates(kPretrain, space, shipped_db()), InputError);
  const std::string vision = (std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios" / "resnet-50-orin-nx-15w.toml").string();
  CHECK_THROWS_WITH_AS(serving_plan(plan_candidates(vision, small_space(), shipped_db()), vision, {.rate = 10, .ttft_slo_s = 1.0}),
                       doctest::Contains("needs an LLM"), InputError);
  const PlanCandidates c = plan_candidates(kPretrain, small_space(), shipped_db());
  PlanRequest r;
  r.pareto = {PlanMetric::cost};
  CHECK_THROWS_AS(plan(c, kPretrain, small_space().nodes, r), InputError);
  CHECK_THROWS_AS(plan_metric("speed", "--objective"), InputError);
}

namespace {

// H100 and B200 systems at 50 requests/s under the scenario's SLOs (p99 TTFT 1 s, TPOT 50 ms).
ServingPlanReport small_serving_plan(const PlanCandidates& c, ServingPlanRequest r = {}) {
  if (!r.rate) r.rate = 50;
  r.top = 1000;
  return serving_plan(c, kServing, r);
}

PlanSpace serving_space() {
  PlanSpace space = small_space();
  space.nodes = {1};
  return space;
}

}  // namespace

TEST_CASE("serving plan: each fleet is what capacity sizes on the row's scenario, priced by hand, within the SLOs") {
  const PlanCandidates c = plan_candidates(kServing, serving_space(), shipped_db());
  REQUIRE(c.serving);
  const ServingPlanReport report = small_serving_plan(c);
  REQUIRE(report.best.size() >= 6);
  CHECK(report.slo.ttft_s == doctest::Approx(1.0));  // the scenario's [serving] SLOs
  CHECK(report.slo.tpot_s == doctest::Approx(0.05));
  std::set<Payment> kinds;
  std::set<Precision> weights;
  for (const ServingPlanRow& row : report.best) {
    CAPTURE(row.system);
    CAPTURE(row.payment);
    kinds.insert(row.kind);
    weights.insert(row.replica.weights);
    const Scenario x = serving_row_scenario(c, report, row);
    const CapacityReport cap = capacity_for_scenario(x, {});
    REQUIRE(cap.replicas);
    CHECK(*cap.replicas == row.replicas);
    CHECK(cap.devices_per_replica == row.replica.devices);
    REQUIRE(cap.at_target);
    CHECK(close(cap.at_target->ttft_p_s, row.point.ttft_p_s));
    CHECK(close(cap.at_target->tpot_p_s, row.point.tpot_p_s));
    CHECK(row.point.ttft_p_s <= 1.0);
    CHECK(row.point.tpot_p_s <= 0.05);
    // Whole instances or nodes hold the replicas, and no fewer would.
    CHECK(row.devices >= row.replicas * row.replica.devices);
    CHECK(row.devices % row.units == 0);
    const int per_unit = row.devices / row.units;
    if (row.replica.devices <= per_unit) CHECK((row.units - 1) * (per_unit / row.replica.devices) < row.replicas);
    if (row.kind == Payment::cloud) {
      REQUIRE(x.hw.offer);
      CHECK(per_unit == x.hw.offer->devices);
      CHECK(close(row.usd_per_hour, row.devices * x.hw.offer->on_demand_usd_per_device_s * 3600));
      CHECK(row.capex_usd == 0);
    } else {
      REQUIRE(x.hw.node_system);
      CHECK(close(row.capex_usd, row.units * x.hw.node_system->price_usd.value_or(0)));
      CHECK(row.usd_per_hour > 0);
    }
    CHECK(close(row.usd_per_million_tokens, row.usd_per_hour / (50 * 256 * 3600.0) * 1e6));
  }
  CHECK(kinds.size() == 2);   // on-demand and purchase; spot is not offered for serving
  CHECK(weights.size() >= 2); // the scenario's BF16 and the lower precisions the devices compute in
  for (std::size_t i = 1; i < report.best.size(); ++i) CHECK(report.best[i - 1].usd_per_hour <= report.best[i].usd_per_hour);
  for (const ServingPlanRow& a : report.front)
    for (const ServingPlanRow& b : report.best) {
      const bool no_worse = b.value(PlanMetric::time) <= a.value(PlanMetric::time) && b.value(PlanMetric::cost) <= a.value(PlanMetric::cost) &&
                            b.value(PlanMetric::co2) <= a.value(PlanMetric::co2);
      const bool better = b.value(PlanMetric::time) < a.value(PlanMetric::time) || b.value(PlanMetric::cost) < a.value(PlanMetric::cost) ||
                          b.value(PlanMetric::co2) < a.value(PlanMetric::co2);
      CHECK_FALSE((no_worse && better));
    }
}

TEST_CASE("serving plan: dtypes, bounds and shards") {
  const PlanCandidates c = plan_candidates(kServing, serving_space(), shipped_db());
  const ServingPlanReport bf16 = small_serving_plan(c, {.weight_dtypes = {Precision::bf16}});
  REQUIRE(!bf16.best.empty());
  for (const ServingPlanRow& row : bf16.best) CHECK(row.replica.weights == Precision::bf16);
  const ServingPlanReport all = small_serving_plan(c);
  CHECK(all.best.front().usd_per_hour <= bf16.best.front().usd_per_hour);

  // A budget below the cheapest fleet leaves none, and says so.
  const ServingPlanReport poor = small_serving_plan(c, {.budget_usd_per_hour = all.best.front().usd_per_hour * 0.99});
  CHECK(poor.best.empty());
  CHECK(poor.last_removed_by == "over the budget per hour");
  // A TTFT no prompt of 2048 tokens meets.
  const ServingPlanReport hasty = small_serving_plan(c, {.ttft_slo_s = 0.001});
  CHECK(hasty.best.empty());
  CHECK(hasty.last_removed_by.find("no load meets the SLOs") != std::string::npos);
  // A device cap below the smallest fleet.
  const ServingPlanReport capped = small_serving_plan(c, {.max_devices = 1});
  CHECK(capped.best.empty());

  // Shards judge each replica layout once and together price every fleet.
  std::uint64_t layouts = 0, priced = 0;
  for (int k = 0; k < 3; ++k) {
    const ServingPlanReport part = small_serving_plan(c, {.shard = k, .shards = 3});
    layouts += part.layouts, priced += part.priced;
  }
  CHECK(layouts == all.layouts);
  CHECK(priced == all.priced);

  // A rate and an SLO are needed.
  CHECK_THROWS_WITH_AS(serving_plan(c, kServing, {.ttft_slo_s = 1.0}), doctest::Contains("needs a rate"), InputError);
  const PlanCandidates training = plan_candidates(kPretrain, small_space(), shipped_db());
  CHECK_FALSE(training.serving);
}

TEST_CASE("plan --risk p90: the band's slow end ranks and bounds the rows, each row carries its P10-P90") {
  const PlanSpace space = small_space();
  const PlanCandidates c = plan_candidates(kPretrain, space, shipped_db());
  // A band by hand: reality 5 % faster to 35 % slower than predicted.
  const StepSlowness band{.p10 = -0.05, .p50 = 0.1, .p90 = std::log(1.35), .cases = 20, .sources = 4};
  PlanRequest r{.slowness = [band](const Scenario&) { return std::optional(band); }, .objective = PlanMetric::cost, .top = 50};
  const PlanReport point = plan(c, kPretrain, space.nodes, r);
  REQUIRE(!point.best.empty());
  for (const PlanRow& row : point.best) {
    REQUIRE(row.slowness);
    CHECK(close(row.at(row.wall_s, &StepSlowness::p90), row.wall_s * 1.35));
    CHECK(close(row.at(row.usd, &StepSlowness::p10), row.usd * std::exp(-0.05)));
    CHECK(close(row.value(PlanMetric::time), row.wall_s));  // ranked at the point
  }
  // A deadline the cheapest row meets at its point but not at P90.
  const PlanRow& cheapest = point.best.front();
  r.deadline_s = cheapest.wall_s * 1.2;
  const PlanReport p50 = plan(c, kPretrain, space.nodes, r);
  REQUIRE(!p50.best.empty());
  CHECK(p50.best.front().id == cheapest.id);
  r.risk_p90 = true;
  const PlanReport p90 = plan(c, kPretrain, space.nodes, r);
  REQUIRE(!p90.best.empty());
  CHECK(p90.best.front().id != cheapest.id);
  for (const PlanRow& row : p90.best) {
    CHECK(row.at_p90);
    CHECK(row.wall_s * 1.35 <= *r.deadline_s * (1 + 1e-12));
    CHECK(close(row.value(PlanMetric::cost), row.usd * 1.35));
  }
  for (std::size_t i = 1; i < p90.best.size(); ++i) CHECK(p90.best[i - 1].value(PlanMetric::cost) <= p90.best[i].value(PlanMetric::cost));
  // Without a band a row cannot be sized at P90: it is dropped, saying so.
  r.slowness = [](const Scenario&) { return std::optional<StepSlowness>{}; };
  const PlanReport none = plan(c, kPretrain, space.nodes, r);
  CHECK(none.best.empty());
  CHECK(none.last_removed_by.find("no empirical band to size at P90") != std::string::npos);
}
