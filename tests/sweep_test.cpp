// The design-space sweep: its figures equal predict's for the same layout, every layout it keeps
// fits and meets the constraints, the counts add up, shards merge into the single run (also
// through JSON), threads do not change the answer, and Korthikanti et al.'s GPT-3 175B layout is
// no faster in our model than the best the sweep finds.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>
#include <filesystem>
#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/core/parallel.hpp"
#include "engine/sweep/inference_sweep.hpp"
#include "engine/sweep/scaling.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/sweep/training_sweep.hpp"
#include "engine/predict/training.hpp"
#include "engine/writers/sweep_writers.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;

namespace {

Scenario shipped(const std::string& file) {
  return load_scenario(std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios" / file, PERFCAST_DEFAULT_WORKLOADS, shipped_db());
}

// Llama-3-8B on one DGX H100 with a job and an AWS offer: a space small enough to predict every
// feasible layout of it one by one.
Scenario small() {
  return parse_scenario(R"(
[model]
preset = "llama3-8b"
[hardware]
system = "dgx-h100"
nodes = 1
[training]
seq_len = 8192
global_batch = 32
precision = "bf16"
tokens = 1e11
[cost]
offer = "aws-p5.48xlarge"
[region]
name = "us-virginia"
)", "small.toml", PERFCAST_DEFAULT_WORKLOADS, shipped_db());
}

void check_same(const SweepFigures& f, const TrainingPrediction& p) {
  CHECK(f.step_s == p.step_time_s);
  CHECK(f.tokens_per_s == p.tokens_per_s);
  CHECK(f.mfu == p.mfu);
  CHECK(f.memory_B == p.memory.per_device_B);
  CHECK(f.time_to_train_s == p.expected_wall_s.value_or(0));
  if (p.economics && p.economics->usd) {
    CHECK(f.usd == *p.economics->usd);
    CHECK(f.co2e_kg == *p.economics->co2e_kg + p.economics->embodied_kg.value_or(0));
  }
}

bool same_rows(const std::vector<SweepRow>& a, const std::vector<SweepRow>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].id != b[i].id || a[i].figures.step_s != b[i].figures.step_s || a[i].figures.usd != b[i].figures.usd) return false;
  return true;
}

void check_counts_add_up(const SweepResult& r) {
  const SweepCounts& c = r.counts;
  std::uint64_t dropped = c.repeats + c.memory;
  for (std::uint64_t n : c.rule) dropped += n;
  std::uint64_t broke = 0;
  for (std::uint64_t n : c.constraint) broke += n;
  CHECK(c.timed == c.feasible + broke);
  CHECK(c.combinations == dropped + c.timed);
}

}  // namespace

TEST_CASE("Sweep and predict give identical numbers for every feasible layout of a small space") {
  const Scenario s = small();
  SweepRequest r;
  r.objective = "cost";
  r.top = 100000;
  r.threads = 2;
  const SweepResult result = sweep(s, r);
  REQUIRE(result.counts.feasible > 50);
  REQUIRE(result.best.size() == result.counts.feasible);
  check_counts_add_up(result);
  const std::vector<TrainingPrediction> predicted = predict_rows(s, result.best);
  for (std::size_t i = 0; i < result.best.size(); ++i) {
    CAPTURE(layout_label(result.best[i].layout));
    check_same(result.best[i].figures, predicted[i]);
    CHECK(predicted[i].memory.fits);
    // Independent of predict: 32 sequences of 8192 tokens a step; model FLOPs between Kaplan's 6N
    // per token and PaLM's 6N + 12·L·H·Q·T (F-FLOP-4/5; Llama-3-8B: N = 8.03e9, L = 32, H = 32,
    // Q = 128); MFU against 8 × 989.4 TFLOP/s (H100 BF16 dense); one DGX node on AWS p5 at
    // $55.04 an hour, billed for the expected wall time (F-COST-1).
    const SweepFigures& f = result.best[i].figures;
    CHECK(f.tokens_per_s == doctest::Approx(32.0 * 8192 / f.step_s).epsilon(1e-9));
    const double model_flops = f.mfu * f.step_s * 8 * 989.4e12, tokens = 32.0 * 8192;
    CHECK(model_flops >= 6 * 8.03e9 * tokens * 0.99);
    CHECK(model_flops <= (6 * 8.03e9 + 12.0 * 32 * 32 * 128 * 8192) * tokens * 1.01);
    CHECK(f.usd == doctest::Approx(f.time_to_train_s * 55.04 / 3600).epsilon(1e-6));
    CHECK(f.time_to_train_s >= 1e11 / f.tokens_per_s);  // failures and checkpoints only add time
  }
  // The single-layout entry point agrees too, and so does the scenario's own layout.
  check_same(sweep_figures(s, result.best.back().layout, true), predicted.back());
  check_same(result.baseline.figures, predict_training(s));
}

