#pragma once
// LLM inference prediction (MODELS-REFERENCE §9): prefill and decode timed op by op by the roofline
// on one tp rank, plus the tensor-parallel collectives on their real links; TTFT, TPOT, end-to-end
// latency and throughput for a static batch, the throughput-vs-batch curve, the best batch within
// a TPOT bound, speculative decoding, and edge vision (latency, FPS, energy, frame budget).
#include <optional>
#include <string>
#include <vector>

#include "engine/predict/economics.hpp"
#include "engine/predict/memory.hpp"
#include "engine/spec/scenario.hpp"
#include "models/collective.hpp"
#include "models/roofline.hpp"
#include "models/serving.hpp"
#include "models/serving_engine.hpp"

namespace perfcast {

// One decode step (or one vision forward pass) at a batch size.
struct BatchPoint {
  double batch = 0;
  double step_s = 0;           // decode step at the mean context (vision: one pass)
  double tokens_per_s = 0;     // output tokens/s of the replica in steady decode (vision: frames/s)
  bool fits = true;            // weights + KV cache of the batch fit in device memory
};

struct SpeculativeResult {
  double alpha = 0, draft_cost_ratio = 0;
  int draft_length = 0;
  double tokens_per_target_step = 0;  // (1 − α^(γ+1)) / (1 − α)
  double speedup = 0;                 // ÷ (γ·c + 1)
  double tpot_s = 0;
};

struct EdgeResult {
  double latency_s = 0, fps = 0;
  double power_W = 0;                 // the device's rated power (mode or TDP)
  std::string power_source;
  double energy_per_inference_J = 0;
  double achieved_tops_per_W = 0;     // executed ops / latency / power
  double streamed_B = 0;              // parameters that did not fit on-chip, moved every inference
  std::optional<double> target_fps;
  std::string verdict;                // "33.3 ms budget at 30 FPS: fits with 41% headroom"
};

// A serving engine's steady state on one replica (engine/predict/engine_serving).
struct EngineSteadyState {
  models::ServingEngine engine = models::ServingEngine::vllm;
  bool engine_given = false;           // [inference] engine, else the default
  models::EngineMode mode = models::EngineMode::server;
  models::EngineLimits limits;
  std::string load;                    // "closed loop of 64 clients"
  double concurrency = 0;              // clients (closed loop), 0 for Poisson
  models::SimulatedServing result;
  std::vector<std::string> assumptions;
};

struct InferencePrediction {
  std::string scenario, workload, accelerator, layout, precision;
  int devices = 0;                    // of one replica
  double batch = 1, input_len = 0, output_len = 0;
  // LLM (static batch: every sequence starts together, as the benchmarks run it).
  double prefill_s = 0, prefill_comm_s = 0;
  double ttft_s = 0;                  // prefill of the batch (one prompt when batch = 1)
  double decode_step_s = 0, decode_comm_s = 0;  // at the mean context input_len + output_len/2
  double tpot_s = 0;                  // one decode step per output token
  double e2e_s = 0;                   // TTFT + (n_out − 1)·TPOT
  double output_tokens_per_s = 0, output_tokens_per_s_per_device = 0;  // batch·n_out / e2e
  double decode_tokens_per_s = 0;     // batch / step, steady decode
  double requests_per_s = 0;
  double mbu = 0;                     // decode bytes per step / step / peak bandwidth (F-INF-4)
  double prefill_mfu = 0;             // prefill model FLOPs / time / peak
  double bytes_per_step = 0;
  std::vector<BatchPoint> curve;      // batch 1, 2, 4, ... up to what fits
  std::optional<double> max_batch;    // sequences that fit
  std::optional<double> tpot_bound_s;     // [serving] tpot_slo_s
  std::optional<BatchPoint> best_within_tpot;  // highest throughput with TPOT ≤ bound
  std::optional<SpeculativeResult> speculative;
  std::optional<EdgeResult> edge;
  // [serving] arrival_rate: the continuous-batching steady state of one replica at rate/dp.
  std::optional<models::ServingPoint> serving;
  std::optional<double> serving_saturation_rate;  // requests/s per replica
  // batch = "max": the engine's steady state on an endless queue; the headline TTFT, TPOT, E2E and
  // throughput are its figures, batch its mean decoding sequences.
  std::optional<EngineSteadyState> engine;
  // [serving] concurrency: the engine's steady state under that closed loop, per replica.
  std::optional<EngineSteadyState> closed_loop;
  MemoryReport memory;
  std::optional<Economics> economics;  // all dp replicas; energy when the device's power is known, cost with [cost]
  std::string bottleneck;
  std::vector<std::string> assumptions;
};

struct InferenceOptions {
  models::CollectiveParams collective = models::default_collective_params();
  models::Efficiency efficiency = models::default_efficiency();
  bool require_fit = true;  // false: predict a batch the memory model says does not fit (validation)
  // false: leave out the throughput-vs-batch curve, the best batch within the TPOT bound and the
  // serving steady state (a sweep ranks layouts by the headline figures, which do not use them).
  bool extras = true;
};

// Throws InputError for a training scenario, or a batch that does not fit (with the batch that
// does) unless the options allow it.
InferencePrediction predict_inference(const Scenario& s, const InferenceOptions& o = {});

// The context a decode step is timed at: input_len + output_len/2, the mean over a request's decode.
double mean_context(const InferenceSettings& in);
// A decode step of `batch` sequences at `context` tokens, communication included: what the
// throughput curve and the serving model evaluate.
double decode_step_seconds(const Scenario& s, double batch, double context, const InferenceOptions& o = {});
// One replica's static figures for `perfcast capacity`'s table: the prefill of one prompt and the
// decode step on a grid of batches from 1 to the engine's running limit. Throws InputError for a
// vision workload or when not one sequence fits.
models::ReplicaTimes replica_times(const Scenario& s, const InferenceOptions& o = {});
// A prefill of `batch` prompts of the scenario's input_len, communication included.
double prefill_seconds(const Scenario& s, double batch, const InferenceOptions& o = {});
// The same passes with the attention cores' share of them (the part that depends on the context).
struct PassTime {
  double total_s = 0, attention_s = 0;
};
PassTime decode_step_time(const Scenario& s, double batch, double context, const InferenceOptions& o = {});
PassTime prefill_time(const Scenario& s, double batch, const InferenceOptions& o = {});

}  // namespace perfcast
