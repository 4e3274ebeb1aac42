#include "models/scheduler_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iterator>
#include <random>
#include <stdexcept>

namespace perfcast::models {
namespace {

// The fields every step reads first, together; those read once per request after them.
struct Request {
  long in = 1, out = 1;  // prompt tokens computed, output tokens
  long prefill = 1;      // tokens to compute before its next output token: the prompt, after a preemption the output so far too
  long prompt_done = 0;  // of prefill
  long chunk = 0;        // prompt tokens scheduled in the current step
  double generated = 0;  // output tokens so far (fractional under speculation: the mean kept per step)
  double finish = -1;
  double last_chunk = -1;    // when the client last received tokens
  bool decoding = false;     // scheduled for a decode token in the current step
  bool undelivered = false;  // tokens generated since then (held until a multi-step round ends)
  double arrival = 0, first_token = -1;
  double admitted = -1;  // start of the first step that schedules it
  long eligible_step = 0, admitted_step = 0;  // the first step it could join, the one it joined
  long finish_step = 0;  // the step after its last token (with overlap scheduling it still takes a decode slot there)
  double cached = 0;     // tokens in its KV cache (fractional under speculation)
  long blocks = 0;       // KV blocks it holds (paged admission)
  long room = 0;         // slots free in them: blocks × block − ⌈cached⌉
  bool resumed_token = false;  // the step that recomputed it after a preemption gave it a token
};

// SGLang's admission estimate (KvAdmission::reserved_estimate): python/sglang/srt/managers/schedule_policy.py
// (CLIP_MAX_NEW_TOKENS_ESTIMATION, env SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION, default 4096) and
// global_config.py (v0.4.3; srt/environ.py from v0.5.3): new_token_ratio from 0.7 ×
// schedule_conservativeness (1.0) down to 0.14 of that over 600 decode steps; retract_decode_steps 20.
constexpr double kSglangClipOutput = 4096;
constexpr double kSglangInitRatio = 0.7, kSglangMinRatio = 0.7 * 0.14, kSglangDecaySteps = 600;
constexpr long kSglangRetractSteps = 20;

// The nearest rank (1-based) of the `p` percentile in a sample of n > 0.
std::size_t nearest_rank(double p, std::size_t n) {
  return std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(p * static_cast<double>(n))), 1, n);
}

// Gaps between streamed chunks, as (gap, how many) with equal gaps of one step merged: most requests
// of a step share one.
struct ChunkGaps {
  std::vector<std::pair<double, long>> gaps;
  void add(double gap, std::size_t step_begin) {
    for (std::size_t i = step_begin; i < gaps.size(); ++i)
      if (gaps[i].first == gap) return void(++gaps[i].second);
    gaps.emplace_back(gap, 1);
  }
  // Mean, median and the `p` percentile (nearest rank, as quantile() over the expanded sample); sorts.
  void summarise(double p, double& mean_out, double& p50_out, double& p_out) {
    std::sort(gaps.begin(), gaps.end());
    double sum = 0;
    std::size_t n = 0;
    for (const auto& [gap, count] : gaps) sum += gap * static_cast<double>(count), n += static_cast<std::size_t>(count);
    mean_out = p50_out = p_out = 0;
    if (n == 0) return;
    mean_out = sum / static_cast<double>(n);
    auto at_rank = [&](double q) {
      const std::size_t rank = nearest_rank(q, n);
      std::size_t seen = 0;
      for (const auto& [gap, count] : gaps)
        if ((seen += static_cast<std::size_t>(count)) >= rank) return gap;
      return gaps.back().first;
    };
    p50_out = at_rank(0.5), p_out = at_rank(p);
  }
};

// Nearest-rank percentile of an unsorted sample.
double quantile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[nearest_rank(p, v.size()) - 1];
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

}  // namespace

double StepCosts::seconds(double decodes, double prompt_tokens, double tokens_per_decode, double draft_steps,
                          double draft_cost_ratio, double padded_decodes) const {
  const double rows = std::max(decodes, padded_decodes);
  double t = interpolate_steps(token_work, rows * tokens_per_decode + prompt_tokens) + prompt_tokens * prefill_attention_per_token_s;
  if (decodes > 0) {
    // The verified tokens read each sequence's KV cache once, as one decode token does.
    const double attention = interpolate_steps(decode_attention, decodes);
    t += attention;
    if (draft_steps > 0) t += draft_steps * draft_cost_ratio * (interpolate_steps(token_work, rows) + attention);
  }
  return t;
}

