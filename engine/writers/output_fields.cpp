#include "engine/writers/output_fields.hpp"

#include <fmt/format.h>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "engine/writers/plan_columns.hpp"
#include "engine/writers/sweep_columns.hpp"
#include "engine/writers/text_table.hpp"

namespace perfcast {
namespace {

struct Decl {
  std::string_view key, unit, description;
};
using Block = std::initializer_list<Decl>;

// ---- Blocks several commands share ------------------------------------------------------------

const Block kScenario = {
    {"name", "", "The scenario's name"},
    {"workload", "", "The workload (preset or inline model)"},
    {"accelerator", "", "The device, as the hardware database names it"},
    {"devices", "devices", "Devices in all"},
    {"layout", "", "The parallel layout in words"},
    {"schedule", "", "Pipeline schedule"},
    {"precision", "", "Math precision"},
    {"input_len", "tokens", "Prompt tokens per request"},
    {"output_len", "tokens", "Generated tokens per request"},
};

const Block kMemory = {
    {"per_device_bytes", "B", "Memory of the busiest device"},
    {"capacity_bytes", "B", "What the device may use"},
    {"capacity", "", "That capacity in words (utilisation target applied)"},
    {"fits", "", "Whether per_device_bytes fits in capacity_bytes"},
    {"breakdown_bytes.*", "B", "Per component: weights, gradients, optimizer, activations, kv_cache, buffers, context, fragmentation"},
    {"binding", "", "The component that binds, or what limits the batch"},
    {"stage", "", "The pipeline stage the figures are for"},
    {"verdict", "", "Fits or not, in words"},
    {"fixes[]", "", "Changes that would make it fit, each with its effect"},
    {"batch", "sequences", "The batch the figures are for"},
    {"max_batch", "sequences", "Largest batch that fits"},
    {"kv_cache_bytes_per_token", "B", "KV cache per token of context, this device's share"},
    {"layer_activation_bytes.*", "B", "Training: bytes each saved tensor of one layer keeps for the backward pass"},
};

const Block kServingPoint = {
    {"rate_per_s", "requests/s", "Arrival rate of one replica"},
    {"load", "fraction", "Offered load over saturation"},
    {"occupancy", "sequences", "Mean sequences decoding per step"},
    {"slot_utilisation", "fraction", "Occupied share of the concurrency slots"},
    {"prefill_share", "fraction", "Share of engine step time in prompt tokens (by tokens within each step)"},
    {"decode_step_s", "s", "Mean engine step (decodes and prompt chunks)"},
    {"output_tokens_per_s", "tokens/s", "Output tokens per second of one replica"},
    {"concurrency", "sequences", "Concurrency limit of the replica"},
    {"admission_wait_probability", "fraction", "Share of requests not admitted at the first step after they arrive"},
    {"admission_wait_s", "s", "Mean time from arrival to the request's first step"},
    {"prefill_wait_s", "s", "Mean time from the first step to the first token (the prompt's steps)"},
};

// An engine's simulated steady state; the keys a serving point has too mean the same there.
const Block kEngineSteadyState = {
    {"engine", "", "The serving engine whose scheduler limits apply"},
    {"engine_default", "", "Whether the engine is the default (no [inference] engine)"},
    {"load_kind", "", "closed_loop (capacity --concurrency) or max_throughput (batch = \"max\")"},
    {"concurrency", "requests", "Requests in the closed loop (clients)"},
    {"max_sequences", "sequences", "Running requests at most (engine limit; capped by the KV cache where whole requests are reserved)"},
    {"max_step_tokens", "tokens", "Tokens per engine step at most"},
    {"chunked_prefill", "", "Whether prompts are split over steps"},
    {"mixed_prefill", "", "Whether prompt tokens share a step with the running decodes (false: prompts first, in steps of their own)"},
    {"overlap_scheduling", "", "Whether the engine schedules the next step while this one runs (a request joins the second step after it arrives)"},
    {"cuda_graph_batch_sizes", "requests", "The CUDA-graph batch sizes a decode-only step is padded to (F-SRV-4; empty: no padding)"},
    {"decode_round_steps", "steps", "Decode steps a multi-step scheduling round runs (F-SRV-5; 1: every step scheduled on its own)"},
    {"kv_admission", "", "How the engine holds the KV cache (F-SRV-7): whole_request (reserved at admission), on_demand (vLLM: blocks as requests run, preemption), reserved_estimate (SGLang: an estimate of the outputs, retraction)"},
    {"kv_pool_tokens", "tokens", "The KV cache in tokens the engine shares out (null where whole requests are reserved)"},
    {"preemptions_per_request", "", "Running requests preempted or retracted for want of KV cache, per measured request"},
    {"rate_per_s", "requests/s", "Completed requests per second of one replica"},
    {"output_tokens_per_s", "tokens/s", "Output tokens per second of one replica"},
    {"occupancy", "sequences", "Mean sequences decoding per step"},
    {"prompt_tokens_per_step", "tokens", "Mean prompt tokens per step"},
    {"decode_step_s", "s", "Mean engine step"},
    {"requests_measured", "requests", "Simulated requests the statistics are over"},
};

// The latencies a serving point and an engine steady state both carry (capacity_writers' add_latency_keys
// writes them for either); the itl_* keys only where the gaps were simulated.
const Block kLatency = {
    {"ttft_mean_s", "s", "Mean time to first token"},
    {"ttft_p50_s", "s", "Median time to first token"},
    {"ttft_p*_s", "s", "Time to first token at the SLO percentile"},
    {"tpot_mean_s", "s", "Mean time per output token after the first"},
    {"tpot_p50_s", "s", "Median time per output token"},
    {"tpot_p*_s", "s", "Time per output token at the SLO percentile"},
    {"itl_mean_s", "s", "Mean gap between the chunks a streaming client receives (inter-token latency; a server's load only)"},
    {"itl_p50_s", "s", "Median gap between streamed chunks, over every gap of every request"},
    {"itl_p*_s", "s", "Gap between streamed chunks at the SLO percentile"},
    {"e2e_mean_s", "s", "Mean end-to-end time of a request"},
    {"e2e_p50_s", "s", "Median end-to-end time"},
    {"e2e_p*_s", "s", "End-to-end time at the SLO percentile"},
};

const Block kEnergy = {
    {"device_power_w", "W", "Power of one device at the predicted utilisation"},
    {"device_tdp_w", "W", "The device's TDP"},
    {"device_idle_w", "W", "The device's idle power"},
    {"node_factor", "", "Node power over its devices' power (CPUs, NICs, fans)"},
    {"it_power_w", "W", "IT power of the whole job"},
    {"joules_per_token", "J/token", "Facility energy per token"},
    {"kwh_per_million_tokens", "kWh/Mtoken", "Facility energy per million tokens"},
    {"tokens_per_s_per_kw", "tokens/s/kW", "Tokens per second per kW of facility power"},
    {"region", "", "The region whose grid and PUE apply"},
    {"pue", "", "Power usage effectiveness applied"},
    {"grid_g_per_kwh", "gCO2e/kWh", "Location-based grid carbon intensity"},
    {"co2e_kg_per_million_tokens", "kg CO2e/Mtoken", "Operational emissions per million tokens"},
    {"it_kwh", "kWh", "IT energy of the job"},
    {"kwh", "kWh", "Facility energy of the job"},
    {"co2e_kg", "kg CO2e", "Operational emissions of the job (location-based)"},
    {"co2e_market_kg", "kg CO2e", "Operational emissions with the scenario's market-based factor"},
    {"embodied_co2e_kg", "kg CO2e", "Embodied emissions of the devices, the job's share"},
};

const Block kCost = {
    {"mode", "", "cloud, spot, reserved or purchase"},
    {"offer", "", "The cloud offer"},
    {"usd_per_device_hour", "USD/h", "Price of one device-hour"},
    {"usd_per_hour", "USD/h", "Price of the job's devices per hour"},
    {"usd_per_million_tokens", "USD/Mtoken", "Dollars per million tokens"},
    {"tokens_per_usd", "tokens/USD", "Tokens per dollar"},
    {"usd", "USD", "Cost of the job"},
    {"wall_s", "s", "Wall time the cost is for"},
    {"spot_useful_fraction", "fraction", "Share of spot time that is useful work after preemptions"},
    {"capex_usd", "USD", "Purchase price of the cluster"},
    {"allocation", "fraction", "Share of the cluster's life it is allocated"},
    {"tco_per_year_usd.*", "USD/year", "Yearly cost of ownership: total, capital, energy, maintenance, facility, staff"},
    {"cloud_alternative.offer", "", "The cheapest cloud offer of the same device"},
    {"cloud_alternative.usd_per_hour", "USD/h", "Its price for the job's devices"},
    {"cloud_alternative.usd", "USD", "Its cost of the job"},
    {"cloud_alternative.break_even_allocation", "fraction", "Allocation above which buying beats renting"},
};

const Block kTraining = {
    {"step_time_s", "s", "Time of one optimizer step"},
    {"tokens_per_s", "tokens/s", "Training tokens per second, all devices"},
    {"tokens_per_s_per_device", "tokens/s", "Training tokens per second per device"},
    {"mfu", "fraction", "Model FLOPs utilisation: op-level model FLOPs over peak"},
    {"hfu", "fraction", "Hardware FLOPs utilisation: executed FLOPs (recompute included) over peak"},
    {"flop_conventions.*.value", "", "MFU or TFLOP/s per device under a published convention"},
    {"flop_conventions.*.definition", "", "That convention's FLOP count and source"},
    {"model_flops_per_step", "FLOP", "Model FLOPs of one step"},
    {"hardware_flops_per_step", "FLOP", "Executed FLOPs of one step"},
    {"peak_flops_per_device", "FLOP/s", "Dense peak of the math precision (power mode applied)"},
    {"breakdown_s.*", "s", "Step time by component on the slowest pipeline rank"},
    {"bubble_fraction", "fraction", "Pipeline bubble as a share of the step"},
    {"communication[].group", "", "Parallel group: tp, cp, ep, dp or pp"},
    {"communication[].time_s", "s", "That group's communication per step"},
    {"communication[].hidden_s", "s", "Of it, hidden behind compute"},
    {"communication[].exposed_s", "s", "Of it, on the critical path"},
    {"communication[].where", "", "Where the exposed part sits"},
    {"pipeline_ranks[].stage", "", "Pipeline rank"},
    {"pipeline_ranks[].layers", "layers", "Layers on that rank"},
    {"pipeline_ranks[].forward_s", "s", "Forward per micro-batch"},
    {"pipeline_ranks[].backward_input_s", "s", "Input-gradient backward per micro-batch"},
    {"pipeline_ranks[].backward_weight_s", "s", "Weight-gradient backward per micro-batch"},
    {"pipeline_ranks[].recompute_s", "s", "Recomputation per micro-batch"},
    {"pipeline_ranks[].comm_s", "s", "Communication per micro-batch"},
    {"pipeline_ranks[].exposed_per_microbatch_s", "s", "Exposed communication per micro-batch"},
    {"pipeline_ranks[].exposed_tail_s", "s", "Exposed communication once per step"},
    {"pipeline_ranks[].contention_s", "s", "Compute slowed by hidden communication's SMs, per step"},
    {"pipeline_ranks[].optimizer_s", "s", "Optimizer step"},
    {"slowest_rank", "", "The pipeline rank that sets the step"},
    {"microbatches", "", "Micro-batches per step per replica"},
    {"tokens_per_step", "tokens", "Tokens per optimizer step"},
    {"job_mtbf_s", "s", "Mean time between failures of the whole job"},
    {"checkpoint_write_s", "s", "Blocking write of one checkpoint"},
    {"checkpoint_interval_s", "s", "Checkpoint interval (Daly's optimum)"},
    {"restart_s", "s", "Time lost to restart after a failure"},
    {"goodput_fraction", "fraction", "Useful share of wall time after checkpoints and failures"},
    {"tokens", "tokens", "The scenario's token budget"},
    {"time_to_train_s", "s", "Failure-free time to train the tokens"},
    {"expected_wall_s", "s", "Expected wall time with failures"},
    {"expected_interruptions", "", "Expected failures during the job"},
    {"device_hours", "device-h", "Devices × expected wall time"},
};

const Block kInference = {
    {"batch", "sequences", "Concurrent sequences"},
    {"latency_s", "s", "End-to-end time of a request (edge: of one frame)"},
    {"ttft_s", "s", "Time to first token"},
    {"tpot_s", "s", "Time per output token"},
    {"tokens_per_s", "tokens/s", "Output tokens per second, all replicas"},
    {"tokens_per_s_per_device", "tokens/s", "Output tokens per second per device"},
    {"decode_tokens_per_s", "tokens/s", "Output tokens per second while decoding only"},
    {"requests_per_s", "requests/s", "Requests completed per second"},
    {"prefill_s", "s", "Prefill of one batch"},
    {"prefill_comm_s", "s", "Of it, communication"},
    {"decode_step_s", "s", "One decode step"},
    {"decode_comm_s", "s", "Of it, communication"},
    {"prefill_mfu", "fraction", "Model FLOPs utilisation of prefill"},
    {"mbu", "fraction", "Memory bandwidth utilisation of decode"},
    {"bytes_per_decode_step", "B", "Bytes one device reads per decode step"},
    {"throughput_curve[].batch", "sequences", "Batch of the point"},
    {"throughput_curve[].step_s", "s", "Decode step at that batch"},
    {"throughput_curve[].tokens_per_s", "tokens/s", "Output tokens per second at that batch"},
    {"max_batch", "sequences", "Largest batch that fits in memory"},
    {"best_within_tpot.tpot_slo_s", "s", "The TPOT bound"},
    {"best_within_tpot.batch", "sequences", "Largest batch within it"},
    {"best_within_tpot.tokens_per_s", "tokens/s", "Its output tokens per second"},
    {"best_within_tpot.step_s", "s", "Its decode step"},
    {"serving.saturation_rate_per_s", "requests/s", "Arrival rate one replica can sustain"},
    {"speculative.alpha", "fraction", "Draft token acceptance rate"},
    {"speculative.draft_length", "tokens", "Tokens drafted per step"},
    {"speculative.draft_cost_ratio", "", "A draft step's cost over a target step's"},
    {"speculative.tokens_per_target_step", "tokens", "Expected tokens accepted per target step"},
    {"speculative.speedup", "", "Decode speed-up over plain decoding"},
    {"speculative.tpot_s", "s", "Time per output token with speculation"},
    {"fps", "frames/s", "Edge: frames per second"},
    {"power_w", "W", "Edge: power at that rate"},
    {"energy_per_inference_j", "J", "Edge: energy per frame"},
    {"achieved_tops_per_w", "TOPS/W", "Edge: achieved operations per second per watt"},
    {"streamed_bytes", "B", "Edge: weights streamed from host memory per frame"},
    {"target_fps", "frames/s", "Edge: the frame rate asked for"},
    {"frame_budget", "", "Edge: whether the target rate is met, in words"},
};

const Block kUncertainty = {
    {"basis", "", "What the spread comes from (calibration residuals or default priors)"},
    {"samples", "", "Monte Carlo samples"},
    {"figures.*.predicted", "", "The point prediction (the figure's own unit)"},
    {"figures.*.p10", "", "10th percentile"},
    {"figures.*.p50", "", "Median"},
    {"figures.*.p90", "", "90th percentile"},
};

const Block kBands = {
    {"method", "", "How the bands are derived (docs/models.md F-UNC-2)"},
    {"figures.*.predicted", "", "The point prediction (the figure's own unit)"},
    {"figures.*.p10", "", "10th percentile: the point moved by the 10th percentile of held-out cases' reality over prediction"},
    {"figures.*.p50", "", "Median"},
    {"figures.*.p90", "", "90th percentile"},
    {"figures.*.cases", "cases", "Held-out validation cases behind the band"},
    {"figures.*.sources", "sources", "Their sources"},
    {"figures.*.kind", "", "The kind of case that judges the figure (training, inference, serving)"},
    {"figures.*.shared[]", "", "What those cases share with the question (feature = value)"},
    {"figures.*.unseen[]", "", "The question's features no validated case has: the band is widened for them"},
    {"figures.*.far", "", "Whether the question is far from every validated case (unseen is not empty)"},
    {"figures.*.basis", "", "The cases behind the band, in words"},
    {"without[]", "", "Headline figures without a band, and why"},
};

const Block kCoverage = {
    {"cases", "cases", "Held-out cases with a band"},
    {"inside_p10_p90", "cases", "Inside their P10-P90 band"},
    {"inside_p25_p75", "cases", "Inside their P25-P75 band"},
    {"share_p10_p90", "fraction", "Share inside P10-P90 (nominal 0.8)"},
    {"share_p25_p75", "fraction", "Share inside P25-P75 (nominal 0.5)"},
    {"far", "cases", "Cases whose band was widened as far from the other sources' cases"},
    {"median_p90_over_p10", "", "Median width of the bands, P90 / P10"},
};

const Block kSummary = {
    {"cases", "", "Cases"},
    {"scored", "", "Cases scored"},
    {"held_out", "", "Scored cases not used to set a default or fit a profile"},
    {"within_tolerance", "", "Scored cases within their tolerance"},
    {"median_abs_error", "fraction", "Median |predicted/measured − 1| over held-out cases"},
    {"mean_abs_error", "fraction", "Mean of the same"},
    {"max_abs_error", "fraction", "Largest of the same"},
};

// ---- Composition ------------------------------------------------------------------------------

struct Builder {
  std::vector<OutputField> out;
  // A path declared again (the sweep's training and serving rows share keys) keeps one entry with
  // both meanings.
  Builder& add(std::string_view path, std::string_view unit, std::string_view description) {
    for (OutputField& f : out)
      if (f.path == path) {
        if (f.description != description) f.description += "; " + std::string(description);
        return *this;
      }
    out.push_back({std::string(path), unit, std::string(description)});
    return *this;
  }
  Builder& add(std::string_view prefix, const Block& block) {
    for (const Decl& d : block) add(std::string(prefix) + std::string(d.key), d.unit, d.description);
    return *this;
  }
  // A serving point's or an engine steady state's block, with the latencies both carry.
  Builder& serving(std::string_view prefix, const Block& block) { return add(prefix, block).add(prefix, kLatency); }
  Builder& add(const std::vector<OutputField>& fields) {
    for (const OutputField& f : fields) add(f.path, f.unit, f.description);
    return *this;
  }
  template <class Layout, class Figures>
  Builder& rows(std::string_view prefix, std::span<const LayoutColumn<Layout>> layout, std::span<const FigureColumn<Figures>> figures) {
    for (const auto& c : layout) add(std::string(prefix) + "layout." + std::string(c.key), c.unit, c.description);
    for (const auto& c : figures) add(std::string(prefix) + "figures." + std::string(c.key), c.unit, c.description);
    return *this;
  }
  template <class Row>
  Builder& plan_rows(std::string_view prefix, const std::vector<PlanColumn<Row>>& columns) {
    for (const PlanColumn<Row>& c : columns) add(std::string(prefix) + c.key, c.unit, c.description);
    return *this;
  }
  template <class Layout, class Figures>
  Builder& csv_rows(std::span<const LayoutColumn<Layout>> layout, std::span<const FigureColumn<Figures>> figures) {
    add("rank", "", "Rank by the objective").add("id", "", "The layout's position in the space");
    for (const auto& c : layout) add(c.csv_key.empty() ? c.key : c.csv_key, c.unit, c.description);
    for (const auto& c : figures) add(c.key, c.unit, c.description);
    return *this;
  }
};

std::vector<OutputField> prediction_fields(std::string_view prefix) {
  Builder b;
  const std::string p(prefix);
  b.add(p + "scenario.", kScenario).add(p + "training.", kTraining).add(p + "inference.", kInference);
  b.serving(p + "inference.serving.", kServingPoint).serving(p + "inference.engine.", kEngineSteadyState);
  b.serving(p + "inference.closed_loop.", kEngineSteadyState).add(p + "memory.", kMemory);
  b.add(p + "energy.", kEnergy).add(p + "cost.", kCost);
  b.add(p + "bottleneck", "", "What limits the step, in words").add(p + "assumptions[]", "", "Every default and assumption used");
  return b.out;
}

std::vector<OutputField> sweep_fields() {
  Builder b;
  const std::string s = "sweep.";
  b.add(s + "kind", "", "inference for a serving sweep");
  for (const char* key : {"scenario", "workload", "accelerator"}) b.add(s + key, "", "What was swept");
  b.add(s + "scenario_file", "", "The scenario file (training sweeps; what sweep-merge checks)");
  b.add(s + "stack", "", "The training stack whose layout rules the sweep applied (training sweeps)");
  b.add(s + "objective", "", "The metric ranked by").add(s + "higher_is_better", "", "Whether the objective is maximised");
  b.add(s + "constraints[].text", "", "A constraint as given").add(s + "constraints[].metric", "", "Its metric");
  b.add(s + "constraints[].at_most", "", "true for <=, false for >=").add(s + "constraints[].bound", "", "Its bound, in the metric's SI unit");
  b.add(s + "constraints[].dropped", "layouts", "Layouts it dropped");
  b.add(s + "pareto_metrics[]", "", "Metrics of the Pareto front").add(s + "top", "", "Rows kept");
  b.add(s + "capacity_B", "B", "Device memory a layout must fit in");
  b.add(s + "counts.combinations", "layouts", "Layouts in the space").add(s + "counts.repeats", "layouts", "Not distinct: a schedule without pp, a ZeRO stage without dp x cp");
  b.add(s + "counts.dropped_by_rule.*", "layouts", "Layouts each layout rule dropped");
  b.add(s + "counts.dropped_by_memory", "layouts", "Layouts that do not fit").add(s + "counts.timed", "layouts", "Layouts timed");
  b.add(s + "counts.feasible", "layouts", "Layouts that fit and meet every constraint");
  b.add(s + "counts.better_than_baseline", "layouts", "Feasible layouts better than the scenario's own");
  for (const char* row : {"best[].", "pareto_front[].", "baseline."}) {
    b.rows(s + row, training_layout_columns(), training_figure_columns());
    b.rows(s + row, serving_layout_columns(), serving_figure_columns());
  }
  b.add(s + "best[].id", "", "The layout's position in the space").add(s + "pareto_front[].id", "", "The layout's position in the space");
  b.add(s + "best[].bands.", kBands);
  b.add(s + "baseline.fits", "", "Whether the scenario's own layout fits");
  b.add(prediction_fields(s + "best[].prediction."));
  b.add(s + "shard", "", "This shard (0-based)").add(s + "shards", "", "Shards of the sweep");
  b.add(s + "job", "", "Whether the scenario has a token budget").add(s + "economics", "", "Whether the scenario has [cost]");
  for (const char* key : {"devices", "tp", "cp", "pp", "ep", "micro_batch", "recompute", "sequence_parallel", "zero"})
    b.add(s + "space." + key + "[]", "", "The values swept");
  b.add(s + "space.pipeline[].schedule", "", "A schedule swept").add(s + "space.pipeline[].vp", "", "With this many virtual chunks");
  b.add(s + "space.combinations", "layouts", "Layouts in the space");
  b.add(s + "seconds", "s", "Time the sweep took").add(s + "threads", "", "Threads used");
  b.add(s + "layouts_per_s", "layouts/s", "Sweep speed");
  return b.out;
}

std::vector<CommandFields> build() {
  std::vector<CommandFields> all;
  {
    Builder j;
    j.add(prediction_fields(""));
    j.add("uncertainty.", kUncertainty).add("parameter_spread.", kUncertainty).add("bands.", kBands);
    Builder c;
    c.add("component", "", "Training: a step component").add("seconds", "s", "Its time").add("share", "fraction", "Its share of the step");
    c.add("batch", "sequences", "Inference: a point of the throughput curve").add("step_s", "s", "Decode step");
    c.add("tokens_per_s", "tokens/s", "Output tokens per second").add("tokens_per_s_per_device", "tokens/s", "Per device");
    all.push_back({"predict", "Training or inference prediction", j.out, c.out});
  }
  {
    Builder j, c;
    j.add("scenario", "", "The scenario").add("layout", "", "The layout scaled");
    j.add("rows[].devices", "devices", "Devices").add("rows[].dp", "replicas", "Data parallel at that size");
    j.add("rows[].fits", "", "Whether it fits in memory").add("rows[].skipped", "", "Why the size was skipped");
    j.add("rows[].strong.step_time_s", "s", "Strong scaling: step time (same global batch)");
    j.add("rows[].strong.tokens_per_s", "tokens/s", "Strong scaling: tokens per second");
    j.add("rows[].strong.efficiency", "fraction", "Strong scaling efficiency against the smallest size");
    j.add("rows[].weak.global_batch", "sequences", "Weak scaling: global batch (same batch per replica)");
    j.add("rows[].weak.step_time_s", "s", "Weak scaling: step time").add("rows[].weak.tokens_per_s", "tokens/s", "Weak scaling: tokens per second");
    j.add("rows[].weak.efficiency", "fraction", "Weak scaling efficiency");
    j.add("amdahl.parallel_fraction", "fraction", "Amdahl fit of the strong speed-up").add("amdahl.rms_error", "fraction", "Its rms error");
    j.add("gustafson.serial_fraction", "fraction", "Gustafson fit of the weak speed-up").add("gustafson.rms_error", "fraction", "Its rms error");
    c.add("devices", "devices", "Devices").add("dp", "replicas", "Data parallel").add("strong_step_s", "s", "Strong scaling step time");
    c.add("strong_tokens_per_s", "tokens/s", "Strong scaling tokens per second").add("strong_efficiency", "fraction", "Strong scaling efficiency");
    c.add("weak_global_batch", "sequences", "Weak scaling global batch").add("weak_step_s", "s", "Weak scaling step time");
    c.add("weak_tokens_per_s", "tokens/s", "Weak scaling tokens per second").add("weak_efficiency", "fraction", "Weak scaling efficiency");
    c.add("skipped", "", "Why the size was skipped");
    all.push_back({"scaling", "Strong and weak scaling", j.out, c.out});
  }
  {
    Builder j, c;
    j.add("scenario.", kScenario).add("assumptions[]", "", "Every default and assumption used");
    j.serving("capacity.per_replica.", kServingPoint).serving("capacity.per_replica.", kEngineSteadyState).serving("capacity.latency_curve[].", kServingPoint);
    j.add("capacity.concurrency", "requests", "Closed loop (--concurrency): the clients");
    j.add("bands.", kBands);
    j.add("capacity.disaggregated.kv_bytes_per_device", "B", "One prompt's KV cache, one device's share");
    j.add("capacity.disaggregated.kv_transfer_s", "s", "Its hand-over from a prefill to a decode replica");
    j.add("capacity.disaggregated.nic_share_bps", "B/s", "One device's share of its node's NICs, per direction");
    j.add("capacity.disaggregated.prefill_slo_rate_per_s", "requests/s", "Highest rate per prefill replica meeting TTFT with the hand-over");
    j.add("capacity.disaggregated.decode_slo_rate_per_s", "requests/s", "Highest rate per decode replica meeting TPOT");
    j.add("capacity.disaggregated.prefill_replicas", "replicas", "Prefill replicas for the rate");
    j.add("capacity.disaggregated.decode_replicas", "replicas", "Decode replicas for the rate");
    j.add("capacity.disaggregated.devices", "devices", "Devices of both pools");
    j.add("capacity.disaggregated.verdict", "", "Which pool cannot meet its SLO");
    j.serving("capacity.disaggregated.prefill.", kServingPoint).serving("capacity.disaggregated.decode.", kServingPoint);
    j.add("capacity.latency_curve[].meets_slo", "", "Whether the point meets the SLOs");
    j.add("capacity.replica.devices", "devices", "Devices per replica").add("capacity.replica.max_concurrency", "sequences", "Concurrency limit");
    j.add("capacity.replica.prefill_s", "s", "Prefill of one request");
    j.add("capacity.replica.saturation_rate_per_s", "requests/s", "Rate one replica sustains");
    j.add("capacity.replica.decode_steps[].batch", "sequences", "Occupancy").add("capacity.replica.decode_steps[].step_s", "s", "Decode step at it");
    j.add("capacity.slo.percentile", "%", "The percentile the SLOs bound").add("capacity.slo.ttft_s", "s", "TTFT objective");
    j.add("capacity.slo.tpot_s", "s", "TPOT objective").add("capacity.slo_rate_per_s", "requests/s", "Highest rate per replica meeting the SLOs");
    j.add("capacity.target_rate_per_s", "requests/s", "The rate asked for").add("capacity.replicas", "replicas", "Replicas needed for it");
    j.add("capacity.devices", "devices", "Devices needed for it");
    c.add("load", "fraction", "Offered load").add("rate_per_s", "requests/s", "Arrival rate per replica");
    c.add("percentile", "%", "SLO percentile").add("ttft_p50_s", "s", "Median TTFT").add("ttft_at_percentile_s", "s", "TTFT at the percentile");
    c.add("tpot_p50_s", "s", "Median TPOT").add("tpot_at_percentile_s", "s", "TPOT at the percentile");
    c.add("output_tokens_per_s", "tokens/s", "Output tokens per second per replica").add("meets_slo", "", "Whether the point meets the SLOs");
    j.add("capacity.per_replica.meets_slo", "", "Closed loop: whether the steady state meets the SLOs given");
    c.add("concurrency", "requests", "Closed loop: the clients").add("ttft_mean_s", "s", "Closed loop: mean TTFT");
    c.add("tpot_mean_s", "s", "Closed loop: mean TPOT").add("e2e_mean_s", "s", "Closed loop: mean end-to-end time");
    all.push_back({"capacity", "Serving capacity under SLOs", j.out, c.out});
  }
  {
    Builder j, c;
    j.add("scenario", "", "The scenario compared").add("kind", "", "training or inference");
    const Block row = {
        {"hardware", "", "The hardware variant"}, {"cost", "", "The payment variant"}, {"region", "", "The region variant"},
        {"accelerator", "", "Device"}, {"devices", "devices", "Devices"}, {"offer", "", "Cloud offer"},
        {"wall_s", "s", "Wall time of the job"}, {"tokens_per_s", "tokens/s", "Tokens per second"}, {"usd", "USD", "Cost of the job"},
        {"usd_per_million_tokens", "USD/Mtoken", "Dollars per million tokens"}, {"kwh", "kWh", "Facility energy of the job"},
        {"kwh_per_million_tokens", "kWh/Mtoken", "Energy per million tokens"}, {"co2e_kg", "kg CO2e", "Emissions of the job"},
        {"co2e_kg_per_million_tokens", "kg CO2e/Mtoken", "Emissions per million tokens"}, {"tokens_per_usd", "tokens/USD", "Tokens per dollar"},
        {"tokens_per_s_per_kw", "tokens/s/kW", "Tokens per second per kW"}, {"meets_deadline", "", "Whether the job meets --deadline"},
        {"offer_note", "", "How the offer was chosen (--cost cloud), and whether it is spot or community capacity"},
        {"error", "", "Why the variant could not be predicted"}};
    j.add("rows[].", row).add("rows[].bands.", kBands);
    for (const char* best : {"time", "cost", "energy", "co2e", "perf_per_usd", "perf_per_watt"})
      j.add(std::string("best_row.") + best, "", "Index into rows of the best by this measure");
    for (const char* metric : {"energy", "co2e", "perf_per_watt"})
      j.add(std::string("not_ranked.") + metric, "", "Why this energy measure is not ranked: rows count energy differently");
    c.add("", row);
    c.add("wall_s_p10", "s", "Wall time, P10 of its empirical band").add("wall_s_p90", "s", "Wall time, P90");
    c.add("tokens_per_s_p10", "tokens/s", "Tokens per second, P10 (the slow end)").add("tokens_per_s_p90", "tokens/s", "Tokens per second, P90");
    c.add("usd_p10", "USD", "Cost of the job, P10").add("usd_p90", "USD", "Cost of the job, P90");
    c.add("usd_per_million_tokens_p10", "USD/Mtoken", "Dollars per million tokens, P10");
    c.add("usd_per_million_tokens_p90", "USD/Mtoken", "Dollars per million tokens, P90");
    all.push_back({"compare", "The same workload across hardware, payment and regions", j.out, c.out});
  }
  {
    Builder j, c;
    const std::string p = "plan.";
    j.add(p + "kind", "", "training (a job to finish) or serving (a fleet for a rate)");
    j.add(p + "scenario_file", "", "The scenario planned").add(p + "scenario", "", "Its name").add(p + "workload", "", "The workload");
    j.add(p + "stack", "", "Training: the stack whose layout rules applied").add(p + "objective", "", "cost, time or co2");
    j.add(p + "engine", "", "Serving: the engine whose scheduler was simulated").add(p + "rate", "requests/s", "Serving: the rate over the fleet");
    j.add(p + "input_len", "tokens", "Serving: prompt length").add(p + "output_len", "tokens", "Serving: output length (mean)");
    j.add(p + "slo.ttft_s", "s", "Serving: TTFT bound (null: none)").add(p + "slo.tpot_s", "s", "Serving: TPOT bound (null: none)");
    j.add(p + "slo.percentile", "%", "Serving: the percentile the SLOs bound");
    j.add(p + "budget_usd_per_hour", "USD/h", "Serving: --budget (null: none)").add(p + "simulated", "", "Serving: replica layouts simulated");
    j.add(p + "assumptions[]", "", "Serving: what the plan assumed");
    j.add(p + "pareto[]", "", "Metrics of the Pareto front").add(p + "deadline_s", "s", "--deadline (null: none)");
    j.add(p + "budget_usd", "USD", "--budget (null: none)").add(p + "max_devices", "devices", "--max-devices (null: none)");
    j.add(p + "risk", "", "--risk: p50 (ranked at the point prediction) or p90 (at the band's slow end)");
    j.add(p + "nodes[]", "nodes", "Node counts searched").add(p + "systems[]", "", "Systems searched (the scenario rules accepted)");
    j.add(p + "units", "", "System x node-count units swept").add(p + "layouts", "", "Distinct layouts judged");
    j.add(p + "timed", "", "Layouts timed (passed the stack's rules and fit)").add(p + "priced", "", "Rows priced (unit x payment)");
    j.add(p + "shard", "", "This shard (0-based)").add(p + "shards", "", "Shards of the plan").add(p + "seconds", "s", "Time the plan took");
    j.add(p + "dropped[].reason", "", "Why candidates were dropped").add(p + "dropped[].count", "", "How many (system x node count x payment)");
    j.add(p + "last_removed_by", "", "No row left: the reason furthest along the search that removed candidates");
    j.add(p + "top", "", "Best rows kept (--top)").add(p + "calibration", "", "The calibration profile given (\"\": none)");
    j.add(p + "payments[]", "", "Ways of paying searched: cloud, spot, purchase");
    j.add(p + "regions[]", "", "Regions asked (empty: all)").add(p + "accelerators[]", "", "Accelerators asked (empty: all)");
    j.add(p + "accelerators_without_system[]", "", "Accelerators not searched: no system in the database is built from them");
    j.add(p + "last_removed_stage", "", "How far along the search last_removed_by is (plan-merge keeps the furthest)");
    j.add(p + "dtypes[]", "", "Serving: --dtypes (empty: the scenario's and each lower one the device computes in)");
    j.plan_rows(p + "best[].", training_plan_columns()).plan_rows(p + "front[].", training_plan_columns());
    j.plan_rows(p + "best[].", serving_plan_columns()).plan_rows(p + "front[].", serving_plan_columns());
    c.add("set", "", "best (ranked by the objective) or front (Pareto front)");
    c.plan_rows("", training_plan_columns()).plan_rows("", serving_plan_columns());
    all.push_back({"plan", "What to rent or buy for a training job or a serving fleet", j.out, c.out});
    all.push_back({"plan-merge", "The shards of one plan, combined", j.out, c.out});
  }
  {
    Builder c;
    c.csv_rows(training_layout_columns(), training_figure_columns());
    c.csv_rows(serving_layout_columns(), serving_figure_columns());
    all.push_back({"sweep", "Every layout, ranked", sweep_fields(), c.out});
    all.push_back({"sweep-merge", "The shards of one sweep, combined", sweep_fields(), c.out});
  }
  {
    Builder j, c;
    j.add("accelerator", "", "Device").add("workload", "", "Workload or op").add("precision", "", "Math precision");
    j.add("peak_ops_per_s", "FLOP/s", "Dense peak of the precision").add("memory_bandwidth_Bps", "B/s", "Device memory bandwidth");
    j.add("host_link_Bps", "B/s", "Host link bandwidth (weights streamed from the host)");
    j.add("ridge_flop_per_byte", "FLOP/B", "Ridge point of the peaks").add("ridge_achievable_flop_per_byte", "FLOP/B", "Ridge of the derated ceilings");
    j.add("ridge_level", "", "The memory level of the ridge");
    for (const char* e : {"gemm", "gemm_8bit", "gemm_4bit", "attention", "memory", "host_link"})
      j.add(std::string("efficiency.") + e, "fraction", "Achievable share of the ceiling (default or calibrated)");
    j.add("efficiency.kernel_overhead_s", "s", "Launch overhead per kernel");
    j.add("sections[].title", "", "A part of the model").add("sections[].repeats", "", "How often it runs").add("sections[].time_s", "s", "Its time");
    const Block op = {
        {"name", "", "Op"}, {"pass", "", "fwd, bwd or recompute"}, {"kind", "", "gemm, attention or memory"}, {"precision", "", "Math precision"},
        {"flops", "FLOP", "Executed FLOPs"}, {"model_flops", "FLOP", "Model FLOPs"}, {"bytes_read", "B", "Bytes read"},
        {"bytes_written", "B", "Bytes written"}, {"host_bytes", "B", "Bytes over the host link"},
        {"intensity_flop_per_byte", "FLOP/B", "Arithmetic intensity"}, {"gemm.m", "", "GEMM M"}, {"gemm.n", "", "GEMM N"},
        {"gemm.k", "", "GEMM K"}, {"gemm.count", "", "GEMMs of this shape"}, {"bound", "", "compute, memory, host or overhead"},
        {"time_s", "s", "Its time"}, {"compute_s", "s", "Compute time at the derated peak"}, {"memory_s", "s", "Memory time at the derated bandwidth"},
        {"host_s", "s", "Host-link time"}, {"overhead_s", "s", "Launch overhead"}, {"achieved_ops_per_s", "FLOP/s", "Achieved rate"},
        {"compute_efficiency", "fraction", "Efficiency applied"}, {"share", "fraction", "Share of its section's time"}};
    j.add("sections[].ops[].", op).add("assumptions[]", "", "Every default and assumption used");
    c.add("section", "", "A part of the model").add("op", "", "Op").add("pass", "", "fwd, bwd or recompute").add("kind", "", "Op kind");
    c.add("precision", "", "Math precision").add("flops", "FLOP", "Executed FLOPs").add("bytes_read", "B", "Bytes read");
    c.add("bytes_written", "B", "Bytes written").add("host_bytes", "B", "Bytes over the host link");
    c.add("intensity_flop_per_byte", "FLOP/B", "Arithmetic intensity").add("bound", "", "What bounds it").add("time_s", "s", "Its time");
    c.add("share", "fraction", "Share of its section's time");
    all.push_back({"roofline", "The roofline of every op", j.out, c.out});
  }
  {
    Builder j, c;
    j.add("scenario", "", "The scenario").add("workload", "", "Workload").add("accelerator", "", "Device");
    j.add("phase", "", "training, prefill or decode").add("memory.", kMemory).add("assumptions[]", "", "Every default and assumption used");
    c.add("component", "", "A memory component").add("bytes", "B", "Its bytes per device").add("note", "", "How it was counted");
    all.push_back({"memory", "Memory per device", j.out, c.out});
  }
  {
    Builder j, c;
    const std::string k = "collective.";
    j.add(k + "op", "", "Collective").add(k + "system", "", "System").add(k + "gpus", "devices", "Ranks");
    j.add(k + "algorithm", "", "Algorithm asked for").add(k + "bus_factor", "", "busbw over algbw (nccl-tests)");
    j.add(k + "fabric.intra_link", "", "Scale-up link").add(k + "fabric.scale_out", "", "Scale-out link");
    j.add(k + "fabric.intra_Bps", "B/s", "Scale-up bandwidth per rank").add(k + "fabric.inter_Bps_per_rank", "B/s", "Scale-out bandwidth per rank");
    j.add(k + "fabric.nvls_algbw_Bps", "B/s", "NVLink SHARP algorithm bandwidth");
    j.add(k + "fabric.ring_busbw_Bps", "B/s", "Ring bus bandwidth inside a domain: the link's measured figure (F-COLL-7) or its rate x the ring efficiency");
    j.add(k + "fabric.oversubscription", "", "Scale-out oversubscription").add(k + "fabric.ranks_per_domain", "", "Ranks per scale-up domain");
    j.add(k + "fabric.ranks_per_nic", "", "Ranks sharing one NIC").add(k + "fabric.scale_up_domains", "", "Scale-up domains spanned");
    const Block row = {{"size_bytes", "B", "Message size"}, {"count", "", "Elements"}, {"algorithm", "", "Algorithm chosen"},
                       {"protocol", "", "NCCL protocol"}, {"time_s", "s", "Time"}, {"latency_s", "s", "Of it, latency"},
                       {"transfer_s", "s", "Of it, transfer"}, {"fill_s", "s", "Of it, pipeline fill"},
                       {"algbw_Bps", "B/s", "Algorithm bandwidth (size / time)"}, {"busbw_Bps", "B/s", "Bus bandwidth (nccl-tests)"}};
    j.add(k + "rows[].", row);
    c.add("op", "", "Collective").add("gpus", "devices", "Ranks").add("size_bytes", "B", "Message size").add("count", "", "Elements");
    c.add("time_us", "µs", "Time").add("algbw_GBps", "GB/s", "Algorithm bandwidth").add("busbw_GBps", "GB/s", "Bus bandwidth");
    c.add("algorithm", "", "Algorithm chosen").add("protocol", "", "NCCL protocol");
    all.push_back({"collective", "One collective over message sizes", j.out, c.out});
  }
  {
    Builder j, c;
    const std::string k = "communication.";
    j.add(k + "scenario", "", "The scenario").add(k + "system", "", "System").add(k + "devices", "devices", "Devices");
    j.add(k + "layout", "", "The layout").add(k + "order", "", "Rank order of the groups");
    const Block placement = {{"group", "", "Parallel group"}, {"ranks", "", "Ranks in one group"}, {"stride", "", "Rank stride"},
                             {"crosses", "", "Which links it crosses"}, {"scale_up_domains", "", "Scale-up domains one group spans"},
                             {"ranks_per_nic", "", "Group ranks sharing a NIC"}, {"intra_Bps", "B/s", "Scale-up bandwidth per rank"},
                             {"inter_Bps_per_rank", "B/s", "Scale-out bandwidth per rank"}};
    j.add(k + "placements[].", placement);
    j.add(k + "phases[].phase", "", "Training step, prefill pass or decode step").add(k + "phases[].time_s", "s", "Communication of the phase");
    j.add(k + "phases[].exposed_s", "s", "Of it, exposed");
    for (const Decl& d : Block{{"time_s", "s", "The group's communication"}, {"exposed_s", "s", "Of it, exposed"},
                                {"overlappable_s", "s", "Of it, overlappable with compute"}, {"sent_bytes", "B", "Bytes one rank sends"}})
      j.add(k + "phases[].by_group.*." + std::string(d.key), d.unit, d.description);
    const Block item = {{"group", "", "Parallel group"}, {"what", "", "The traffic"}, {"op", "", "Collective"},
                        {"size_bytes", "B", "Message size"}, {"calls", "", "Calls per phase"}, {"sent_bytes", "B", "Bytes one rank sends"},
                        {"algorithm", "", "Algorithm"}, {"protocol", "", "NCCL protocol"}, {"busbw_Bps", "B/s", "Bus bandwidth"},
                        {"time_per_call_s", "s", "One call"}, {"time_s", "s", "All calls"}, {"overlaps_with", "", "What hides it"}};
    j.add(k + "phases[].items[].", item);
    c.add("phase", "", "Phase").add("group", "", "Parallel group").add("traffic", "", "The traffic").add("op", "", "Collective");
    c.add("size_bytes", "B", "Message size").add("calls", "", "Calls per phase").add("sent_bytes", "B", "Bytes one rank sends");
    c.add("algorithm", "", "Algorithm").add("protocol", "", "NCCL protocol").add("busbw_GBps", "GB/s", "Bus bandwidth");
    c.add("time_s", "s", "All calls").add("overlaps_with", "", "What hides it");
    all.push_back({"comm", "Communication by parallel group", j.out, c.out});
  }
  {
    Builder j, c;
    j.add("name", "", "The model's name (the preset's, or the config.json's folder)").add("display_name", "", "Its name in outputs");
    j.add("source.title", "", "Where the architecture comes from").add("source.locator", "", "The file or table");
    j.add("source.url", "", "Its address").add("source.date", "", "Its date");
    const Block arch = {{"layers", "", "Transformer layers"}, {"hidden", "", "Model width"}, {"heads", "", "Query heads"},
                        {"kv_heads", "", "Key/value heads"}, {"head_dim", "", "Width of one head"}, {"ffn_hidden", "", "Dense MLP width"},
                        {"vocab", "tokens", "Vocabulary"}, {"max_context", "tokens", "Longest context (0: not stated)"},
                        {"mlp", "", "MLP kind"}, {"norm", "", "Norm kind"}, {"tied_embeddings", "", "Embedding and head share weights"},
                        {"linear_bias", "", "Every linear layer has a bias"}, {"qkv_bias", "", "Q/K/V projections have biases"},
                        {"qk_norm", "", "Per-head q/k norms"}, {"qk_norm_across_heads", "", "The q/k norms span all heads"},
                        {"attention_output_gate", "", "A sigmoid gate on the attention output"},
                        {"norms_per_layer", "", "Norms per layer (2 or 4)"},
                        {"attention_sinks", "", "A sink logit per head"}, {"sliding_window", "tokens", "Window of the sliding layers"},
                        {"sliding_layers", "", "Layers with the window"}, {"mtp_layers", "", "Multi-token-prediction modules"},
                        {"moe.*", "", "Experts, top_k, widths, shared experts, dense layers, router bias, load imbalance"},
                        {"mla.*", "", "Latent attention ranks and head widths"},
                        {"linear_attention.*", "", "Linear-attention kind, layers, key/value heads and widths, convolution"},
                        {"sparse_attention.*", "", "Sparse attention's indexer heads and width, keys read per query"}};
    j.add("architecture.", arch);
    const Block params = {{"total", "parameters", "Every parameter (MTP modules apart)"},
                          {"active", "parameters", "What one token uses, embedding and head included"},
                          {"embedding", "parameters", "Input embedding"}, {"lm_head", "parameters", "Output projection (0: tied)"},
                          {"mtp", "parameters", "The MTP modules"}};
    j.add("parameters.", params);
    j.add("kv_cache_bytes_per_token_bf16", "B", "KV cache per token on one device in BF16 (within the window for sliding layers)");
    j.add("linear_state_bytes_per_sequence", "B", "Linear-attention layers' state per sequence on one device (0: none)");
    j.add("published_parameters", "parameters", "The preset's published count")
        .add("published_active_parameters", "parameters", "The preset's published active count")
        .add("published_not_modelled_parameters", "parameters", "Part of the published count the preset leaves out (a vision encoder)")
        .add("stored_weights", "", "The checkpoint's weight format");
    all.push_back({"model", "A transformer's architecture and parameter counts (model show)", j.out, c.out});
  }
  {
    Builder j, c;
    j.add("files[]", "", "Case files read");
    const Block kase = {{"id", "", "Case id"}, {"kind", "", "Suite"}, {"source", "", "Where the measurement was published"},
                        {"subject", "", "What was measured"}, {"measured", "", "Measured value (the case's SI unit)"},
                        {"predicted", "", "Predicted value (same unit)"}, {"error", "fraction", "predicted / measured − 1"},
                        {"held_out", "", "Not used to set a default or fit the profile"}, {"within_tolerance", "", "|error| within tolerance"},
                        {"tolerance", "fraction", "The case's tolerance"}, {"detail", "", "How the prediction was made"},
                        {"used_for", "", "What else the case is used for (a default, calibration)"}, {"skipped", "", "Why it was not scored"},
                        {"harness_profile", "", "The profile of its harness the case names and was scored with (without --calibration)"},
                        {"error_before", "fraction", "With --calibration: the defaults' error"}};
    j.add("cases[].", kase).add("summary.", kSummary).add("by_kind.*.", kSummary).add("by_source.*.", kSummary).add("by_engine.*.", kSummary)
        .add("by_vendor.*.", kSummary);
    j.add("pooled.", kCoverage).add("by_kind.*.", kCoverage).add("by_source.*.", kCoverage);
    j.add("source_average_p10_p90", "fraction", "validate --coverage: the mean over sources of their share inside P10-P90");
    j.add("without_band", "cases", "validate --coverage: held-out cases whose kind has too few other sources for a band");
    j.add("calibration.profile", "", "The profile scored").add("calibration.fitted_cases_excluded", "", "Its fitted cases, not held-out");
    j.add("calibration.other_device_cases_with_defaults", "", "Cases on other devices, scored with the defaults");
    j.add("calibration.summary_before.", kSummary).add("calibration.by_kind_before.*.", kSummary);
    c.add("id", "", "Case id").add("kind", "", "Suite").add("subject", "", "What was measured").add("measured", "", "Measured value");
    c.add("predicted", "", "Predicted value").add("error", "fraction", "predicted / measured − 1").add("held_out", "", "Held-out");
    c.add("within_tolerance", "", "Within tolerance").add("skipped", "", "Why it was not scored");
    all.push_back({"validate", "Predictions against measured and published cases", j.out, c.out});
  }
  return all;
}

}  // namespace

const std::vector<CommandFields>& output_fields() {
  static const std::vector<CommandFields> all = build();
  return all;
}

const CommandFields* fields_of(std::string_view command) {
  for (const CommandFields& c : output_fields())
    if (c.command == command) return &c;
  return nullptr;
}

std::string fields_to_table(std::span<const CommandFields> commands) {
  std::string out;
  for (const CommandFields& c : commands) {
    struct Listing {
      const char *format, *heading;
      const std::vector<OutputField>& fields;
    };
    for (const Listing& l : {Listing{"json", "path", c.json}, Listing{"csv", "column", c.csv}}) {
      TextTable t({l.heading, "unit", "meaning"});
      for (const OutputField& f : l.fields) t.add_row({f.path, std::string(f.unit), f.description});
      out += fmt::format("{}perfcast {} --format {} ({}):\n{}", out.empty() ? "" : "\n", c.command, l.format, c.help, t.render());
    }
  }
  return out;
}

std::string fields_to_json(std::span<const CommandFields> commands) {
  nlohmann::json out = nlohmann::json::object();
  for (const CommandFields& c : commands) {
    auto list = [](const std::vector<OutputField>& fields) {
      nlohmann::json a = nlohmann::json::array();
      for (const OutputField& f : fields) a.push_back({{"path", f.path}, {"unit", f.unit}, {"description", f.description}});
      return a;
    };
    out[std::string(c.command)] = {{"help", c.help}, {"json", list(c.json)}, {"csv", list(c.csv)}};
  }
  return out.dump(2);
}

std::string fields_to_csv(std::span<const CommandFields> commands) {
  std::string out = "command,format,path,unit,description\n";
  for (const CommandFields& c : commands)
    for (const auto& [format, fields] : {std::pair{"json", &c.json}, std::pair{"csv", &c.csv}})
      for (const OutputField& f : *fields)
        out += fmt::format("{},{},{},{},{}\n", c.command, format, csv_field(f.path), csv_field(std::string(f.unit)), csv_field(f.description));
  return out;
}

bool path_matches(std::string_view pattern, std::string_view path) {
  // '*' matches one or more characters; everything else literally.
  if (pattern.empty()) return path.empty();
  if (pattern.front() == '*') {
    for (std::size_t n = 1; n <= path.size(); ++n)
      if (path_matches(pattern.substr(1), path.substr(n))) return true;
    return false;
  }
  return !path.empty() && pattern.front() == path.front() && path_matches(pattern.substr(1), path.substr(1));
}

}  // namespace perfcast
