#pragma once
// The roofline with hierarchical ceilings (MODELS-REFERENCE §1, F-ROOF-1..5): per op,
//   t = max(FLOPs / achievable compute, bytes / achievable memory bandwidth,
//           host bytes / achievable host-link bandwidth) + kernels x launch overhead,
// where achievable = datasheet peak x a named efficiency, and GEMM compute is further scaled by
// the tile and wave quantisation of the GEMM's shape.
#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "models/precision.hpp"
#include "models/op.hpp"

namespace perfcast::models {

// One device's ceilings, resolved from the hardware database (SI units).
struct Ceilings {
  std::array<std::optional<double>, kPrecisionCount> peak_ops_per_s{};  // dense
  std::optional<double> memory_Bps;      // device memory (HBM, GDDR, LPDDR); absent on DRAM-less NPUs
  std::optional<double> host_link_Bps;   // per direction
  std::optional<double> on_chip_B;       // parameter SRAM of a DRAM-less NPU (Edge TPU)
  int compute_units = 0;                 // SMs/CUs for wave quantisation; 0 = unknown (not modelled)
  // Whether the GEMM kernels pay a fixed cost per output tile (F-ROOF-5): measured on Hopper (sm_90).
  // Off elsewhere: Blackwell's best shapes show none, and no K sweep was found for other architectures.
  bool gemm_tile_fixed_cost = false;
  // Whether the GEMM libraries offer swap-AB kernels whose token tiles step by 8 (F-ROOF-6): the
  // Hopper and Blackwell ones serving engines ship (wgmma / tcgen05 take N in steps of 8).
  bool token_tiles_by_8 = false;
  // The rate a decode-attention kernel was measured to stream a paged KV cache at on this device
  // (F-ATT-2); where known it times decode attention in place of memory_Bps x efficiency.memory.
  std::optional<double> decode_attention_Bps;
  // That kernel's rate per byte over an 8-bit KV cache over its rate over a 16-bit one (F-ATT-4); 1 unmeasured.
  double decode_attention_fp8_kv_share = 1;
};

// The named efficiency parameters. Defaults and their sources: default_efficiency() and
// efficiency_sources(); `perfcast calibrate` may replace any of them.
struct Efficiency {
  double gemm = 0;               // large GEMM, 16-bit or wider math, fraction of dense peak (at K = gemm_source_depth)
  double gemm_8bit = 0;          // large FP8/INT8 GEMM
  double gemm_4bit = 0;          // large FP4 GEMM (NVFP4/MXFP4 block-scaled; INT4 and FP6 too)
  double attention = 0;          // fused attention kernel, forward (a kernel not in models/attention_kernels)
  double attention_backward = 0; // its backward (dQ, dK, dV)
  double memory = 0;             // streaming kernels, fraction of device-memory bandwidth
  double host_link = 0;          // bulk transfers, fraction of the host link's per-direction rate
  double kernel_overhead_s = 0;  // fixed cost per kernel launch
  // Share of an overlap class's compute window that hides communication (training overlap model,
  // engine/training_step): 1 hides up to the whole window, 0 exposes every transfer.
  double overlap_window = 1;
  // A GEMM's fixed cost per output tile (pipeline fill, epilogue) in K-steps per FLOP/B of the
  // device's machine balance, where the ceilings say the kernels pay one (F-ROOF-5).
  double gemm_fixed_k = 0;
  bool wave_quantisation = true;
};

struct EfficiencySource {
  std::string_view name;   // "gemm", "kernel_overhead_s", ...
  double Efficiency::*field;
  double value;            // the default
  std::string_view source;
};

Efficiency default_efficiency();
std::vector<EfficiencySource> efficiency_sources();

enum class Bound { compute, memory, host_link, launch };
std::string_view name_of(Bound b);

struct OpTiming {
  double compute_s = 0, memory_s = 0, host_s = 0, overhead_s = 0;
  double time_s = 0;
  Bound bound = Bound::compute;
  double compute_efficiency = 0;  // achieved fraction of the precision's peak the model assumed
  double achieved_ops_per_s() const;  // set by time_op: FLOPs / time
  double flops = 0;
};

// Tile quantisation x wave quantisation of a GEMM (NVIDIA, "Matrix Multiplication Background
// User's Guide" DU-09799-001, §3.1-3.2): the useful share of the tile-slots the GPU runs, best
// over the large cuBLAS tiles 128x256, 256x128, 128x128 (and 64x128 when M <= 64, GEMV-like).
// For few tokens (M <= 1024: decode and engine steps) kernels also put the tokens on the MMA
// instruction's N ("swap-AB"), which Hopper's wgmma takes in steps of 8 up to 256 (PTX ISA,
// wgmma.mma_async shapes m64nNk16): the tokens split into ceil(M/256) tiles padded to 8, against
// 128-row tiles of the weights' dimension, so a batch of 150 pads to 152, not to 256 (F-ROOF-6).
// Without a known SM count only tile padding counts.
double gemm_shape_efficiency(const GemmShape& s, int compute_units, bool token_tiles_by_8 = false);

// How a device's GEMM libraries run a GEMM, as gemm_compute_seconds needs it.
struct GemmMachine {
  int compute_units = 0;          // SMs/CUs the waves fill; 0 = unknown (tile padding only, no K splits)
  bool token_tiles_by_8 = false;  // swap-AB token tiles (F-ROOF-6)
  double fixed_k = 0;             // K-steps each tile (or K slice) pays (F-ROOF-5); 0 = none
  double source_depth_efficiency = 1;  // gemm_depth_efficiency at the format's gemm_source_depth
  double fixup_Bps = 0;           // the rate split-K's partial sums stream at; 0 = no K splits
};

// F-ROOF-9: a GEMM's compute time at `rate` (peak x the format's large-GEMM efficiency) on the
// fastest tiling and K split the libraries offer. A GEMM of fewer tiles than SMs splits its K loop
// into s <= min(floor(SMs / tiles), K / 64) slices (a second wave never pays) that run side by side (cuBLAS's and CUTLASS's
// split-K, what stream-K also reaches on few tiles), each slice paying the tile's fixed cost, and the
// s - 1 extra FP32 partial sums are written and read once (8 B an output element) at fixup_Bps.
// With s = 1 it is gemm_shape_efficiency x gemm_depth_efficiency.
double gemm_compute_seconds(const GemmShape& s, double flops, double rate, const GemmMachine& g);

// F-ROOF-5: the share of a GEMM's time spent in its K loop, K / (K + K0), where K0 is the tile's
// fixed cost in K-steps: gemm_fixed_k x the math format's peak / memory bandwidth. time_op applies
// it relative to the depth the format's large-GEMM efficiency was measured at (gemm_source_depth).
double gemm_depth_efficiency(double k, double fixed_k);
// The K of the best shapes the `gemm`, `gemm_8bit` and `gemm_4bit` defaults come from.
double gemm_source_depth(Precision p);

// Times one op. `host_bytes` are bytes that cross the host link for this op (streamed
// parameters on a DRAM-less NPU, offloaded tensors).
OpTiming time_op(const Op& op, const Ceilings& c, const Efficiency& e, double host_bytes = 0);

// F-ROOF-1: ridge point I* = peak / bandwidth, FLOP per byte.
constexpr double ridge_point(double peak_ops_per_s, double bandwidth_Bps) { return peak_ops_per_s / bandwidth_Bps; }

// The efficiency the roofline applies to an op's math before shape effects.
double compute_efficiency(const Op& op, const Efficiency& e);
// The large-GEMM efficiency of a math format: narrower than 8 bits (F-ROOF-7), 8-bit, or wider.
double gemm_efficiency(Precision p, const Efficiency& e);

}  // namespace perfcast::models