TEST_CASE("Every kept layout fits and meets the constraints, and the drops are counted by reason") {
  const Scenario s = shipped("gpt3-175b-64xa100-korthikanti.toml");
  SweepRequest r;
  r.top = 50;
  r.constraints = {"memory<=70GiB", "mfu>=0.5"};
  const SweepResult result = sweep(s, r);
  check_counts_add_up(result);
  REQUIRE(!result.best.empty());
  for (const SweepRow& row : result.best) {
    CHECK(row.figures.memory_B <= 70.0 * (1ull << 30));
    CHECK(row.figures.mfu >= 0.5);
  }
  // 175B parameters with mixed-precision Adam need 2.8 TB of states: much of the space cannot fit.
  CHECK(result.counts.memory > 10000);
  CHECK(result.counts.rule[std::size_t(LayoutRule::devices_split)] > 0);
  CHECK(result.counts.constraint[0] + result.counts.constraint[1] > 0);
  // Rows are ranked by throughput, ties by id.
  for (std::size_t i = 1; i < result.best.size(); ++i) CHECK(result.best[i - 1].figures.tokens_per_s >= result.best[i].figures.tokens_per_s);
}

TEST_CASE("Korthikanti et al.'s GPT-3 175B layout is no faster in our model than the sweep's best") {
  const Scenario s = shipped("gpt3-175b-64xa100-korthikanti.toml");
  SweepRequest r;
  r.objective = "step_time";
  r.top = 5;
  const SweepResult result = sweep(s, r);
  REQUIRE(!result.best.empty());
  const TrainingPrediction published = predict_training(s);
  CHECK(result.best.front().figures.step_s <= published.step_time_s);
  CHECK(result.baseline.figures.step_s == published.step_time_s);
  // The published layout is itself in the space, so the sweep timed it exactly as predict does.
  CHECK(result.counts.better_than_baseline >= 1);
}

TEST_CASE("Shards merge into the single run, also through their JSON, and threads do not change the answer") {
  const Scenario s = small();
  SweepRequest r;
  r.objective = "time";
  r.pareto = {"time", "cost"};
  r.top = 15;
  r.threads = 1;
  const SweepResult one = sweep(s, r);
  r.threads = 2;
  const SweepResult two = sweep(s, r);
  CHECK(same_rows(one.best, two.best));
  CHECK(same_rows(one.front, two.front));

  std::vector<SweepResult> shards;
  std::vector<std::string> files;
  for (int i = 0; i < 3; ++i) {
    r.shard = i, r.shards = 3;
    const SweepResult part = sweep(s, r);
    shards.push_back(sweep_from_json(nlohmann::json::parse(sweep_to_json(part, {}).dump()), fmt::format("shard{}.json", i)));
    files.push_back(fmt::format("shard{}.json", i));
  }
  const SweepResult merged = merge_sweeps(shards, files);
  CHECK(same_rows(merged.best, one.best));
  CHECK(same_rows(merged.front, one.front));
  CHECK(merged.counts.combinations == one.counts.combinations);
  CHECK(merged.counts.rule == one.counts.rule);
  CHECK(merged.counts.memory == one.counts.memory);
  CHECK(merged.counts.feasible == one.counts.feasible);
  CHECK(merged.counts.better_than_baseline == one.counts.better_than_baseline);
  // The merged result prints exactly like the single run, timing aside.
  auto strip = [](nlohmann::json j) {
    for (const char* k : {"seconds", "threads", "layouts_per_s"}) j["sweep"].erase(k);
    return j;
  };
  CHECK(strip(sweep_to_json(merged, {})) == strip(sweep_to_json(one, {})));

  // A missing or repeated shard is named.
  CHECK_THROWS_WITH_AS(merge_sweeps({shards[0], shards[1]}, {files[0], files[1]}), doctest::Contains("shard 2/3 is missing"), InputError);
  CHECK_THROWS_WITH_AS(merge_sweeps({shards[0], shards[0], shards[2]}, {files[0], files[0], files[2]}), doctest::Contains("given twice"),
                       InputError);
}

