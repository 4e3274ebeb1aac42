#!/usr/bin/env python3
"""What a kernel costs beyond its work, from the GPU kit's launch section: reads launch.csv files
(chains of in-place BF16 adds on one tensor, per kernel: eager GPU time, CUDA-graph GPU time, host
time to issue one eager add) and prints, per file,
  - the streaming line of the graph-replayed adds whose tensor is larger than the L2 cache,
    time = fixed + traffic / rate (traffic = the bytes read plus the bytes written), by least squares;
    the rate as a share of the device memory bandwidth given;
  - the graph-replayed cost of the smallest add (a launch with next to no work);
  - the median host time to issue one eager add over all sizes;
  - with --gemms, each decode GEMM of a kit microbenchmarks TOML (M <= 32 rows: memory-bound, timed
    in CUDA graphs) as its time beyond its bytes at the streaming rate, and the median of those.

    python3 launch_overhead.py --l2-mib 50 --bandwidth-tbps 4.8 runs/2026-11-29-h200/launch.csv
    python3 launch_overhead.py --l2-mib 50 --bandwidth-tbps 4.8 --gemms ../../microbenchmarks-h200-kit.toml runs/.../launch.csv
    python3 launch_overhead.py --l2-mib 50 --bandwidth-tbps 4.8 --expect-from models/roofline.cpp runs/.../launch.csv

With --expect-from, the figures the file cites for this run (the `kernel_overhead_s` source: "streaming
adds X us + their bytes at Y of", "a 2-byte add Z us", "eager PyTorch issues one add in W us", with
--gemms "decode GEMMs ... median V us") must be
what the CSV gives, to the digits cited, else the exit status is 1 (CTest runs it so against the shipped
run). Standard library only: no GPU needed."""
import argparse
import re
import statistics
import sys

try:
    import tomllib  # Python 3.11 and later
except ImportError:
    tomllib = None

NO_TOMLLIB = 77  # the exit status CTest reads as "skipped" (SKIP_RETURN_CODE)


def rows(path):
    """(bytes, kernels, eager us, graph us, host us) per line."""
    out = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        b, n, eager, graph, host = line.strip().split(",")
        out.append((int(b), int(n), float(eager), float(graph), float(host)))
    return out


def figures(path, l2_bytes, bandwidth_Bps):
    data = rows(path)
    streaming = [(2 * b, g) for b, _, _, g, _ in data if b > l2_bytes]  # read and written once each
    if len(streaming) < 2:
        sys.exit(f"{path}: fewer than two adds larger than the L2 ({l2_bytes} B): no streaming line")
    mx, my = statistics.mean(x for x, _ in streaming), statistics.mean(y for _, y in streaming)
    us_per_byte = sum((x - mx) * (y - my) for x, y in streaming) / sum((x - mx) ** 2 for x, _ in streaming)
    rate = 1e6 / us_per_byte  # bytes per second
    fixed = my - us_per_byte * mx
    smallest = min(data)
    return {
        "fixed_us": fixed,
        "share": rate / bandwidth_Bps,
        "rate_TBps": rate / 1e12,
        "smallest_bytes": smallest[0],
        "smallest_graph_us": smallest[3],
        "host_us": statistics.median(r[4] for r in data),
        "rows": data,
    }


def gemm_fixed_us(path, rate_Bps):
    """(id, us beyond the bytes at rate_Bps) of each GEMM case with m <= 32 in a kit microbenchmarks TOML."""
    if tomllib is None:
        print(f"--gemms needs Python 3.11's tomllib to read {path}; this is Python {sys.version.split()[0]}")
        sys.exit(NO_TOMLLIB)
    out = []
    for c in tomllib.load(open(path, "rb")).get("case", []):
        if c.get("kind") != "gemm" or c["m"] > 32:
            continue
        m, n, k, size = c["m"], c["n"], c["k"], 1 if c["dtype"] == "fp8" else 2
        value, unit = c["measured"].split()
        if unit != "TFLOP/s":
            sys.exit(f"{path}: case {c['id']}: measured in {unit}, expected TFLOP/s")
        us = 2 * m * n * k / (float(value) * 1e12) * 1e6
        traffic = size * (m * k + k * n) + 2 * m * n  # operands read, BF16 output written
        out.append((c["id"], us - traffic / rate_Bps * 1e6))
    return out


def cited(source, with_gemms):
    """The figures models/roofline.cpp's kernel_overhead_s source cites, as text (their digits matter)."""
    text = re.sub(r'"\s*\n\s*"', "", open(source).read())  # join the C++ string literals
    patterns = {"fixed_us": r"streaming adds ([0-9.]+) us \+ their bytes", "share": r"their bytes at ([0-9.]+) of",
                "smallest_graph_us": r"a 2-byte add ([0-9.]+) us", "host_us": r"eager PyTorch issues one add in ([0-9.]+) us"}
    if with_gemms:
        patterns["gemm_median_us"] = r"decode GEMMs \(M <= 32[^)]*\) median ([0-9.]+) us"
    out = {}
    for key, pattern in patterns.items():
        found = re.search(pattern, text)
        if not found:
            sys.exit(f"{source}: no '{pattern}' in the kernel_overhead_s source")
        out[key] = found.group(1)
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--l2-mib", type=float, default=50, help="the device's L2 cache, MiB: larger adds stream from HBM")
    p.add_argument("--bandwidth-tbps", type=float, required=True, help="the device's memory bandwidth, TB/s (datasheet)")
    p.add_argument("--gemms", help="a kit microbenchmarks TOML whose decode GEMMs to time against the streaming rate")
    p.add_argument("--expect-from", help="a source file whose cited figures must match")
    p.add_argument("paths", nargs="+", metavar="launch.csv")
    a = p.parse_args(argv)
    l2, bandwidth, expect, gemms = a.l2_mib, a.bandwidth_tbps * 1e12, a.expect_from, a.gemms
    status = 0
    for path in a.paths:
        f = figures(path, l2 * 2**20, bandwidth)
        for b, n, eager, graph, host in f["rows"]:
            print(f"{path}: {b:>10} B x {n:4}: eager {eager:7.2f} us, graph {graph:7.2f} us, host issue {host:5.2f} us per kernel")
        print(f"{path}: streaming adds {f['fixed_us']:.1f} us + their bytes at {f['share']:.3f} of {bandwidth / 1e12:g} TB/s "
              f"({f['rate_TBps']:.2f} TB/s); a {f['smallest_bytes']}-byte add {f['smallest_graph_us']:.2f} us in a graph; "
              f"eager PyTorch issues one add in {f['host_us']:.1f} us")
        if gemms:
            fixed = gemm_fixed_us(gemms, f["rate_TBps"] * 1e12)
            if not fixed:
                sys.exit(f"{gemms}: no GEMM case with m <= 32")
            for case, us in fixed:
                print(f"{gemms}: {case}: {us:5.2f} us beyond its bytes at {f['rate_TBps']:.2f} TB/s")
            f["gemm_median_us"] = statistics.median(us for _, us in fixed)
            print(f"{gemms}: decode GEMMs (M <= 32, {len(fixed)} shapes) median {f['gemm_median_us']:.1f} us "
                  f"({min(us for _, us in fixed):.1f} to {max(us for _, us in fixed):.1f})")
        if expect:
            for key, text in cited(expect, gemms is not None).items():
                decimals = len(text.split(".")[1]) if "." in text else 0
                if round(f[key], decimals) != float(text):
                    print(f"{expect} cites {key} = {text}; {path} gives {f[key]:.{decimals + 2}f}")
                    status = 1
            if not status:
                print(f"matches the figures {expect} cites")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
