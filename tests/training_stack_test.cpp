// Training stacks (models/training_stack): predict refuses a layout its stack does not run, in one
// line naming the stack and the rule; the sweep drops such layouts and counts them by reason, and
// never ranks one; ZeRO stages without replicas are not distinct layouts; each stack's overlap and
// ZeRO-3 gather unit reach the traffic model; docs/stacks.md is what `perfcast stacks` writes.
#include <doctest/doctest.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>

#include "engine/core/errors.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/predict/roofline.hpp"
#include "engine/predict/training.hpp"
#include "engine/predict/training_step.hpp"
#include "engine/sweep/training_sweep.hpp"
#include "models/traffic.hpp"
#include "models/transformer_ops.hpp"
#include "tests/run_binary.hpp"
#include "tests/scenario_text.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;
namespace fs = std::filesystem;

namespace {

// GPT-3 175B on 64 A100 (Korthikanti et al.'s machine) under `stack`, with `parallelism`, full recomputation.
std::string gpt3_64(std::string_view stack, std::string_view parallelism, std::string_view training_extra = "") {
  return perfcast::test::gpt3_64(std::string(parallelism), fmt::format("stack = \"{}\"\n{}", stack, training_extra), "full");
}

using perfcast::test::scenario;
std::string error_of(const std::string& text) { return perfcast::test::scenario_error(text); }


}  // namespace

TEST_CASE("A layout the stack does not run is refused in one line naming the stack, the key and the rule") {
  struct Refusal {
    std::string_view stack, parallelism, extra, key, words;
  };
  const Refusal refusals[] = {
      {"megatron-lm", "tp = 8\npp = 2\nzero = 3", "", "zero", "stack megatron-lm refuses ZeRO-3 with pipeline parallelism"},
      {"deepspeed", "tp = 8\npp = 2\nzero = 2", "", "zero", "stack deepspeed refuses ZeRO-2 with pipeline parallelism"},
      {"deepspeed", "tp = 8\npp = 4\nvp = 2", "", "vp", "stack deepspeed does not interleave"},
      {"megatron-lm", "tp = 8\npp = 4\nschedule = \"zb-h2\"", "", "schedule", "stack megatron-lm does not implement the zb-h2 schedule"},
      {"megatron-lm-2021", "tp = 8\npp = 4\nzero = 1", "", "zero", "stack megatron-lm-2021 does not offer ZeRO-1"},
      {"megatron-lm-2021", "tp = 8\npp = 4\nsequence_parallel = true", "", "sequence_parallel", "has no sequence parallelism"},
      {"torchtitan", "tp = 8\npp = 4\nzero = 1", "", "zero", "stack torchtitan does not offer ZeRO-1"},
      {"deepspeed", "tp = 8\ncp = 2", "", "cp", "stack deepspeed has no context parallelism"},
      // Megatron-Core splits each sequence into 2·cp load-balanced chunks.
      {"megatron-lm", "tp = 8\ncp = 4\ndp = 2", "", "cp", "2 x cp = 8 does not divide seq_len 2044"},
  };
  for (const Refusal& r : refusals) {
    std::string text = gpt3_64(r.stack, r.parallelism, r.extra);
    if (r.words.find("2044") != std::string_view::npos) text.replace(text.find("2048"), 4, "2044");
    const std::string e = error_of(text);
    CAPTURE(r.stack);
    CAPTURE(r.parallelism);
    CHECK(e.find(fmt::format("parallelism.{}:", r.key)) != std::string::npos);
    CHECK(e.find(r.words) != std::string::npos);
    CHECK(e.find('\n') == std::string::npos);
  }
  // Allowed elsewhere: torchtitan shards with pipeline parallelism (FSDP2 without resharding).
  CHECK(error_of(gpt3_64("torchtitan", "tp = 8\npp = 2\nzero = 3")).empty());
  CHECK(error_of(gpt3_64("megatron-lm", "tp = 8\npp = 2\nzero = 1")).empty());
  // A TP overlap above the stack's most is refused at its key.
  const std::string overlap = error_of(gpt3_64("deepspeed", "tp = 8", "tp_overlap = \"pipelined\""));
  CHECK(overlap.find("training.tp_overlap:") != std::string::npos);
  CHECK(overlap.find("stack deepspeed has no 'pipelined' TP overlap") != std::string::npos);
}

