#!/usr/bin/env bash
# measure -> calibrate -> predict -> validate on this machine's CPU, no GPU needed:
#   loop.sh PERFCAST PERFCAST_CPU_BENCH WORKDIR [--quick]
# 1. perfcast_cpu_bench measures one core (Eigen GEMMs, copy/triad) into WORKDIR/cases.toml and
#    describes the core as a device (WORKDIR/local-cpu.toml), added to a copy of the hardware database;
# 2. perfcast calibrate fits the efficiencies on a third of the cases (--select 0/3);
# 3. perfcast roofline --calibration predicts a GEMM shape that was not measured;
# 4. perfcast validate --calibration scores the other two thirds, with the defaults' errors beside.
# Fails (non-zero) when a step fails, or when calibrating leaves a kind's held-out cases (gemm, memory)
# worse than the defaults did by more than the run-to-run spread the bench measured, and outside the
# cases' own tolerance (15 %, as perfcast_cpu_bench writes them). The fit rests on a third of the
# cases, each as noisy as that spread, so a held-out median may move by that much either way on a
# shared machine; within the tolerance, the shapes one efficiency cannot tell apart move it too.
set -euo pipefail
perfcast=$1 bench=$2 work=$3
shift 3
src=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$work"
rm -rf "$work/db"

"$bench" --out "$work" "$@" | tee "$work/bench.txt"
spread=$(sed -n 's/^run-to-run spread \([0-9.]*\)%.*/\1/p' "$work/bench.txt")
[ -n "$spread" ] || { echo "loop: no run-to-run spread in the bench's output"; exit 1; }
cp -r "$src/hardware_db" "$work/db"
cp "$work/local-cpu.toml" "$work/db/accelerators/"
pc() { "$perfcast" --db "$work/db" "$@"; }

pc hw show local-cpu >/dev/null
pc calibrate "$work/cases.toml" --select 0/3 -o "$work/profile.toml" | tee "$work/calibrate.txt"
pc roofline --hw local-cpu --op "gemm:M=1536,N=1536,K=1536,dtype=fp32,out_dtype=fp32" --calibration "$work/profile.toml" |
  tee "$work/predict.txt"

status=0
pc validate --cases "$work/cases.toml" --calibration "$work/profile.toml" >"$work/validate.txt" || status=$?
cat "$work/validate.txt"
[ "$status" = 0 ] || [ "$status" = 4 ] || { echo "loop: validate failed ($status)"; exit 1; }

# "kind K: ... held-out |error| median X%" after calibration, "defaults, kind K: ..." before.
median() { sed -n "s/^$1: .*held-out |error| median \([0-9.]*\)%.*/\1/p" "$work/validate.txt"; }
failed=0
for kind in gemm memory; do
  after=$(median "kind $kind")
  before=$(median "defaults, kind $kind")
  [ -n "$after" ] && [ -n "$before" ] || { echo "loop: no $kind summary in validate's output"; exit 1; }
  echo "loop: $kind held-out median |error| ${before}% with the defaults, ${after}% calibrated on a third of the cases (spread ${spread}%)"
  awk -v a="$after" -v b="$before" -v s="$spread" 'BEGIN { exit !(a <= b + s || a <= 15) }' ||
    { echo "loop: calibration made the held-out $kind cases worse by more than the run-to-run spread, outside their 15 % tolerance"; failed=1; }
done
exit "$failed"
