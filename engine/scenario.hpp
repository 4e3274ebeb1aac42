#pragma once
// A scenario file (DESIGN.md "The scenario format"): what runs, how it is laid out, on what.
// The loader validates every key and the layout against the model (TP dividing heads, ...).
#include <filesystem>
#include <optional>
#include <string>

#include "engine/hardware_db.hpp"
#include "engine/precision.hpp"
#include "engine/toml_section.hpp"
#include "engine/workload.hpp"
#include "models/memory.hpp"
#include "models/transformer_ops.hpp"

namespace perfcast {

struct HardwareChoice {
  std::string accelerator;     // hardware_db name
  std::string system;          // "" when given as accelerator + count
  int count = 1;               // devices in all
  int devices_per_node = 0;
  std::string scale_up, scale_out;
  std::string power_mode;      // edge devices: a power mode of the accelerator ("" = its default)
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
};

struct InferenceSettings {
  double input_len = 0;
  double output_len = 0;
  std::optional<double> batch;
  std::optional<Precision> weight_dtype, kv_dtype, compute_dtype;
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
  double arrival_cv2 = 1;              // squared coefficient of variation of inter-arrival times (Poisson: 1)
  double length_cv2 = 0;               // ... of request service times (the scenario's fixed lengths: 0)
};

// [cost]: how the hardware is paid for. A cloud `offer` (on-demand, reserved discount or spot) or
// `purchase = true` (on-prem TCO, F-COST-3); absent keys take the defaults cost_report states.
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

// A layout rule a layout breaks: the [parallelism] key to blame and the message.
struct LayoutProblem {
  std::string key, message;
};

// The rules a layout can break, in the order they are checked (what a sweep counts its
// rejections by); the last three concern what a sweep varies inside a unit (vp, SP).
enum class LayoutRule {
  devices_split, dp_devices, batch_split, tp_heads, tp_kv_heads, tp_ffn, pp_layers, uneven_sum, uneven_middle, ep_dense,
  ep_experts, ep_ranks, expert_tp_ffn, cp_seq, interleave_microbatches, vp_layers, sp_without_tp
};
constexpr int kLayoutRules = int(LayoutRule::sp_without_tp) + 1;
std::string_view describe(LayoutRule r);   // "heads not divisible by tp"
std::optional<LayoutRule> broken_layout_rule(const Workload& w, const ParallelismSettings& p, int devices,
                                             const std::optional<TrainingSettings>& training);

// Megatron-LM's argument checks for `p` on `devices` devices (TP dividing heads, KV heads and
// FFN widths, PP dividing layers, VP dividing a stage's layers, EP dividing experts and the
// tp x cp x dp ranks it folds into, CP dividing the sequence, the batch splitting into
// micro-batches over data-parallel replicas). Pure: used by the loader and by what-if searches.
std::optional<LayoutProblem> layout_problem(const Workload& w, const ParallelismSettings& p, int devices,
                                            const std::optional<TrainingSettings>& training);

// Transformer layers on pipeline stage `stage` (0-based) under `p`'s split; needs a layout that
// layout_problem() accepts.
int layers_on_stage(const models::TransformerSpec& m, const ParallelismSettings& p, int stage);
// Whether `p` splits the layers unevenly (first/last stage layer counts given).
bool uneven_split(const ParallelismSettings& p);

// Data-parallel replicas: what tp x pp x cp leaves of the devices unless given.
int data_parallel(const ParallelismSettings& p, int devices);
// Tensor parallelism inside each expert: Megatron folds the tp x cp x dp ranks of a stage into
// expert-TP x EP x expert-DP (Liu et al. 2025, "MoE parallel folding"); expert-TP stays tp while
// ep fits in cp x dp, else what is left of the stage's ranks after EP (EP carved out of TP, as
// inference engines run DeepSeek-V3 with tp = ep = 8).
int expert_tensor_parallel(const ParallelismSettings& p, int dp);

struct Scenario {
  std::string file, name;
  Workload workload;
  HardwareChoice hardware;
  std::optional<TrainingSettings> training;
  std::optional<InferenceSettings> inference;
  ParallelismSettings parallelism;
  ReliabilitySettings reliability;
  ServingSettings serving;
  CostSettings cost;
  RegionSettings region;
  models::AttentionMask mask = models::AttentionMask::causal;
  models::AttentionKernel attention_kernel = models::AttentionKernel::flash;
};

// [training]-style keys shared with the validation cases: an optimizer recipe name (unknown names
// fail at the key with a suggestion) and an offload mode ("none", "optimizer", "optimizer+params").
std::optional<std::string> read_recipe(TomlSection& t, std::string_view key);
std::optional<models::Offload> read_offload(TomlSection& t, std::string_view key);

// The scenario's accelerator with its power mode applied: GPU peaks scaled by the mode's clock
// over the boost clock and its active TPCs over all, memory bandwidth capped where the mode says.
AcceleratorSpec device_spec(const Scenario& s, const HardwareDb& db);
// The power mode chosen, else the device's default mode, else none.
const PowerMode* power_mode_of(const Scenario& s, const HardwareDb& db);

// Loads and validates a scenario; presets resolve in `workloads`, hardware names in `db`.
Scenario load_scenario(const std::filesystem::path& file, const std::filesystem::path& workloads, const HardwareDb& db);
Scenario parse_scenario(std::string_view content, const std::string& label, const std::filesystem::path& workloads,
                        const HardwareDb& db);
// The same from an already parsed table (a validation case's [case.scenario]).
Scenario read_scenario(TomlSection& root, const std::string& label, const std::filesystem::path& workloads, const HardwareDb& db);

}  // namespace perfcast
