#include "models/roofline.hpp"

#include "models/attention_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace perfcast::models {

// Every default names its source (MODELS-REFERENCE §16 unless stated). None was fitted to the
// validation cases it is scored on; validation/microbenchmarks.toml flags the cases that
// are the sources of `gemm`, `gemm_8bit` and `gemm_4bit` themselves.
Efficiency default_efficiency() {
  return Efficiency{
      .gemm = 0.80,
      .gemm_8bit = 0.709,
      .gemm_4bit = 0.611,
      .attention = 0.75,
      .attention_backward = 0.567,
      .memory = 0.90,
      .host_link = 0.90,
      .kernel_overhead_s = 4e-6,
      .overlap_window = 1.0,
      .gemm_fixed_k = 0.542,
      .wave_quantisation = true,
  };
}

std::vector<EfficiencySource> efficiency_sources() {
  const Efficiency e = default_efficiency();
  return {
      {"gemm", &Efficiency::gemm, e.gemm,
       "H100 SXM BF16 best-shape GEMM 794.5 of 989 TFLOP/s = 0.803 at 2048x2048x13312 (stas00/ml-engineering MAMF table; "
       "MODELS-REFERENCE §16)"},
      {"gemm_8bit", &Efficiency::gemm_8bit, e.gemm_8bit,
       "H100 SXM FP8 best-shape GEMM 1402.6 of 1979 TFLOP/s = 0.709 at 1024x9216x14336, the same MAMF table as gemm "
       "(stas00/ml-engineering compute/accelerator/README.md); DeepGEMM's hand-tuned H800 kernels reach 0.71-0.76 on large "
       "shapes only"},
      {"gemm_4bit", &Efficiency::gemm_4bit, e.gemm_4bit,
       "B200 NVFP4 best square GEMM 5.50 of 9.0 PFLOP/s = 0.611 at 6144x6144x6144, cuBLAS through torch._scaled_mm "
       "(pytorch/ao PR #2427, benchmarks/float8/bench_matmul.py --recipe nvfp4, 2025-06-23); the same run's 8192^3 "
       "reaches 5.37 (0.597). Below the 8-bit 0.709: the 4-bit path's scale loads and epilogue weigh more per FLOP"},
      {"gemm_fixed_k", &Efficiency::gemm_fixed_k, e.gemm_fixed_k,
       "fitted to OpenXLA's measured sm_90 BF16 GEMM table (xla/service/gpu/model/matmul_interpolator_data.h, "
       "the 118 shapes of b x m x n x k in 1..4 x 256..4096^3 that run 20 us or longer): K0 = 160 K-steps at "
       "H100's 989 TFLOP/s / 3.35 TB/s = 295 FLOP/B, so 0.542 (F-ROOF-5; applied on Hopper only)"},
      {"attention", &Efficiency::attention, e.attention, "FlashAttention-3 forward 740 TFLOP/s FP16 on H100 = 0.75 (FA3 paper abstract; §16)"},
      {"attention_backward", &Efficiency::attention_backward, e.attention_backward,
       "FlashAttention-3 backward, head dim 128, 561 TFLOP/s BF16 at 16k tokens on H100 = 0.567 (Shah et al. 2024, arXiv:2407.08608, "
       "Fig. 6; read from a transcription of the figure, reference/training-stacks.md §3.3)"},
      {"memory", &Efficiency::memory, e.memory, "FlashMLA decode 3000 of 3350 GB/s on H800 = 0.90 (deepseek-ai/FlashMLA README; §16)"},
      {"host_link", &Efficiency::host_link, e.host_link,
       "derived: PCIe TLP efficiency with 256 B payloads and ~24 B of header/framing/DLLP overhead = 256/280 = 0.91; "
       "rounded down to 0.90"},
      {"kernel_overhead_s", &Efficiency::kernel_overhead_s, e.kernel_overhead_s,
       "measured on an H200 by perfcast's GPU kit (validation/bench/gpu/runs/2026-11-29-h200, launch_overhead.py), "
       "in CUDA graphs: decode GEMMs (M <= 32, 26 cuBLAS shapes) median 3.6 us beyond their bytes at the streaming "
       "rate (0.5-5.1); streaming adds 2.0 us + their bytes at 0.888 of 4.8 TB/s; a 2-byte add 0.89 us; eager "
       "PyTorch issues one add in 6.5 us. 4 us: the GEMMs' fixed cost, rounded; also the lower end of a host launch's "
       "'about 4-6 us' (susun-blog.com, 'pegainfer (3)', RTX 5070 Ti, CUDA 13)"},
      {"overlap_window", &Efficiency::overlap_window, e.overlap_window,
       "the overlap model as Megatron-LM documents overlap_grad_reduce / overlap_param_gather / TP comm overlap: "
       "communication hides under its class's whole compute window (and slows it by the SMs its kernels take, F-OVL-1)"},
  };
}

