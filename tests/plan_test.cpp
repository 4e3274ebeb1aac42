// `perfcast plan`: every row it ranks equals predict on that row's scenario (count, layout, payment
// and region applied), the best rows are ordered by the objective, the front holds no dominated
// row, bounds remove what breaks them and say which removed the last candidates, shards cover the
// units once, and bad input is refused in one line.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "engine/core/errors.hpp"
#include "engine/data/plan_candidates.hpp"
#include "engine/predict/training.hpp"
#include "engine/sweep/plan.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;

namespace {

const std::string kPretrain = (std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios" / "llama3-70b-15t-pretrain.toml").string();

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
  const std::string serving = (std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios" / "llama3-70b-h100-serving.toml").string();
  CHECK_THROWS_WITH_AS(plan_candidates(serving, small_space(), shipped_db()), doctest::Contains("training"), InputError);
  const PlanCandidates c = plan_candidates(kPretrain, small_space(), shipped_db());
  PlanRequest r;
  r.pareto = {PlanMetric::cost};
  CHECK_THROWS_AS(plan(c, kPretrain, small_space().nodes, r), InputError);
  CHECK_THROWS_AS(plan_metric("speed", "--objective"), InputError);
}
