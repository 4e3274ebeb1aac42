// Serving engines: the scheduler simulation against hand-computed step timelines, the engines'
// sourced limits, the step costs against the static passes, and the scenario keys that reach them.
#include <doctest/doctest.h>

#include <cmath>
#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/predict/capacity.hpp"
#include "engine/predict/engine_serving.hpp"
#include "engine/predict/inference.hpp"
#include "engine/predict/roofline.hpp"
#include "models/roofline.hpp"
#include "engine/sweep/inference_sweep.hpp"
#include "models/scheduler_simulation.hpp"
#include "models/serving_engine.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;
using namespace perfcast::models;

namespace {

// Every step 10 ms, whatever it holds: the timeline is then step counting.
StepCosts flat_steps() { return {{{1, 0.010}, {100000, 0.010}}, {{0, 0}, {100000, 0}}, 0}; }

SimulatedServing closed(double clients, SchedulerLimits limits, RequestShape shape) {
  return simulate_serving(flat_steps(), limits, shape, {.kind = LoadKind::closed_loop, .concurrency = clients}, 0.99);
}

}  // namespace

TEST_CASE("scheduler simulation: one client, steps counted by hand") {
  // A 100-token prompt fits one step: the first token ends it (10 ms), then 10 decode steps.
  const SimulatedServing s = closed(1, {.max_sequences = 8, .max_step_tokens = 8192}, {100, 11});
  CHECK(s.ttft_mean_s == doctest::Approx(0.010));
  CHECK(s.ttft_p_s == doctest::Approx(0.010));
  CHECK(s.tpot_mean_s == doctest::Approx(0.010));
  CHECK(s.e2e_mean_s == doctest::Approx(0.110));
  CHECK(s.output_tokens_per_s == doctest::Approx(11 / 0.110));
  CHECK(s.decoding_mean == doctest::Approx(10.0 / 11));
  // A 300-token prompt over a 128-token budget takes ceil(300/128) = 3 steps when chunked; without
  // chunking it is longer than any step's budget and runs alone in one.
  CHECK(closed(1, {.max_sequences = 8, .max_step_tokens = 128}, {300, 11}).ttft_mean_s == doctest::Approx(0.030));
  CHECK(closed(1, {.max_sequences = 8, .max_step_tokens = 128, .chunked_prefill = false}, {300, 11}).ttft_mean_s ==
        doctest::Approx(0.010));
}

TEST_CASE("scheduler simulation: CUDA-graph padding times a decode-only step at the captured batch (F-SRV-4)") {
  // Token work 1 ms a row, decode attention 0.1 ms a sequence: a padded step pays its padding rows'
  // token work, not their attention.
  const StepCosts linear{{{1, 0.001}, {1000, 1.0}}, {{0, 0}, {1000, 0.1}}, 0};
  CHECK(linear.seconds(3, 0, 1, 0, 0, 4) == doctest::Approx(0.004 + 0.0003));
  CHECK(linear.seconds(3, 0) == doctest::Approx(0.003 + 0.0003));
  // Three clients of 10 + 5 tokens, all prompts in the first step (30 tokens, unpadded: 30 ms), then
  // four decode-only steps of three sequences each. Graphs of 1, 2, 4: each runs the 4 graph (4.3 ms)
  // instead of 3 rows (3.3 ms); a largest graph of 2 leaves them unpadded.
  auto e2e = [&](std::vector<double> graphs) {
    const SchedulerLimits limits{.max_sequences = 8, .max_step_tokens = 8192, .graph_batch_sizes = std::move(graphs)};
    return simulate_serving(linear, limits, {10, 5}, {.kind = LoadKind::closed_loop, .concurrency = 3, .benchmark_requests = 3}, 0.99)
        .e2e_mean_s;
  };
  CHECK(e2e({}) == doctest::Approx(0.030 + 4 * 0.0033));
  CHECK(e2e({1, 2, 4}) == doctest::Approx(0.030 + 4 * 0.0043));
  CHECK(e2e({1, 2}) == doctest::Approx(e2e({})));
  CHECK_THROWS_AS(e2e({4, 2}), std::invalid_argument);
}

TEST_CASE("scheduler simulation: a finite benchmark from an idle engine, every request counted") {
  const SchedulerLimits roomy{.max_sequences = 8, .max_step_tokens = 8192};
  auto bench = [](double clients, int requests, SchedulerLimits limits, RequestShape shape) {
    return simulate_serving(flat_steps(), limits, shape,
                            {.kind = LoadKind::closed_loop, .concurrency = clients, .benchmark_requests = requests}, 0.99);
  };
  // 2 clients, 3 requests of 100 + 11 tokens: both first ones finish at 110 ms, the third (sent then)
  // at 220 ms. 33 tokens over the 220 ms the benchmark lasts: the drain lowers throughput below the
  // steady state's 2 × 11 / 0.110 = 200 tokens/s.
  const SimulatedServing three = bench(2, 3, roomy, {100, 11});
  CHECK(three.requests == 3);
  CHECK(three.warmup == 0);
  CHECK(three.ttft_mean_s == doctest::Approx(0.010));
  CHECK(three.e2e_mean_s == doctest::Approx(0.110));
  CHECK(three.output_tokens_per_s == doctest::Approx(33 / 0.220));
  CHECK(three.requests_per_s == doctest::Approx(3 / 0.220));
  CHECK(closed(2, roomy, {100, 11}).output_tokens_per_s == doctest::Approx(200));
  // The first wave queues for the token budget: 4 prompts of 100 tokens, 150 a step, no chunking: one
  // prompt a step, first tokens at 10, 20, 30 and 40 ms, the last request done at 40 + 100 ms.
  const SimulatedServing wave = bench(4, 4, {.max_sequences = 8, .max_step_tokens = 150, .chunked_prefill = false}, {100, 11});
  CHECK(wave.ttft_mean_s == doctest::Approx(0.025));
  CHECK(wave.ttft_p50_s == doctest::Approx(0.020));
  CHECK(wave.output_tokens_per_s == doctest::Approx(44 / 0.140));
  // More clients than requests: the requests are all sent at once.
  CHECK(bench(10, 4, roomy, {100, 11}).e2e_mean_s == doctest::Approx(0.110));
  CHECK_THROWS_AS(simulate_serving(flat_steps(), roomy, {100, 11}, {.kind = LoadKind::poisson, .rate = 1, .benchmark_requests = 10}, 0.99),
                  std::invalid_argument);
}

