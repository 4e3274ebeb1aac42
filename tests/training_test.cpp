// Training prediction: the pipeline schedules' bubbles (E6), Young/Daly (E7), Amdahl/Gustafson
// (E14), the step's breakdown and conventions, scaling, validation cases and the bad-input rules.
#include <doctest/doctest.h>

#include <cmath>
#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/predict/memory.hpp"
#include "engine/layout/partition.hpp"
#include "engine/sweep/scaling.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/predict/training.hpp"
#include "engine/validate/training_cases.hpp"
#include "models/pipeline.hpp"
#include "models/reliability.hpp"
#include "models/scaling.hpp"
#include "tests/scenario_text.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;
using models::Schedule;

namespace {

using perfcast::test::scenario;
std::string error_of(const std::string& text) { return perfcast::test::scenario_error(text); }

using perfcast::test::gpt3_64;


double breakdown(const TrainingPrediction& p, std::string_view name) {
  for (const BreakdownItem& b : p.breakdown)
    if (b.name == name) return b.seconds;
  return -1;
}

}  // namespace

TEST_CASE("E6: bubble fractions of every schedule, p = 8, m = 32") {
  CHECK(models::bubble_over_ideal(Schedule::one_f_one_b, 8, 1, 32) == doctest::Approx(0.21875));
  CHECK(models::bubble_over_ideal(Schedule::gpipe, 8, 1, 32) == doctest::Approx(0.21875));
  CHECK(models::bubble_share_of_step(Schedule::gpipe, 8, 1, 32) == doctest::Approx(7.0 / 39).epsilon(1e-12));
  CHECK(models::bubble_share_of_step(Schedule::gpipe, 8, 1, 32) == doctest::Approx(0.179487).epsilon(1e-6));
  CHECK(models::bubble_over_ideal(Schedule::one_f_one_b, 8, 4, 32) == doctest::Approx(0.0546875));
  CHECK(models::bubble_share_of_step(Schedule::one_f_one_b, 8, 4, 32) == doctest::Approx(0.0518519).epsilon(1e-6));
  CHECK(models::bubble_over_ideal(Schedule::zb_h1, 8, 1, 32) == doctest::Approx(0.0729167).epsilon(1e-6));
  CHECK(models::bubble_over_ideal(Schedule::zb_h2, 8, 1, 32) == 0);
  // ZB-H2's zero bubble needs 2p − 1 = 15 micro-batches; with 14 it is ZB-H1's (p − 1)/(3m).
  CHECK(models::bubble_over_ideal(Schedule::zb_h2, 8, 1, 15) == 0);
  CHECK(models::bubble_over_ideal(Schedule::zb_h2, 8, 1, 14) == doctest::Approx(7.0 / 42));

  // The timed form with T_F = T_B = T_W reproduces the same fractions.
  std::vector<models::StageTime> ranks(8, models::StageTime{1, 1, 1});
  auto ratio = [&](Schedule s, int vp) {
    models::PipelineTime t = models::pipeline_time(s, vp, 32, ranks);
    return t.bubble_s / t.ideal_s;
  };
  CHECK(ratio(Schedule::one_f_one_b, 1) == doctest::Approx(0.21875));
  CHECK(ratio(Schedule::gpipe, 1) == doctest::Approx(0.21875));
  CHECK(ratio(Schedule::one_f_one_b, 4) == doctest::Approx(0.0546875));
  CHECK(ratio(Schedule::zb_h1, 1) == doctest::Approx(7.0 / 96));
  CHECK(ratio(Schedule::zb_h2, 1) == 0);
  // Too few micro-batches for ZB-H2 (14 < 2p − 1): ZB-H1's bubble, per rank and per class alike.
  CHECK(models::pipeline_time(Schedule::zb_h2, 1, 14, ranks).bubble_s == doctest::Approx(7 * 1.0));
  const models::StageTime one{1, 1, 1};
  const int eight = 8;
  CHECK(models::pipeline_time(Schedule::zb_h2, 1, 14, std::span(&one, 1), std::span(&eight, 1)).bubble_s == doctest::Approx(7 * 1.0));
  // Uneven ranks: the slowest sets the steady state, the others add one bubble unit each.
  ranks[3] = {2, 2, 2};
  models::PipelineTime t = models::pipeline_time(Schedule::one_f_one_b, 1, 32, ranks);
  CHECK(t.ideal_s == doctest::Approx(32 * 6));
  CHECK(t.bubble_s == doctest::Approx(7 * 3));
}