TEST_CASE("The Pareto front holds no dominated layout") {
  const Scenario s = small();
  SweepRequest r;
  r.pareto = {"time", "cost"};
  r.top = 0;
  const SweepResult result = sweep(s, r);
  REQUIRE(result.front.size() >= 1);
  for (const SweepRow& a : result.front)
    for (const SweepRow& b : result.front) {
      if (a.id == b.id) continue;
      const bool dominated = a.figures.time_to_train_s <= b.figures.time_to_train_s && a.figures.usd <= b.figures.usd &&
                             (a.figures.time_to_train_s < b.figures.time_to_train_s || a.figures.usd < b.figures.usd);
      CHECK_FALSE(dominated);
    }
}

TEST_CASE("Bad sweep requests name the problem") {
  const Scenario s = shipped("gpt3-175b-64xa100-korthikanti.toml");
  auto fails = [&](SweepRequest r, const std::string& text) {
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(sweep(s, r), doctest::Contains(text.c_str()), InputError);
  };
  SweepRequest r;
  r.objective = "cost";
  fails(r, "usd is a whole-job figure and needs [training] tokens");
  r.objective = "speed";
  fails(r, "--objective 'speed': not a metric");
  r = {};
  r.constraints = {"memory<=70 GB/s"};
  fails(r, "memory is in a size (B), not a bandwidth (B/s)");
  r.constraints = {"mfu=0.5"};
  fails(r, "write METRIC<=VALUE or METRIC>=VALUE");
  r.constraints = {"step_time<=-3s"};
  fails(r, "finite, non-negative");
  r = {};
  r.pareto = {"time"};
  fails(r, "--pareto: give two or more metrics");
  r = {};
  r.shard = 3, r.shards = 3;
  fails(r, "--shard 3/3");
}

TEST_CASE("The space decodes ids unit-major and covers every option") {
  const Scenario s = shipped("gpt3-175b-64xa100-korthikanti.toml");
  const SweepSpace sp = training_space(s, {64, 128});
  CHECK(sp.size() == sp.units() * sp.unit_size());
  CHECK(sp.layout(0).devices == 64);
  CHECK(sp.layout(sp.size() - 1).devices == 128);
  CHECK(sp.layout(sp.unit_size() - 1).micro_batch == sp.layout(0).micro_batch);  // one unit shares its micro-batch
  CHECK(sp.pipeline.front() == PipelineChoice{models::Schedule::one_f_one_b, 1});
  CHECK(std::find(sp.pp.begin(), sp.pp.end(), 96) != sp.pp.end());
}

TEST_CASE("Inference sweep: rows equal predict, constraints hold, and the scenario's layout is the reference") {
  const Scenario s = shipped("llama3-70b-h100-serving.toml");
  ServeRequest r;
  r.top = 1000;
  r.constraints = {"tpot<=50ms", "ttft<=2s"};
  r.weight_dtypes = {"bf16", "fp8"};
  r.kv_dtypes = {"bf16", "fp8"};
  r.pareto = {"tokens_per_s", "ttft"};
  const ServeResult result = inference_sweep(s, r);
  const SweepCounts& c = result.counts;
  std::uint64_t dropped = c.memory;
  for (std::uint64_t n : c.rule) dropped += n;
  CHECK(c.combinations == result.space.size());
  CHECK(c.combinations == dropped + c.timed);
  CHECK(c.timed == c.feasible + c.constraint[0] + c.constraint[1]);
  REQUIRE(result.best.size() == c.feasible);
  REQUIRE(c.feasible > 20);
  const std::vector<InferencePrediction> full = predict_rows(s, result.best);
  for (std::size_t i = 0; i < result.best.size(); ++i) {
    const ServeRow& row = result.best[i];
    CAPTURE(layout_label(row.layout));
    const ServeFigures f = serve_figures(full[i], row.layout.devices / (row.layout.tp * row.layout.pp));
    CHECK(row.figures.ttft_s == f.ttft_s);
    CHECK(row.figures.tpot_s == f.tpot_s);
    CHECK(row.figures.tokens_per_s == f.tokens_per_s);
    CHECK(row.figures.memory_B == f.memory_B);
    CHECK(row.figures.tpot_s <= 0.050);
    CHECK(row.figures.ttft_s <= 2.0);
    CHECK(full[i].memory.fits);
    // Independent of predict: a decode step reads at least the replica's weights over tp devices'
    // HBM (Llama-3-70B 70.55e9 parameters; H100 3.35 TB/s); a request is TTFT plus 255 more tokens
    // (F-INF-3, output_len 256); each replica finishes `batch` requests of 256 tokens per E2E.
    const ServeLayout& l = row.layout;
    const double weight_bytes = 70.55e9 * bytes_per_element(l.weights);
    CHECK(row.figures.tpot_s >= weight_bytes / (l.tp * 3.35e12));
    CHECK(row.figures.e2e_s == doctest::Approx(row.figures.ttft_s + 255 * row.figures.tpot_s).epsilon(1e-9));
    const double replicas = l.devices / (l.tp * l.pp);
    CHECK(row.figures.tokens_per_s == doctest::Approx(replicas * l.batch * 256 / row.figures.e2e_s).epsilon(1e-9));
    CHECK(row.figures.tokens_per_s_per_device == doctest::Approx(row.figures.tokens_per_s / l.devices).epsilon(1e-12));
  }
  for (std::size_t i = 1; i < result.best.size(); ++i) CHECK(result.best[i - 1].figures.tokens_per_s >= result.best[i].figures.tokens_per_s);
  CHECK(!result.front.empty());
}