TEST_CASE("The CLI refuses a stack's forbidden layout with exit 2 and one line on stderr") {
  const fs::path file = fs::temp_directory_path() / "perfcast-stack-test.toml";
  std::ofstream(file) << "schema_version = 1" << gpt3_64("megatron-lm", "tp = 8\npp = 2\nzero = 3");
  const auto r = perfcast::test::run("predict " + file.string());
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("stack megatron-lm refuses ZeRO-3 with pipeline parallelism") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  fs::remove(file);
}

TEST_CASE("Under megatron-lm the sweep ranks only layouts Megatron-LM runs, and counts the rest by reason") {
  Scenario s = scenario(gpt3_64("megatron-lm", "tp = 8\npp = 8\nvp = 3\nsequence_parallel = true", ""));
  SweepRequest r;
  r.top = 200;
  r.threads = 2;
  const SweepResult result = sweep(s, r);
  REQUIRE(!result.best.empty());
  CHECK(result.stack == "megatron-lm");
  for (const SweepRow& row : result.best) {
    const SweepLayout& l = row.layout;
    CAPTURE(layout_label(l));
    CHECK((l.zero < 2 || l.pp == 1));  // Megatron's FSDP paths assert pp = 1
    CHECK(l.schedule == models::Schedule::one_f_one_b);  // no zero-bubble or GPipe schedule in Megatron-Core
    // A ZeRO stage without replicas is not a distinct layout: never ranked above ZeRO-0.
    CHECK((l.zero == 0 || l.devices / (l.tp * l.pp) > 1));
  }
  CHECK(result.counts.rule[std::size_t(LayoutRule::stack_zero_pp)] > 0);
  CHECK(result.counts.rule[std::size_t(LayoutRule::stack_schedule)] > 0);
  std::uint64_t dropped = result.counts.repeats + result.counts.memory + result.counts.timed;
  for (std::uint64_t n : result.counts.rule) dropped += n;
  CHECK(dropped == result.counts.combinations);

  // DeepSpeed: no interleaving, so no vp > 1 row; more layouts dropped than under Megatron-LM.
  Scenario ds = scenario(gpt3_64("deepspeed", "tp = 8\npp = 8", ""));
  const SweepResult dsr = sweep(ds, r);
  for (const SweepRow& row : dsr.best) CHECK(row.layout.vp == 1);
  CHECK(dsr.counts.rule[std::size_t(LayoutRule::stack_interleave)] > 0);
}

TEST_CASE("The stack's TP overlap decides which TP collectives may hide, and exposing them is slower") {
  models::TransformerSpec m = scenario(gpt3_64("megatron-lm", "tp = 8")).workload.transformer();
  models::TrainingLayout l;
  l.tp = 8, l.sequence_parallel = true, l.seq_len = 2048, l.dense_layers = 12, l.micro_batches = 4;
  auto hidden = [&](models::TpOverlap o) {
    l.tp_overlap = o;
    int n = 0;
    for (const models::TrafficItem& x : models::training_traffic(m, l)) n += x.overlap != models::OverlapWith::nothing;
    return n;
  };
  CHECK(hidden(models::TpOverlap::exposed) == 0);
  CHECK(hidden(models::TpOverlap::backward) == 2);   // input-gradient reduce-scatter, input re-gather
  CHECK(hidden(models::TpOverlap::pipelined) == 5);  // and the forward all-gather, reduce-scatter, output-gradient gather

  const std::string layout = "tp = 8\npp = 8\nvp = 3\nsequence_parallel = true";
  const double exposed = predict_training(scenario(gpt3_64("megatron-lm", layout, "tp_overlap = \"exposed\""))).step_time_s;
  const double backward = predict_training(scenario(gpt3_64("megatron-lm", layout))).step_time_s;
  const double pipelined = predict_training(scenario(gpt3_64("megatron-lm", layout, "tp_overlap = \"pipelined\""))).step_time_s;
  CHECK(exposed > backward);
  CHECK(backward >= pipelined);
}

