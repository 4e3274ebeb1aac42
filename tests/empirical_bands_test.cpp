// Empirical bands (F-UNC-2): the random-effects band of a hand-built table, checked against values
// computed by hand (docs/models.md F-UNC-2 states the formulas); narrowing, widening, leave-one-source-out.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

#include "engine/calibrate/empirical_bands.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/residual_table.hpp"

using namespace perfcast;

namespace {

BandFeatures features(std::string stack, std::string vendor = "NVIDIA") {
  BandFeatures f;
  f.values = {"serving", "ttft", std::move(stack), std::move(vendor), "", "", "dense", "1"};
  return f;
}

// Three sources of four cases each: A at 0.0..0.3, B 0.1..0.4, C 0.2..0.5 (slowness, step 0.1).
std::vector<Residual> three_sources(const std::string& stack_c = "vllm") {
  std::vector<Residual> t;
  for (int s = 0; s < 3; ++s)
    for (int i = 0; i < 4; ++i)
      t.push_back({"c" + std::to_string(s) + std::to_string(i), std::string(1, char('A' + s)), features(s == 2 ? stack_c : "vllm"),
                   0.1 * (s + i)});
  return t;
}

}  // namespace

TEST_CASE("empirical band: a new source's offset (t with k - 1 degrees of freedom) and the within-source spread, by hand") {
  // Source medians 0.15, 0.25, 0.35: mean 0.25, tau^2 = 0.01; deviations +-0.05, +-0.15 in every source
  // (12 cases, each source weighing one: Kish n = 12). Conformal P90 level 0.9 (1 + 1/12) = 0.975 is past
  // the last value's midpoint: 0.15. t_2(0.9) = 1.8856, offset sd sqrt(0.01 (1 + 1/3)) = 0.11547:
  // P90 = 0.25 + hypot(0.15, 0.21773) = 0.51440. t_2(0.75) = 0.81650: P75 = 0.25 + hypot(0.15, 0.09428) = 0.42717.
  const std::vector<Residual> t = three_sources();
  const std::optional<EmpiricalBand> b = band_for(t, features("vllm"));
  REQUIRE(b);
  CHECK(b->cases == 12);
  CHECK(b->sources == 3);
  CHECK(b->p50 == doctest::Approx(0.25).epsilon(1e-9));
  CHECK(b->p90 == doctest::Approx(0.51440).epsilon(1e-4));
  CHECK(b->p10 == doctest::Approx(-0.01440).epsilon(1e-3));
  CHECK(b->p75 == doctest::Approx(0.42717).epsilon(1e-4));
  CHECK(b->p25 == doctest::Approx(0.07283).epsilon(1e-4));
  CHECK(b->between_sources_sd == doctest::Approx(0.1).epsilon(1e-9));
  CHECK_FALSE(b->far());
  // A time is multiplied by e^slowness; a rate divided (its P10 from the slow end).
  const FigureBand time = figure_band(*b, 2.0, false), rate = figure_band(*b, 2.0, true);
  CHECK(time.p90 == doctest::Approx(2.0 * std::exp(0.51440)).epsilon(1e-4));
  CHECK(rate.p10 == doctest::Approx(2.0 * std::exp(-0.51440)).epsilon(1e-4));
  CHECK(rate.p90 == doctest::Approx(4.0 / time.p10).epsilon(1e-9));
}

TEST_CASE("empirical band: too few sources or cases give none, and a source left out is left out") {
  std::vector<Residual> t = three_sources();
  CHECK_FALSE(band_for(t, features("vllm"), "A"));  // two sources left
  t.resize(9);                                       // three sources, nine cases
  CHECK_FALSE(band_for(t, features("vllm")));
  BandFeatures training = features("vllm");
  training.values[0] = "training";
  CHECK_FALSE(band_for(three_sources(), training));  // no case of the kind
}