SimulatedServing simulate_serving(const StepCosts& costs, const SchedulerLimits& limits, const RequestShape& shape, const Load& load,
                                  double percentile) {
  const long prompt = std::lround(shape.input_len), mean_out = std::lround(shape.output_len);
  const double min_fraction = shape.length_min_fraction;
  const long max_running = static_cast<long>(std::floor(limits.max_sequences));
  const long budget_per_step = static_cast<long>(std::floor(limits.max_step_tokens));
  const bool closed = load.kind == LoadKind::closed_loop;
  if (!(min_fraction > 0 && min_fraction <= 1) || (min_fraction < 1 && shape.output_len_cv2 > 0))
    throw std::invalid_argument("simulate_serving: lengths are fixed, gamma-spread or uniform from a fraction of the longest, one of them");
  if (load.benchmark_requests < 0 || (load.benchmark_requests > 0 && !closed))
    throw std::invalid_argument("simulate_serving: a finite benchmark is a closed loop of at least one request");
  if (prompt < 1 || mean_out < 1 || !(shape.output_len_cv2 >= 0) || !(load.arrival_cv2 > 0) || max_running < 1 || budget_per_step < 1 || costs.token_work.empty() || costs.decode_attention.empty())
    throw std::invalid_argument("simulate_serving: lengths, limits and step costs must be positive");
  if (closed ? !(load.concurrency >= 1) : !(load.rate > 0 && std::isfinite(load.rate)))
    throw std::invalid_argument("simulate_serving: the load must be at least one client or a positive rate");
  if (!(percentile > 0 && percentile < 1)) throw std::invalid_argument("simulate_serving: the percentile must lie in (0, 1)");
  if (!std::is_sorted(limits.graph_batch_sizes.begin(), limits.graph_batch_sizes.end()) ||
      std::any_of(limits.graph_batch_sizes.begin(), limits.graph_batch_sizes.end(), [](double b) { return !(b >= 1); }))
    throw std::invalid_argument("simulate_serving: CUDA-graph batch sizes must be ascending and at least 1");
  const long round_steps = limits.decode_round_steps;
  if (round_steps < 1 || (round_steps > 1 && (limits.mixed_prefill || limits.chunked_prefill || limits.speculation.draft_tokens > 0)))
    throw std::invalid_argument("simulate_serving: decode rounds of one step or more, longer ones only with unchunked prompts in steps of their own");
  const Speculation& spec = limits.speculation;
  const long per_decode = spec.draft_tokens + 1;  // budget tokens a decoding sequence takes a step
  if (spec.draft_tokens < 0 || !(spec.tokens_per_step >= 1 && spec.tokens_per_step <= spec.draft_tokens + 1) || !(spec.draft_cost_ratio >= 0) ||
      budget_per_step < per_decode)
    throw std::invalid_argument("simulate_serving: speculation needs 1 <= tokens kept <= draft tokens + 1 <= the step budget");
  // Paged admission (F-SRV-7): the pool in blocks, free ones counted as requests take and release them.
  const KvPool& kv = limits.kv;
  const bool paged = kv.admission != KvAdmission::whole_request;
  const long block = paged && kv.block_tokens >= 1 && kv.block_tokens <= 1024 ? std::lround(kv.block_tokens) : 1;
  auto blocks_for = [block](double tokens) {
    const auto t = static_cast<long>(std::ceil(tokens));
    return block == 1 ? t : (t + block - 1) / block;  // SGLang's one-token pages take a block every step: no division
  };
  const long pool_blocks = paged && kv.tokens >= 1 && kv.tokens <= 1e15 ? static_cast<long>(std::floor(kv.tokens / static_cast<double>(block))) : 0;
  if (paged && (std::lround(kv.block_tokens) != block || pool_blocks < blocks_for(static_cast<double>(prompt + mean_out))))
    throw std::invalid_argument("simulate_serving: a paged KV pool holds whole blocks of 1 to 1024 tokens and at least one whole request");

  const long finite = load.benchmark_requests;  // a benchmark of this many requests, all counted (0: steady state)
  const long clients = closed ? finite > 0 ? std::min(static_cast<long>(std::floor(load.concurrency)), finite)
                                           : static_cast<long>(std::floor(load.concurrency))
                              : 0;
  const long warmup = finite > 0 ? 0 : load.warmup > 0 ? load.warmup : closed ? std::max(clients, 20L) : 200;
  const long measured = finite > 0 ? finite : load.measured > 0 ? load.measured : closed ? std::max(2 * clients, 200L) : 2000;
  const long last = warmup + measured;  // requests [warmup, last) are measured

  std::vector<Request> requests;
  requests.reserve(static_cast<std::size_t>(last + clients));
  std::deque<long> waiting;
  std::vector<long> running;
  long steps = 0;
  // Output lengths: fixed, or gamma with the mean and C² asked (shape 1/C²), from their own stream.
  // Uniform lengths: prompt and output each from [⌊f·L⌋, L], from a third stream.
  std::mt19937_64 length_random(load.seed + 1), uniform_random(load.seed + 2);
  std::gamma_distribution<double> length(shape.output_len_cv2 > 0 ? 1 / shape.output_len_cv2 : 1,
                                         shape.output_len_cv2 > 0 ? shape.output_len * shape.output_len_cv2 : 1);
  auto uniform = [&](long longest) {
    return std::uniform_int_distribution<long>(std::max(1L, static_cast<long>(std::floor(min_fraction * static_cast<double>(longest)))), longest)(uniform_random);
  };
  // A request can join the step `after` steps from now: one that arrives while a step runs joins the
  // next, or with overlap scheduling the one after (that step was scheduled when this one began).
  const long overlap = limits.overlap_scheduling ? 1 : 0;
  double longest_output = 0;  // of the requests issued so far (bounds SGLang's reservation)
  auto issue = [&](double at, long after) {
    const long in = min_fraction < 1 ? uniform(prompt) : prompt;
    const long out = shape.output_len_cv2 > 0 ? std::max(1L, std::lround(length(length_random))) : min_fraction < 1 ? uniform(mean_out) : mean_out;
    requests.push_back({.in = in, .out = out, .prefill = in, .arrival = at, .eligible_step = steps + after});
    longest_output = std::max(longest_output, static_cast<double>(out));
    return static_cast<long>(requests.size()) - 1;
  };
  // Arrivals at a rate: gaps from one seeded stream scaled by the rate, so a higher rate moves the
  // same arrivals closer together.
  std::vector<double> arrivals;
  if (closed) {
    for (long i = 0; i < clients; ++i) waiting.push_back(issue(0, 0));
  } else {
    // Gaps of mean 1/rate: gamma with shape 1/C_a² (exponential at 1).
    std::mt19937_64 random(load.seed);
    std::gamma_distribution<double> gap(1 / load.arrival_cv2, load.arrival_cv2);
    double at = 0;
    for (long i = 0; i < last; ++i) arrivals.push_back(at += gap(random) / load.rate);
  }
  std::size_t next_arrival = 0;
  long free_blocks = pool_blocks;
  bool preempted_now = false;  // vLLM admits no waiting request in a step that preempted
  // SGLang's new_token_ratio; the tokens free when the step's admission began, what its admissions reserved of
  // them, the running requests' reservation (summed when first needed; -1 before) and the longest output issued.
  double ratio = kSglangInitRatio, free_at_admission = 0, reserved = 0, running_reserve = -1;
  long admitted_now = 0;  // requests the step's admission appended to `running`
  long preempted_in_window = 0;
  // The first waiting request may join this step: it has reached the engine and a slot is free.
  auto admissible = [&] {
    return !waiting.empty() && requests[static_cast<std::size_t>(waiting.front())].eligible_step <= steps &&
           static_cast<long>(running.size()) < max_running && !preempted_now;
  };
  double t = 0;
  long round_left = 0;  // steps left in the current multi-step decode round (F-SRV-5)
  long measured_done = 0;
  double window_start = finite > 0 ? 0 : -1, window_decode_time = 0, window_prompt_tokens = 0, window_prompt_time = 0, window_busy = 0;
  long window_steps = 0;
  std::vector<double> finishes;  // every completion, for the window's throughput
  ChunkGaps chunk_gaps;          // of the measured requests
  const bool track_gaps = load.chunk_gaps;
  // SGLang's estimate of the tokens a request still needs: its output left, clipped.
  auto output_left = [](const Request& r) { return std::min(kSglangClipOutput, static_cast<double>(r.out) - std::floor(r.generated)); };
  // Whether the cache takes a request's first `chunk` tokens. An idle engine takes any request (a spread
  // output may make one longer than the pool; the engines refuse those up front).
  auto kv_admits = [&](const Request& r, long chunk) {
    if (running.empty()) return true;
    switch (kv.admission) {
      case KvAdmission::whole_request: return true;
      case KvAdmission::on_demand: return blocks_for(static_cast<double>(chunk)) <= free_blocks;
      case KvAdmission::reserved_estimate: {
        // The running requests' reservation is at most the ratio times a clipped longest output each: a
        // request that fits beside that fits beside the sum, which is taken only where it does not.
        const double need = static_cast<double>(r.prefill) + output_left(r), room = free_at_admission - reserved;
        if (running_reserve < 0 && need < room - ratio * std::min(kSglangClipOutput, longest_output) * static_cast<double>(running.size()))
          return true;
        if (running_reserve < 0) {
          running_reserve = 0;
          // Those the step admitted (at the back) reserved in full already.
          for (std::size_t i = 0; i + static_cast<std::size_t>(admitted_now) < running.size(); ++i)
            running_reserve += output_left(requests[static_cast<std::size_t>(running[i])]) * ratio;
        }
        return need < room - running_reserve;
      }
    }
    return true;
  };
  // A running request's cache freed; it waits to be computed again, its output so far as prompt.
  auto preempt = [&](long id, bool to_front) {
    Request& q = requests[static_cast<std::size_t>(id)];
    free_blocks += q.blocks;
    q.blocks = q.room = 0, q.cached = 0, q.prompt_done = q.chunk = 0, q.decoding = q.resumed_token = false;
    q.prefill = q.in + (q.first_token >= 0 ? static_cast<long>(std::floor(q.generated)) : 0);
    q.eligible_step = steps + 1;
    if (window_start >= 0) ++preempted_in_window;
    to_front ? waiting.push_front(id) : waiting.push_back(id);
  };

  while (measured_done < measured) {
    if (!closed) {
      // These arrived while the last step ran.
      while (next_arrival < arrivals.size() && arrivals[next_arrival] <= t) waiting.push_back(issue(arrivals[next_arrival++], overlap));
      if (running.empty() && waiting.empty()) {
        t = arrivals[next_arrival];
        continue;
      }
    }
    preempted_now = false;
    // An engine with nothing to run waits for requests and schedules what has arrived at once; SGLang's
    // estimate starts afresh when it idles.
    if (running.empty()) ratio = kSglangInitRatio;
    if (running.empty() && !admissible())
      for (long id : waiting) requests[static_cast<std::size_t>(id)].eligible_step = std::min(requests[static_cast<std::size_t>(id)].eligible_step, steps);
    long budget = budget_per_step, decodes = 0, prompt_tokens = 0;
    // SGLang reserves for the running requests' outputs before it admits (PrefillAdder).
    reserved = 0, running_reserve = -1, free_at_admission = static_cast<double>(free_blocks * block), admitted_now = 0;
    // Within a multi-step round the step was scheduled when the round began: every running request
    // decodes (one done generating too, its token discarded) and nothing is admitted.
    const bool in_round = round_left > 0;
    // Unmixed: prompts first, whenever one continues or a waiting one can be admitted; the decodes
    // then wait for a step of their own.
    const bool prompts_only =
        !in_round && !limits.mixed_prefill &&
        ((admissible() && kv_admits(requests[static_cast<std::size_t>(waiting.front())],
                                    std::min(requests[static_cast<std::size_t>(waiting.front())].prefill, budget))) ||
         std::any_of(running.begin(), running.end(), [&](long id) {
           const Request& r = requests[static_cast<std::size_t>(id)];
           return r.prompt_done < r.prefill;
         }));
    // SGLang's decode step first checks that every decoding request has a free slot; short of them it
    // retracts, fewest output tokens first (on a tie the longest prompt), until 20 slots a request are
    // free, and raises the ratio (schedule_batch.py retract_decode); a step that had room lowers it.
    if (kv.admission == KvAdmission::reserved_estimate && !prompts_only && !in_round) {
      // Counted only where the pool could be short: every running request decoding would fit.
      auto decodes_next = [&](long id) { return requests[static_cast<std::size_t>(id)].prompt_done == requests[static_cast<std::size_t>(id)].prefill; };
      const auto n = free_blocks * block >= static_cast<long>(running.size()) * per_decode
                         ? static_cast<long>(running.size())
                         : static_cast<long>(std::count_if(running.begin(), running.end(), decodes_next));
      if (n > 1 && free_blocks * block < n * per_decode) {
        std::vector<long> decoding;
        std::copy_if(running.begin(), running.end(), std::back_inserter(decoding), decodes_next);
        std::sort(decoding.begin(), decoding.end(), [&](long a, long b) {
          const Request &x = requests[static_cast<std::size_t>(a)], &y = requests[static_cast<std::size_t>(b)];
          return std::floor(x.generated) != std::floor(y.generated) ? x.generated > y.generated : x.in < y.in;
        });
        std::vector<long> retracted;
        do {
          retracted.push_back(decoding.back());
          preempt(decoding.back(), false);
          decoding.pop_back();
        } while (decoding.size() > 1 && free_blocks * block < static_cast<long>(decoding.size()) * kSglangRetractSteps);
        std::erase_if(running, [&](long id) { return std::find(retracted.begin(), retracted.end(), id) != retracted.end(); });
        double decoded = 0, outputs = 0;
        for (long id : decoding) decoded += std::floor(requests[static_cast<std::size_t>(id)].generated), outputs += static_cast<double>(requests[static_cast<std::size_t>(id)].out);
        ratio = std::min(1.0, (decoded + static_cast<double>(kSglangRetractSteps * static_cast<long>(decoding.size()))) / std::max(1.0, outputs));
      } else if (n > 0) {
        ratio = std::max(kSglangMinRatio, ratio - (kSglangInitRatio - kSglangMinRatio) / kSglangDecaySteps);
      }
    }
    for (std::size_t i = 0; i < running.size(); ++i) {
      const long id = running[i];
      Request& r = requests[static_cast<std::size_t>(id)];
      r.chunk = 0;
      r.decoding = r.resumed_token = false;
      const bool decode = r.prompt_done == r.prefill;
      long tokens = 0;  // cache slots the step writes for it
      if (decode) {
        if (!prompts_only && budget >= per_decode) tokens = per_decode;
      } else {
        const long left = r.prefill - r.prompt_done;
        tokens = limits.chunked_prefill ? std::min(left, budget) : left <= budget ? left : 0;
      }
      // Most steps a request writes into a block it holds already.
      if (paged && tokens > r.room) {
        const long need = blocks_for(std::ceil(r.cached) + static_cast<double>(tokens)) - r.blocks;
        // vLLM preempts the newest running requests, this one last; a lone request runs over the cache
        // rather than preempt itself for ever (vLLM refuses a request longer than max_model_len, which
        // must fit the cache: check_enough_kv_cache_memory).
        bool preempted_self = false;
        while (kv.admission == KvAdmission::on_demand && need > free_blocks && running.size() > 1 && !preempted_self) {
          preempted_self = running.back() == id;
          preempt(running.back(), true);
          running.pop_back();
          preempted_now = true;
        }
        if (preempted_self) break;
        free_blocks -= need, r.blocks += need, r.room += need * block;
      }
      if (decode) {
        if (tokens > 0) r.decoding = true, budget -= per_decode, ++decodes;
      } else {
        r.chunk = tokens;
        budget -= r.chunk, prompt_tokens += r.chunk;
      }
    }
    while (!in_round && (limits.mixed_prefill || prompts_only) && admissible() && budget > 0) {
      Request& r = requests[static_cast<std::size_t>(waiting.front())];
      // Without chunking a prompt longer than the whole budget runs alone rather than never.
      const bool alone = decodes == 0 && prompt_tokens == 0;
      const long chunk = limits.chunked_prefill ? std::min(r.prefill, budget) : r.prefill <= budget || alone ? r.prefill : 0;
      if (chunk == 0 || !kv_admits(r, chunk)) break;
      r.chunk = chunk;
      r.decoding = r.resumed_token = false;
      if (r.admitted < 0) r.admitted = t, r.admitted_step = steps;
      if (paged) {
        const long need = blocks_for(static_cast<double>(chunk));
        free_blocks -= need, r.blocks = need, r.room = need * block;
      }
      if (kv.admission == KvAdmission::reserved_estimate) reserved += static_cast<double>(r.prefill) + output_left(r);
      budget -= r.chunk, prompt_tokens += r.chunk;
      running.push_back(waiting.front());
      waiting.pop_front();
      ++admitted_now;
    }
    if (decodes == 0 && prompt_tokens == 0) throw std::invalid_argument("simulate_serving: a step with nothing to run");
    // F-SRV-5: a decode-only step scheduled afresh begins a round.
    if (!in_round && round_steps > 1 && prompt_tokens == 0) round_left = round_steps;
    // F-SRV-4: a decode-only step runs the smallest captured CUDA graph that holds it.
    double padded = static_cast<double>(decodes);
    if (prompt_tokens == 0) {
      const auto graph = std::lower_bound(limits.graph_batch_sizes.begin(), limits.graph_batch_sizes.end(), padded);
      if (graph != limits.graph_batch_sizes.end()) padded = *graph;
    }
    const double dt = costs.seconds(static_cast<double>(decodes), static_cast<double>(prompt_tokens), static_cast<double>(per_decode),
                                    spec.draft_tokens, spec.draft_cost_ratio, padded);
    if (!(dt > 0)) throw std::invalid_argument("simulate_serving: a step must take positive time");
    t += dt;
    ++steps;
    if (window_start >= 0) {
      window_decode_time += static_cast<double>(decodes) * dt;
      window_prompt_tokens += static_cast<double>(prompt_tokens);
      window_busy += dt;
      window_prompt_time += dt * static_cast<double>(prompt_tokens) / static_cast<double>(decodes * per_decode + prompt_tokens);
      ++window_steps;
    }
    // A round's tokens reach the clients when it ends: a request done within it finishes then.
    if (round_left > 0) --round_left;
    const bool round_open = round_left > 0;
    long finished_now = 0;
    for (long id : running) {
      Request& r = requests[static_cast<std::size_t>(id)];
      // The cache keeps the tokens written (under speculation the slots of rejected drafts are written again).
      if (r.decoding) {
        r.generated += spec.tokens_per_step, r.cached += spec.tokens_per_step;
        r.room = spec.draft_tokens > 0 ? r.blocks * block - static_cast<long>(std::ceil(r.cached)) : r.room - 1;
      }
      // The step that completes a prompt gives its first token; one that completes a preempted request's
      // recomputation, its next.
      if (r.chunk > 0) {
        r.cached += static_cast<double>(r.chunk), r.room -= r.chunk;
        if ((r.prompt_done += r.chunk) == r.prefill) {
          if (r.first_token < 0) r.first_token = r.last_chunk = t, r.generated = 1;
          else r.generated += 1, r.resumed_token = true;
        }
      }
      if (r.generated >= static_cast<double>(r.out) - 1e-9 && r.finish < 0 && !round_open) {
        r.finish = t, r.finish_step = steps;
        finishes.push_back(t);
        ++finished_now;
        if (id >= warmup && id < last) ++measured_done;
      }
    }
    // The client receives what a request generated since its last chunk: each step's tokens, a round's
    // when the round ends; not a token past the stop (an overlap-scheduled step's). Most of a step's
    // gaps are one, counted here; the others are merged into chunk_gaps. A pass of its own, so that a
    // simulation without the gaps pays nothing for them.
    if (track_gaps) {
      const std::size_t step_gaps = chunk_gaps.gaps.size();
      double common_gap = -1;
      long common_count = 0;
      for (long id : running) {
        Request& r = requests[static_cast<std::size_t>(id)];
        const bool produced = (r.decoding && (r.finish < 0 || r.finish_step == steps)) || r.resumed_token;
        if (!produced && !r.undelivered) continue;
        if (round_open) {
          r.undelivered = true;
          continue;
        }
        if (id >= warmup && id < last) {
          const double gap = t - r.last_chunk;
          if (gap == common_gap) ++common_count;
          else if (common_count == 0) common_gap = gap, common_count = 1;
          else chunk_gaps.add(gap, step_gaps);
        }
        r.last_chunk = t, r.undelivered = false;
      }
      if (common_count > 0) chunk_gaps.gaps.emplace_back(common_gap, common_count);
    }
    // With overlap scheduling the step after a request's last token was scheduled before its stop was
    // seen: it decodes once more, and its slot is free from the step after that.
    std::erase_if(running, [&](long id) {
      Request& r = requests[static_cast<std::size_t>(id)];
      const bool done = r.finish >= 0 && steps >= r.finish_step + overlap;
      if (done) free_blocks += r.blocks, r.blocks = 0;
      return done;
    });
    if (closed)
      for (long i = 0; i < finished_now && (finite == 0 || static_cast<long>(requests.size()) < finite); ++i) {
        const long id = issue(t, load.reissue_steps + overlap);
        if (id == warmup) window_start = t;
        waiting.push_back(id);
      }
    else if (window_start < 0 && next_arrival > static_cast<std::size_t>(warmup))
      window_start = arrivals[static_cast<std::size_t>(warmup)];
  }

  SimulatedServing s;
  s.percentile = percentile;
  s.requests = static_cast<int>(measured);
  s.warmup = static_cast<int>(warmup);
  s.steps = steps;
  std::vector<double> ttft, tpot, e2e, admission, prompt_time;
  double window_end = 0, output_tokens = 0;
  long waited = 0;
  for (long id = warmup; id < last; ++id) {
    const Request& r = requests[static_cast<std::size_t>(id)];
    admission.push_back(r.admitted - r.arrival);
    prompt_time.push_back(r.first_token - r.admitted);
    if (r.admitted_step > r.eligible_step) ++waited;
    ttft.push_back(r.first_token - r.arrival);
    e2e.push_back(r.finish - r.arrival);
    if (r.out > 1) tpot.push_back((r.finish - r.first_token) / static_cast<double>(r.out - 1));
    output_tokens += static_cast<double>(r.out);
    window_end = std::max(window_end, r.finish);
  }
  if (window_start < 0) window_start = requests[static_cast<std::size_t>(warmup)].arrival;
  const double window = window_end - window_start;
  const long completions = std::count_if(finishes.begin(), finishes.end(), [&](double f) { return f > window_start && f <= window_end; });
  s.requests_per_s = window > 0 ? static_cast<double>(completions) / window : 0;
  s.output_tokens_per_s = s.requests_per_s * output_tokens / static_cast<double>(measured);
  s.ttft_mean_s = mean(ttft), s.ttft_p50_s = quantile(ttft, 0.5), s.ttft_p_s = quantile(ttft, percentile);
  s.tpot_mean_s = mean(tpot), s.tpot_p50_s = quantile(tpot, 0.5), s.tpot_p_s = quantile(tpot, percentile);
  s.e2e_mean_s = mean(e2e), s.e2e_p50_s = quantile(e2e, 0.5), s.e2e_p_s = quantile(e2e, percentile);
  s.chunk_gaps = track_gaps;
  if (track_gaps) chunk_gaps.summarise(percentile, s.itl_mean_s, s.itl_p50_s, s.itl_p_s);
  if (window_steps > 0 && window > 0) {
    s.decoding_mean = window_decode_time / window;
    s.prompt_tokens_per_step = window_prompt_tokens / static_cast<double>(window_steps);
    s.step_mean_s = window / static_cast<double>(window_steps);
  }
  s.in_system_mean = s.requests_per_s * s.e2e_mean_s;
  s.admission_wait_probability = static_cast<double>(waited) / static_cast<double>(measured);
  s.admission_wait_mean_s = mean(admission);
  s.prompt_mean_s = mean(prompt_time);
  s.preemptions_per_request = static_cast<double>(preempted_in_window) / static_cast<double>(measured);
  if (window > 0) s.prompt_time_share = window_prompt_time / window, s.busy_share = std::min(1.0, window_busy / window);
  return s;
}

}  // namespace perfcast::models