TEST_CASE("E7: Young/Daly interval, waste and goodput for 16,384 GPUs at 50,000 h, checkpoint 60 s") {
  const double M = models::job_mtbf_s(50000 * 3600.0, 16384);
  CHECK(M == doctest::Approx(10986.328125));
  CHECK(models::young_interval_s(60, M) == doctest::Approx(1148.198).epsilon(1e-6));
  CHECK(models::daly_interval_s(60, M) == doctest::Approx(1108.547).epsilon(1e-6));
  const double young = models::young_interval_s(60, M);
  // First-order waste at Young's τ without restarts: sqrt(2δ/M) plus the δ/2M term E7 drops.
  CHECK(models::first_order_waste(young, 60, 0, M) - 60 / (2 * M) == doctest::Approx(0.104512).epsilon(1e-5));
  CHECK(models::daly_wall_time_s(1e6, young, 60, 600, M) / 1e6 == doctest::Approx(1.174732).epsilon(1e-6));
  // δ ≥ 2M: checkpoint every M.
  CHECK(models::daly_interval_s(3000, 1000) == 1000);
  // Llama 3: 16,384 × 54 days / 419 unexpected interruptions.
  CHECK(models::llama3_device_mtbf_s() / 3600 == doctest::Approx(50677.2).epsilon(1e-5));
  models::Goodput g = models::goodput(30 * 86400, 60, 600, M);
  CHECK(g.interval_s == doctest::Approx(1108.547).epsilon(1e-6));
  CHECK(g.fraction == doctest::Approx(30 * 86400 / g.wall_s));
  CHECK(g.fraction > 0.8);
  CHECK(g.fraction < 0.9);
  CHECK(g.wall_s == doctest::Approx(30 * 86400 + g.checkpoint_s + g.lost_work_s));
}

TEST_CASE("E14: Amdahl, Gustafson, scaling efficiency and the fits recover their parameter") {
  CHECK(models::amdahl_speedup(0.95, 8) == doctest::Approx(5.925926).epsilon(1e-6));
  CHECK(models::gustafson_speedup(0.05, 8) == doctest::Approx(7.65));
  CHECK(models::strong_scaling_efficiency(8, 100, 64, 15) == doctest::Approx(0.833333).epsilon(1e-6));
  std::vector<models::ScalingPoint> a, g;
  for (double k : {1.0, 2.0, 4.0, 16.0, 64.0}) {
    a.push_back({k, models::amdahl_speedup(0.97, k)});
    g.push_back({k, models::gustafson_speedup(0.02, k)});
  }
  CHECK(models::fit_amdahl(a).value == doctest::Approx(0.97));
  CHECK(models::fit_amdahl(a).rms_error < 1e-12);
  CHECK(models::fit_gustafson(g).value == doctest::Approx(0.02));
}

TEST_CASE("a training prediction: the breakdown sums to the step, conventions follow their formulas") {
  const Scenario s = scenario(gpt3_64("tp = 8\npp = 8\nvp = 3\nsequence_parallel = true", "tokens = 3e11"));
  const TrainingPrediction p = predict_training(s);
  double sum = 0;
  for (const BreakdownItem& b : p.breakdown) {
    CHECK(std::isfinite(b.seconds));
    CHECK(b.seconds >= 0);
    sum += b.seconds;
  }
  CHECK(sum == doctest::Approx(p.step_time_s).epsilon(1e-9));
  CHECK(p.microbatches == 64);
  CHECK(p.tokens_per_s * p.step_time_s == doctest::Approx(64 * 2048));
  CHECK(p.mfu > 0.3);
  CHECK(p.mfu < 0.8);
  CHECK(p.hfu >= p.mfu);
  // Interleaved bubble: (p − 1)/(v·m) of the slowest rank's ideal time.
  CHECK(breakdown(p, "bubble") / (p.microbatches * p.ranks[p.slowest_rank].total_per_microbatch_s) ==
        doctest::Approx(7.0 / (3 * 64)).epsilon(0.02));
  for (const FlopConvention& c : p.conventions)
    if (c.name == "narayanan_tflops_per_device")
      CHECK(c.value == doctest::Approx(96.0 * 64 * 2048 * 96 * 12288.0 * 12288 * (1 + 2048 / (6 * 12288.0) + 51200 / (16 * 96 * 12288.0)) /
                                       p.step_time_s / 64));
  REQUIRE(p.time_to_train_s);
  CHECK(*p.time_to_train_s == doctest::Approx(3e11 / p.tokens_per_s));
  CHECK(*p.expected_wall_s > *p.time_to_train_s);
  CHECK(p.goodput_fraction == doctest::Approx(*p.time_to_train_s / *p.expected_wall_s));
  CHECK(*p.device_hours == doctest::Approx(*p.expected_wall_s * 64 / 3600));
  CHECK(!p.bottleneck.empty());
}