TEST_CASE("scheduler simulation: unmixed, a prompt step stalls the running decodes (SGLang's default)") {
  // Two requests of 100 + 11 tokens at once, 150 tokens a step, no chunking: the second prompt does
  // not fit beside the first and starts the next step. Mixed, the first decodes in that step (its
  // tokens end at 110 ms, the second's at 120). Unmixed, that step runs the prompt alone and the
  // first request's ten decode steps follow it: both end at 120 ms.
  auto bench = [](bool mixed) {
    return simulate_serving(flat_steps(), {.max_sequences = 8, .max_step_tokens = 150, .chunked_prefill = false, .mixed_prefill = mixed},
                            {100, 11}, {.kind = LoadKind::closed_loop, .concurrency = 2, .benchmark_requests = 2}, 0.99);
  };
  const SimulatedServing mixed = bench(true), unmixed = bench(false);
  CHECK(mixed.ttft_mean_s == doctest::Approx(0.015));
  CHECK(unmixed.ttft_mean_s == doctest::Approx(0.015));
  CHECK(mixed.e2e_mean_s == doctest::Approx(0.115));
  CHECK(unmixed.e2e_mean_s == doctest::Approx(0.120));
  CHECK(unmixed.e2e_p50_s == doctest::Approx(0.120));
  CHECK(mixed.tpot_mean_s == doctest::Approx(0.010));
  CHECK(unmixed.tpot_mean_s == doctest::Approx((0.011 + 0.010) / 2));  // the first waited one step
  // The streamed chunks: every gap one step (10 ms) but the first request's wait behind the second's
  // prompt step (20 ms): 20 gaps, mean 10.5 ms, median 10, the largest 20.
  CHECK(unmixed.itl_mean_s == doctest::Approx(0.0105));
  CHECK(unmixed.itl_p50_s == doctest::Approx(0.010));
  CHECK(unmixed.itl_p_s == doctest::Approx(0.020));
  CHECK(mixed.itl_p_s == doctest::Approx(0.010));
  // With one request there is nothing to interleave: the two agree step for step.
  const SchedulerLimits one{.max_sequences = 8, .max_step_tokens = 8192, .mixed_prefill = false};
  CHECK(closed(1, one, {100, 11}).e2e_mean_s == doctest::Approx(0.110));
}

TEST_CASE("scheduler simulation: multi-step rounds, scheduled once, their tokens streamed at the end (F-SRV-5)") {
  // Rounds of 4 decode steps, prompts whole and in steps of their own, 150 tokens a step (one prompt each).
  const SchedulerLimits rounds{.max_sequences = 8, .max_step_tokens = 150, .chunked_prefill = false, .mixed_prefill = false,
                               .decode_round_steps = 4};
  auto bench = [](const SchedulerLimits& l, double clients) {
    return simulate_serving(flat_steps(), l, {100, 11},
                            {.kind = LoadKind::closed_loop, .concurrency = clients, .benchmark_requests = static_cast<int>(clients)}, 0.99);
  };
  // One request: its prompt step (first token at 10 ms), then rounds over steps 2-5, 6-9 and 10-13. The
  // eleventh token comes in step 11 but reaches the client when the round ends with step 13: E2E 130 ms,
  // TPOT (130 - 10) / 10 = 12 ms, where single steps give 110 and 10.
  const SimulatedServing one = bench(rounds, 1);
  CHECK(one.ttft_mean_s == doctest::Approx(0.010));
  CHECK(one.e2e_mean_s == doctest::Approx(0.130));
  CHECK(one.tpot_mean_s == doctest::Approx(0.012));
  // Its client receives three chunks after the first token, at 50, 90 and 130 ms: every gap 40 ms
  // (the inter-token latency a streaming benchmark reports), where single steps stream every 10 ms.
  CHECK(one.itl_mean_s == doctest::Approx(0.040));
  CHECK(one.itl_p50_s == doctest::Approx(0.040));
  // Two at once: the prompts take steps 1 and 2 (TTFT 10 and 20 ms), then both decode in rounds over steps
  // 3-6, 7-10, 11-14: each has its 11 tokens in step 12, both end at 140 ms.
  const SimulatedServing two = bench(rounds, 2);
  CHECK(two.ttft_mean_s == doctest::Approx(0.015));
  CHECK(two.e2e_mean_s == doctest::Approx(0.140));
  CHECK(two.e2e_p_s == doctest::Approx(0.140));
  // Chunks at 60, 100 and 140 ms for both: gaps 50, 40, 40 after the first token at 10 ms and 40, 40, 40
  // after the one at 20 ms.
  CHECK(two.itl_mean_s == doctest::Approx(0.250 / 6));
  CHECK(two.itl_p50_s == doctest::Approx(0.040));
  CHECK(two.itl_p_s == doctest::Approx(0.050));
  // Rounds of one step are the unmixed scheduler as it was.
  SchedulerLimits single = rounds;
  single.decode_round_steps = 1;
  CHECK(bench(single, 1).e2e_mean_s == doctest::Approx(0.110));
  CHECK(bench(single, 1).itl_p50_s == doctest::Approx(0.010));
  // Arrivals at a rate wait for the round that runs to end before their prompt step: at a rate where a
  // request often finds another decoding, the mean TTFT grows by a share of a round (4 steps, 40 ms).
  auto at = [&](const SchedulerLimits& l) {
    return simulate_serving(flat_steps(), l, {100, 11}, {.kind = LoadKind::poisson, .rate = 5}, 0.99).ttft_mean_s;
  };
  CHECK(at(rounds) > at(single) + 0.005);
  CHECK(at(rounds) < at(single) + 0.040);
  // Rounds need whole prompts in steps of their own (vLLM 0.6.0 ran no other way), and at least one step.
  SchedulerLimits bad = rounds;
  bad.mixed_prefill = true;
  CHECK_THROWS_AS(bench(bad, 1), std::invalid_argument);
  bad = rounds;
  bad.chunked_prefill = true;
  CHECK_THROWS_AS(bench(bad, 1), std::invalid_argument);
  bad = rounds;
  bad.decode_round_steps = 0;
  CHECK_THROWS_AS(bench(bad, 1), std::invalid_argument);
}

TEST_CASE("scheduler simulation: lengths uniform in [f·L, L] as benchmark_serving's random dataset draws them") {
  // f = 0.5 of 11 output tokens: whole numbers 5..11, mean 8 (variance 4). One client, flat 10 ms
  // steps: E2E = 10 ms + (n − 1) × 10 ms, 80 ms on average; 2,000 requests put the sample mean within
  // 3σ = 3 × 2/√2000 tokens = 1.3 ms of it.
  const SchedulerLimits roomy{.max_sequences = 8, .max_step_tokens = 8192};
  const RequestShape uniform{.input_len = 100, .output_len = 11, .length_min_fraction = 0.5};
  const SimulatedServing s =
      simulate_serving(flat_steps(), roomy, uniform, {.kind = LoadKind::closed_loop, .concurrency = 1, .benchmark_requests = 2000}, 0.99);
  CHECK(s.e2e_mean_s == doctest::Approx(0.080).epsilon(0.02));
  CHECK(s.e2e_p_s == doctest::Approx(0.110));  // the longest, 11 tokens, at the 99th percentile
  CHECK(s.tpot_mean_s == doctest::Approx(0.010));
  // Fixed, gamma or uniform: one of them; f in (0, 1].
  CHECK_THROWS_AS(closed(1, roomy, {.input_len = 100, .output_len = 11, .output_len_cv2 = 1, .length_min_fraction = 0.5}), std::invalid_argument);
  CHECK_THROWS_AS(closed(1, roomy, {.input_len = 100, .output_len = 11, .length_min_fraction = 0}), std::invalid_argument);
}

TEST_CASE("scheduler simulation: speculative decoding keeps more tokens a step, the drafts cost their share") {
  // γ = 1, α = 0.5: 1.5 tokens kept a step, so the 10 tokens after the first take 7 steps (10.5).
  SchedulerLimits spec{.max_sequences = 8, .max_step_tokens = 8192, .speculation = {1, 1.5, 0}};
  CHECK(closed(1, spec, {100, 11}).e2e_mean_s == doctest::Approx(0.010 + 7 * 0.010));
  // A draft step at half a target step: each decode step 10 + 5 ms.
  spec.speculation.draft_cost_ratio = 0.5;
  CHECK(closed(1, spec, {100, 11}).e2e_mean_s == doctest::Approx(0.010 + 7 * 0.015));
  spec.max_step_tokens = 1;  // cannot verify 2 tokens
  CHECK_THROWS_AS(closed(1, spec, {100, 11}), std::invalid_argument);
}

