#!/usr/bin/env python3
"""The exponent of F-EN-4 from the GPU kit's duty section: reads duty.csv files and prints, per
file and precision, each pattern's held GEMM rate, measured duty, nvidia-smi clock and power, and the
least-squares slope beta of log((P - P_base) / d) on log(rate) over the patterns held at the power
limit (power within 3 % of it). P_base is the intercept of power against duty over the patterns that
ran unthrottled at the top clock (the board with its GEMMs idle, clocks up).

    python3 duty_exponent.py runs/2026-11-27-h200/duty-run1.csv runs/2026-11-27-h200/duty-run2.csv
    python3 duty_exponent.py --expect-from models/energy.hpp runs/2026-11-27-h200/duty-run*.csv

With --expect-from, the mean of the fits must match the header's kTensorPowerExponent to its last
digit, else the exit status is 1 (CTest runs it so, against the shipped runs). Standard library only:
it runs wherever the CSVs are, no GPU needed."""
import datetime
import math
import re
import statistics
import sys

SETTLE_S, WINDOW_END_S = 2.2, 5.9  # the part of each 6 s pattern that is measured (the kit skips the first 2 s)


def stamp(text):
    return datetime.datetime.strptime(text.strip(), "%Y/%m/%d %H:%M:%S.%f")


def slope(points):
    xs, ys = [math.log(x) for x, _ in points], [math.log(y) for _, y in points]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def patterns(path):
    """(dtype, products per burst, duty, rate TFLOP/s, SM clock MHz, power W, power limit W) per pattern."""
    rows = [line.strip().split(",") for line in open(path) if not line.startswith("#")]
    header = open(path).readline()
    limit = float(header.split("power limit ")[1].split()[0])
    smi = [(r[1], stamp(r[2]), float(r[3].split()[0]), float(r[5].split()[0])) for r in rows if r[0] == "smi"]
    windows = {}
    for r in rows:
        if r[0] == "window" and float(r[4]) >= 2.0:
            windows.setdefault((r[1], r[2], r[3]), []).append((float(r[5]), float(r[6])))
    out = []
    for r in rows:
        if r[0] != "pattern":
            continue
        start = stamp(r[4])
        samples = [s for s in smi if s[0] == r[1] and start + datetime.timedelta(seconds=SETTLE_S) <= s[1]
                   <= start + datetime.timedelta(seconds=WINDOW_END_S)]
        w = windows[(r[1], r[2], r[3])]
        out.append((r[1], int(r[2]), statistics.median(x[0] for x in w), statistics.median(x[1] for x in w),
                    statistics.median(s[2] for s in samples), statistics.median(s[3] for s in samples), limit))
    return out


def main(paths):
    """Prints each file's patterns and fits; returns the fitted exponents."""
    betas = []
    for path in paths:
        rows = patterns(path)
        for dtype in sorted({r[0] for r in rows}):
            mine = [r for r in rows if r[0] == dtype]
            top = max(r[4] for r in mine)
            free = [(r[2], r[5]) for r in mine if r[4] >= top]
            if len(free) < 2:
                print(f"{path} {dtype}: fewer than two unthrottled patterns, no idle floor")
                continue
            md, mp = statistics.mean(d for d, _ in free), statistics.mean(p for _, p in free)
            per_duty = sum((d - md) * (p - mp) for d, p in free) / sum((d - md) ** 2 for d, _ in free)
            base = mp - per_duty * md
            held = [r for r in mine if r[5] >= 0.97 * r[6]]
            for r in mine:
                print(f"{path} {dtype}: bursts of {r[1]:2d}, duty {r[2]:.3f}: {r[3]:7.1f} TFLOP/s at {r[4]:4.0f} MHz, "
                      f"{r[5]:5.1f} W{' (held at the limit)' if r in held else ''}")
            beta = slope([(r[3], (r[5] - base) / r[2]) for r in held])
            betas.append(beta)
            print(f"{path} {dtype}: idle floor {base:.1f} W, {per_duty:.1f} W per unit duty unthrottled; "
                  f"beta = {beta:.2f} over {len(held)} patterns held at the limit")
    return betas


def expected_exponent(header):
    """kTensorPowerExponent as models/energy.hpp states it: (the value, its number of decimals)."""
    found = re.search(r"kTensorPowerExponent = ([0-9]+)\.([0-9]+);", open(header).read())
    if not found:
        sys.exit(f"{header}: no 'kTensorPowerExponent = <number>;'")
    return float(f"{found.group(1)}.{found.group(2)}"), len(found.group(2))


if __name__ == "__main__":
    args = sys.argv[1:]
    expect = None
    if len(args) >= 2 and args[0] == "--expect-from":
        expect, args = expected_exponent(args[1]), args[2:]
    if not args:
        sys.exit(__doc__)
    fitted = main(args)
    if not fitted:
        sys.exit("no fit: no file had both unthrottled and throttled patterns")
    mean = statistics.mean(fitted)
    print(f"mean beta {mean:.4f} over {len(fitted)} fits")
    if expect is not None:
        value, decimals = expect
        if round(mean, decimals) != value:
            sys.exit(f"the fits' mean {mean:.{decimals}f} is not kTensorPowerExponent = {value} (models/energy.hpp)")
        print(f"matches kTensorPowerExponent = {value}")
