#pragma once
// A serving engine's iteration-level scheduler, simulated step by step (docs/models.md F-SRV-2):
// in-flight (continuous) batching with a token budget per step, as vLLM V1, SGLang and
// TensorRT-LLM run it (Yu et al., "Orca", OSDI 2022; Agrawal et al., "Sarathi-Serve", OSDI 2024).
//
// Each step the scheduler takes, in order: every decoding sequence (one token each), the prompt
// chunks of admitted requests still prefilling, then waiting requests first come first served,
// while fewer than `max_sequences` run, the step's `max_step_tokens` budget lasts and the KV cache
// takes them as the engine counts it (KvPool, F-SRV-7: a running request short of blocks may preempt
// others, which are computed again later). A prompt that
// does not fit the budget's remainder is split (chunked prefill) or, without chunking, waits for a
// step with room. Unmixed (SchedulerLimits::mixed_prefill false), a step that has prompt tokens to run
// runs only those, and the decodes run in the next step without any. One forward pass serves the
// whole step; its time comes from StepCosts. A request's first output token ends the step that
// completes its prompt, each later token one decode step. A request joins no step that began before
// it reached the engine (an idle engine schedules it at once); a closed loop's next request reaches it
// after the engine has begun another step (Load::reissue_steps), and overlap scheduling puts one more
// step between a request's arrival and its first step (F-SRV-3).
//
// Loads: a closed loop of C clients (each sends its next request when the last one finishes, as
// `vllm bench serve --max-concurrency C --request-rate inf` and `genai-perf --concurrency C` run),
// or arrivals at a rate with gamma-distributed gaps (Poisson at C_a² = 1), seeded and deterministic. Statistics are taken over requests after a
// warm-up, while the load is still applied: the steady state, not the benchmark's ramp and drain. A closed loop may
// instead be a finite benchmark as `vllm bench serve --num-prompts N --max-concurrency C` runs one: N requests from
// an idle engine, C sent at once, every request counted, throughput over the time to the last completion.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "models/serving.hpp"