TEST_CASE("scheduler simulation: clients beyond the running limit wait a whole generation") {
  // 8 clients, 4 running: two cohorts alternate. A request arrives when its predecessor finishes and
  // is admitted when the other cohort finishes 110 ms later: TTFT 120 ms, E2E 220 ms, 4 requests
  // per 110 ms.
  const SimulatedServing s = closed(8, {.max_sequences = 4, .max_step_tokens = 8192}, {100, 11});
  CHECK(s.ttft_mean_s == doctest::Approx(0.120));
  CHECK(s.e2e_mean_s == doctest::Approx(0.220));
  CHECK(s.requests_per_s == doctest::Approx(4 / 0.110));
  // Within the limit all 8 run together: 8 requests per 110 ms.
  CHECK(closed(8, {.max_sequences = 8, .max_step_tokens = 8192}, {100, 11}).requests_per_s == doctest::Approx(8 / 0.110));
}

TEST_CASE("scheduler simulation: vLLM's KV blocks taken on demand, the newest request preempted and recomputed (F-SRV-7)") {
  // Two requests of 10 + 11 tokens at once, a pool of 36 one-token blocks. The first step computes both
  // prompts (20 blocks), each decode step writes one token of each: after 8 decode steps (90 ms) they
  // hold 18 each and the pool is full. In the 10th step the first request preempts the second (the
  // newest), which waits with its 10 + 9 tokens to compute; 16 blocks free are too few in the 11th
  // step, which ends the first request at 110 ms. The 12th recomputes the second (its 10th token at
  // 120 ms), the 13th gives its last: E2E 110 and 130 ms, one preemption in two requests.
  const SchedulerLimits limits{.max_sequences = 8, .max_step_tokens = 100,
                               .kv = {.admission = KvAdmission::on_demand, .tokens = 36, .block_tokens = 1}};
  const Load two{.kind = LoadKind::closed_loop, .concurrency = 2, .benchmark_requests = 2};
  const SimulatedServing tight = simulate_serving(flat_steps(), limits, {10, 11}, two, 0.99);
  CHECK(tight.ttft_mean_s == doctest::Approx(0.010));
  CHECK(tight.e2e_mean_s == doctest::Approx(0.120));
  CHECK(tight.e2e_p_s == doctest::Approx(0.130));
  CHECK(tight.tpot_mean_s == doctest::Approx((0.010 + 0.012) / 2));
  CHECK(tight.preemptions_per_request == doctest::Approx(0.5));
  // A pool of 40 holds both to the end (10 + 10 tokens each: the last token's KV is never written).
  SchedulerLimits room = limits;
  room.kv.tokens = 40;
  const SimulatedServing fits = simulate_serving(flat_steps(), room, {10, 11}, two, 0.99);
  CHECK(fits.e2e_mean_s == doctest::Approx(0.110));
  CHECK(fits.preemptions_per_request == 0);
  // Blocks of 16: a request takes ceil(tokens / 16); 48 tokens are three blocks, one request's two and
  // a third the other cannot grow into, so 10 + 11 at once preempts again; 64 (four blocks) does not.
  room.kv = {.admission = KvAdmission::on_demand, .tokens = 64, .block_tokens = 16};
  CHECK(simulate_serving(flat_steps(), room, {10, 11}, two, 0.99).preemptions_per_request == 0);
  room.kv.tokens = 48;
  CHECK(simulate_serving(flat_steps(), room, {10, 11}, two, 0.99).preemptions_per_request > 0);
  // What the whole-request reservation could not say: 3 requests of 10 + 11 whose whole length (21)
  // fits only once in 40 tokens all run at once on demand while they are short.
  SchedulerLimits whole{.max_sequences = 1, .max_step_tokens = 100};
  const Load three{.kind = LoadKind::closed_loop, .concurrency = 3, .benchmark_requests = 3};
  CHECK(simulate_serving(flat_steps(), whole, {10, 11}, three, 0.99).ttft_mean_s == doctest::Approx((0.010 + 0.120 + 0.230) / 3));
  room.kv = {.admission = KvAdmission::on_demand, .tokens = 40, .block_tokens = 1};
  CHECK(simulate_serving(flat_steps(), room, {10, 11}, three, 0.99).ttft_mean_s == doctest::Approx(0.010));
  // Steady state under pressure: every request finishes, preempted ones included, and the engine's
  // throughput never beats the pool's roomy twin.
  room.kv.tokens = 60;
  const SimulatedServing churn = closed(8, room, {10, 11});
  room.kv.tokens = 1e6;
  const SimulatedServing ample = closed(8, room, {10, 11});
  CHECK(churn.preemptions_per_request > 0);
  CHECK(churn.requests_per_s > 0);
  CHECK(churn.requests_per_s < ample.requests_per_s);
  CHECK(ample.preemptions_per_request == 0);
  // Outputs gamma-spread about their mean may outgrow the pool: such a request runs alone rather than never
  // (either engine), and the simulation ends.
  for (const KvAdmission admission : {KvAdmission::on_demand, KvAdmission::reserved_estimate}) {
    SchedulerLimits spread{.max_sequences = 8, .max_step_tokens = 100, .mixed_prefill = admission == KvAdmission::on_demand,
                           .kv = {.admission = admission, .tokens = 40, .block_tokens = 1}};
    const SimulatedServing s = closed(4, spread, {10, 30, 1.0});
    CHECK(s.requests_per_s > 0);
  }
  // A pool that cannot hold one whole request is refused.
  room.kv.tokens = 20;
  CHECK_THROWS_AS(closed(1, room, {10, 11}), std::invalid_argument);
}

TEST_CASE("scheduler simulation: SGLang admits against an estimate of the running outputs and retracts when the pool runs out (F-SRV-7)") {
  // A pool of 1,000 tokens, requests of 100 + 400. The first step admits one: 100 + 400 < 1,000, and
  // the second's 500 is not below the 500 left. In the next step the first's reservation is 0.7 x 399
  // (the ratio before any decode step has lowered it), and 500 < 900 - 279.3 admits the second.
  const SchedulerLimits sglang{.max_sequences = 500, .max_step_tokens = 8192, .mixed_prefill = false,
                               .kv = {.admission = KvAdmission::reserved_estimate, .tokens = 1000, .block_tokens = 1}};
  const Load two{.kind = LoadKind::closed_loop, .concurrency = 2, .benchmark_requests = 2};
  const SimulatedServing pair = simulate_serving(flat_steps(), sglang, {100, 400}, two, 0.99);
  CHECK(pair.ttft_mean_s == doctest::Approx((0.010 + 0.020) / 2));
  CHECK(pair.preemptions_per_request == 0);
  // Long outputs: a pool of 5,000 tokens holds two whole requests of 10 + 2,000, but the estimate of
  // the running outputs falls with the ratio (0.001 a decode step) and lets in more than the pool holds
  // to the end, so some are retracted; every request still finishes, more run at once than two whole
  // reservations allow, and the throughput beats them.
  SchedulerLimits longer = sglang;
  longer.kv.tokens = 5000;
  const SimulatedServing four = closed(4, longer, {10, 2000});
  CHECK(four.preemptions_per_request > 0);
  CHECK(four.decoding_mean > 2);
  CHECK(four.decoding_mean <= 4);
  const SchedulerLimits two_whole{.max_sequences = 2, .max_step_tokens = 8192, .mixed_prefill = false};
  CHECK(four.output_tokens_per_s > closed(4, two_whole, {10, 2000}).output_tokens_per_s);
}

