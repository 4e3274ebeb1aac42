#pragma once
// A scenario (DESIGN.md "The scenario format"): what runs, how it is laid out, on what, and what it
// costs, as typed settings; engine/data/scenario_reader reads and checks it and resolves its names.
#include <optional>
#include <string>

#include "engine/spec/hardware.hpp"
#include "engine/spec/workload.hpp"
#include "models/memory.hpp"
#include "models/precision.hpp"
#include "models/serving_engine.hpp"
#include "models/training_stack.hpp"
#include "models/transformer_ops.hpp"

namespace perfcast {

struct HardwareChoice {
  std::string accelerator;     // hardware_db name
  std::string system;          // "" when given as accelerator + count
  int count = 1;               // devices in all
  int devices_per_node = 0;
  std::string scale_up, scale_out;
  std::string power_mode;      // edge devices: a power mode of the accelerator ("" = its default)
  std::optional<double> power_limit_W;  // [hardware] power_limit: a board power limit below TDP
  bool dla = false;            // engine = "dla": one NVDLA core of a Jetson runs the model, not the GPU
};

struct TrainingSettings {
  double seq_len = 0;
  double global_batch = 0;
  double micro_batch = 1;
  std::optional<Precision> precision;
  models::Recompute recompute = models::Recompute::none;
  std::optional<double> tokens;
  std::string optimizer;       // a models::optimizer_recipes() name; "" = the default for `precision`
  models::Offload offload = models::Offload::none;
  std::optional<double> data_loading_s;  // per step and replica, prefetched (F-DATA-1)
  models::TrainingStack stack = models::TrainingStack::megatron_lm;  // what runs it (models/training_stack)
  models::TpOverlap tp_overlap = models::TpOverlap::backward;        // the stack's unless the scenario says
  models::Fp8Scaling fp8_scaling = models::Fp8Scaling::delayed;      // precision = fp8: the stack's unless the scenario says
  bool compile = false;  // torch.compile on a stack of eager modules (models::EagerModules)
  bool fp8_param_gather = false;                 // the sharded optimizer gathers parameters in FP8
  std::optional<Precision> grad_reduce_dtype;    // the data-parallel gradient reduction's; none = the recipe's gradients
};

struct InferenceSettings {
  double input_len = 0;
  double output_len = 0;
  std::optional<double> batch;
  bool max_throughput = false;               // batch = "max": the engine's steady state on an endless queue
  std::optional<models::ServingEngine> engine;  // whose scheduler limits apply (default vLLM)
  std::optional<Precision> weight_dtype, kv_dtype, compute_dtype;
  // The routed experts' storage where a checkpoint quantises only them (gpt-oss: MXFP4 experts, BF16
  // attention); unset, they are stored as weight_dtype says.
  std::optional<Precision> expert_weight_dtype;
  // The block scales of the 4-bit float weights: as weight_dtype or expert_weight_dtype names them ("mxfp4",
  // "nvfp4"), else the checkpoint's (a Hugging Face quantization_config), else NVFP4.
  Fp4Blocks fp4_blocks = Fp4Blocks::nvfp4;
  std::optional<double> target_fps;
  std::optional<double> memory_utilization;  // fraction of device memory the server may use
  std::optional<double> kv_block;            // paged KV cache block, tokens
  // Speculative decoding (Leviathan et al. 2023): acceptance rate α, draft length γ, and the draft
  // step's time as a fraction c of the target step's.
  std::optional<double> speculative_alpha, draft_cost_ratio;
  std::optional<int> draft_length;
};

// [serving]: the load and the SLOs `perfcast capacity` and the serving prediction use.
struct ServingSettings {
  std::optional<double> arrival_rate;  // requests/s, over all dp replicas
  std::optional<double> ttft_slo_s, tpot_slo_s;
  double slo_percentile = 99;          // the SLOs bound this percentile
  std::optional<double> max_concurrency;  // sequences per replica (vLLM max_num_seqs); default: what fits
  std::optional<double> max_batched_tokens;  // tokens per engine step (vLLM max_num_batched_tokens); default: the engine's
  std::optional<bool> chunked_prefill;       // default: the engine's (on)
  std::optional<bool> mixed_prefill;         // prompts share steps with decodes; default: the engine's (SGLang: off)
  std::optional<bool> overlap_scheduling;    // the next step scheduled while this one runs; default: the engine's (vLLM: off)
  std::optional<bool> cuda_graph_padding;    // TensorRT-LLM: decode-only steps padded to a captured graph's batch (default off)
  std::vector<double> cuda_graph_batch_sizes;  // the graphs' batch sizes, ascending; empty: TensorRT-LLM's default ones
  std::optional<int> scheduler_steps;        // vLLM V0 --num-scheduler-steps: decode steps a scheduling round (F-SRV-5)
  double prefix_cache_hit_rate = 0;          // share of each prompt found in the prefix cache
  std::optional<double> concurrency;         // a closed loop of this many clients per replica (instead of arrival_rate)
  double arrival_cv2 = 1;              // squared coefficient of variation of inter-arrival times (Poisson: 1)
  double length_cv2 = 0;               // ... of request service times (the scenario's fixed lengths: 0)
  double length_min_fraction = 1;      // lengths uniform in [f·L, L] (vLLM benchmark_serving --random-range-ratio f); 1: fixed
  std::optional<double> benchmark_requests;  // a finite closed-loop benchmark of this many requests (none: the steady state)
};

// [cost]: how the hardware is paid for. A cloud `offer` (on-demand, reserved discount or spot) or
// `purchase = true` (on-prem TCO, F-COST-3); absent keys take the defaults engine/predict/economics states.
struct CostSettings {
  std::string offer;                           // hardware_db/offers name
  bool purchase = false;
  bool spot = false;
  std::optional<double> reserved_discount;     // fraction off on-demand, 0 ≤ d < 1
  std::optional<double> spot_preemptions_per_day;  // of the job (a capacity reclaim hitting many instances counts once)
  std::optional<double> capex_usd;             // replaces the database price of the systems
  std::optional<double> network_usd_per_node, storage_usd;
  std::optional<double> lifetime_years, discount_rate, maintenance_fraction, utilisation;
  std::optional<double> facility_usd_per_kw_month, staff_usd_per_year;
  std::optional<double> usd_per_kwh;           // replaces the region's electricity price
  bool any() const { return !offer.empty() || purchase; }
};

// [region]: where it runs (grid intensity, electricity price, PUE from hardware_db/regions).
struct RegionSettings {
  std::string name;
  std::optional<double> pue;                   // the facility's own PUE
  std::optional<double> market_kg_per_J;       // market-based factor (contracts, PPAs), reported beside location-based
};

// [reliability]: what the goodput model takes; absent keys take the sourced defaults.
struct ReliabilitySettings {
  std::optional<double> device_mtbf_s;      // gpu_mtbf_h, per device, all causes
  std::optional<double> checkpoint_write_s; // blocking write per checkpoint
  std::optional<double> restart_s;          // detection, rescheduling, reload, warm-up
};

struct ParallelismSettings {
  int tp = 1, pp = 1, vp = 1, cp = 1, ep = 1;
  std::optional<int> dp;
  // Uneven pipeline split (Megatron-LM --decoder-first/last-pipeline-num-layers): layers on the
  // first / last stage; the rest divide evenly over the stages between.
  std::optional<int> first_stage_layers, last_stage_layers;
  bool sequence_parallel = false;
  int zero = 0;
  models::Schedule schedule = models::Schedule::one_f_one_b;
};

struct Scenario {
  std::string file, name;
  Workload workload;
  HardwareChoice hardware;           // the names as written
  ResolvedHardware hw;               // ... resolved: what predictions read
  std::optional<TrainingSettings> training;
  std::optional<InferenceSettings> inference;
  ParallelismSettings parallelism;
  ReliabilitySettings reliability;
  ServingSettings serving;
  CostSettings cost;
  RegionSettings region;
  models::AttentionMask mask = models::AttentionMask::causal;
  models::AttentionKernel attention_kernel = models::AttentionKernel::flash;
  models::DecodeKvReads decode_kv = models::DecodeKvReads::shared;
};

// One combination of `perfcast compare`'s variants: their labels and the scenario they make, or
// why the scenario rules refused it.
struct ScenarioVariant {
  std::string hardware, cost, region;
  std::optional<Scenario> scenario;
  std::string error;
  std::string offer_note;  // `cloud`: which offer was chosen and why the others were passed over
  bool training = true;    // the scenario file has [training] (known even when the variant is refused)
};

}  // namespace perfcast