TEST_CASE("Overlapped collectives carry the SMs their kernels take: NCCL's, or the stack's userbuffer settings") {
  models::TransformerSpec m = scenario(gpt3_64("nemo", "tp = 8")).workload.transformer();
  models::TrainingLayout l;
  l.tp = 8, l.dp = 8, l.zero = 1, l.sequence_parallel = true, l.seq_len = 2048, l.dense_layers = 12, l.micro_batches = 4;
  l.dense_parameters = 1e9;
  auto sms = [&](std::string_view what) {
    for (const models::TrafficItem& x : models::training_traffic(m, l))
      if (x.what == what) return x.sms;
    FAIL("no item " << what);
    return -1.0;
  };
  l.tp_overlap = models::TpOverlap::pipelined;
  l.userbuffers = models::traits(models::TrainingStack::nemo).userbuffers;
  CHECK(sms("forward all-gather (sequence-parallel input)") == 1);        // ring exchange
  CHECK(sms("forward reduce-scatter (outputs)") == 20);                    // BF16: pipelined 24 and 16 SMs
  CHECK(sms("backward reduce-scatter of input gradients") == 14);          // bulk 24 (QKV) and 4 (FC1)
  CHECK(sms("backward re-gather of the input for wgrad") == 3);            // bulk 4 and 2
  l.fp8 = true;
  CHECK(sms("forward reduce-scatter (outputs)") == 1);                     // FP8: ring exchange
  CHECK(sms("gradient reduce-scatter") == models::kNcclOverlapSms);        // DP: NCCL
  l.tp_overlap = models::TpOverlap::backward;                              // Megatron-Core's async NCCL collectives
  CHECK(sms("backward reduce-scatter of input gradients") == models::kNcclOverlapSms);
  CHECK(sms("forward all-gather (sequence-parallel input)") == 0);         // on the critical path: takes nothing
}

TEST_CASE("Hidden communication slows the compute beside it by hidden time x SMs / SMs of the device") {
  PassTimes t;
  t.forward = 1.0, t.backward_input = 1.0, t.backward_weight = 1.0;
  models::TrafficItem fwd{.group = models::TrafficGroup::dp, .what = "gather", .op = models::Collective::all_gather, .bytes = 1,
                          .calls = 4, .overlap = models::OverlapWith::forward, .sms = 24};
  models::TrafficItem bwd = fwd;
  bwd.overlap = models::OverlapWith::backward, bwd.sms = 12;
  const std::vector<models::TrafficItem> items{fwd, bwd};
  // 4 micro-batches: forward window 4 s hides 2 s; backward window 8 s hides all 10 s but 2.
  const std::vector<double> times{2.0, 10.0};
  const OverlapExposure e = overlap_exposure(items, times, t, 4, 1.0, 120);
  CHECK(e.per_microbatch_s == doctest::Approx(2.0));
  CHECK(e.contention_per_microbatch_s == doctest::Approx(2.0 * 24 / 120 + 8.0 * 12 / 120));
  CHECK(e.contention_tail_s == 0);
  CHECK(overlap_exposure(items, times, t, 4, 1.0, 0).contention_per_microbatch_s == 0);  // SMs unknown

  // End to end: FSDP on one DGX H100, every gather hidden; the step grows by exactly the contention.
  const std::string fsdp = R"(
[model]
preset = "llama3-8b"
[hardware]
system = "dgx-h100"
nodes = 1
[training]
seq_len = 8192
global_batch = 128
precision = "fp8"
stack = "nemo"
[parallelism]
zero = 3
)";
  const TrainingPrediction p = predict_training(scenario(fsdp));
  double hidden = 0, contention = 0, sum = 0;
  for (const GroupExposure& g : p.communication) hidden += g.hidden_s;
  for (const BreakdownItem& b : p.breakdown) {
    if (b.name == "contention") contention = b.seconds;
    sum += b.seconds;
  }
  CHECK(hidden > 1.0);
  CHECK(contention == doctest::Approx(hidden * models::kNcclOverlapSms / 132));
  CHECK(sum == doctest::Approx(p.step_time_s));
  CHECK(p.ranks.front().contention_s == doctest::Approx(contention));
}