TEST_CASE("schedules and recomputation move the step the way their formulas say") {
  auto step = [](const std::string& par, const std::string& extra = "") { return predict_training(scenario(gpt3_64(par, extra))); };
  // Each schedule under a stack that implements it: GPipe in torch pipelining (torchtitan), the
  // zero-bubble ones in the megatron-zb fork; the same fork runs plain and interleaved 1F1B.
  const std::string zb = "stack = \"megatron-zb\"";
  const TrainingPrediction one = step("tp = 8\npp = 8", zb);
  const TrainingPrediction inter = step("tp = 8\npp = 8\nvp = 3", zb);
  const TrainingPrediction titan = step("tp = 8\npp = 8", "stack = \"torchtitan\"");
  const TrainingPrediction gpipe = step("tp = 8\npp = 8\nschedule = \"gpipe\"", "stack = \"torchtitan\"");
  const TrainingPrediction zb1 = step("tp = 8\npp = 8\nschedule = \"zb-h1\"", zb);
  const TrainingPrediction zb2 = step("tp = 8\npp = 8\nschedule = \"zb-h2\"", zb);
  CHECK(gpipe.step_time_s == doctest::Approx(titan.step_time_s));
  CHECK(inter.step_time_s < one.step_time_s);
  CHECK(zb1.step_time_s < one.step_time_s);
  CHECK(zb2.step_time_s < zb1.step_time_s);
  CHECK(breakdown(zb2, "bubble") == 0);
  CHECK(breakdown(one, "bubble") / (one.microbatches * one.ranks[one.slowest_rank].total_per_microbatch_s) ==
        doctest::Approx(7.0 / 64).epsilon(0.02));
  const TrainingPrediction full = predict_training(scenario(gpt3_64("tp = 8\npp = 8", zb, "full")));
  CHECK(breakdown(full, "recompute") > 0.2 * full.step_time_s);
  CHECK(full.step_time_s > one.step_time_s);
}

TEST_CASE("Korthikanti Table 4: recomputation changes one layer's time by the published ratios") {
  CaseFile f = open_case_file(std::string(PERFCAST_DEFAULT_VALIDATION) + "/training.toml");
  auto cases = load_training_cases(f, shipped_db());
  auto layer = [&](std::string_view id) {
    for (const TrainingCase& c : cases)
      if (c.id == id) return predict_training(*c.scenario).layer_time_s;
    FAIL("no case ", id);
    return 0.0;
  };
  const double none = layer("korthikanti2022-t4-22b-layer-baseline-no-recompute");
  // Measured 27.2 / 19.6 = 1.388 (full) and 20.9 / 19.6 = 1.066 (selective): within 5 %.
  CHECK(layer("korthikanti2022-t4-22b-layer-baseline-full-recompute") / none == doctest::Approx(27.2 / 19.6).epsilon(0.05));
  CHECK(layer("korthikanti2022-t4-22b-layer-selective-recompute") / none == doctest::Approx(20.9 / 19.6).epsilon(0.05));
  // Every scored case gives a finite positive prediction; skipped cases say why.
  for (const CaseScore& s : score_training_cases(cases)) {
    if (s.scored) {
      CHECK(std::isfinite(s.predicted));
      CHECK(s.predicted > 0);
    } else {
      CHECK(!s.skip.empty());
    }
  }
}

TEST_CASE("scaling: strong and weak efficiencies against the smallest valid count, invalid counts skipped") {
  const Scenario s = scenario(gpt3_64("tp = 8\npp = 8"));
  ScalingReport r = scaling_for_scenario(s, device_counts(32, 8192, 2));
  REQUIRE(r.rows.size() == 9);
  CHECK(!r.rows[0].skipped.empty());  // 32 devices cannot hold tp 8 x pp 8
  CHECK(r.rows[1].devices == 64);
  CHECK(r.rows[1].strong_efficiency == doctest::Approx(1));
  CHECK(r.rows[8].skipped == "dp: global_batch 64 is not a multiple of dp 128 x micro_batch 1");
  for (std::size_t i = 2; i < 8; ++i) {
    CHECK(r.rows[i].strong_efficiency < 1);
    CHECK(r.rows[i].strong_efficiency < r.rows[i - 1].strong_efficiency);
  }
  CHECK(r.amdahl.value > 0.5);
  CHECK(r.amdahl.value < 1);
}

