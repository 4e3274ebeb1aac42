#include "models/scheduler_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <random>
#include <stdexcept>

namespace perfcast::models {
namespace {

// The fields every step reads first, together; those read once per request after them.
struct Request {
  long in = 1, out = 1;  // prompt tokens computed, output tokens
  long prompt_done = 0;
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
};

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
  auto issue = [&](double at, long after) {
    const long in = min_fraction < 1 ? uniform(prompt) : prompt;
    const long out = shape.output_len_cv2 > 0 ? std::max(1L, std::lround(length(length_random))) : min_fraction < 1 ? uniform(mean_out) : mean_out;
    requests.push_back({.in = in, .out = out, .arrival = at, .eligible_step = steps + after});
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
  // The first waiting request may join this step: it has reached the engine and a slot is free.
  auto admissible = [&] {
    return !waiting.empty() && requests[static_cast<std::size_t>(waiting.front())].eligible_step <= steps &&
           static_cast<long>(running.size()) < max_running;
  };

  double t = 0;
  long round_left = 0;  // steps left in the current multi-step decode round (F-SRV-5)
  long measured_done = 0;
  double window_start = finite > 0 ? 0 : -1, window_decode_time = 0, window_prompt_tokens = 0, window_prompt_time = 0, window_busy = 0;
  long window_steps = 0;
  std::vector<double> finishes;  // every completion, for the window's throughput
  ChunkGaps chunk_gaps;          // of the measured requests
  const bool track_gaps = load.chunk_gaps;
  while (measured_done < measured) {
    if (!closed) {
      // These arrived while the last step ran.
      while (next_arrival < arrivals.size() && arrivals[next_arrival] <= t) waiting.push_back(issue(arrivals[next_arrival++], overlap));
      if (running.empty() && waiting.empty()) {
        t = arrivals[next_arrival];
        continue;
      }
    }
    // An engine with nothing to run waits for requests and schedules what has arrived at once.
    if (running.empty() && !admissible())
      for (long id : waiting) requests[static_cast<std::size_t>(id)].eligible_step = std::min(requests[static_cast<std::size_t>(id)].eligible_step, steps);
    long budget = budget_per_step, decodes = 0, prompt_tokens = 0;
    // Within a multi-step round the step was scheduled when the round began: every running request
    // decodes (one done generating too, its token discarded) and nothing is admitted.
    const bool in_round = round_left > 0;
    // Unmixed: prompts first, whenever one continues or a waiting one can be admitted; the decodes
    // then wait for a step of their own.
    const bool prompts_only =
        !in_round && !limits.mixed_prefill &&
        (admissible() ||
         std::any_of(running.begin(), running.end(), [&](long id) {
           const Request& r = requests[static_cast<std::size_t>(id)];
           return r.prompt_done < r.in;
         }));
    for (long id : running) {
      Request& r = requests[static_cast<std::size_t>(id)];
      r.chunk = 0;
      r.decoding = false;
      if (r.prompt_done == r.in) {
        if (!prompts_only && budget >= per_decode) r.decoding = true, budget -= per_decode, ++decodes;
      } else {
        const long left = r.in - r.prompt_done;
        r.chunk = limits.chunked_prefill ? std::min(left, budget) : left <= budget ? left : 0;
        budget -= r.chunk, prompt_tokens += r.chunk;
      }
    }
    while (!in_round && (limits.mixed_prefill || prompts_only) && admissible() && budget > 0) {
      Request& r = requests[static_cast<std::size_t>(waiting.front())];
      // Without chunking a prompt longer than the whole budget runs alone rather than never.
      const bool alone = decodes == 0 && prompt_tokens == 0;
      r.chunk = limits.chunked_prefill ? std::min(r.in, budget) : r.in <= budget || alone ? r.in : 0;
      if (r.chunk == 0) break;
      r.decoding = false;
      r.admitted = t, r.admitted_step = steps;
      budget -= r.chunk, prompt_tokens += r.chunk;
      running.push_back(waiting.front());
      waiting.pop_front();
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
      if (r.decoding) r.generated += spec.tokens_per_step;
      if (r.chunk > 0 && (r.prompt_done += r.chunk) == r.in) r.first_token = r.last_chunk = t, r.generated = 1;
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
        const bool produced = r.decoding && (r.finish < 0 || r.finish_step == steps);
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
      const Request& r = requests[static_cast<std::size_t>(id)];
      return r.finish >= 0 && steps >= r.finish_step + overlap;
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
  if (window > 0) s.prompt_time_share = window_prompt_time / window, s.busy_share = std::min(1.0, window_busy / window);
  return s;
}

}  // namespace perfcast::models