TEST_CASE("empirical band: narrowed to what the question shares while three sources remain, and an unseen value widens it") {
  std::vector<Residual> t = three_sources();
  // Three more sources at the slow end, on another engine: a vllm question keeps to A, B, C.
  for (int s = 0; s < 3; ++s)
    for (int i = 0; i < 4; ++i) t.push_back({"d" + std::to_string(s) + std::to_string(i), "S" + std::to_string(s), features("sglang"), 1.0 + 0.1 * i});
  const std::optional<EmpiricalBand> vllm = band_for(t, features("vllm"));
  REQUIRE(vllm);
  CHECK(vllm->cases == 12);
  CHECK(vllm->p50 == doctest::Approx(0.25).epsilon(1e-9));
  REQUIRE(vllm->narrowed.size() >= 2);
  CHECK(vllm->narrowed[1] == "stack = vllm");
  // An engine no case ran: all six sources, widened by the spread between the two engines' medians.
  const std::optional<EmpiricalBand> trt = band_for(t, features("trtllm"));
  REQUIRE(trt);
  CHECK(trt->far());
  CHECK(trt->unseen == std::vector<std::string>{"stack = trtllm"});
  CHECK(trt->cases == 24);
  CHECK(trt->widening_sd == doctest::Approx(0.45).epsilon(1e-9));  // medians 0.25 and 1.15, each engine three sources
  CHECK(trt->p90 - trt->p10 > vllm->p90 - vllm->p10);
}

TEST_CASE("coverage: each case against the band of the other sources, publishers as one source") {
  CHECK(source_group("Azure/AI-benchmarking-guide, Azure_Results/ND_H100_v5_results.md @ abc") == "Azure/AI-benchmarking-guide");
  CHECK(source_group("Narayanan et al., 'Efficient Large-Scale ...' (SC21)") == "Narayanan et al.");
  CHECK(source_group("mushfiqrahman.dev") == "mushfiqrahman.dev");
  std::vector<CaseScore> scores;
  for (int s = 0; s < 4; ++s)
    for (int i = 0; i < 5; ++i) {
      CaseScore c;
      c.id = fmt::format("s{}-{}", s, i), c.kind = "serving", c.source = fmt::format("source {}, table {}", s, i % 2);
      c.features = features("vllm");
      c.dimension = units::dim::seconds;
      c.measured = 1.0 + 0.01 * i, c.predicted = 1.0;
      c.scored = c.held_out = true;
      scores.push_back(c);
    }
  const CoverageReport r = coverage(scores);
  CHECK(r.by_source.size() == 4);  // "source 0, table 1" is source 0's
  CHECK(r.pooled.cases == 20);
  CHECK(r.pooled.inside_80 >= 16);  // every source alike: all but the extremes inside the others' band
  CHECK(r.sources_without_band == 0);
}

TEST_CASE("residual table: written and read back, a bad file named with its key") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "perfcast-residuals-test";
  std::filesystem::create_directories(dir);
  const ResidualTable t{.generated = "test", .cases = three_sources()};
  const std::filesystem::path good = dir / "good.json";
  std::ofstream(good) << residual_table_json(t).dump();
  const ResidualTable back = load_residual_table(good);
  REQUIRE(back.cases.size() == 12);
  CHECK(back.cases[5].source == "B");
  CHECK(back.cases[5].slowness == doctest::Approx(0.2));
  CHECK(back.cases[5].features.values[2] == "vllm");
  nlohmann::json j = residual_table_json(t);
  j["cases"][3][3] = "fast";
  const std::filesystem::path bad = dir / "bad.json";
  std::ofstream(bad) << j.dump();
  try {
    load_residual_table(bad);
    FAIL("a bad table was read");
  } catch (const InputError& e) {
    CHECK(std::string(e.where().file) == bad.string());
    CHECK(e.message().find("cases[3]") != std::string::npos);
  }
  std::ofstream(bad) << "{";
  CHECK_THROWS_AS(load_residual_table(bad), InputError);
  std::filesystem::remove_all(dir);
}
