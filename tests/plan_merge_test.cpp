// `perfcast plan-merge`: shards of one plan, written as JSON, read back and merged, give what one run
// of the whole plan gives (rows, front, counts); every row column reads back what it wrote; files
// that are not every shard of one plan exactly once, or not plan shards at all, are refused naming
// the file and what is wrong.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "engine/core/errors.hpp"
#include "engine/data/plan_candidates.hpp"
#include "engine/sweep/plan_merge.hpp"
#include "engine/writers/plan_columns.hpp"
#include "engine/writers/plan_reader.hpp"
#include "engine/writers/plan_writers.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;
using nlohmann::json;

namespace {

const std::string kPretrain = (std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios" / "llama3-70b-15t-pretrain.toml").string();
const std::string kServing = (std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios" / "llama3-70b-h100-serving.toml").string();

PlanSpace space_of(std::vector<int> nodes) {
  PlanSpace space;
  space.accelerators = {"h100-sxm", "b200"};
  space.nodes = std::move(nodes);
  return space;
}

// Through the JSON a shard's file holds.
template <class Report>
Report round_trip(const Report& r, const std::string& file) {
  return std::get<Report>(plan_from_json(json::parse(plan_to_json(r).dump()), file));
}

// The whole plan's JSON and the merged one's agree but for the time taken, and list the same
// reasons with the same counts (in the order the shards met them).
void check_same(json whole, json merged) {
  json& a = whole["plan"];
  json& b = merged["plan"];
  for (json* j : {&a, &b}) j->erase("seconds");
  std::map<std::string, long> da, db;
  for (const json& d : a["dropped"]) da[d["reason"]] = d["count"];
  for (const json& d : b["dropped"]) db[d["reason"]] = d["count"];
  CHECK(da == db);
  a.erase("dropped"), b.erase("dropped");
  CHECK(a.dump() == b.dump());
}

std::vector<std::string> file_names(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("shard" + std::to_string(i) + ".json");
  return out;
}

}  // namespace

TEST_CASE("plan-merge: training shards, through JSON, give the whole plan's rows, front and counts") {
  const PlanSpace space = space_of({16, 64, 256});
  const PlanCandidates c = plan_candidates(kPretrain, space, shipped_db());
  // A small top, so the merge must rank again; ties between offers at one price break on the id.
  PlanRequest r{.deadline_s = 90 * 86400.0, .top = 4};
  const PlanReport whole = plan(c, kPretrain, space.nodes, r);
  REQUIRE(whole.best.size() == 4);
  REQUIRE(whole.front.size() >= 2);
  std::vector<PlanReport> shards;
  const std::vector<std::string> files = file_names(3);
  for (int i : {2, 0, 1}) {  // in any order
    r.shard = i, r.shards = 3;
    shards.push_back(round_trip(plan(c, kPretrain, space.nodes, r), files[std::size_t(i)]));
  }
  const PlanReport merged = merge_plans(shards, files);
  check_same(plan_to_json(whole), plan_to_json(merged));
  CHECK(plan_to_csv(whole) == plan_to_csv(merged));
  CHECK(merged.units == whole.units);
  CHECK(merged.timed == whole.timed);
}

TEST_CASE("plan-merge: shards ranked at the band's P90 merge to the whole, their bands read back, a P50 shard refused") {
  const PlanSpace space = space_of({16, 64, 256});
  const PlanCandidates c = plan_candidates(kPretrain, space, shipped_db());
  const StepSlowness band{.p10 = -0.1, .p50 = 0.05, .p90 = 0.25, .cases = 12, .sources = 3};
  PlanRequest r{.deadline_s = 90 * 86400.0, .slowness = [band](const Scenario&) { return std::optional(band); }, .risk_p90 = true, .top = 4};
  const PlanReport whole = plan(c, kPretrain, space.nodes, r);
  REQUIRE(!whole.best.empty());
  std::vector<PlanReport> shards;
  const std::vector<std::string> files = file_names(2);
  for (int i : {1, 0}) {
    r.shard = i, r.shards = 2;
    shards.push_back(round_trip(plan(c, kPretrain, space.nodes, r), files[std::size_t(i)]));
  }
  for (const PlanRow& row : shards.front().best) {
    REQUIRE(row.slowness);
    CHECK(row.slowness->p90 == 0.25);
    CHECK(row.at_p90);
  }
  check_same(plan_to_json(whole), plan_to_json(merge_plans(shards, files)));
  r.risk_p90 = false, r.shard = 1;
  shards.front() = round_trip(plan(c, kPretrain, space.nodes, r), files[1]);
  CHECK_THROWS_AS(merge_plans(shards, files), InputError);
}

TEST_CASE("plan-merge: serving shards give the whole serving plan") {
  const PlanSpace space = space_of({1});
  const PlanCandidates c = plan_candidates(kServing, space, shipped_db());
  ServingPlanRequest r{.rate = 50, .top = 3};
  const ServingPlanReport whole = serving_plan(c, kServing, r);
  REQUIRE(whole.best.size() == 3);
  std::vector<ServingPlanReport> shards;
  for (int i = 0; i < 2; ++i) {
    r.shard = i, r.shards = 2;
    shards.push_back(round_trip(serving_plan(c, kServing, r), file_names(2)[std::size_t(i)]));
  }
  const ServingPlanReport merged = merge_plans(shards, file_names(2));
  check_same(plan_to_json(whole), plan_to_json(merged));
  CHECK(plan_to_csv(whole) == plan_to_csv(merged));
  CHECK(merged.simulated == whole.simulated);
}

TEST_CASE("plan-merge: a plan left with no row names the reason furthest along the search") {
  const PlanSpace space = space_of({16, 64});
  const PlanCandidates c = plan_candidates(kPretrain, space, shipped_db());
  PlanRequest r{.deadline_s = 86400.0};  // one day: no row meets it
  const PlanReport whole = plan(c, kPretrain, space.nodes, r);
  REQUIRE(whole.best.empty());
  std::vector<PlanReport> shards;
  for (int i = 0; i < 2; ++i) {
    r.shard = i, r.shards = 2;
    shards.push_back(round_trip(plan(c, kPretrain, space.nodes, r), file_names(2)[std::size_t(i)]));
  }
  const PlanReport merged = merge_plans(shards, file_names(2));
  CHECK(merged.last_removed_by == whole.last_removed_by);
  CHECK(merged.last_removed_by == "misses the deadline");
}

TEST_CASE("plan-merge: every row column reads back what it wrote") {
  const PlanSpace space = space_of({64});
  const PlanCandidates c = plan_candidates(kPretrain, space, shipped_db());
  const PlanReport training = plan(c, kPretrain, space.nodes, {.top = 50});
  REQUIRE(!training.best.empty());
  const PlanReport back = round_trip(training, "t.json");
  REQUIRE(back.best.size() == training.best.size());
  for (std::size_t i = 0; i < back.best.size(); ++i)
    CHECK(plan_row_json(training_plan_columns(), back.best[i]) == plan_row_json(training_plan_columns(), training.best[i]));

  const PlanCandidates s = plan_candidates(kServing, space_of({1}), shipped_db());
  const StepSlowness band{.p10 = -0.1, .p50 = 0.1, .p90 = 0.4, .cases = 30, .sources = 3};
  const ServingPlanReport serving = serving_plan(s, kServing, {.rate = 50, .top = 50, .slowness = [band](const Scenario&) { return std::optional(band); }});
  const ServingPlanReport served = round_trip(serving, "s.json");
  REQUIRE(served.best.size() == serving.best.size());
  for (const ServingPlanRow& row : serving.best) {
    REQUIRE(row.slowness);
    CHECK(row.replicas_p90 == int(std::ceil(row.replicas * std::exp(0.4) - 1e-9)));
    CHECK(row.usd_per_hour_p90 >= row.usd_per_hour);
  }
  for (std::size_t i = 0; i < served.best.size(); ++i)
    CHECK(plan_row_json(serving_plan_columns(), served.best[i]) == plan_row_json(serving_plan_columns(), serving.best[i]));
  // Rows without a region (no grid intensity) keep their CO2e unknown.
  bool unknown = false;
  for (const ServingPlanRow& row : served.best) unknown |= !row.co2_known;
  CHECK(unknown);
}

TEST_CASE("plan-merge: files that are not every shard of one plan once are refused naming the file") {
  const PlanSpace space = space_of({16, 64});
  const PlanCandidates c = plan_candidates(kPretrain, space, shipped_db());
  auto shard = [&](int i, int n, double deadline_days) {
    return plan(c, kPretrain, space.nodes, {.deadline_s = deadline_days * 86400, .shard = i, .shards = n});
  };
  const std::vector<std::string> files = {"a.json", "b.json", "c.json"};
  CHECK_THROWS_WITH_AS(merge_plans(std::vector<PlanReport>{shard(0, 3, 60), shard(1, 3, 60)}, files), doctest::Contains("shard 2/3 is missing"),
                       InputError);
  CHECK_THROWS_WITH_AS(merge_plans(std::vector<PlanReport>{shard(0, 2, 60), shard(0, 2, 60)}, files), "b.json: shard 0/2 given twice",
                       InputError);
  CHECK_THROWS_WITH_AS(merge_plans(std::vector<PlanReport>{shard(0, 2, 60), shard(1, 2, 90)}, files),
                       doctest::Contains("b.json: not a shard of the same plan as a.json"), InputError);
  CHECK_THROWS_WITH_AS(merge_plans(std::vector<PlanReport>{shard(0, 2, 60), shard(1, 3, 60)}, files),
                       "b.json: shard of 3, but a.json is a shard of 2", InputError);
  CHECK_THROWS_WITH_AS(merge_plans(std::vector<PlanReport>{}, {}), doctest::Contains("give the shard files"), InputError);
}

TEST_CASE("plan-merge: what is not a plan shard is refused naming the file and the key") {
  const PlanSpace space = space_of({64});
  const PlanCandidates c = plan_candidates(kPretrain, space, shipped_db());
  const json good = plan_to_json(plan(c, kPretrain, space.nodes, {.top = 2}));
  REQUIRE(good["plan"]["best"].size() == 2);
  auto refused = [](const json& j) {
    try {
      plan_from_json(j, "x.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("read");
  };
  CHECK(refused(json::object()) == "x.json: not a perfcast plan shard: missing 'plan'");
  json j = good;
  j["plan"]["kind"] = "sweep";
  CHECK(refused(j) == "x.json: not a perfcast plan shard: 'kind' = 'sweep' is neither training nor serving");
  j = good;
  j["plan"]["best"][0]["tp"] = "eight";
  CHECK(refused(j) == "x.json: not a perfcast plan shard: 'tp' has the wrong type");
  j = good;
  j["plan"]["best"][0]["tp"] = 0;
  CHECK(refused(j).find("a row of 'best': tp = 0 is outside 1..devices") != std::string::npos);
  j = good;
  j["plan"]["best"][1]["payment"] = "barter";
  CHECK(refused(j) == "x.json: not a perfcast plan shard: 'payment' = 'barter' is unknown");
  j = good;
  j["plan"]["front"][0].erase("usd");
  CHECK(refused(j) == "x.json: not a perfcast plan shard: missing 'usd'");
  j = good;
  j["plan"]["shard"] = 5;
  CHECK(refused(j) == "x.json: not a perfcast plan shard: shard outside 0..shards-1");
  j = good;
  j["plan"]["dropped"][0]["count"] = -1;
  CHECK(refused(j) == "x.json: not a perfcast plan shard: a 'dropped' count is not a whole number of 0 or more");
  CHECK(refused(good) == "read");
}
