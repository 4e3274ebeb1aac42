"""Fits F-ROOF-5's gemm_fixed_k to OpenXLA's measured sm_90 GEMM table, and prints the table's b = 1 K
sweeps as the microbenchmark cases at the end of validation/microbenchmarks.toml (the fit on # lines).

    python3 validation/import/xla_gemm_table.py path/to/matmul_interpolator_data.h

The header is OpenXLA's xla/service/gpu/model/matmul_interpolator_data.h (kDefaultMatmulPTable); the
copy used is the one vendored in thenexthub/Machina @ c971e47cd75c (2025-08-11), third_party/xla/.
The model fitted is models/roofline.cpp's compute time: efficiency eta * wave(m, n, b) * K / (K + K0),
the classic cuBLAS tiles on 132 SMs, plus the 4 us launch overhead per kernel; only shapes that run
20 us or longer are fitted (shorter ones are launch-bound and say nothing about K).

    python3 validation/import/xla_gemm_table.py path/to/matmul_interpolator_data.h --variants

fits two more models and prints each fit's error over the fitted shapes and over all of the table's:
the engine's time as time_op takes it (the memory floor, BF16 operands read once at 0.90 of HBM, in the
max), and that time with the K loop split over the SMs a few-tile GEMM leaves idle (split-K as cuBLAS
and CUTLASS run it: s <= ceil(SMs / tiles) slices of at least 64 K-steps, each paying K0, and
(s - 1) x m x n x b x 8 B of FP32 partial sums written and read), as the engine does (F-ROOF-9).
"""
import math
import re
import statistics
import sys

from case_toml import q

PEAK_BF16 = 989e12  # H100 SXM BF16 dense, FLOP/s, as hardware_db/accelerators/h100-sxm.toml has it
HBM = 3.35e12                       # H100 SXM HBM3, B/s
SMS = 132
LAUNCH_S = 4e-6
MEMORY_EFF = 0.90  # the roofline's streaming efficiency (models/roofline.cpp, efficiency.memory)
SOURCE = ("OpenXLA, xla/service/gpu/model/matmul_interpolator_data.h (kDefaultMatmulPTable, key sm_90, "
          "BF16xBF16->BF16), as vendored in thenexthub/Machina @ c971e47cd75c48675f4567801c737566b756c82f "
          "(2025-08-11), third_party/xla/")
DEVICE = "sm_90 (an SXM-class H100: the table's BF16 rates exceed H100 PCIe's 756 TFLOP/s dense peak)"
NOTES = ("XLA's matmul_perf_table_gen: clock cycles of one compiled dot (cuBLAS or Triton, as XLA autotunes), "
         "converted at the device clock; flops = 2bmnk / time. Batch b = 1.")
TILES = [(128, 256), (256, 128), (128, 128), (64, 128)]


def read_table(path):
    text = open(path).read()
    section = text.split('key: "sm_90"', 1)[1].split('key: "sm_', 1)[0]
    rows = []
    pattern = r"entries \{\s*b: (\d+)\s*m: (\d+)\s*n: (\d+)\s*k: (\d+)\s*((?:flops \{[^}]*\}\s*)+)\}"
    for b, m, n, k, flops in re.findall(pattern, section):
        rates = {key.lower(): float(v) for key, v in re.findall(r'key: "([^"]+)" value: (\d+)', flops)}
        rows.append((int(b), int(m), int(n), int(k), rates["bf16xbf16->bf16"]))
    return rows


def wave(m, n, b):
    best = 0.0
    for tm, tn in TILES:
        if tm < 128 and m > 64:
            continue
        tiles = math.ceil(m / tm) * math.ceil(n / tn) * b
        slots = math.ceil(tiles / SMS) * SMS
        best = max(best, m * n * b / (slots * tm * tn))
    return min(best, 1.0)


def compute_s(b, m, n, k, eta, k0):
    """The K loop's time on the best classic tile, one pass per output tile."""
    return 2.0 * b * m * n * k / (eta * wave(m, n, b) * k / (k + k0) * PEAK_BF16)


def predicted(b, m, n, k, eta, k0):
    return 2.0 * b * m * n * k / (compute_s(b, m, n, k, eta, k0) + LAUNCH_S)