TEST_CASE("scheduler simulation: a returning client's request joins the step after next, two later with overlap (F-SRV-3)") {
  // 2 clients, 100 + 11 tokens, 150 tokens a step without chunking: the second prompt does not fit beside
  // the first, so the clients run one step apart. Client A's request ends at step n; the engine starts step
  // n+1 for B at once, A's next request joins step n+2: TTFT 2 steps, E2E 12 steps.
  const SchedulerLimits apart{.max_sequences = 8, .max_step_tokens = 150, .chunked_prefill = false};
  const SimulatedServing http = closed(2, apart, {100, 11});
  CHECK(http.ttft_mean_s == doctest::Approx(0.020));
  CHECK(http.e2e_mean_s == doctest::Approx(0.120));
  CHECK(http.output_tokens_per_s == doctest::Approx(2 * 11 / 0.120).epsilon(0.01));  // completions counted in a window
  // An in-process queue (reissue_steps 0) has the request in the very next step.
  const SimulatedServing queued = simulate_serving(flat_steps(), apart, {100, 11},
                                                   {.kind = LoadKind::closed_loop, .concurrency = 2, .reissue_steps = 0}, 0.99);
  CHECK(queued.ttft_mean_s == doctest::Approx(0.010));
  CHECK(queued.e2e_mean_s == doctest::Approx(0.110));
  // Overlap scheduling: step n+1 was scheduled when step n began, so A's next request joins step n+3
  // (TTFT 3 steps, E2E 13). One client: its request arrives during its predecessor's extra step and is
  // scheduled when that step ends, the engine then idle: TTFT 2 steps.
  SchedulerLimits overlap = apart;
  overlap.overlap_scheduling = true;
  const SimulatedServing ahead = closed(2, overlap, {100, 11});
  CHECK(ahead.ttft_mean_s == doctest::Approx(0.030));
  CHECK(ahead.e2e_mean_s == doctest::Approx(0.130));
  CHECK(closed(1, overlap, {100, 11}).ttft_mean_s == doctest::Approx(0.020));
  // A finished request decodes once more and holds its slot: 8 clients, 4 running, the cohorts alternate
  // every 12 steps instead of 11; a request sent at step n's end waits for the other cohort (steps n+2 to
  // n+12) and its extra step (n+13): TTFT 14 steps, E2E 24.
  const SimulatedServing cohorts = closed(8, {.max_sequences = 4, .max_step_tokens = 8192, .overlap_scheduling = true}, {100, 11});
  CHECK(cohorts.ttft_mean_s == doctest::Approx(0.140));
  CHECK(cohorts.e2e_mean_s == doctest::Approx(0.240));
  CHECK(cohorts.requests_per_s == doctest::Approx(4 / 0.120));
  // Arrivals at a rate: the engine mostly idle, each request is scheduled on arrival either way; busier,
  // overlap adds a step to the wait.
  StepCosts c{{{1, 0.005 + 20e-6}, {16384, 0.005 + 16384 * 20e-6}}, {{0, 0}, {256, 256 * 30e-6}}, 0};
  const SchedulerLimits sync{.max_sequences = 256, .max_step_tokens = 4096};
  SchedulerLimits async = sync;
  async.overlap_scheduling = true;
  auto at = [&](const SchedulerLimits& l, double rate) {
    return simulate_serving(c, l, {1000, 100}, {.kind = LoadKind::poisson, .rate = rate}, 0.99);
  };
  CHECK(at(async, 1e-3).ttft_p50_s == doctest::Approx(at(sync, 1e-3).ttft_p50_s));
  CHECK(at(async, 20).ttft_mean_s > at(sync, 20).ttft_mean_s + 0.005);
}

TEST_CASE("scheduler simulation: Poisson arrivals, latency never falls as the rate rises") {
  // A step that costs 5 ms plus 20 us per token and 30 us per decoding sequence.
  StepCosts c{{{1, 0.005 + 20e-6}, {16384, 0.005 + 16384 * 20e-6}}, {{0, 0}, {256, 256 * 30e-6}}, 0};
  const SchedulerLimits limits{.max_sequences = 256, .max_step_tokens = 4096};
  // A lone request at a vanishing rate sees an idle engine: one prompt step, then decode steps of one.
  const SimulatedServing idle = simulate_serving(c, limits, {1000, 100}, {.kind = LoadKind::poisson, .rate = 1e-3}, 0.99);
  CHECK(idle.ttft_p50_s == doctest::Approx(0.005 + 1000 * 20e-6));
  CHECK(idle.tpot_p50_s == doctest::Approx(0.005 + 20e-6 + 30e-6));
  double ttft50 = 0, ttft99 = 0, tpot50 = 0, tpot99 = 0;
  // Saturation is near 37 requests/s (256 decoding, 2,560 prompt tokens per 69 ms step).
  for (double rate : {2.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0}) {
    const SimulatedServing s = simulate_serving(c, limits, {1000, 100}, {.kind = LoadKind::poisson, .rate = rate}, 0.99);
    CAPTURE(rate);
    CHECK(s.ttft_p50_s >= ttft50);
    CHECK(s.ttft_p_s >= ttft99);
    CHECK(s.tpot_p50_s >= tpot50);
    CHECK(s.tpot_p_s >= tpot99);
    CHECK(s.requests_per_s == doctest::Approx(rate).epsilon(0.1));
    ttft50 = s.ttft_p50_s, ttft99 = s.ttft_p_s, tpot50 = s.tpot_p50_s, tpot99 = s.tpot_p_s;
  }
  CHECK_THROWS_AS(simulate_serving(c, limits, {0, 100}, {.kind = LoadKind::poisson, .rate = 1}, 0.99), std::invalid_argument);
  CHECK_THROWS_AS(simulate_serving(c, limits, {10, 10}, {.kind = LoadKind::poisson, .rate = 0}, 0.99), std::invalid_argument);
}