std::string_view name_of(Bound b) {
  switch (b) {
    case Bound::compute: return "compute";
    case Bound::memory: return "memory";
    case Bound::host_link: return "host-link";
    case Bound::launch: return "launch";
  }
  return "?";
}

double OpTiming::achieved_ops_per_s() const { return time_s > 0 ? flops / time_s : 0; }

// The token counts up to which swap-AB kernels are among the choices (engines' decode and mixed
// steps; training GEMMs have more tokens and keep the classic tiles).
constexpr double kSwapAbMaxTokens = 1024;

namespace {

// Calls visit(tile_m, tile_n, tiles) for each output tiling a library may run the GEMM with: the
// classic cuBLAS tiles (64x128 only while M <= 64, GEMV-like) and, for few tokens on devices whose
// MMA takes N in steps of 8, the swap-AB token tiles (F-ROOF-6).
template <class Visit>
void for_each_tiling(const GemmShape& s, bool token_tiles_by_8, Visit&& visit) {
  struct Tile { double m, n; };
  constexpr Tile kTiles[] = {{128, 256}, {256, 128}, {128, 128}, {64, 128}};
  for (const Tile& t : kTiles) {
    if (t.m < 128 && s.m > 64) continue;
    visit(t.m, t.n, std::ceil(s.m / t.m) * std::ceil(s.n / t.n) * std::ceil(s.count));
  }
  if (token_tiles_by_8 && s.m <= kSwapAbMaxTokens) {
    const double parts = std::ceil(s.m / 256), tokens = 8 * std::ceil(s.m / parts / 8);
    visit(tokens, 128.0, parts * std::ceil(s.n / 128) * std::ceil(s.count));
  }
}

// The useful share of the tile-slots when `tiles` output tiles, each split into `splits` K slices,
// run in waves over `compute_units` (0: unknown, tile padding only).
double tile_share(const GemmShape& s, double tile_m, double tile_n, double tiles, double splits, int compute_units) {
  const double units = tiles * splits;
  const double slots = compute_units > 0 ? std::ceil(units / compute_units) * compute_units : units;
  return std::min(1.0, s.m * s.n * s.count * splits / (slots * tile_m * tile_n));
}

// Fewest K elements one split-K slice runs (the K splits of xla_gemm_table.py --variants).
constexpr double kMinSliceDepth = 64;
// Bytes per output element a split's FP32 partial sum is written and read in the fixup.
constexpr double kPartialSumBytes = 8;

}  // namespace

double gemm_shape_efficiency(const GemmShape& s, int compute_units, bool token_tiles_by_8) {
  if (s.m <= 0 || s.n <= 0 || s.count <= 0) return 1;
  double best = 0;
  for_each_tiling(s, token_tiles_by_8, [&](double tm, double tn, double tiles) {
    best = std::max(best, tile_share(s, tm, tn, tiles, 1, compute_units));
  });
  return best;
}

double gemm_compute_seconds(const GemmShape& s, double flops, double rate, const GemmMachine& g) {
  const double depth = gemm_depth_efficiency(s.k, g.fixed_k) / g.source_depth_efficiency;
  if (s.m <= 0 || s.n <= 0 || s.count <= 0) return flops / (rate * depth);
  const bool splits = g.compute_units > 0 && g.fixup_Bps > 0;
  const double fixup_per_split = splits ? s.m * s.n * s.count * kPartialSumBytes / g.fixup_Bps : 0;
  double share = 0, split_best = std::numeric_limits<double>::infinity();
  for_each_tiling(s, g.token_tiles_by_8, [&](double tm, double tn, double tiles) {
    share = std::max(share, tile_share(s, tm, tn, tiles, 1, g.compute_units));
    // K splits only help a tiling that leaves SMs idle. Past floor(SMs / tiles) slices a second
    // wave halves the share, and below it the time is a / s + b + c s (F-ROOF-5's fixed cost per
    // slice, the fixup per split): convex, so the scan stops where the time turns up.
    if (!splits || tiles >= g.compute_units) return;
    const double max_splits = std::min(std::floor(g.compute_units / tiles), std::floor(s.k / kMinSliceDepth));
    double last = std::numeric_limits<double>::infinity();
    for (double split = 2; split <= max_splits; ++split) {
      const double slice_depth = gemm_depth_efficiency(s.k / split, g.fixed_k) / g.source_depth_efficiency;
      const double t = flops / (rate * tile_share(s, tm, tn, tiles, split, g.compute_units) * slice_depth) + (split - 1) * fixup_per_split;
      if (t > last) break;
      split_best = std::min(split_best, t);
      last = t;
    }
  });
  return std::min(flops / (rate * share * depth), split_best);
}