def compute_split_s(b, m, n, k, eta, k0):
    """The fastest tile and K split: each of s slices runs k / s K-steps and pays k0; the partial sums'
    fixup streams at MEMORY_EFF of HBM."""
    flops, best = 2.0 * b * m * n * k, math.inf
    for tm, tn in TILES:
        if tm < 128 and m > 64:
            continue
        tiles = math.ceil(m / tm) * math.ceil(n / tn) * b
        for s in range(1, max(1, min(math.ceil(SMS / tiles), k // 64)) + 1):
            share = min(1.0, m * n * b * s / (math.ceil(tiles * s / SMS) * SMS * tm * tn))
            fixup = (s - 1) * m * n * b * 8 / (MEMORY_EFF * HBM)
            best = min(best, flops / (eta * share * (k / s) / (k / s + k0) * PEAK_BF16) + fixup)
    return best


def predicted_variant(b, m, n, k, eta, k0, split):
    memory_s = 2.0 * b * (m * k + k * n + m * n) / (MEMORY_EFF * HBM)
    math_s = (compute_split_s if split else compute_s)(b, m, n, k, eta, k0)
    return 2.0 * b * m * n * k / (max(math_s, memory_s) + LAUNCH_S)


def fit(rows, model):
    fitted = [r for r in rows if 2.0 * r[0] * r[1] * r[2] * r[3] / r[4] >= 20e-6]
    best = None
    for eta in [x / 1000 for x in range(780, 951, 5)]:
        for k0 in range(0, 601, 10):
            sq = sum(math.log(model(b, m, n, k, eta, k0) / rate) ** 2 for b, m, n, k, rate in fitted)
            if best is None or sq < best[0]:
                best = (sq, eta, k0)
    _, eta, k0 = best

    def errors(subset):
        return sorted(abs(model(b, m, n, k, eta, k0) / rate - 1) for b, m, n, k, rate in subset)

    return eta, k0, errors(fitted), errors(rows)


def variants(rows):
    models = [("compute time only (the shipped fit)", predicted),
              ("with the memory floor", lambda b, m, n, k, eta, k0: predicted_variant(b, m, n, k, eta, k0, False)),
              ("with the memory floor and K splits", lambda b, m, n, k, eta, k0: predicted_variant(b, m, n, k, eta, k0, True))]
    for name, model in models:
        eta, k0, fitted, every = fit(rows, model)
        print(f"# {name}: eta = {eta}, K0 = {k0} (gemm_fixed_k {k0 / (PEAK_BF16 / HBM):.3f}); |error| over the {len(fitted)} "
              f"fitted shapes median {statistics.median(fitted):.3f}, 90th percentile {fitted[int(0.9 * len(fitted))]:.3f}; "
              f"over all {len(every)} median {statistics.median(every):.3f}, 90th percentile {every[int(0.9 * len(every))]:.3f}")


def main():
    rows = read_table(sys.argv[1])
    if "--variants" in sys.argv[2:]:
        variants(rows)
        return
    eta, k0, errors, _ = fit(rows, predicted)
    print(f"# {len(rows)} sm_90 BF16 shapes, {len(errors)} fitted: eta = {eta}, K0 = {k0} K-steps, "
          f"gemm_fixed_k = K0 / (peak / HBM) = {k0 / (PEAK_BF16 / HBM):.3f}")
    print(f"# |error| median {statistics.median(errors):.3f}, 90th percentile {errors[int(0.9 * len(errors))]:.3f}, "
          f"max {errors[-1]:.3f}")
    table = {(b, m, n, k): rate for b, m, n, k, rate in rows}
    for m, n in [(4096, 4096), (4096, 1024)]:
        for k in [256, 512, 1024, 2048, 4096]:
            print("\n".join(["", "[[case]]", f'id = "xla-sm90-gemm-bf16-{m}x{n}x{k}"', f"source = {q(SOURCE)}",
                             f"device = {q(DEVICE)}", 'accelerator = "h100-sxm"', 'kind = "gemm"', f"m = {m}", f"n = {n}",
                             f"k = {k}", 'dtype = "bf16"', 'out_dtype = "bf16"',
                             f'measured = "{table[(1, m, n, k)] / 1e12:.1f} TFLOP/s"', "tolerance = 0.15",
                             'used_for = "efficiency.gemm_fixed_k (fitted to this table)"', f"notes = {q(NOTES)}"]))


if __name__ == "__main__":
    main()