TEST_CASE("engine limits: trtllm-bench's rounding, vLLM's device tiers, the KV cap") {
  // tuning.py: below 256 a multiple of 32 (at least 64), below 1024 of 128, else of 256; the batch
  // capped at 4096 before dividing by pp.
  CHECK(trtllm_bench_batch(30, 1) == 64);
  CHECK(trtllm_bench_batch(100, 1) == 128);
  CHECK(trtllm_bench_batch(472, 1) == 512);
  CHECK(trtllm_bench_batch(1500, 1) == 1536);
  CHECK(trtllm_bench_batch(9000, 2) == 2048);
  // Tokens: batch × (1 + ISL/OSL) capped at 32768; at least 2048, then multiples of 256, 512, 1024.
  CHECK(trtllm_bench_tokens(472, 128, 2048) == 2048);     // 501.5
  CHECK(trtllm_bench_tokens(2500, 1000, 1000) == 5120);   // 5000: a multiple of 512
  CHECK(trtllm_bench_tokens(4096, 128, 128) == 8192);
  CHECK(trtllm_bench_tokens(2000, 5000, 500) == 22528);   // 22000: a multiple of 1024
  CHECK(trtllm_bench_tokens(4096, 5000, 500) == 32768);   // capped
  const EngineDevice h100{.memory_GiB = 79.6, .kv_sequences = 5000, .input_len = 1000, .output_len = 1000};
  const EngineLimits serve = engine_limits(ServingEngine::vllm, EngineMode::server, h100);
  CHECK(serve.limits.max_step_tokens == 8192);
  CHECK(serve.limits.max_sequences == 1024);
  CHECK(engine_limits(ServingEngine::vllm, EngineMode::offline, h100).limits.max_step_tokens == 16384);
  EngineDevice a100 = h100;
  a100.a100 = true;
  CHECK(engine_limits(ServingEngine::vllm, EngineMode::server, a100).limits.max_step_tokens == 2048);
  CHECK(engine_limits(ServingEngine::vllm, EngineMode::server, a100).limits.max_sequences == 256);
  // The KV cache: TensorRT-LLM reserves whole requests (GUARANTEED_NO_EVICT), so it caps the running
  // requests; vLLM takes blocks on demand from a pool of 37 whole requests' tokens, which holds
  // floor(37 x 2000 / 1500) = 49 at their mean length; SGLang's pool caps it at half its tokens, its
  // request pool at 2048 (context not stated).
  EngineDevice small = h100;
  small.kv_sequences = 37.6;
  const EngineLimits trt_small = engine_limits(ServingEngine::trtllm, EngineMode::server, small);
  CHECK(trt_small.limits.max_sequences == 37);
  CHECK(trt_small.limits.kv.admission == KvAdmission::whole_request);
  const EngineLimits vllm_small = engine_limits(ServingEngine::vllm, EngineMode::server, small);
  CHECK(vllm_small.limits.max_sequences == 1024);
  CHECK(vllm_small.limits.kv.admission == KvAdmission::on_demand);
  CHECK(vllm_small.limits.kv.tokens == 37 * 2000);
  CHECK(vllm_small.concurrency == 49);
  small.kv_tokens = 1500;  // a pool of 1,500 tokens: 750 requests of SGLang's pool / 2, not its 2048
  const EngineLimits sglang_small = engine_limits(ServingEngine::sglang, EngineMode::server, small);
  CHECK(sglang_small.limits.max_sequences == 750);
  CHECK(sglang_small.limits.kv.admission == KvAdmission::reserved_estimate);
  CHECK(sglang_small.limits.kv.block_tokens == 1);
  CHECK(sglang_small.concurrency == 1);
  // SGLang's mem_fraction_static (server_args.py v0.5.3): an H200 (143,771 MiB) at tp 1 reserves 512 + 1.5 x 8192
  // + 2 x 256 + 1/8 x 1024 = 13,440 MiB, 0.907 of it; an H100 (81,559 MiB) at tp 8 512 + 12,288 + 1,024 + 1,024 =
  // 14,848, 0.818; a 24 GiB part at tp 1 512 + 3,072 + 32 + 128 = 3,744 MiB, below the 10 GiB floor it keeps above 60 GiB.
  CHECK(sglang_mem_fraction_static(143771, 1) == doctest::Approx(0.907));
  CHECK(sglang_mem_fraction_static(81559, 8) == doctest::Approx(0.818));
  CHECK(sglang_mem_fraction_static(24564, 1) == doctest::Approx(std::round(1000 * (24564 - 3744) / 24564.0) / 1000));
  // SGLang's request pool: min(max(tokens / context x 512, 2048), 4096).
  EngineDevice roomy_pool = h100;
  roomy_pool.kv_tokens = 2e6, roomy_pool.max_context = 131072;
  CHECK(engine_limits(ServingEngine::sglang, EngineMode::server, roomy_pool).limits.max_sequences == 4096);
  roomy_pool.max_context = 1'000'000;
  CHECK(engine_limits(ServingEngine::sglang, EngineMode::server, roomy_pool).limits.max_sequences == 2048);
  CHECK(engine_limits(ServingEngine::sglang, EngineMode::server, h100).limits.max_step_tokens == 8192);
  // SGLang runs prompt and decode steps apart unless --enable-mixed-chunk; vLLM V1 and TensorRT-LLM mix them.
  CHECK_FALSE(engine_limits(ServingEngine::sglang, EngineMode::server, h100).limits.mixed_prefill);
  CHECK(engine_limits(ServingEngine::vllm, EngineMode::server, h100).limits.mixed_prefill);
  CHECK(engine_limits(ServingEngine::trtllm, EngineMode::offline, h100).limits.mixed_prefill);
  // Overlap scheduling: TensorRT-LLM's PyTorch backend and SGLang (v0.4 on) by default, vLLM's pinned V1 not.
  CHECK(engine_limits(ServingEngine::trtllm, EngineMode::server, h100).limits.overlap_scheduling);
  CHECK(engine_limits(ServingEngine::sglang, EngineMode::server, h100).limits.overlap_scheduling);
  CHECK_FALSE(engine_limits(ServingEngine::vllm, EngineMode::server, h100).limits.overlap_scheduling);
  // trtllm-bench throughput runs without chunked prefill (its default) and raises max_num_tokens to the
  // longest prompt + max_batch_size (bench/benchmark/utils/general.py): 5000-token prompts, 300 requests'
  // KV cache: batch 384, tuned tokens 300 x 11 = 3300 -> 3328, raised to 5000 + 384.
  const EngineDevice long_prompts{.memory_GiB = 79.6, .kv_sequences = 300, .input_len = 5000, .output_len = 500};
  const EngineLimits bench = engine_limits(ServingEngine::trtllm, EngineMode::offline, long_prompts);
  CHECK_FALSE(bench.limits.chunked_prefill);
  CHECK(bench.limits.max_step_tokens == 5000 + 384);
  CHECK(bench.limits.max_sequences == 300);
  // 1000 + 1000 tokens, 5000 requests' KV cache: batch 4096, and the tuned 4096 x 2 = 8192 tokens already
  // hold a prompt and the batch (1000 + 4096).
  CHECK(engine_limits(ServingEngine::trtllm, EngineMode::offline, h100).limits.max_step_tokens == 8192);
  EngineDevice b200 = h100;
  b200.memory_GiB = 178;
  CHECK(engine_limits(ServingEngine::sglang, EngineMode::server, b200).limits.max_step_tokens == 16384);
}

namespace {

// One device serving `model` in FP8 with an FP8 cache; `inference` adds [inference] keys and any later tables.
Scenario fp8_serving(const std::string& model, const std::string& accelerator, int input_len, int output_len,
                     const std::string& inference) {
  return parse_scenario(fmt::format(R"(
[model]
preset = "{}"
[hardware]
accelerator = "{}"
count = 1
[inference]
input_len = {}
output_len = {}
compute_dtype = "fp8"
weight_dtype = "fp8"
kv_dtype = "fp8"
{}
)",
                                    model, accelerator, input_len, output_len, inference),
                        "engine.toml", PERFCAST_DEFAULT_WORKLOADS, shipped_db());
}

Scenario serving_scenario(const std::string& extra, const std::string& batch = "batch = \"max\"") {
  return fp8_serving("llama3.1-8b", "h100-sxm", 1000, 200, batch + "\n" + extra);
}

// Llama 3.1 70B on one H200.
Scenario llama70b_fp8_h200(int input_len, int output_len, const std::string& inference = "") {
  return fp8_serving("llama3.1-70b", "h200", input_len, output_len, inference);
}