TEST_CASE("ZeRO-3 gathers per layer (FSDP) or per DeepSpeed bucket, every micro-batch") {
  models::TransformerSpec m = scenario(gpt3_64("megatron-lm", "tp = 8")).workload.transformer();
  models::TrainingLayout l;
  l.dp = 64, l.zero = 3, l.seq_len = 2048, l.dense_layers = 96, l.micro_batches = 2, l.dense_parameters = 1.75e11;
  auto gather = [&](double bucket) {
    l.gather.bucket_params = bucket;
    for (const models::TrafficItem& x : models::training_traffic(m, l))
      if (x.what == "ZeRO-3 forward parameter all-gather") return x;
    return models::TrafficItem{};
  };
  const models::TrafficItem per_layer = gather(0);
  CHECK(per_layer.calls == doctest::Approx(2 * 96));
  CHECK(per_layer.bytes == doctest::Approx(1.75e11 * 2 / 96));
  const models::TrafficItem bucketed = gather(5e7);
  CHECK(bucketed.calls == doctest::Approx(2 * 3500));  // 1.75e11 / 5e7 buckets, each micro-batch
  CHECK(bucketed.bytes * bucketed.calls == doctest::Approx(per_layer.bytes * per_layer.calls));
}

TEST_CASE("deepspeed-2021 waits on its ZeRO-3 gathers (DeepSpeed 0.3), deepspeed prefetches them under compute") {
  models::TransformerSpec m = scenario(gpt3_64("megatron-lm", "tp = 8")).workload.transformer();
  models::TrainingLayout l;
  l.dp = 64, l.zero = 3, l.seq_len = 2048, l.dense_layers = 96, l.micro_batches = 2, l.dense_parameters = 1.75e11;
  auto overlaps = [&](models::TrainingStack stack) {
    l.gather = models::traits(stack).gather;
    std::map<std::string, models::OverlapWith> out;
    for (const models::TrafficItem& x : models::training_traffic(m, l)) out[std::string(x.what)] = x.overlap;
    return out;
  };
  auto now = overlaps(models::TrainingStack::deepspeed);
  auto then = overlaps(models::TrainingStack::deepspeed_2021);
  CHECK(now.at("ZeRO-3 forward parameter all-gather") == models::OverlapWith::forward);
  CHECK(now.at("ZeRO-3 backward parameter all-gather") == models::OverlapWith::backward);
  CHECK(then.at("ZeRO-3 forward parameter all-gather") == models::OverlapWith::nothing);
  CHECK(then.at("ZeRO-3 backward parameter all-gather") == models::OverlapWith::nothing);
  // overlap_comm on for stage 3: the gradient reduce-scatter still runs under the backward pass.
  CHECK(then.at("gradient reduce-scatter") == models::OverlapWith::backward);

  const double prefetched = predict_training(scenario(gpt3_64("deepspeed", "zero = 3"))).step_time_s;
  const double on_demand = predict_training(scenario(gpt3_64("deepspeed-2021", "zero = 3"))).step_time_s;
  CHECK(on_demand > prefetched);
}