double gemm_depth_efficiency(double k, double fixed_k) { return k > 0 && fixed_k > 0 ? k / (k + fixed_k) : 1; }

double gemm_source_depth(Precision p) {
  if (bytes_per_element(p) < 1) return 6144;
  return bytes_per_element(p) <= 1 ? 14336 : 13312;
}

double compute_efficiency(const Op& op, const Efficiency& e) {
  if (op.kind == OpKind::attention) {
    const AttentionKernelShape shape{op.attention_head_dim, op.attention_seq, op.attention_causal};
    if (auto measured = attention_kernel_efficiency(op.attention_impl, op.pass, shape)) return *measured;
    return op.pass == Pass::backward ? e.attention_backward : e.attention;
  }
  return gemm_efficiency(op.precision, e);
}

double gemm_efficiency(Precision p, const Efficiency& e) {
  if (bytes_per_element(p) < 1) return e.gemm_4bit;
  return bytes_per_element(p) <= 1 ? e.gemm_8bit : e.gemm;
}

OpTiming time_op(const Op& op, const Ceilings& c, const Efficiency& e, double host_bytes) {
  OpTiming t;
  t.flops = op.flops;
  if (op.flops > 0) {
    const std::optional<double>& peak = c.peak_ops_per_s[static_cast<std::size_t>(op.precision)];
    const double eff = compute_efficiency(op, e);
    if (!peak) {
      t.compute_s = std::numeric_limits<double>::infinity();
    } else if (op.kind == OpKind::gemm) {
      GemmMachine g;
      if (c.gemm_tile_fixed_cost && c.memory_Bps) {
        g.fixed_k = e.gemm_fixed_k * *peak / *c.memory_Bps;
        g.source_depth_efficiency = gemm_depth_efficiency(gemm_source_depth(op.precision), g.fixed_k);
      }
      if (e.wave_quantisation) {
        g.compute_units = c.compute_units;
        g.token_tiles_by_8 = c.token_tiles_by_8;
        // 4-bit block-scaled GEMMs run unsplit (F-ROOF-9): DeepGEMM's and cuBLASLt's MXFP4 kernels on B200.
        g.fixup_Bps = c.memory_Bps && bytes_per_element(op.precision) >= 1 ? *c.memory_Bps * e.memory : 0;
        t.compute_s = gemm_compute_seconds(op.gemm, op.flops, *peak * eff, g);
      } else {
        t.compute_s = op.flops / (*peak * eff * gemm_depth_efficiency(op.gemm.k, g.fixed_k) / g.source_depth_efficiency);
      }
    } else {
      t.compute_s = op.flops / (*peak * eff);
    }
    t.compute_efficiency = peak && t.compute_s > 0 ? op.flops / (*peak * t.compute_s) : eff;
  }
  // A decode step's attention streams at the device's measured kernel rate where known (F-ATT-2), an
  // 8-bit cache at that kernel's share of it per byte (F-ATT-4).
  if (op.kind == OpKind::attention && op.attention_decode && c.decode_attention_Bps)
    t.memory_s = op.bytes() / (*c.decode_attention_Bps * (op.attention_kv_bytes == 1 ? c.decode_attention_fp8_kv_share : 1));
  else if (c.memory_Bps) t.memory_s = op.bytes() / (*c.memory_Bps * e.memory);
  if (host_bytes > 0 && c.host_link_Bps) t.host_s = host_bytes / (*c.host_link_Bps * e.host_link);
  t.overhead_s = op.kernels * e.kernel_overhead_s;
  double limit = std::max({t.compute_s, t.memory_s, t.host_s});
  t.bound = limit == t.compute_s && op.flops > 0 ? Bound::compute
            : limit == t.host_s && t.host_s > 0  ? Bound::host_link
                                                 : Bound::memory;
  if (t.overhead_s > limit) t.bound = Bound::launch;
  t.time_s = limit + t.overhead_s;
  return t;
}

}  // namespace perfcast::models