std::string scenario_error(const std::string& extra, const std::string& batch) {
  try {
    serving_scenario(extra, batch);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("step costs: a step without prompt tokens is the decode step, one prompt alone its prefill") {
  const Scenario s = serving_scenario("");
  const SchedulerLimits limits = engine_limits_for(s, EngineMode::server).limits;
  const StepCosts c = step_costs(s, limits);
  const double context = 1000 + 200 / 2.0;
  for (double b : {1.0, 16.0, 93.0})  // points of the grid; between them it interpolates
    CHECK(c.seconds(b, 0) == doctest::Approx(decode_step_seconds(s, b, context)).epsilon(1e-9));
  CHECK(c.seconds(128, 0) == doctest::Approx(decode_step_seconds(s, 128, context)).epsilon(0.02));
  // The prompt's GEMMs are a decode pass's at 1000 tokens (interpolated between grid points).
  CHECK(c.seconds(0, 1000) == doctest::Approx(prefill_seconds(s, 1)).epsilon(0.03));
}

TEST_CASE("64 clients of 1,024 + 8,192 tokens: vLLM and SGLang run more at once than whole requests fit, TensorRT-LLM does not (F-SRV-7)") {
  // Llama 3.1 70B FP8 with an FP8 cache on one H200: 41 whole requests fit, about 74 at their mean
  // length. Reserving whole requests queues the other 23 for a whole generation (minutes); an engine that
  // takes the cache as requests run admits them and preempts some as they grow.
  auto loop = [](const std::string& engine) {
    const Scenario s = llama70b_fp8_h200(1024, 8192, fmt::format("engine = \"{}\"", engine));
    const double fit = std::floor(*memory_for_scenario(s).max_batch);
    return std::pair{fit, closed_loop(s, 64)};
  };
  // SGLang's cache is its mem_fraction_static share (0.907 here) less the same weights and buffers: a larger
  // pool than vLLM's 0.9.
  const Scenario vllm = llama70b_fp8_h200(1024, 8192, "engine = \"vllm\"");
  const Scenario sglang = llama70b_fp8_h200(1024, 8192, "engine = \"sglang\"");
  const MemoryReport mv = memory_for_scenario(vllm), ms = memory_for_scenario(sglang);
  CHECK(ms.capacity_B - mv.capacity_B == doctest::Approx((0.907 - 0.9) * *vllm.hw.device.memory_capacity_B()));
  CHECK(*ms.kv_pool_tokens > *mv.kv_pool_tokens);
  const auto [fit, trt] = loop("trtllm");
  CHECK(trt.result.decoding_mean <= fit);
  CHECK(trt.result.preemptions_per_request == 0);
  CHECK(trt.result.ttft_mean_s > 60);
  for (const char* engine : {"vllm", "sglang"}) {
    CAPTURE(engine);
    const auto [fit_here, e] = loop(engine);
    CHECK(e.result.decoding_mean > fit_here + 5);
    CHECK(e.result.preemptions_per_request > 0);
    CHECK(e.result.ttft_mean_s < trt.result.ttft_mean_s / 3);
    CHECK(e.result.output_tokens_per_s > 0);
  }
}

TEST_CASE("batch = \"max\" and capacity --concurrency: the engine's steady state reaches the outputs") {
  const InferencePrediction p = predict_inference(serving_scenario("engine = \"trtllm\""));
  REQUIRE(p.engine);
  CHECK(p.engine->engine == ServingEngine::trtllm);
  CHECK(p.output_tokens_per_s == doctest::Approx(p.engine->result.output_tokens_per_s));
  CHECK(p.batch == doctest::Approx(p.engine->result.decoding_mean));
  // The steady state cannot beat the static decode of the largest batch that fits.
  CHECK(p.output_tokens_per_s < p.curve.back().tokens_per_s);
  // A sweep's row times its own static batch, whatever the scenario's batch says.
  Scenario row = serving_scenario("engine = \"trtllm\"");
  apply_layout(row, ServeLayout{.devices = 1, .tp = 1, .pp = 1, .ep = 1, .batch = 8, .weights = Precision::fp8, .kv = Precision::fp8});
  const InferencePrediction static8 = predict_inference(row);
  CHECK_FALSE(static8.engine);
  CHECK(static8.batch == 8);
  // An omitted batch is the largest static batch that fits.
  const InferencePrediction omitted = predict_inference(serving_scenario("", ""));
  CHECK(omitted.batch == std::floor(*omitted.max_batch));
  // More clients: more throughput, longer TPOT.
  const Scenario s = serving_scenario("");
  const CapacityReport one = capacity_for_scenario(s, {.concurrency = 1});
  const CapacityReport many = capacity_for_scenario(s, {.concurrency = 64});
  REQUIRE(one.closed_loop);
  REQUIRE(many.closed_loop);
  CHECK(many.closed_loop->result.output_tokens_per_s > 10 * one.closed_loop->result.output_tokens_per_s);
  CHECK(many.closed_loop->result.tpot_mean_s > one.closed_loop->result.tpot_mean_s);
  // A prefix cache holding half of each prompt: half the prompt computed, its attention over the
  // whole; the first token comes sooner.
  const Scenario cached = serving_scenario("[serving]\nprefix_cache_hit_rate = 0.5");
  CHECK(capacity_for_scenario(cached, {.concurrency = 1}).closed_loop->result.ttft_mean_s < 0.6 * one.closed_loop->result.ttft_mean_s);
  // Speculative decoding at α 0.8, γ 3, drafts at 5 % of a step: TPOT falls.
  const Scenario spec = serving_scenario("speculative_alpha = 0.8\ndraft_length = 3\ndraft_cost_ratio = 0.05");
  CHECK(capacity_for_scenario(spec, {.concurrency = 1}).closed_loop->result.tpot_mean_s < 0.5 * one.closed_loop->result.tpot_mean_s);
  // One client: TTFT is one prompt's step, TPOT one decode step of one sequence.
  CHECK(one.closed_loop->result.ttft_mean_s == doctest::Approx(prefill_seconds(s, 1)).epsilon(0.03));
  CHECK(one.closed_loop->result.tpot_mean_s == doctest::Approx(decode_step_seconds(s, 1, 1100)).epsilon(0.05));
}

TEST_CASE("batch = \"max\" with benchmark_requests: a dataset queued at once, as trtllm-bench throughput runs one") {
  // TensorRT-LLM's published table runs a finite dataset per ISL/OSL (perf-overview.md, "$num_requests"),
  // all queued at t = 0, and divides the output tokens by the time to the last completion.
  const InferencePrediction endless = predict_inference(serving_scenario("engine = \"trtllm\""));
  const InferencePrediction dataset = predict_inference(serving_scenario("engine = \"trtllm\"\n[serving]\nbenchmark_requests = 300"));
  REQUIRE(endless.engine);
  REQUIRE(dataset.engine);
  const SimulatedServing& r = dataset.engine->result;
  CHECK(r.requests == 300);   // every request counted
  CHECK(dataset.engine->concurrency == 300);  // all sent at once
  CHECK(dataset.engine->load.find("300 requests, all queued at once") != std::string::npos);
  // The ramp (prompts filling the batch) and the drain cost throughput against the endless queue,
  // and the last of 300 requests queued at once waits for ~300 / batch cohorts before its first token.
  CHECK(dataset.output_tokens_per_s < endless.output_tokens_per_s);
  CHECK(dataset.output_tokens_per_s > 0.5 * endless.output_tokens_per_s);
  CHECK(r.ttft_mean_s > endless.engine->result.ttft_mean_s);
  // Throughput is the output over the run: requests x output_len / the time to the last completion.
  CHECK(r.output_tokens_per_s == doctest::Approx(r.requests_per_s * 200).epsilon(1e-9));
  // A dataset no larger than one cohort is all admitted at once.
  const InferencePrediction small = predict_inference(serving_scenario("engine = \"trtllm\"\n[serving]\nbenchmark_requests = 4"));
  CHECK(small.engine->result.requests == 4);
  CHECK(small.output_tokens_per_s < dataset.output_tokens_per_s);
}

TEST_CASE("decode throughput rises with the batch wherever memory does not bind (no tile cliff)") {
  // Llama 3.1 70B FP8 on one H200, 1000 + 1000 tokens: batch 128 -> 150 used to lose 7 %.
  const Scenario s = llama70b_fp8_h200(1000, 1000);
  // Token tiles step by 8 (F-ROOF-6), as engines' CUDA-graph batch sizes do (vLLM: 8, 16, 24, ...): on
  // those batches throughput only rises; between them a batch pads to the next and loses at most the
  // padding's share (121 runs as 128: 5.5 % where compute binds, as it does at the H200's sustained
  // rate, F-EN-5).
  const double fit = std::floor(*predict_inference(s).max_batch);
  double best = 0, best_on_8 = 0;
  for (double b = 1; b <= fit; ++b) {
    const double tokens_per_s = b / decode_step_seconds(s, b, 1500);
    CAPTURE(b);
    CHECK(tokens_per_s >= best * b / (8 * std::ceil(b / 8)) * (1 - 1e-9));
    if (std::fmod(b, 8) == 0) {
      CHECK(tokens_per_s >= best_on_8 * (1 - 1e-12));
      best_on_8 = tokens_per_s;
    }
    best = std::max(best, tokens_per_s);
  }
}

namespace {

// A [serving] switch replaces the engine's default (`engine_default`) and says so in the rule; a value
// that is not true/false (`bad`) is refused naming the key.
void check_serving_switch(const std::string& engine, const std::string& key, bool SchedulerLimits::*limit, bool engine_default,
                          const std::string& bad) {
  CAPTURE(key);
  const std::string on_engine = "engine = \"" + engine + "\"";
  CHECK(engine_limits_for(serving_scenario(on_engine, "batch = 8"), EngineMode::server).limits.*limit == engine_default);
  const bool given = !engine_default;
  const EngineLimits replaced =
      engine_limits_for(serving_scenario(fmt::format("{}\n[serving]\n{} = {}", on_engine, key, given), "batch = 8"), EngineMode::server);
  CHECK(replaced.limits.*limit == given);
  CHECK(replaced.rule.find(fmt::format("[serving] {} {}", key, given)) != std::string::npos);
  CHECK(scenario_error(fmt::format("[serving]\n{} = {}", key, bad), "").find("serving." + key) != std::string::npos);
}

}  // namespace

TEST_CASE("[serving] mixed_prefill: SGLang's --enable-mixed-chunk reaches the scheduler") {
  check_serving_switch("sglang", "mixed_prefill", &SchedulerLimits::mixed_prefill, false, "1");
}

TEST_CASE("[serving] overlap_scheduling: an engine run without its overlap scheduler") {
  check_serving_switch("trtllm", "overlap_scheduling", &SchedulerLimits::overlap_scheduling, true, "\"yes\"");
}

TEST_CASE("[serving] cuda_graph_padding: TensorRT-LLM's graphs, captured up to its max_batch_size (F-SRV-4)") {
  const std::string trtllm = "engine = \"trtllm\"\n[serving]\nmax_concurrency = 300\ncuda_graph_padding = true";
  // Off by default (CudaGraphConfig.enable_padding); on, the default list: 1, 2, 4, 8, 16, ..., 128.
  CHECK(engine_limits_for(serving_scenario("engine = \"trtllm\""), EngineMode::offline).limits.graph_batch_sizes.empty());
  const std::vector<double> defaults = engine_limits_for(serving_scenario(trtllm), EngineMode::offline).limits.graph_batch_sizes;
  REQUIRE(defaults.size() == 19);
  CHECK(defaults[3] == 8);
  CHECK(defaults.back() == 128);
  // A list given is sorted; sizes above max_batch_size (max_concurrency 300 here) are not captured.
  const EngineLimits given =
      engine_limits_for(serving_scenario(trtllm + "\ncuda_graph_batch_sizes = [512, 1, 256, 64]"), EngineMode::offline);
  CHECK(given.limits.graph_batch_sizes == std::vector<double>{1, 64, 256});
  CHECK(given.rule.find("padded to the next of 3 captured batch sizes") != std::string::npos);
  CHECK(scenario_error("engine = \"trtllm\"\n[serving]\ncuda_graph_batch_sizes = [1, 2]", "").find("serving.cuda_graph_batch_sizes") !=
        std::string::npos);
  CHECK(scenario_error(trtllm + "\ncuda_graph_batch_sizes = [2, 2]", "").find("serving.cuda_graph_batch_sizes") != std::string::npos);
  CHECK(scenario_error(trtllm + "\ncuda_graph_batch_sizes = []", "").find("serving.cuda_graph_batch_sizes") != std::string::npos);
  CHECK(scenario_error(trtllm + "\ncuda_graph_batch_sizes = [0, 8]", "").find("serving.cuda_graph_batch_sizes") != std::string::npos);
  CHECK(scenario_error(trtllm + "\ncuda_graph_batch_sizes = [1.5]", "").find("serving.cuda_graph_batch_sizes") != std::string::npos);
  CHECK_THROWS_WITH_AS(engine_limits_for(serving_scenario("engine = \"vllm\"\n[serving]\ncuda_graph_padding = true"), EngineMode::server),
                       doctest::Contains("serving.cuda_graph_padding"), InputError);
  // Padding only slows: the same run with graphs padded is no faster.
  const double plain = predict_inference(serving_scenario("engine = \"trtllm\"\n[serving]\nmax_concurrency = 300\nbenchmark_requests = 300")).engine->result.output_tokens_per_s;
  const double padded = predict_inference(serving_scenario(trtllm + "\nbenchmark_requests = 300")).engine->result.output_tokens_per_s;
  CHECK(padded <= plain);
  CHECK(padded > 0.5 * plain);
}

TEST_CASE("[serving] scheduler_steps: vLLM 0.6's multi-step scheduling, on its V0 scheduler only (F-SRV-5)") {
  const std::string v0 = "engine = \"vllm\"\n[serving]\nchunked_prefill = false\nmixed_prefill = false";
  CHECK(engine_limits_for(serving_scenario(v0, "batch = 8"), EngineMode::server).limits.decode_round_steps == 1);
  const EngineLimits multi = engine_limits_for(serving_scenario(v0 + "\nscheduler_steps = 10", "batch = 8"), EngineMode::server);
  CHECK(multi.limits.decode_round_steps == 10);
  CHECK(multi.rule.find("[serving] scheduler_steps 10") != std::string::npos);
  // The rounds reach a prediction: a closed loop of 8 clients ends later than with single steps.
  const double single = predict_inference(serving_scenario(v0 + "\nconcurrency = 8", "batch = 8")).closed_loop.value().result.e2e_mean_s;
  const double rounds = predict_inference(serving_scenario(v0 + "\nconcurrency = 8\nscheduler_steps = 10", "batch = 8")).closed_loop.value().result.e2e_mean_s;
  CHECK(rounds > single);
  // Refused, naming the key: another engine, V1's chunked or mixed steps, a count out of range or not whole.
  CHECK_THROWS_WITH_AS(engine_limits_for(serving_scenario("engine = \"trtllm\"\n[serving]\nchunked_prefill = false\nmixed_prefill = false\n"
                                                          "scheduler_steps = 4", "batch = 8"),
                                         EngineMode::server),
                       doctest::Contains("serving.scheduler_steps"), InputError);
  CHECK_THROWS_WITH_AS(engine_limits_for(serving_scenario("engine = \"vllm\"\n[serving]\nscheduler_steps = 4", "batch = 8"), EngineMode::server),
                       doctest::Contains("serving.scheduler_steps"), InputError);
  CHECK_THROWS_WITH_AS(engine_limits_for(serving_scenario("engine = \"vllm\"\nspeculative_alpha = 0.7\ndraft_length = 3\ndraft_cost_ratio = 0.05\n"
                                                          "[serving]\nchunked_prefill = false\nmixed_prefill = false\nscheduler_steps = 4", "batch = 8"),
                                         EngineMode::server),
                       doctest::Contains("serving.scheduler_steps"), InputError);
  CHECK(scenario_error("[serving]\nscheduler_steps = 0", "").find("serving.scheduler_steps") != std::string::npos);
  CHECK(scenario_error("[serving]\nscheduler_steps = 2.5", "").find("serving.scheduler_steps") != std::string::npos);
  CHECK(scenario_error("[serving]\nscheduler_steps = 100000", "").find("serving.scheduler_steps") != std::string::npos);
}

TEST_CASE("bad engine keys: one line naming the key") {
  CHECK(scenario_error("", "batch = \"all\"").find("inference.batch") != std::string::npos);
  CHECK(scenario_error("engine = \"tgi\"", "").find("inference.engine") != std::string::npos);
  CHECK(scenario_error("[serving]\nmax_batched_tokens = 0", "").find("serving.max_batched_tokens") != std::string::npos);
  CHECK(scenario_error("[serving]\nprefix_cache_hit_rate = 1", "").find("serving.prefix_cache_hit_rate") != std::string::npos);
  CHECK(scenario_error("[serving]\nlength_min_fraction = 0", "").find("serving.length_min_fraction") != std::string::npos);
  CHECK(scenario_error("[serving]\nlength_min_fraction = 0.8\nlength_cv2 = 1", "").find("serving.length_min_fraction") != std::string::npos);
  CHECK(scenario_error("[serving]\narrival_rate = 2\nbenchmark_requests = 40", "").find("serving.benchmark_requests") != std::string::npos);
  CapacityRequest at_rate;
  at_rate.rate = 1;
  at_rate.ttft_slo_s = 1;
  CHECK_THROWS_WITH_AS(capacity_for_scenario(serving_scenario("[serving]\nbenchmark_requests = 40", ""), at_rate),
                       doctest::Contains("serving.benchmark_requests"), InputError);
  const Scenario tiny = serving_scenario("speculative_alpha = 0.8\ndraft_length = 3\ndraft_cost_ratio = 0.05\n[serving]\nmax_batched_tokens = 2");
  CHECK_THROWS_WITH_AS(predict_inference(tiny), doctest::Contains("serving.max_batched_tokens"), InputError);
  // A vision model has no engine steady state.
  const Scenario vision = parse_scenario(R"(
[model]
preset = "mobilenet-v2"
[hardware]
accelerator = "coral-usb"
[inference]
batch = "max"
)",
                                         "vision.toml", PERFCAST_DEFAULT_WORKLOADS, shipped_db());
  CHECK_THROWS_WITH_AS(predict_inference(vision), doctest::Contains("inference.batch"), InputError);
}

TEST_CASE("decode throughput never falls as the batch grows: every shipped GPU to 64, the GeForce and L40S parts to what fits") {
  // Llama 3.1 8B in each part's default math format, 1024 + 1024 tokens, on vLLM's CUDA-graph batch
  // sizes (8, 16, 24, ...): a bigger batch reads the same weights, so where the KV cache does not bind
  // tokens/s only rise. Up to 64 tokens a GEMM runs in one row of tiles, split over K where its tiles
  // leave SMs idle (F-ROOF-9); beyond, the classic tiles' padding still costs a step on Ampere-class
  // parts (72 and 136 tokens pad to 128 and 256), not asserted here.
  for (const Record* r : shipped_db().records_of(schema::Kind::accelerator)) {
    const AcceleratorSpec& a = shipped_db().accelerator(r->name);
    if (!a.gpu || !a.memory_bandwidth_Bps) continue;
    CAPTURE(a.name);
    const std::string text = fmt::format("schema_version = 1\n[model]\npreset = \"llama3.1-8b\"\n[hardware]\naccelerator = \"{}\"\n"
                                         "count = 1\n[inference]\ninput_len = 1024\noutput_len = 1024\n",
                                         a.name);
    std::optional<double> fit;
    try {
      fit = predict_inference(parse_scenario(text, "gpu.toml", PERFCAST_DEFAULT_WORKLOADS, shipped_db())).max_batch;
    } catch (const InputError&) {
      continue;  // the weights do not fit the part (Orin Nano 8GB)
    }
    if (!fit || *fit < 8) continue;
    const Scenario s = parse_scenario(text, "gpu.toml", PERFCAST_DEFAULT_WORKLOADS, shipped_db());
    const bool whole_range = a.name == "rtx-4090" || a.name == "l40s";
    double last = 0;
    for (double b = 8; b <= std::min(*fit, whole_range ? 512.0 : 64.0); b += 8) {
      CAPTURE(b);
      const double tokens_per_s = b / decode_step_seconds(s, b, 1536);
      CHECK(tokens_per_s >= last * (1 - 1e-12));
      last = tokens_per_s;
    }
  }
}

TEST_CASE("RTX 4090 batch-1 decode is memory-bound and beats the L40S, which has less bandwidth") {
  // Llama 3.1 8B BF16: the decode GEMMs' few tiles split over K (F-ROOF-9), so the weights' bytes set
  // the step: 1008 GB/s against the L40S's 864.
  const auto step = [](std::string_view hw) {
    const Scenario s = parse_scenario(fmt::format("schema_version = 1\n[model]\npreset = \"llama3.1-8b\"\n[hardware]\naccelerator = \"{}\"\n"
                                                  "count = 1\n[inference]\ninput_len = 1024\noutput_len = 1\nbatch = 1\ncompute_dtype = \"bf16\"\n",
                                                  hw),
                                      "gpu.toml", PERFCAST_DEFAULT_WORKLOADS, shipped_db());
    return std::pair{decode_step_seconds(s, 1, 1024), roofline_for_pass(s, models::Phase::decode, 1, 1024, models::default_efficiency())};
  };
  const auto [geforce, geforce_ops] = step("rtx-4090");
  const auto [l40s, l40s_ops] = step("l40s");
  CHECK(geforce < l40s);
  for (const RooflineReport* r : {&geforce_ops, &l40s_ops})
    for (const RooflineSection& sec : r->sections)
      for (const RooflineRow& row : sec.rows) {
        CAPTURE(row.op.name);
        if (row.op.kind == models::OpKind::gemm) CHECK(row.timing.bound != models::Bound::compute);
      }
  // Within 10 % of the weights' bytes at the roofline's streaming rate (16.06 GB of BF16 weights).
  CHECK(geforce == doctest::Approx(16.06e9 / (1008e9 * 0.90)).epsilon(0.10));
}
