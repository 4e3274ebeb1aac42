#pragma once
// The roofline evaluation: resolves a device's ceilings from the hardware database, builds the
// ops of a scenario, a preset or one op spec, times every op and sums per section.
#include <optional>
#include <string>
#include <vector>

#include "engine/spec/scenario.hpp"
#include "models/roofline.hpp"
#include "models/transformer_ops.hpp"

namespace perfcast {

struct RooflineRow {
  models::Op op;
  models::OpTiming timing;
  double host_bytes = 0;  // over the host link: parameters beyond on-chip SRAM, plus host_io_bytes
  double host_io_bytes = 0;  // of which the frame in and the result out (DRAM-less NPUs)
  double share = 0;       // of the section's time
};

struct RooflineSection {
  std::string title;      // "dense layer (x80), training forward + backward"
  double repeats = 1;
  std::vector<RooflineRow> rows;
  double time_s = 0;      // one repeat
};

struct RooflineReport {
  std::string accelerator, accelerator_display, workload;
  Precision precision = Precision::bf16;
  models::Ceilings ceilings;
  models::Efficiency efficiency;
  double peak_ops_per_s = 0;               // dense peak at `precision`
  std::string bandwidth_level;             // "HBM3" / "device memory" / "host link (usb3-gen1)"
  double bandwidth_Bps = 0;                // the level the ridge point is taken against
  double compute_efficiency = 0;           // GEMM efficiency at `precision`
  double bandwidth_efficiency = 0;         // of the ridge level
  double ridge = 0, ridge_derated = 0;     // FLOP/B
  std::vector<RooflineSection> sections;
  std::vector<std::string> assumptions;
};

// What to evaluate when no scenario file is given.
struct PresetRun {
  models::Phase phase = models::Phase::training;
  double batch = 1, seq_len = 2048, context_len = 0;
  int tp = 1;
  std::optional<Precision> precision;
};

// One line per named efficiency: its value and the default's source, or the default it replaces.
void add_efficiency_assumptions(std::vector<std::string>& out, const models::Efficiency& e);
// The lines saying that a long run's `p` tensor work holds the device's measured sustained rate (F-EN-5),
// where the database has one, and what a power limit below TDP takes off it (F-EN-4).
void add_sustained_assumption(std::vector<std::string>& out, const ResolvedHardware& hw, Precision p);

// The ceilings of device `a` reached over `host_link` (the roofline's host level).
models::Ceilings ceilings_for(const AcceleratorSpec& a, const std::optional<LinkSpec>& host_link);
// The 16-bit tensor format the device has (bf16, else fp16), else int8 (edge NPUs), else fp32.
Precision default_precision(const AcceleratorSpec& a);

// The op context of one micro-batch on one tp x cp rank of a training scenario.
models::OpContext training_context(const Scenario& s, const AcceleratorSpec& a);

// Each takes the efficiencies to time with (a calibration profile's, or the defaults).
// `other`: time the scenario's ops on other hardware instead of its own (roofline --hw).
RooflineReport roofline_for_scenario(const Scenario& s, const ResolvedHardware* other = nullptr,
                                     const models::Efficiency& e = models::default_efficiency());
RooflineReport roofline_for_preset(const Workload& w, const ResolvedHardware& hw, const PresetRun& run,
                                   const models::Efficiency& e = models::default_efficiency());
// One pass of an [inference] scenario on one tp rank, all layers: a prefill of `batch` prompts of
// input_len tokens, or one decode step of `batch` sequences at `context` tokens (vision: one
// forward pass of `batch` images).
RooflineReport roofline_for_pass(const Scenario& s, models::Phase phase, double batch, double context,
                                 const models::Efficiency& e = models::default_efficiency());
// One op from "gemm:M=8192,N=8192,K=8192,dtype=bf16" or "memory:read=1GB,write=1GB".
RooflineReport roofline_for_op(std::string_view spec, const ResolvedHardware& hw,
                               const models::Efficiency& e = models::default_efficiency());

}  // namespace perfcast
