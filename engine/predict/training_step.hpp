#pragma once
// The numeric core of a training step (MODELS-REFERENCE §2, §4, §6), shared by `predict` and
// `sweep` so that both give the same numbers for the same layout: ops timed per micro-batch and
// tp x cp rank, each pipeline rank's exposed communication (the overlap model), the schedule's
// bubble, the data-parallel tail and the optimizer step. No strings, no allocation per call.
#include <optional>
#include <span>
#include <vector>

#include "engine/layout/partition.hpp"
#include "engine/spec/scenario.hpp"
#include "models/energy.hpp"
#include "models/memory.hpp"
#include "models/pipeline.hpp"
#include "models/roofline.hpp"
#include "models/traffic.hpp"
#include "models/transformer_ops.hpp"

namespace perfcast {

// Per micro-batch, one repeat of an op group, split the way the schedule and the overlap model
// need it.
struct PassTimes {
  double forward = 0, recompute = 0, backward_input = 0, backward_weight = 0;
  double attention = 0;               // the attention core, forward and backward (CP's window)
  double memory_bound = 0, overhead = 0;
  double model_flops = 0, flops = 0;

  PassTimes& add(const PassTimes& o, double k);
  double compute() const { return forward + recompute + backward_input + backward_weight; }
};

// One micro-batch on one tp x cp rank: the embedding, the LM head and loss, one dense and one MoE
// layer (zero when the model has none).
struct LayerPassTimes {
  PassTimes embedding, output, dense, moe;
  PassTimes mtp;  // every MTP module, on the last pipeline stage
};
LayerPassTimes layer_pass_times(const std::vector<models::OpGroup>& groups, const models::Ceilings& c, const models::Efficiency& e);

// What pipeline rank `stage` of `pp` computes per micro-batch, and the whole model (FLOP counts).
PassTimes stage_pass_times(const LayerPassTimes& l, const StageLayers& st, int stage, int pp);
PassTimes model_pass_times(const LayerPassTimes& l, const models::TransformerSpec& m);

// Pipeline ranks that hold the same layers and the same ends of the model compute and send the
// same: one class per run of identical consecutive ranks (first, middle, last for an even split).
struct RankClass {
  int stage = 0, count = 1;   // the first rank of the run, and how many ranks it stands for
  StageLayers layers;
};
std::vector<RankClass> rank_classes(const models::TransformerSpec& m, const ParallelismSettings& p);

constexpr int kOverlapClasses = 7;

// The overlap model's exposure of one rank's traffic. Items repeated every micro-batch (TP, CP,
// EP, PP, ZeRO-3) hide under their overlap class's compute of all m micro-batches and what is left
// stays on every micro-batch's critical path; once-per-step items (DP gradient reduction,
// parameter all-gather) have one micro-batch's window — the last backward, or the first forward of
// the next step — and what is left is a tail after the pipeline drains (Megatron-LM
// overlap_grad_reduce / overlap_param_gather).
// What hides still slows the compute beside it: its kernels take `sms` of the device's N SMs, so
// the compute runs at (N - sms)/N while the transfer lasts and finishes hidden x sms / N later
// (SM contention, reference/training-stacks.md §4; GEMM-bound compute — memory-bound kernels lose
// less, wave quantisation more; HBM contention not modelled). Unknown N (0): no contention.
bool repeats_every_microbatch(const models::TrafficItem& x, double m);
struct OverlapExposure {
  double sum_mb[kOverlapClasses] = {}, sum_step[kOverlapClasses] = {};
  double exposed_mb[kOverlapClasses] = {}, exposed_step[kOverlapClasses] = {};
  double per_microbatch_s = 0, tail_s = 0, total_s = 0;
  double contention_per_microbatch_s = 0, contention_tail_s = 0;  // per step, like the exposed times
};
// `times[i]` is the step's time of `items[i]` on its group's fabric.
// `window` is the share of each compute window that hides communication (Efficiency::overlap_window).
// `compute_units`: the device's SMs (Ceilings::compute_units).
OverlapExposure overlap_exposure(std::span<const models::TrafficItem> items, std::span<const double> times, const PassTimes& t,
                                 double m, double window, int compute_units);

// A fused Adam step (apex/Transformer Engine multi-tensor kernels) reads and writes each state
// tensor once and reads the gradient (then zeroes it): 2 × the recipe's bytes per parameter it
// updates, memory-bound [derived]. With ZeRO ≥ 1 (Megatron's distributed optimizer) a rank
// updates its 1/(dp·cp) shard of the tensors sharded at that stage.
double optimizer_bytes(const models::OptimizerRecipe& r, double local_params, int zero, double shard);
// The optimizer step of a rank holding `local_params`: memory-bound on HBM, or with the optimizer
// offloaded, gradients down and parameters up the host link (host Adam not timed).
double optimizer_seconds(const models::OptimizerRecipe& r, double local_params, int zero, double shard, models::Offload offload,
                         const models::Ceilings& c, const models::Efficiency& e);

// One class of pipeline ranks over a step.
struct RankStep {
  int count = 1;
  PassTimes t;                 // per micro-batch
  double exposed_per_microbatch_s = 0, exposed_tail_s = 0, comm_s = 0;  // per step
  double contention_per_microbatch_s = 0, contention_tail_s = 0;        // per step
  double optimizer_s = 0;
  double per_microbatch_s(double m) const { return t.compute() + (exposed_per_microbatch_s + contention_per_microbatch_s) / m; }
  double tail_s() const { return exposed_tail_s + contention_tail_s + optimizer_s; }
};

// A class of `count` ranks from its compute, the overlap model's exposure of its traffic and its
// optimizer step (predict and sweep build it the same way).
RankStep rank_step(int count, const PassTimes& t, const OverlapExposure& e, double optimizer_s);

// The rank's time per micro-batch for the schedule: exposed per-micro-batch communication and
// contention split over forward and backward like the compute.
models::StageTime stage_time(const RankStep& r, double m);

struct StepTotals {
  models::PipelineTime pipe;
  int slowest = 0, tail = 0;   // classes: the steady-state rank, the rank with the longest tail
  double data_s = 0;           // exposed data loading
  double step_s = 0;
};

// Every rank waits for the slowest tail (gradient reduction, then the optimizer behind a global
// gradient-norm all-reduce) before the next step; data loading is prefetched (F-DATA-1).
StepTotals step_totals(models::Schedule s, int vp, double m, std::span<const RankStep> classes, std::optional<double> data_loading_s);

// One device's activity over a step: compute, recompute and contention at tensor-core power, memory-bound
// ops and the optimizer at HBM power, exposed communication (the steady-state rank's per
// micro-batch, the tail rank's after the drain), bubbles, launch gaps and data stalls at idle.
models::Activity step_activity(const StepTotals& totals, std::span<const RankStep> classes, double m);

// Reliability defaults, each with its source (the scenario's [reliability] overrides them).
struct ReliabilityDefaults {
  // Per-device storage write rate for checkpoints: Llama 3's storage peaked at 7 TB/s for 16,384
  // GPUs (Llama 3 paper §3.3.4 via MODELS-REFERENCE §11, secondary) = 427 MB/s per GPU.
  double storage_write_Bps_per_device = 7e12 / 16384;
  // Restart (detect, reschedule, re-initialise, reload, warm up): MODELS-REFERENCE E7's example
  // value of 10 minutes; an assumption, not a measurement — set [reliability] restart_s.
  double restart_s = 600;
};

// Failures, checkpoints and goodput of a job (F-REL-*): Llama 3's per-device MTBF unless given,
// a checkpoint of `state_bytes` per device (weights + optimizer) at the default write rate,
// Young/Daly's interval, and with `tokens` the expected wall time to train them.
struct JobFigures {
  double device_mtbf_s = 0, job_mtbf_s = 0, checkpoint_write_s = 0, restart_s = 0, checkpoint_interval_s = 0;
  double goodput_fraction = 1;
  std::optional<double> time_to_train_s, expected_wall_s, expected_failures;
};
// Throws InputError naming `file` when failures outpace checkpointing and the job never completes.
JobFigures job_figures(const std::string& file, const ReliabilitySettings& r, int devices, double state_bytes, double tokens_per_s,
                       std::optional<double> tokens);

}  // namespace perfcast