namespace perfcast::models {

// The time of one engine step: the work every token pays (weight GEMMs, norms, collectives, kernel
// launches) against the tokens in the step, the decode attention against the sequences decoding
// (at the mean context), and the prompt tokens' own attention.
struct StepCosts {
  std::vector<StepPoint> token_work;        // tokens in the step (decodes + prompt tokens) -> s
  std::vector<StepPoint> decode_attention;  // sequences decoding -> s (0 at 0)
  double prefill_attention_per_token_s = 0; // a prompt's attention / its computed tokens
  // A step of `decodes` sequences verifying `tokens_per_decode` tokens each (1 without speculation)
  // and `prompt_tokens`; the draft model's steps cost draft_steps × draft_cost_ratio × the target's
  // decode step (F-INF-5's cost model).
  // `padded_decodes` (at least `decodes`): the rows the step's forward pass runs, a CUDA graph's
  // padding included; the padding rows pay the token work, not the attention.
  double seconds(double decodes, double prompt_tokens, double tokens_per_decode = 1, double draft_steps = 0,
                 double draft_cost_ratio = 0, double padded_decodes = 0) const;
};

// Speculative decoding in the engine (F-INF-5): each decoding sequence verifies draft_tokens + 1
// tokens a step (all count against the token budget, as vLLM's scheduler counts them) and keeps
// tokens_per_step = (1 − α^(γ+1))/(1 − α) of them on average.
struct Speculation {
  int draft_tokens = 0;
  double tokens_per_step = 1;
  double draft_cost_ratio = 0;
};

// How the engine counts its KV cache when it admits and runs requests (F-SRV-7).
enum class KvAdmission {
  // An admitted request holds its whole length's cache from the start and is never paused
  // (TensorRT-LLM's GUARANTEED_NO_EVICT): max_sequences, the requests whose whole cache fits, carries the limit.
  whole_request,
  // vLLM V1: each step a request takes the blocks for the tokens it runs then; a running request that finds
  // too few preempts the newest running ones (their cache freed, their prompt and output recomputed when they
  // resume), and a step that preempted admits no waiting request.
  on_demand,
  // SGLang: a waiting request is admitted while its prompt plus its output (at most 4,096 tokens) fit what
  // the pool has free, less the running requests' remaining outputs (at most 4,096 each) times
  // new_token_ratio and less what the step's earlier admissions reserve; the ratio falls from 0.7 to 0.098
  // over 600 decode steps. A decode step that finds fewer free tokens than decoding requests retracts
  // the ones with the fewest output tokens (recomputed later) until 20 tokens a request are free, and
  // raises the ratio to what the rest have decoded plus 20 steps each over their whole outputs.
  reserved_estimate,
};
inline constexpr std::array<std::string_view, 3> kKvAdmissionKeys{"whole_request", "on_demand", "reserved_estimate"};  // in enum order

struct KvPool {
  KvAdmission admission = KvAdmission::whole_request;
  double tokens = 0;        // the cache's capacity in tokens (on_demand, reserved_estimate): whole blocks
  double block_tokens = 16; // tokens per block (vLLM's default 16; SGLang's page_size 1)
};

struct SchedulerLimits {
  double max_sequences = 256;     // running requests (vLLM max_num_seqs, TRT-LLM max_batch_size, the KV cache)
  double max_step_tokens = 8192;  // tokens per step (vLLM max_num_batched_tokens, TRT-LLM max_num_tokens)
  bool chunked_prefill = true;
  // Prompt tokens share a step with the running decodes (vLLM V1, TensorRT-LLM's in-flight batching),
  // or, unmixed, a step is either prompts or decodes, prompts first whenever one can be admitted or a
  // chunked prompt continues, the decodes waiting meanwhile (SGLang without --enable-mixed-chunk).
  bool mixed_prefill = true;
  // The CPU schedules step n+1 while the GPU runs step n (TensorRT-LLM's PyTorch-backend overlap
  // scheduler, SGLang's since v0.4): a request that arrives during step n joins step n+2 at the
  // earliest, and one whose last token comes in step n still decodes in step n+1, its stop seen late.
  bool overlap_scheduling = false;
  // CUDA-graph padding (F-SRV-4; TensorRT-LLM's cuda_graph_config.enable_padding): a step of decodes only runs
  // the graph captured for the smallest of these sizes at or above its decodes, dummy requests filling
  // the rest; above the largest, or with prompt tokens in the step, it runs unpadded. Ascending; empty:
  // no padding.
  std::vector<double> graph_batch_sizes;
  // Multi-step scheduling (F-SRV-5; vLLM V0's --num-scheduler-steps, from 0.6.0): a step of decodes only
  // begins a round of this many decode steps scheduled once, the same requests in each, none admitted and
  // none released before the round ends, when its tokens reach the clients. Prompt steps stay single
  // steps. 1: every step scheduled on its own. Unmixed steps without chunking only (v0.6.0's).
  int decode_round_steps = 1;
  Speculation speculation;
  KvPool kv;
};

struct RequestShape {
  double input_len = 1, output_len = 1;  // tokens; whole numbers, at least 1 (output_len: the mean; uniform: the longest);
                                         // input_len counts the prompt tokens computed (not a cached prefix)
  double output_len_cv2 = 0;             // squared coefficient of variation of output lengths (gamma; 0: fixed)
  // Lengths drawn uniformly from the whole numbers in [⌊f·L⌋, L] for the prompt and the output each, as
  // the random dataset of vLLM's benchmark_serving.py draws them at --random-range-ratio f (1: fixed).
  double length_min_fraction = 1;
};

enum class LoadKind { closed_loop, poisson };

struct Load {
  LoadKind kind = LoadKind::closed_loop;
  double concurrency = 1;   // closed loop: clients
  double rate = 0;          // Poisson: requests/s
  double arrival_cv2 = 1;   // of the gaps between arrivals: 1 Poisson; else gamma-distributed gaps
                            // (vllm bench serve --burstiness b gives 1/b)
  int warmup = 0;           // requests left out of the statistics (0: the default for the load)
  int measured = 0;         // requests in the statistics (0: the default)
  int benchmark_requests = 0;  // closed loop: a finite benchmark of this many requests from an idle engine (0: steady state)
  // Closed loop: steps that begin before a client's next request reaches the engine. Over HTTP 1: the
  // engine starts its next step as soon as the last ends, while the finished response travels to the
  // client and the next prompt back; 0 for an in-process queue (an offline benchmark's).
  int reissue_steps = 1;
  // The gaps between streamed chunks (F-SRV-6), about a third of the simulation's time: off where only
  // the rates, TTFT and TPOT are read (a saturation rate, an SLO search, an offline benchmark).
  bool chunk_gaps = true;
  std::uint64_t seed = 20240601;
};

struct SimulatedServing {
  double percentile = 0.99;
  double ttft_mean_s = 0, ttft_p50_s = 0, ttft_p_s = 0;
  double tpot_mean_s = 0, tpot_p50_s = 0, tpot_p_s = 0;  // per request: (finish − first token)/(n_out − 1)
  double e2e_mean_s = 0, e2e_p50_s = 0, e2e_p_s = 0;
  // Inter-token latency as a streaming client sees it (F-SRV-6): every gap between the chunks it receives, over
  // all measured requests (one chunk per step it got tokens in; a multi-step round's tokens come as one).
  double itl_mean_s = 0, itl_p50_s = 0, itl_p_s = 0;
  bool chunk_gaps = false;          // whether the itl_* figures were computed (Load::chunk_gaps)
  double requests_per_s = 0, output_tokens_per_s = 0;   // over the measured window (a finite benchmark: its duration)
  double decoding_mean = 0;         // sequences decoding per step
  double prompt_tokens_per_step = 0;
  double step_mean_s = 0;
  double in_system_mean = 0;        // requests waiting or running (Little: rate × E2E)
  double admission_wait_probability = 0;  // share of requests not admitted in the first step after arrival
  double admission_wait_mean_s = 0;       // arrival to the start of the request's first step
  double prompt_mean_s = 0;               // that start to the first token (the prompt's steps)
  double prompt_time_share = 0;           // share of step time in prompt tokens (by tokens within each step)
  double busy_share = 0;                  // share of the window the engine runs steps (the rest it waits for arrivals)
  double preemptions_per_request = 0;     // running requests preempted (vLLM) or retracted (SGLang) for want of KV cache,
                                          // over the window, per measured request
  int requests = 0;                 // measured
  int warmup = 0;                   // left out before them
  long steps = 0;                   // simulated in all
};

// Throws std::invalid_argument for non-positive limits, lengths or load.
SimulatedServing simulate_serving(const StepCosts& costs, const SchedulerLimits& limits, const RequestShape& shape, const Load& load,
                                  double percentile);

}  // namespace perfcast::models