TEST_CASE("training layout rules are one-line errors naming the rule") {
  CHECK(error_of(gpt3_64("tp = 8\npp = 8\nvp = 3")).empty());
  // 64 micro-batches per step is a multiple of pp 8; 60 is not.
  const std::string sixty = gpt3_64("tp = 8\npp = 8\nvp = 3", "", "selective", 60);
  CHECK(error_of(sixty) == "test.toml:16:1: parallelism.vp: interleaving needs the 60 micro-batches per step to be a multiple of pp 8 (Megatron-LM's interleaved schedule)");
  CHECK(error_of(gpt3_64("tp = 7\npp = 8")).find("does not divide") != std::string::npos);
  CHECK(error_of(gpt3_64("tp = 8\npp = 7")).find("parallelism.tp: tp x pp x cp = 56 does not divide the 64 devices") != std::string::npos);
  CHECK(error_of(gpt3_64("tp = 8\npp = 8\nvp = 5")).find("parallelism.vp: 5 does not divide the 12 layers of pipeline stage 0") != std::string::npos);
  CHECK(error_of(gpt3_64("tp = 8\npp = 8", "data_loading_s = -1")).find("training.data_loading_s") != std::string::npos);
  CHECK(error_of(gpt3_64("tp = 8\npp = 8") + "[reliability]\nrestart_s = -5\n").find("reliability.restart_s") != std::string::npos);
}

// Llama 3 405B as the Llama 3 paper trained it: 126 layers over pp 16, one layer fewer on the first
// and the last stage (Section 3.3.2), tp 8, 8,192 H100.
std::string llama405(const std::string& split, int pp = 16) {
  return fmt::format(R"(
[model]
preset = "llama3-405b"
[hardware]
system = "dgx-h100"
nodes = 1024
scale_out = "roce-400g"
[training]
seq_len = 8192
global_batch = 2048
precision = "bf16"
[parallelism]
tp = 8
pp = {}
sequence_parallel = true
zero = 1
{}
)", pp, split);
}

TEST_CASE("uneven pipeline splits: Megatron's first/last stage layer counts, the rest shared evenly") {
  const Scenario s = scenario(llama405("first_stage_layers = 7\nlast_stage_layers = 7"));
  const models::TransformerSpec& m = s.workload.transformer();
  double total = 0;
  for (int r = 0; r < 16; ++r) {
    const double here = stage_layers(m, s.parallelism, r).total();
    CHECK(here == (r == 0 || r == 15 ? 7 : 8));
    total += here;
  }
  CHECK(total == 126);
  const TrainingPrediction p = predict_training(s, {});
  CHECK(p.ranks.front().layers == 7);
  CHECK(p.ranks[1].layers == 8);
  CHECK(p.slowest_rank > 0);  // a middle stage: 8 layers outweigh 7 plus the embedding or the LM head
  CHECK(p.slowest_rank < 15);
  // Activation memory peaks on the second stage: 15 micro-batches x 8 layers beat 16 x 7.
  CHECK(memory_for_scenario(s).stage == "2 of 16");

  // Only one end given: the other stages share the rest.
  const Scenario last_only = scenario(llama405("last_stage_layers = 6"));
  CHECK(stage_layers(m, last_only.parallelism, 0).total() == 8);
  CHECK(stage_layers(m, last_only.parallelism, 15).total() == 6);
}