TEST_CASE("Megatron-LM 2021-2022 reduced gradients after the backward and, in FP16, added them to the main gradient in a kernel of their own") {
  models::TransformerSpec m = scenario(gpt3_64("megatron-lm", "tp = 8")).workload.transformer();
  models::TrainingLayout l;
  l.tp = 8, l.pp = 8, l.dp = 4, l.seq_len = 2048, l.dense_layers = 12, l.micro_batches = 16, l.dense_parameters = 2.7e9;
  auto all_reduce = [&](models::TrainingStack stack) {
    l.grad_reduce_overlapped = models::traits(stack).grad_reduce_overlapped;
    for (const models::TrafficItem& x : models::training_traffic(m, l))
      if (x.what == "gradient all-reduce") return x.overlap;
    FAIL("no gradient all-reduce");
    return models::OverlapWith::nothing;
  };
  CHECK(all_reduce(models::TrainingStack::megatron_lm) == models::OverlapWith::backward);
  CHECK(all_reduce(models::TrainingStack::megatron_lm_2021) == models::OverlapWith::nothing);
  CHECK(all_reduce(models::TrainingStack::megatron_lm_2022) == models::OverlapWith::nothing);

  // F-GRAD-1: the 2022 stack fuses only into FP32 main gradients; the 2021 one never does.
  auto accumulate_ops = [](const std::string& text) {
    const Scenario s = scenario(text);
    const models::OpContext c = training_context(s, s.hw.device);
    int n = 0;
    for (const models::OpGroup& g : models::transformer_ops(s.workload.transformer(), c))
      for (const models::Op& op : g.ops) n += op.name.ends_with(".grad_accumulate");
    return std::pair{c.separate_grad_accumulation, n};
  };
  const std::string dp2 = "tp = 8\npp = 4";
  CHECK(accumulate_ops(gpt3_64("megatron-lm", dp2)) == std::pair{false, 0});
  CHECK(accumulate_ops(gpt3_64("megatron-lm-2021", dp2)) == std::pair{true, 5});  // QKV, projection, FC1, FC2 and the LM head
  const auto fp16 = accumulate_ops(gpt3_64("megatron-lm-2022", dp2, "precision = \"fp16\""));
  CHECK(fp16.first);
  const auto bf16 = accumulate_ops(gpt3_64("megatron-lm-2022", dp2, "precision = \"bf16\""));
  CHECK_FALSE(bf16.first);
  // Exposing the reduction and adding the gradients apart only ever slow the step.
  const double now = predict_training(scenario(gpt3_64("megatron-lm", dp2))).step_time_s;
  const double then = predict_training(scenario(gpt3_64("megatron-lm-2021", dp2))).step_time_s;
  CHECK(then > now);
}

TEST_CASE("A stack's default recipe sets the bytes per parameter, the assumptions name the stack") {
  CHECK(scenario(gpt3_64("megatron-lm", "tp = 8")).training->optimizer == "megatron-bf16");
  CHECK(scenario(gpt3_64("torchtitan", "tp = 8")).training->optimizer == "fp32-adam");
  CHECK(scenario(gpt3_64("deepspeed", "tp = 8")).training->optimizer == "mixed-adam");
  CHECK(scenario(gpt3_64("deepspeed", "tp = 8", "optimizer = \"megatron-bf16\"")).training->optimizer == "megatron-bf16");
  const TrainingPrediction p = predict_training(scenario(gpt3_64("nemo", "tp = 8\npp = 8\nsequence_parallel = true")));
  bool named = false;
  for (const std::string& a : p.assumptions) named |= a.starts_with("training stack nemo");
  CHECK(named);
}

TEST_CASE("docs/stacks.md is what `perfcast stacks` writes") {
  std::ifstream in(fs::path(PERFCAST_SOURCE_DIR) / "docs" / "stacks.md");
  REQUIRE(in);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto r = perfcast::test::run("stacks");
  REQUIRE(r.code == 0);
  CHECK_MESSAGE(doc == r.out, "regenerate: perfcast stacks > docs/stacks.md");
  const auto j = perfcast::test::run("stacks --format json");
  CHECK(j.code == 0);
  CHECK(j.out.find("\"sharded_with_pp\": false") != std::string::npos);
}