TEST_CASE("Inference sweep: bad requests name the problem") {
  const Scenario s = shipped("llama3-70b-h100-serving.toml");
  ServeRequest r;
  r.weight_dtypes = {"fp32"};
  CHECK_THROWS_WITH_AS(inference_sweep(s, r), doctest::Contains("--weight-dtypes 'fp32': not a storage dtype"), InputError);
  r = {};
  r.objective = "cost";
  CHECK_THROWS_WITH_AS(inference_sweep(s, r), doctest::Contains("usd_per_mtok needs a [cost] table"), InputError);
  r = {};
  r.constraints = {"ttft<=2GB"};
  CHECK_THROWS_WITH_AS(inference_sweep(s, r), doctest::Contains("ttft is in a time (s), not a size (B)"), InputError);
  r = {};
  r.objective = "mfu";
  CHECK_THROWS_WITH_AS(inference_sweep(s, r), doctest::Contains("--objective 'mfu': not an inference metric"), InputError);
}

TEST_CASE("Device counts for --devices: one count, a doubling range, a factor, a list") {
  CHECK(parse_device_counts("512") == std::vector<int>{512});
  CHECK(parse_device_counts("512:4096") == std::vector<int>{512, 1024, 2048, 4096});
  CHECK(parse_device_counts("8:72:3") == std::vector<int>{8, 24, 72});
  CHECK(parse_device_counts("64,128,192") == std::vector<int>{64, 128, 192});
  for (const char* bad : {"", "0", "64:8", "8:64:1", "a,b", "8:", "8:16:2:2", "-8"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_device_counts(bad), InputError);
  }
}

TEST_CASE("work spread over threads refuses in one line threads the system cannot start: no abort, none left running") {
  // A starter that refuses every thread after the second, as a thread or memory limit does.
  const auto refuse_after_two = [] {
    return [left = 2](auto& f, int t) mutable -> std::optional<std::thread> {
      if (left-- <= 0) return std::nullopt;
      return std::thread(f, t);
    };
  };
  for (bool with_progress : {false, true}) {
    CAPTURE(with_progress);
    std::vector<std::atomic<int>> seen(1000);
    const Progress progress = [&](std::uint64_t, std::uint64_t) {};
    try {
      for_each_item(64, seen.size(), with_progress ? progress : Progress{}, [&](int, std::uint64_t k) { ++seen[k]; }, refuse_after_two());
      FAIL("the refused threads went unnoticed");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find("64 worker threads: the system started only 3") != std::string::npos);
    }
    for (const std::atomic<int>& s : seen) CHECK(s.load() <= 1);  // no item twice, and the started threads joined
  }
  // The default starter, with more threads than items, does each item once.
  std::vector<std::atomic<int>> seen(3);
  for_each_item(8, seen.size(), Progress{}, [&](int, std::uint64_t k) { ++seen[k]; });
  for (const std::atomic<int>& s : seen) CHECK(s.load() == 1);
}