TEST_CASE("interleaving with the embedding and loss counted as pipeline layers (Megatron-Bridge's 405B recipes)") {
  // 126 layers + embedding + loss = 128 = 16 stages x 4 chunks x 2: the first chunk of stage 0 and the
  // last chunk of stage 15 hold one transformer layer each, every other chunk two.
  const Scenario s = scenario(llama405("first_stage_layers = 7\nlast_stage_layers = 7\nvp = 4"));
  const models::TransformerSpec& m = s.workload.transformer();
  CHECK(layers_in_chunk(m, s.parallelism, 0, 0) == 1);
  CHECK(layers_in_chunk(m, s.parallelism, 0, 1) == 2);
  CHECK(layers_in_chunk(m, s.parallelism, 15, 3) == 1);
  CHECK(layers_in_chunk(m, s.parallelism, 15, 0) == 2);
  CHECK(layers_in_chunk(m, s.parallelism, 7, 3) == 2);
  double total = 0;
  for (int r = 0; r < 16; ++r) total += stage_layers(m, s.parallelism, r).total();
  CHECK(total == 126);
  CHECK(stage_layers(m, s.parallelism, 0).total() == 7);
  // Interleaving shrinks the bubble of the same split.
  CHECK(predict_training(s, {}).step_time_s < predict_training(scenario(llama405("first_stage_layers = 7\nlast_stage_layers = 7")), {}).step_time_s);
}

TEST_CASE("an uneven split that happens to be even predicts exactly what the even split does") {
  const TrainingPrediction even = predict_training(scenario(gpt3_64("tp = 8\npp = 8\nvp = 2")), {});
  const TrainingPrediction given =
      predict_training(scenario(gpt3_64("tp = 8\npp = 8\nvp = 2\nfirst_stage_layers = 12\nlast_stage_layers = 12")), {});
  CHECK(given.step_time_s == doctest::Approx(even.step_time_s).epsilon(1e-12));
  CHECK(given.memory.per_device_B == doctest::Approx(even.memory.per_device_B).epsilon(1e-12));
  // Moving four layers off the first stage onto the others makes the slowest stage slower.
  const TrainingPrediction lighter =
      predict_training(scenario(gpt3_64("tp = 8\npp = 8\nfirst_stage_layers = 8\nlast_stage_layers = 4")), {});
  CHECK(lighter.step_time_s > predict_training(scenario(gpt3_64("tp = 8\npp = 8")), {}).step_time_s);
}

TEST_CASE("pp that does not divide the layers balances them with the embedding and loss counted as layers (F-PIPE-4)") {
  // Llama 3.1 405B, 126 layers at pp 16 (Megatron-Bridge's recipe): 128 units, 8 a stage, so the end
  // stages hold 7 layers and the middle ones 8, what first/last_stage_layers = 7 gives.
  const Scenario balanced = scenario(llama405(""));
  const Scenario given = scenario(llama405("first_stage_layers = 7\nlast_stage_layers = 7"));
  const models::TransformerSpec& m = balanced.workload.transformer();
  for (int r = 0; r < 16; ++r) CHECK(stage_layers(m, balanced.parallelism, r).total() == stage_layers(m, given.parallelism, r).total());
  CHECK(predict_training(balanced, {}).step_time_s == doctest::Approx(predict_training(given, {}).step_time_s).epsilon(1e-12));
  // 61 layers at pp 8 (DeepSeek-V3's count): 63 units, 7 a stage and 7 left over; the six middle
  // stages take one each, then the last: 6, 8 x 6, 7 layers.
  models::TransformerSpec v3 = m;
  v3.layers = 61;
  ParallelismSettings p8 = balanced.parallelism;
  p8.pp = 8;
  p8.first_stage_layers.reset(), p8.last_stage_layers.reset();
  double total = 0;
  for (int r = 0; r < 8; ++r) {
    const double here = stage_layers(v3, p8, r).total();
    CHECK(here == (r == 0 ? 6 : r == 7 ? 7 : 8));
    total += here;
  }
  CHECK(total == 61);
}

TEST_CASE("uneven split rules are one-line errors naming the key") {
  CHECK(error_of(llama405("first_stage_layers = 7")) ==
        "test.toml:17:1: parallelism.first_stage_layers: the 119 layers left do not divide over the 15 other pipeline stages");
  CHECK(error_of(llama405("first_stage_layers = 70\nlast_stage_layers = 70")).find("parallelism.first_stage_layers: the first and "
                                                                                   "last stages' layers must add up") != std::string::npos);
  CHECK(error_of(llama405("first_stage_layers = 60\nlast_stage_layers = 66", 2)).empty());
  CHECK(error_of(llama405("first_stage_layers = 60\nlast_stage_layers = 60", 2)).find("must add up to the model's 126 layers") !=
        std::string::npos);
  CHECK(error_of(llama405("first_stage_layers = 7\nlast_stage_layers = 7\nvp = 3")) ==
        "test.toml:19:1: parallelism.vp: 3 does not divide the 7 layers of pipeline stage 0, nor them with the embedding and loss "
        "counted as layers (Megatron-Core's account_for_embedding/loss_in_pipeline_split)");
  // The error names the stage that fails both tests, not the first stage vp leaves undivided.
  CHECK(error_of(llama405("first_stage_layers = 5\nlast_stage_layers = 5\nvp = 3", 4)).find(
            "parallelism.vp: 3 does not divide the 58 layers of pipeline stage 1,") != std::string::npos);
  CHECK(error_of(llama405("first_stage_layers = 0\nlast_stage_layers = 7")).find("parallelism.first_stage_layers") != std::string::npos);
  CHECK(error_of(gpt3_64("tp = 8\npp = 1\nfirst_stage_layers = 4")).find(
            "parallelism.first_stage_layers: an uneven pipeline split needs pp > 1") != std::string::npos);
}

TEST_CASE("training honours [hardware] power_mode: Orin NX at 10W is slower than at 25W, MFU against the derated peak") {
  auto orin = [](const std::string& mode) {
    return predict_training(scenario(fmt::format(R"(
[model]
preset = "gpt-j-6b"
layers = 4
[hardware]
accelerator = "jetson-orin-nx-16gb"
power_mode = "{}"
[training]
seq_len = 512
global_batch = 1
precision = "fp16"
)", mode)));
  };
  const TrainingPrediction ten = orin("10W"), twenty_five = orin("25W");
  const double datasheet = *shipped_db().accelerator("jetson-orin-nx-16gb").peak(Precision::fp16);
  // nvpmodel: 10W caps the GPU at 612 MHz with 2 of 4 TPCs, 25W at 408 MHz with all 4; boost 918 MHz.
  CHECK(ten.peak_ops_per_s == doctest::Approx(datasheet * 612.0 / 918.0 * 2.0 / 4.0));
  CHECK(twenty_five.peak_ops_per_s == doctest::Approx(datasheet * 408.0 / 918.0));
  CHECK(ten.step_time_s > 1.3 * twenty_five.step_time_s);
  // MFU counts the model's FLOPs against the mode's own peak, so it stays a fraction of what the mode allows.
  CHECK(ten.mfu == doctest::Approx(ten.model_flops_per_step / ten.devices / ten.step_time_s / ten.peak_ops_per_s).epsilon(1e-9));
  CHECK(ten.mfu < 1);
}

TEST_CASE("failures faster than a checkpoint: the job never completes, said in one line instead of an infinite time") {
  const std::string text = R"(
[model]
preset = "llama3-8b"
[hardware]
system = "dgx-h100"
nodes = 8
[training]
seq_len = 4096
global_batch = 256
tokens = 1e12
[reliability]
gpu_mtbf_h = 1e-5
)";
  try {
    predict_training(perfcast::test::scenario(text));
    FAIL("a job that never completes was predicted");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.starts_with("test.toml: reliability: a failure every "));
    CHECK(what.ends_with("the job never completes"));
  }
  // The same job at a published MTBF completes, with finite figures.
  std::string fine = text;
  fine.replace(fine.find("1e-5"), 4, "50677");
  const TrainingPrediction p = predict_training(perfcast::test::scenario(fine));
  REQUIRE(p.expected_wall_s);
  CHECK(std::isfinite(*p.expected_wall_s));
}

TEST_CASE("training: a one-expert MoE at tp 8, ep 1 is never faster than its dense twin") {
  // Megatron's expert tensor parallelism defaults to tp, so the expert's output is all-reduced (or
  // reduce-scattered under SP) as the dense MLP's is.
  const auto twin = [](const std::string& moe, const std::string& sp) {
    return predict_training(scenario(fmt::format("[model]\npreset = \"llama3.1-8b\"\n{}\n[hardware]\nsystem = \"dgx-h100\"\nnodes = 1\n"
                                                 "[training]\nseq_len = 4096\nglobal_batch = 16\nmicro_batch = 1\n"
                                                 "[parallelism]\ntp = 8\n{}\n",
                                                 moe, sp)));
  };
  const std::string one_expert = "[model.moe]\nexperts = 1\ntop_k = 1\nexpert_ffn_hidden = 14336\n";
  for (const std::string sp : {"sequence_parallel = false", "sequence_parallel = true"}) {
    CAPTURE(sp);
    CHECK(twin(one_expert, sp).step_time_s >= twin("", sp).step_time_s);
  }
}
