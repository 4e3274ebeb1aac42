"""Vendored from the team's shared reliability kit (shared/reliability/bad_inputs.py); tests/reliability/check_bad_inputs.py runs it.

Bad-input catalogue for perfcast: `perfcast serve`, plan / plan-merge / sweep-merge / report / model import /
ingest aiperf / ingest mlperf, `-o` paths, the Python module, and semantic traps.

usage: bad_inputs.py OUTDIR TOP BIN                  writes OUTDIR/manifest.json ([{id, cmd, desc, expect, timeout}]) and the inputs
       bad_inputs.py --run OUTDIR TOP BIN          also runs every case (cwd TOP) and prints the counts; OUTDIR/results.json

expect:
  refuse  a bad input: exit 1 or 2 within the timeout, no trace, no nan/inf on stdout
          (Python probes exit 2 when the module raised a Python exception, 0 when it returned; server probes exit 2
           when the server refused cleanly and stayed up, 0 when the attack got through, 134 when the server died)
  either  an edge input: accepted or refused, but no trace, no hang and no nan/inf
  holds   a semantic check script: exit 0 when the property holds, 1 when it does not (its stdout says how)
Each server probe starts its own `perfcast serve --port 0` on 127.0.0.1 and stops it by its PID."""
import copy
import json
import os
import random
import re
import subprocess
import sys
import time

RUN = sys.argv[1] == "--run"
args = sys.argv[2:] if RUN else sys.argv[1:]
OUT, TOP, BIN = (os.path.abspath(a) for a in args[:3])
os.makedirs(OUT, exist_ok=True)
cases = []


def add(cid, cmd, desc, expect="refuse", timeout=10):
    cases.append({"id": cid, "cmd": cmd, "desc": desc, "expect": expect, "timeout": timeout})


def w(name, content):
    p = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    if isinstance(content, bytes):
        open(p, "wb").write(content)
    else:
        open(p, "w", encoding="utf-8", errors="surrogateescape", newline="").write(content)
    return p


P = BIN
SERV = "scenarios/llama3-70b-h100-serving.toml"
TRAIN15 = "scenarios/llama3-70b-15t-pretrain.toml"
TRAIN = "scenarios/llama3-70b-h100-training.toml"
random.seed(3)
GARBAGE = w("garbage.bin", bytes(random.getrandbits(8) for _ in range(4096)))
EMPTY = w("empty.txt", "")
DIR = os.path.join(OUT, "a-directory"); os.makedirs(DIR, exist_ok=True)
FIFO = os.path.join(OUT, "fifo")
if not os.path.exists(FIFO):
    os.mkfifo(FIFO)
SPARSE = os.path.join(OUT, "sparse-300mb.json")
with open(SPARSE, "wb") as f:
    f.truncate(300 << 20)   # beyond the 256 MiB input bound, without writing 300 MB
MISSING = os.path.join(OUT, "no-such-file.json")
UNI = w("ünï cödé ✓.json", "{}")

# ---------------------------------------------------------------- files given where a command reads one
readers = {
    "plan": lambda f: f"{P} plan {f}",
    "report": lambda f: f"{P} report {f} -o {OUT}/r.html",
    "plan-merge": lambda f: f"{P} plan-merge {f}",
    "sweep-merge": lambda f: f"{P} sweep-merge {f}",
    "model-import": lambda f: f"{P} model import {f}",
    "aiperf": lambda f: f"{P} ingest aiperf {f} --scenario {SERV}",
    "mlperf": lambda f: f"{P} ingest mlperf {f} --scenario {SERV}",
    "aiperf-scenario": lambda f: f"{P} ingest aiperf tests/data/ingest/aiperf_profile_export_llama3-70b_tp8.json --scenario {f}",
    "mlperf-scenario": lambda f: f"{P} ingest mlperf tests/data/ingest/mlperf_log_summary_offline.txt --scenario {f}",
}
for r, mk in readers.items():
    for kind, f in [("empty", EMPTY), ("garbage", GARBAGE), ("devzero", "/dev/zero"), ("fifo", FIFO), ("dir", DIR), ("missing", MISSING),
                    ("300mb", SPARSE), ("unicode-path", f"'{UNI}'")]:
        add(f"f-{r}-{kind}", mk(f), f"{r} given {kind}")

# ---------------------------------------------------------------- plan options
for cid, opt, desc, exp in [
    ("nodes0", "--nodes 0", "--nodes 0", "refuse"), ("nodes-neg", "--nodes -4", "--nodes -4", "refuse"), ("nodes-1e308", "--nodes 1e308", "", "refuse"),
    ("nodes-int-overflow", "--nodes 99999999999999999999", "", "refuse"), ("nodes-rev", "--nodes 4096:1", "", "refuse"),
    ("nodes-factor1", "--nodes 1:4096:1", "factor 1 (infinite list?)", "refuse"), ("nodes-nan", "--nodes nan", "", "refuse"),
    ("deadline0", "--deadline 0d", "", "refuse"), ("deadline-neg", "--deadline -5d", "", "refuse"), ("deadline-nan", "--deadline nan", "", "refuse"),
    ("deadline-1e308", "--deadline 1e308d", "", "refuse"), ("budget0", "--budget '$0'", "", "refuse"), ("budget-neg", "--budget '$-5M'", "", "refuse"),
    ("budget-nan", "--budget '$nan'", "", "refuse"), ("budget-euro", "--budget '€5M'", "", "refuse"), ("budget-1e308", "--budget '$1e308'", "no bound", "either"),
    ("maxdev0", "--max-devices 0", "", "refuse"), ("accel-typo", "--accelerators h100-sxn", "", "refuse"), ("accel-empty", "--accelerators ''", "", "refuse"),
    ("payment-bogus", "--payment bitcoin", "", "refuse"), ("regions-bogus", "--regions mars", "", "refuse"), ("objective-bogus", "--objective speed", "", "refuse"),
    ("pareto-one", "--pareto time", "", "refuse"), ("pareto-dup", "--pareto time,time", "a one-metric 'front' from a duplicate", "refuse"),
    ("shard-eq", "--shard 3/3", "", "refuse"), ("shard-neg", "--shard -1/3", "", "refuse"), ("top-neg", "--top -1", "", "refuse"),
    ("threads-4097", "--threads 4097", "", "refuse"), ("rate-on-training", "--rate 5", "", "refuse"), ("calib-passwd", "--calibration /etc/passwd", "", "refuse"),
    ("calib-devzero", "--calibration /dev/zero", "", "refuse"),
]:
    add(f"p-{cid}", f"{P} plan {TRAIN15} {opt} --top 2", f"plan {desc or opt}", exp, timeout=20)
for cid, opt, exp in [("rate0", "--rate 0", "refuse"), ("rate-neg", "--rate -1", "refuse"), ("rate-nan", "--rate nan", "refuse"), ("rate-inf", "--rate inf", "refuse"),
                      ("rate-1e308", "--rate 1e308", "either"), ("ttft0", "--ttft-slo 0s", "refuse"), ("tpot-neg", "--tpot-slo -1ms", "refuse"),
                      ("dtypes-bogus", "--dtypes fp7", "refuse"), ("pct100", "--percentile 100", "refuse"), ("nodes-on-serving", "--nodes 4", "refuse"),
                      ("maxdev-1", "--rate 50 --max-devices 1", "either"), ("budget-tiny", "--rate 50 --budget '$0.01/h'", "either")]:
    add(f"ps-{cid}", f"{P} plan {SERV} {opt} --top 2", f"serving plan {opt}", exp, timeout=20)
add("p-threads-4096-ulimit", f"ulimit -v 3000000; {P} plan {TRAIN15} --threads 4096 --nodes 64 --accelerators h100-sxm --top 1",
    "plan --threads 4096 (allowed) under a 3 GB address-space limit: a thread that cannot start", "refuse", timeout=30)
add("sw-threads-4096-ulimit", f"ulimit -v 3000000; {P} sweep {TRAIN} --threads 4096 --devices 64 --no-progress --top 1",
    "sweep --threads 4096 (allowed) under a 3 GB address-space limit: std::thread throws inside for_each_item", "refuse")

# ---------------------------------------------------------------- plan-merge / sweep-merge shards
plan = json.load(open(os.path.join(TOP, "tests/data/shards/plan-serving.json")))
sweep = json.load(open(os.path.join(TOP, "tests/data/shards/sweep-shard.json")))


def shard(cid, base, f, cmd, desc, exp="refuse", raw=None):
    d = copy.deepcopy(base)
    if f:
        f(d)
    txt = raw if raw is not None else json.dumps(d)
    txt = txt.replace('"__NAN__"', "NaN").replace('"__INF__"', "1e999").replace('"__DEEP__"', "[" * 100000 + "]" * 100000)
    add(cid, f"{P} {cmd} {w('shards/' + cid + '.json', txt)}", desc, exp)


def row(k, v):
    return lambda d: d["plan"]["best"][0].__setitem__(k, v)


for cid, f, desc, exp in [
    ("pm-cost-neg", row("usd_per_hour", -13.5), "a row costing -$13.5/h", "refuse"), ("pm-cost-nanlit", row("usd_per_hour", "__NAN__"), "NaN literal", "refuse"),
    ("pm-cost-nanstr", row("usd_per_hour", "NaN"), "cost as a string", "refuse"), ("pm-cost-1e999", row("usd_per_hour", "__INF__"), "1e999", "refuse"),
    ("pm-replicas-neg", row("replicas", -6), "-6 replicas", "refuse"), ("pm-devices0", row("devices", 0), "0 devices", "refuse"),
    ("pm-ttft-neg", row("ttft_p_s", -0.5), "negative TTFT", "refuse"), ("pm-rate-neg", lambda d: d["plan"].__setitem__("rate", -50), "rate -50", "refuse"),
    ("pm-id-huge", row("id", 2 ** 70), "id 2^70", "either"), ("pm-row-int", lambda d: d["plan"]["best"].__setitem__(0, 5), "a row that is 5", "refuse"),
    ("pm-shards0", lambda d: d["plan"].__setitem__("shards", 0), "shards 0", "refuse"), ("pm-shard-gt", lambda d: d["plan"].__setitem__("shard", 5), "shard 5 of 1", "refuse"),
    ("pm-dropped-neg", lambda d: d["plan"]["dropped"][0].__setitem__("count", -3), "negative dropped count", "refuse"),
    ("pm-dropped-1e308", lambda d: d["plan"]["dropped"][0].__setitem__("count", 1e308), "dropped count 1e308", "refuse"),
    ("pm-kind-bogus", lambda d: d["plan"].__setitem__("kind", "bogus"), "kind bogus", "refuse"), ("pm-no-best", lambda d: d["plan"].pop("best"), "no best", "refuse"),
    ("pm-top-neg", lambda d: d["plan"].__setitem__("top", -1), "top -1", "refuse"), ("pm-top-huge", lambda d: d["plan"].__setitem__("top", 10 ** 9), "top 1e9", "either"),
    ("pm-deep", lambda d: d["plan"].__setitem__("extra", "__DEEP__"), "100k nested arrays in an unknown key", "either"),
    ("pm-system-long", row("system", "x" * 100000), "a 100 kB system name", "either"),
]:
    shard(cid, plan, f, "plan-merge", f"plan-merge: {desc}", exp)
shard("pm-as-sweep", plan, None, "sweep-merge", "a plan shard given to sweep-merge")
shard("sm-as-plan", sweep, None, "plan-merge", "a sweep shard given to plan-merge")
shard("sm-step-neg-1of1", sweep, lambda d: (d["sweep"].update(shard=0, shards=1), d["sweep"]["best"][0]["figures"].__setitem__("step_time_s", -11.3)),
      "sweep-merge", "sweep-merge: a 1-of-1 shard with a negative step time")
shard("sm-mfu-2-1of1", sweep, lambda d: (d["sweep"].update(shard=0, shards=1), d["sweep"]["best"][0]["figures"].__setitem__("mfu", 2.5)),
      "sweep-merge", "sweep-merge: MFU 2.5")
shard("sm-tp0", sweep, lambda d: d["sweep"]["best"][0]["layout"].__setitem__("tp", 0), "sweep-merge", "sweep-merge: tp 0")
shard("sm-missing-half", sweep, None, "sweep-merge", "sweep-merge: shard 1/2 alone")
add("pm-same-twice", f"{P} plan-merge tests/data/shards/plan-training-shard.json tests/data/shards/plan-training-shard.json", "the same shard twice")

# ---------------------------------------------------------------- output paths
RO = os.path.join(OUT, "read-only"); os.makedirs(RO, exist_ok=True); os.chmod(RO, 0o555)
outs = {"report": f"{P} report {SERV} -o", "model-import": f"{P} model import tests/data/hf/qwen3-8b/config.json -o",
        "aiperf": f"{P} ingest aiperf tests/data/ingest/aiperf_profile_export_llama3-70b_tp8.json --scenario {SERV} -o",
        "mlperf": f"{P} ingest mlperf tests/data/ingest/mlperf_log_summary_offline.txt --scenario {SERV} -o"}
NOBODY = "setpriv --reuid=65534 --regid=65534 --clear-groups"
for r, c in outs.items():
    add(f"o-{r}-nodir", f"{c} /nonexistent/dir/x.out", f"{r} -o into a missing folder")
    add(f"o-{r}-dir", f"{c} {DIR}", f"{r} -o a directory")
    add(f"o-{r}-proc", f"{c} /proc/version", f"{r} -o /proc/version (as root the open succeeds and the write fails)")
    add(f"o-{r}-devfull", f"{c} /dev/full", f"{r} -o /dev/full: every write fails with ENOSPC (a full disk)")
    add(f"o-{r}-empty", f"{c} ''", f"{r} -o '' (empty path)")
    add(f"o-{r}-readonly", f"{NOBODY} {c} {RO}/x.out", f"{r} -o in a read-only folder (as nobody)")
    add(f"o-{r}-existing", f"echo precious > {OUT}/existing-{r}.txt; {c} {OUT}/existing-{r}.txt", f"{r} -o an existing file (clobbered silently?)", "either")
cp = lambda src, name: f"cp {src} {OUT}/{name}"
add("o-model-import-onto-input", f"{cp('tests/data/hf/qwen3-8b/config.json', 'in-config.json')}; {P} model import {OUT}/in-config.json -o {OUT}/in-config.json",
    "model import config.json -o config.json: the input destroyed")
add("o-aiperf-onto-scenario", f"{cp(SERV, 'in-serving.toml')}; {P} ingest aiperf tests/data/ingest/aiperf_profile_export_llama3-70b_tp8.json --scenario {OUT}/in-serving.toml -o {OUT}/in-serving.toml",
    "ingest aiperf -o the --scenario file: the scenario destroyed")
add("o-report-onto-scenario", f"{cp(SERV, 'in-report.toml')}; {P} report {OUT}/in-report.toml -o {OUT}/in-report.toml", "report -o its own scenario: TOML replaced by HTML")
add("o-bad-input-keeps-existing", f"echo precious > {OUT}/keep.txt; {P} model import {GARBAGE} -o {OUT}/keep.txt; rc=$?; grep -q precious {OUT}/keep.txt && exit $rc || exit 0",
    "a failing model import must leave an existing -o file alone")
H = "tests/data/hf/qwen3-8b/config.json"
add("mi-name-newline", f"{P} model import {H} --name $'evil\\'\\n[x]\\ny = \"1'", "--name with quotes and newlines (TOML injection?)", "either")
add("mi-name-path", f"{P} model import {H} --name ../../etc/x", "--name with path characters (a preset name that can never load)")
add("mi-name-empty", f"{P} model import {H} --name ''", "--name ''")

# ---------------------------------------------------------------- model import: Hugging Face configs
Q = json.load(open(os.path.join(TOP, "tests/data/hf/qwen3-8b/config.json")))
X = json.load(open(os.path.join(TOP, "tests/data/hf/mixtral-8x7b-v0.1/config.json")))


def hf(cid, base, upd, desc, exp="refuse", raw=None):
    d = copy.deepcopy(base); d.update(upd)
    for k in [k for k, v in upd.items() if v is None]:
        d.pop(k, None)
    p = w(f"hf/{cid}.json", raw if raw is not None else json.dumps(d))
    add(cid, f"{P} model import {p}", f"model import: {desc}", exp)


for cid, upd, desc, exp in [
    ("hf-layers0", {"num_hidden_layers": 0}, "0 layers", "refuse"), ("hf-layers-neg", {"num_hidden_layers": -36}, "-36 layers", "refuse"),
    ("hf-layers-1e9", {"num_hidden_layers": 10 ** 9}, "1e9 layers", "refuse"), ("hf-layers-float", {"num_hidden_layers": 36.5}, "36.5 layers", "refuse"),
    ("hf-layers-str", {"num_hidden_layers": "36"}, "layers as a string", "refuse"), ("hf-layers-1e308", {"num_hidden_layers": 1e308}, "1e308 layers", "refuse"),
    ("hf-hidden-indiv", {"hidden_size": 4097, "head_dim": None}, "hidden 4097, no head_dim", "refuse"), ("hf-heads0", {"num_attention_heads": 0}, "0 heads", "refuse"),
    ("hf-kv-gt-heads", {"num_key_value_heads": 64}, "64 KV heads of 32", "refuse"), ("hf-kv0", {"num_key_value_heads": 0}, "0 KV heads", "refuse"),
    ("hf-headdim0", {"head_dim": 0}, "head_dim 0", "refuse"), ("hf-vocab0", {"vocab_size": 0}, "vocab 0", "refuse"),
    ("hf-ffn0", {"intermediate_size": 0}, "ffn 0", "refuse"), ("hf-maxpos0", {"max_position_embeddings": 0}, "max context 0", "refuse"),
    ("hf-arch-unknown", {"architectures": ["FooForCausalLM"]}, "unknown class", "refuse"), ("hf-arch-empty", {"architectures": []}, "no class", "refuse"),
    ("hf-arch-missing", {"architectures": None}, "architectures missing", "refuse"), ("hf-arch-str", {"architectures": "Qwen3ForCausalLM"}, "class not in a list", "refuse"),
    ("hf-dtype-bogus", {"torch_dtype": "bfloat17"}, "torch_dtype bfloat17 (not read)", "either"), ("hf-quant-unknown", {"quantization_config": {"quant_method": "magic"}}, "quant magic", "refuse"),
    ("hf-rope-neg", {"rope_scaling": {"type": "yarn", "factor": -4}}, "rope_scaling factor -4 (not read)", "either"), ("hf-sliding-neg", {"sliding_window": -5, "use_sliding_window": True}, "window -5", "refuse"),
    ("hf-tie-str", {"tie_word_embeddings": "yes"}, "tie 'yes'", "refuse"), ("hf-unicode-key", {"ｎum_hidden_layers": 3}, "full-width key", "either"),
]:
    hf(cid, Q, upd, desc, exp)
hf("hf-nan", Q, {}, "NaN literal", raw=json.dumps(Q).replace('"rms_norm_eps": 1e-06', '"rms_norm_eps": NaN'))
hf("hf-1e400", Q, {}, "1e400", raw=json.dumps(Q).replace('"rope_theta": 1000000.0', '"rope_theta": 1e400'))
hf("hf-deep", Q, {}, "100k nested arrays under an unread key", "either", raw=json.dumps(Q)[:-1] + ', "x": ' + "[" * 100000 + "]" * 100000 + "}")
hf("hf-array", Q, {}, "a JSON array", raw="[]")
for cid, upd, desc, exp in [("hf-moe-1expert", {"num_local_experts": 1, "num_experts_per_tok": 1}, "MoE with one expert", "either"),
                            ("hf-moe-topk-gt", {"num_local_experts": 2, "num_experts_per_tok": 8}, "top-k 8 of 2 experts", "refuse"),
                            ("hf-moe-0", {"num_local_experts": 0}, "0 experts", "refuse"), ("hf-moe-topk0", {"num_experts_per_tok": 0}, "top-k 0", "refuse")]:
    hf(cid, X, upd, desc, exp)

# ---------------------------------------------------------------- ingest aiperf
A = json.load(open(os.path.join(TOP, "tests/data/ingest/aiperf_profile_export_llama3-70b_tp8.json")))


def aip(cid, f, desc, exp="refuse", raw=None):
    d = copy.deepcopy(A)
    if f:
        f(d)
    txt = (raw if raw is not None else json.dumps(d)).replace('"__NAN__"', "NaN")
    add(cid, f"{P} ingest aiperf {w('aiperf/' + cid + '.json', txt)} --scenario {SERV}", f"ingest aiperf: {desc}", exp)


def at(path, v):
    def f(d):
        x = d
        for k in path[:-1]:
            x = x[k]
        x[path[-1]] = v
    return f


LG = ["input_config", "loadgen"]
for cid, f, desc, exp in [
    ("ai-conc0", at(LG + ["concurrency"], 0), "concurrency 0", "refuse"), ("ai-conc-neg", at(LG + ["concurrency"], -32), "concurrency -32", "refuse"),
    ("ai-conc-huge", at(LG + ["concurrency"], 10 ** 12), "concurrency 1e12", "refuse"), ("ai-conc-str", at(LG + ["concurrency"], "32"), "concurrency '32'", "refuse"),
    ("ai-count0", at(["request_count", "avg"], 0), "request_count 0", "refuse"), ("ai-count-1e308", at(["request_count", "avg"], 1e308), "request_count 1e308", "refuse"),
    ("ai-osl0", at(["output_sequence_length", "avg"], 0.0), "output length 0", "refuse"), ("ai-isl-1e308", at(["input_sequence_length", "avg"], 1e308), "input 1e308", "refuse"),
    ("ai-osl1", lambda d: (at(["output_sequence_length", "avg"], 1.0)(d), at(["input_config", "input", "prompt", "output_tokens", "mean"], 1)(d)),
     "output length 1: ITL = (latency - TTFT) / 0", "either"),
    ("ai-ttft-neg", at(["time_to_first_token", "avg"], -512.4), "negative TTFT", "refuse"), ("ai-ttft-nanlit", at(["time_to_first_token", "avg"], "__NAN__"), "NaN literal", "refuse"),
    ("ai-ttft-gt-latency", at(["time_to_first_token", "avg"], 99999.0), "TTFT 100 s > request latency 17 s", "refuse"),
    ("ai-tput0", at(["output_token_throughput", "avg"], 0.0), "throughput 0", "refuse"),
    ("ai-tput-1e308", at(["output_token_throughput", "avg"], 1e308), "throughput 1e308 (validate refuses what ingest wrote)", "refuse"),
    ("ai-tput-denormal", at(["output_token_throughput", "avg"], 5e-324), "subnormal throughput", "refuse"),
    ("ai-unit-bogus", at(["time_to_first_token", "unit"], "parsecs"), "unit parsecs", "refuse"), ("ai-cancelled", at(["was_cancelled"], True), "was_cancelled", "refuse"),
    ("ai-errors", at(["error_request_count"], 5), "failed requests", "refuse"), ("ai-no-loadgen", lambda d: d["input_config"].pop("loadgen"), "no load settings", "refuse"),
    ("ai-rate-and-conc", at(LG + ["request_rate"], 5.0), "rate capped by a concurrency", "refuse"),
    ("ai-rate0", lambda d: (d["input_config"]["loadgen"].pop("concurrency"), d["input_config"]["loadgen"].update(request_rate=0, request_rate_mode="poisson")), "rate 0", "refuse"),
    ("ai-mode-bogus", at(LG + ["request_rate_mode"], "bogus"), "request_rate_mode bogus", "refuse"),
]:
    aip(cid, f, desc, exp)
aip("ai-array", None, "a JSON array", raw="[1,2,3]")
aip("ai-deep", None, "500k nested arrays", raw="[" * 500000 + "]" * 500000)
aip("ai-trailing", None, "trailing garbage", raw=json.dumps(A) + "garbage")

# ---------------------------------------------------------------- ingest mlperf
M = open(os.path.join(TOP, "tests/data/ingest/mlperf_log_summary_offline.txt")).read()
TPS = "Tokens per second: 12134.6"
for cid, txt, desc, exp in [
    ("ml-tps0", M.replace(TPS, "Tokens per second: 0"), "0 tokens/s (a case of measured = 0, which validate refuses)", "refuse"),
    ("ml-tps-neg", M.replace(TPS, "Tokens per second: -12134.6"), "negative tokens/s", "refuse"),
    ("ml-tps-nan", M.replace(TPS, "Tokens per second: nan"), "nan", "refuse"), ("ml-tps-inf", M.replace(TPS, "Tokens per second: inf"), "inf", "refuse"),
    ("ml-tps-1e308", M.replace(TPS, "Tokens per second: 1e308"), "1e308 tokens/s", "refuse"), ("ml-tps-1e400", M.replace(TPS, "Tokens per second: 1e400"), "1e400", "refuse"),
    ("ml-tps-denormal", M.replace(TPS, "Tokens per second: 5e-324"), "subnormal", "refuse"), ("ml-tps-comma", M.replace(TPS, "Tokens per second: 12,134.6"), "12,134.6", "refuse"),
    ("ml-tps-missing", M.replace(TPS + "\n", ""), "no tokens/s", "refuse"),
    ("ml-tps-dup", M.replace(TPS, TPS + "\nTokens per second: 99999999"), "two different tokens/s lines", "refuse"),
    ("ml-invalid-later", M + "\nResult is : INVALID\n", "VALID and INVALID in one file", "refuse"),
    ("ml-two-scenarios", M + "\n" + M.replace("Offline", "Server"), "an Offline and a Server summary in one file", "refuse"),
    ("ml-scenario-lower", M.replace("Scenario : Offline", "Scenario : offline"), "scenario 'offline'", "either"),
    ("ml-nul", M.replace("Scenario : Offline", "Scenario : Off\x00line"), "NUL in the scenario line", "refuse"),
    ("ml-crlf", M.replace("\n", "\r\n"), "CRLF (valid)", "either"), ("ml-unicode", M.replace("llama2-70b-Offline-SUT", "лама-✓-🚀\u202e"), "unicode SUT (valid)", "either"),
]:
    add(cid, f"{P} ingest mlperf {w('mlperf/' + cid + '.txt', txt)} --scenario {SERV}", f"ingest mlperf: {desc}", exp)
add("ml-training-scenario", f"{P} ingest mlperf tests/data/ingest/mlperf_log_summary_offline.txt --scenario {TRAIN}", "ingest mlperf on a training scenario")

# ---------------------------------------------------------------- Python module
PYDIR = os.path.dirname(next((os.path.join(r, f) for r, _, fs in os.walk(os.path.join(os.path.dirname(BIN), "python")) for f in fs
                              if f.startswith("perfcast") and f.endswith(".so")), os.path.join(os.path.dirname(BIN), "python", "x")))
PY_PRE = '''import sys, json, tomllib
sys.path.insert(0, %r)
import perfcast
T = "scenarios/llama3-70b-h100-training.toml"; S = "scenarios/llama3-70b-h100-serving.toml"
TD = tomllib.load(open(T, "rb")); SD = tomllib.load(open(S, "rb"))
def cp(x): return json.loads(json.dumps(x))
''' % PYDIR
PY = {
    "none": ("perfcast.predict(None)", "refuse"), "int": ("perfcast.predict(5)", "refuse"), "bytes": ("perfcast.predict(b'scenarios/llama3-8b-l4.toml')", "refuse"),
    "list": ("perfcast.predict([1, 2])", "refuse"), "emptydict": ("perfcast.predict({})", "refuse"), "emptystr": ("perfcast.predict('')", "refuse"),
    "devzero": ("perfcast.predict('/dev/zero')", "refuse"), "passwd": ("perfcast.predict('/etc/passwd')", "refuse"), "dir": ("perfcast.predict('scenarios')", "refuse"),
    "nul-path": ("perfcast.predict('scen\\x00arios/x.toml')", "refuse"),
    "model-int": ("d = cp(TD); d['model'] = 5; perfcast.predict(d)", "refuse"), "preset-none": ("d = cp(TD); d['model']['preset'] = None; perfcast.predict(d)", "refuse"),
    "tp-str": ("d = cp(TD); d['parallelism']['tp'] = '8'; perfcast.predict(d)", "refuse"),
    "tp-nan": ("d = cp(TD); d['parallelism']['tp'] = float('nan'); perfcast.predict(d)", "refuse"),
    "tokens-inf": ("d = cp(TD); d['training']['tokens'] = float('inf'); perfcast.predict(d)", "refuse"),
    "tp-2e70": ("d = cp(TD); d['parallelism']['tp'] = 2 ** 70; perfcast.predict(d)", "refuse"),
    "tp-object": ("d = cp(TD); d['parallelism']['tp'] = object(); perfcast.predict(d)", "refuse"),
    "tp-set": ("d = cp(TD); d['parallelism']['tp'] = {1, 2}; perfcast.predict(d)", "refuse"),
    "key-int": ("d = cp(TD); d[1] = 2; perfcast.predict(d)", "refuse"), "key-tuple": ("d = cp(TD); d[(1, 2)] = 2; perfcast.predict(d)", "refuse"),
    "circular": ("d = cp(TD); d['model']['self'] = d; perfcast.predict(d)", "refuse"),
    "circular-list": ("l = []; l.append(l); d = cp(TD); d['x'] = l; perfcast.predict(d)", "refuse"),
    "deep-100k": ("x = {}\nfor _ in range(100000): x = {'a': x}\nd = cp(TD); d['x'] = x; perfcast.predict(d)", "refuse"),
    "deep-900": ("x = {}\nfor _ in range(900): x = {'a': x}\nd = cp(TD); d['x'] = x; perfcast.predict(d)", "refuse"),
    "huge-dict": ("d = cp(TD); d['notes'] = {f'k{i}': i for i in range(1000000)}; perfcast.predict(d)", "refuse"),
    "surrogate": ("d = cp(TD); d['name'] = '\\udcff'; perfcast.predict(d)", "refuse"),
    "hf-config-passwd": ("d = cp(TD); d['model'] = {'hf_config': '/etc/passwd'}; perfcast.predict(d)", "refuse"),
    "order-int": ("perfcast.predict(T, order=5)", "refuse"), "order-bogus": ("perfcast.predict(T, order='tp-dp')", "refuse"),
    "samples-neg": ("perfcast.predict(T, uncertainty=True, samples=-1)", "refuse"), "samples-0": ("perfcast.predict(T, uncertainty=True, samples=0)", "refuse"),
    "samples-5": ("perfcast.predict(T, uncertainty=True, samples=5)", "refuse"), "samples-2e31": ("perfcast.predict(T, uncertainty=True, samples=2 ** 31)", "refuse"),
    "samples-1e6": ("perfcast.predict(T, uncertainty=True, samples=1000000)", "refuse"),
    "uncertainty-str": ("perfcast.predict(T, uncertainty='yes')", "refuse"), "calibration-none": ("perfcast.predict(T, calibration=None)", "refuse"),
    "calibration-devzero": ("perfcast.predict(T, calibration='/dev/zero')", "refuse"), "memory-none": ("perfcast.memory(None)", "refuse"),
    "cap-rate-neg": ("perfcast.capacity(S, rate=-1.0)", "refuse"), "cap-rate-nan": ("perfcast.capacity(S, rate=float('nan'))", "refuse"),
    "cap-rate-inf": ("perfcast.capacity(S, rate=float('inf'))", "refuse"), "cap-rate-str": ("perfcast.capacity(S, rate='5')", "refuse"),
    "cap-conc-0": ("perfcast.capacity(S, concurrency=0)", "refuse"), "cap-conc-neg": ("perfcast.capacity(S, concurrency=-5)", "refuse"),
    "cap-conc-1e7": ("perfcast.capacity(S, concurrency=10 ** 7)", "refuse"), "cap-conc-2e40": ("perfcast.capacity(S, concurrency=2 ** 40)", "refuse"),
    "cap-ttft-0": ("perfcast.capacity(S, rate=5.0, ttft_slo=0.0)", "refuse"), "cap-tpot-nan": ("perfcast.capacity(S, rate=5.0, tpot_slo=float('nan'))", "refuse"),
    "cap-pct-100": ("perfcast.capacity(S, rate=5.0, percentile=100.0)", "refuse"), "cap-pct-nan": ("perfcast.capacity(S, rate=5.0, percentile=float('nan'))", "refuse"),
    "cap-both": ("perfcast.capacity(S, rate=5.0, concurrency=8)", "refuse"), "cap-training": ("perfcast.capacity(T, rate=5.0)", "refuse"),
    "sweep-dev0": ("perfcast.sweep(T, devices=[0])", "refuse"), "sweep-dev-neg": ("perfcast.sweep(T, devices=[-8])", "refuse"),
    "sweep-dev-2e40": ("perfcast.sweep(T, devices=[2 ** 40])", "refuse"), "sweep-dev-str": ("perfcast.sweep(T, devices='64')", "refuse"),
    "sweep-dev-int-max": ("perfcast.sweep(S, devices=[2 ** 31 - 1])", "refuse"), "sweep-top-neg": ("perfcast.sweep(T, devices=[64], top=-1)", "refuse"),
    "sweep-objective-bogus": ("perfcast.sweep(T, devices=[64], objective='speed')", "refuse"),
    "sweep-constraint-bogus": ("perfcast.sweep(T, devices=[64], constraints=['foo<=3'])", "refuse"),
    "sweep-threads-neg": ("perfcast.sweep(T, devices=[64], threads=-5)", "refuse"),
    "sweep-threads-100k": ("import resource; resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30)); perfcast.sweep(T, devices=[64], threads=100000)", "refuse"),
    "cmp-str": ("perfcast.compare(T, hardware='system=dgx-h100')", "refuse"), "cmp-none-item": ("perfcast.compare(T, hardware=[None])", "refuse"),
    "cmp-unknown-system": ("perfcast.compare(T, hardware=['system=nope'])", "either"), "cmp-deadline-neg": ("perfcast.compare(T, deadline=-1.0)", "refuse"),
    "cmp-deadline-nan": ("perfcast.compare(T, deadline=float('nan'))", "refuse"),
    "validate-devzero": ("perfcast.validate(cases='/dev/zero')", "refuse"), "validate-kind": ("perfcast.validate(kind='bogus')", "refuse"),
    "validate-int": ("perfcast.validate(cases=5)", "refuse"), "hw-list-none": ("perfcast.hw.list(kind=None)", "refuse"),
    "hw-list-bogus": ("perfcast.hw.list(kind='bogus')", "refuse"), "hw-show-empty": ("perfcast.hw.show('')", "refuse"),
    "hw-show-path": ("perfcast.hw.show('../../../etc/passwd')", "refuse"), "hw-show-none": ("perfcast.hw.show(None)", "refuse"),
    "threads-8": ("import threading\nerrs = []\ndef w():\n    try:\n        [perfcast.predict(T) for _ in range(10)]\n    except Exception as e:\n        errs.append(e)\n"
                  "ts = [threading.Thread(target=w) for _ in range(8)]\n[t.start() for t in ts]; [t.join() for t in ts]\nassert not errs, errs", "either"),
}
PYPROBE = w("py_probe.py", PY_PRE + '''
import math
code = json.load(open(sys.argv[1]))[sys.argv[2]]
try:
    exec(code)
except BaseException as e:
    m = str(e).strip()
    print(f"raised {type(e).__module__}.{type(e).__name__}: {m.splitlines()[0][:200] if m else ''}", file=sys.stderr)
    sys.exit(2)
r = locals().get("_r")
print("returned without an exception")
''')
w("py_probes.json", json.dumps({k: v[0] for k, v in PY.items()}))
for k, (code, exp) in PY.items():
    add(f"py-{k}", f"python3 {PYPROBE} {OUT}/py_probes.json {k}", f"python: {code.splitlines()[-1][:120]}", exp)

# ---------------------------------------------------------------- the web server (each probe its own server, 127.0.0.1 only)
SERVE_PROBE = w("serve_probe.py", r'''
import gzip, json, os, re, socket, subprocess, sys, threading, time, tomllib
BIN, TOP, ATTACK = sys.argv[1:4]
srv = subprocess.Popen([BIN, "serve", "--port", "0"], cwd=TOP, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
PORT = int(re.search(r":(\d+)/", srv.stdout.readline()).group(1))
SMALL = {"schema_version": 1, "model": {"preset": "llama3-8b"}, "hardware": {"accelerator": "h100-sxm"}, "inference": {"input_len": 1024, "output_len": 128, "batch": 8}}
def st(k):
    try:
        return int(re.search(k + r":\s+(\d+)", open(f"/proc/{srv.pid}/status").read()).group(1))
    except Exception:
        return 0
def reply(s, timeout):
    s.settimeout(timeout); buf = b""
    try:
        while True:
            c = s.recv(65536)
            if not c: break
            buf += c
            h, sep, b = buf.partition(b"\r\n\r\n")
            m = re.search(rb"(?im)^content-length:\s*(\d+)", h)
            if sep and m and len(b) >= int(m.group(1)): break
    except OSError:
        pass
    try: return int(buf.split(b" ")[1]), buf
    except Exception: return 0, buf
def raw(data, timeout=5):
    try:
        with socket.create_connection(("127.0.0.1", PORT), timeout=timeout) as s:
            s.sendall(data); return reply(s, timeout)
    except OSError:
        return -1, b""
def post(path, body, extra="", timeout=5):
    body = body if isinstance(body, bytes) else body.encode()
    return raw(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n{extra}Content-Length: {len(body)}\r\n\r\n".encode() + body, timeout)
def health(timeout=3):
    return post("/api/predict", json.dumps({"scenario": SMALL}), timeout=timeout)[0] == 200
def finish(ok, msg):
    alive = srv.poll() is None and health()
    srv.terminate()
    try: srv.wait(5)
    except subprocess.TimeoutExpired: srv.kill()
    if not alive:
        print(f"{ATTACK}: server down after the attack (Aborted): {msg}", file=sys.stderr); sys.exit(134)
    print(f"{ATTACK}: {msg}", file=sys.stderr if ok else sys.stdout)
    sys.exit(2 if ok else 0)
for _ in range(50):
    if health(1): break
    time.sleep(0.1)
A = ATTACK
if A == "bind":
    ss = subprocess.run(["ss", "-ltnH", f"sport = :{PORT}"], capture_output=True, text=True).stdout
    finish("127.0.0.1:" in ss and "0.0.0.0:%d" % PORT not in ss and "*:%d" % PORT not in ss, f"listening: {ss.split()[3:4]}")
if A == "cl-1gb":
    t = time.time(); s, b = raw(b"POST /api/predict HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n\r\n{", timeout=3)
    finish(s == 413, f"Content-Length 1 GiB: status {s} after {time.time() - t:.1f}s (the 413 waits for the body or the 10 s read timeout)")
if A == "cl-negative":
    s, b = raw(b"POST /api/predict HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n{}", timeout=3)
    finish(s == 400, f"Content-Length -5: status {s}")
if A == "chunked-50mb":
    h0 = st("VmHWM"); s = 0
    with socket.create_connection(("127.0.0.1", PORT), timeout=10) as c:
        c.sendall(b"POST /api/predict HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        ch = b"100000\r\n" + b"x" * (1 << 20) + b"\r\n"
        try:
            for _ in range(50): c.sendall(ch)
            c.sendall(b"0\r\n\r\n")
        except OSError: pass
        s, _ = reply(c, 10)
    grew = (st("VmHWM") - h0) >> 10
    finish(s == 413 and grew < 20, f"50 MiB chunked body: status {s}, peak RSS grew {grew} MiB (the 1 MiB bound is checked after buffering)")
if A == "gzip-bomb":
    h0 = st("VmHWM")
    z = gzip.compress(b'{"scenario": {"name": "' + b"a" * (100 << 20) + b'"}}', 9)
    s, _ = post("/api/predict", z, "Content-Encoding: gzip\r\n", timeout=10)
    grew = (st("VmHWM") - h0) >> 10
    finish(s in (413, 415) and grew < 20, f"{len(z) >> 10} KiB gzip inflating to 100 MiB: status {s}, peak RSS grew {grew} MiB")
if A == "expect-100":
    s, b = raw(b"POST /api/predict HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 104857600\r\n\r\n", timeout=3)
    finish(s in (413, 417), f"Expect: 100-continue with a 100 MiB Content-Length: status {s} (100 = invites the body)")
if A == "malformed":
    bodies = [b"", b'{"scenario": {"schema_version": 1', b'{"scenario": {}} xx', b'{"scenario": NaN}', b'{"scenario": {"name": "\xff\xfe"}}', b"[1,2]", b"null",
              b'{"scenario": null}', b'{"scenario": "scenarios/llama3-8b-l4.toml"}', json.dumps({"scenario": SMALL, "calibration": "/etc/passwd"}).encode(),
              open(os.path.join(TOP, "scenarios/llama3-8b-l4.toml"), "rb").read(), json.dumps({"scenario": SMALL, "uncertainty": True, "samples": 10 ** 9}).encode(),
              json.dumps({"scenario": dict(SMALL, inference={"input_len": 1024, "output_len": 128, "batch": 1e999})}).replace("Infinity", "1e999").encode()]
    codes = [post("/api/predict", b)[0] for b in bodies]
    finish(all(c == 400 for c in codes), f"malformed bodies: {codes}")
if A == "deep":
    codes = [post("/api/predict", b"[" * 500000 + b"]" * 500000)[0], post("/api/predict", b'{"scenario": ' + b'{"a":' * 100000 + b"1" + b"}" * 100000 + b"}")[0],
             post("/api/compare", b'{"scenario": {}, "hardware": ' + b"[" * 100000 + b"]" * 100000 + b"}")[0]]
    finish(all(c == 400 for c in codes), f"deeply nested bodies: {codes}")
if A == "traversal":
    ts = ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/.%2e/.%2e/etc/passwd", "/api/hw/..%2f..%2f..%2fetc%2fpasswd",
          "/api/hw/%2Fetc%2Fpasswd", "/%252e%252e/etc/passwd", "//etc/passwd", "/README.md", "/.git/config", "/hardware_db/accelerators/h100-sxm.toml"]
    res = [raw(f"GET {t} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()) for t in ts]
    leak = [t for t, (s, b) in zip(ts, res) if s == 200 or b"root:x:0" in b]
    finish(not leak, f"path walks: {[s for s, _ in res]}" + (f" LEAK {leak}" if leak else ""))
if A == "wrong-method":
    codes = {m: raw(f"{m} /api/predict HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{{}}".encode())[0] for m in ("PUT", "DELETE", "PATCH", "OPTIONS")}
    codes["GET"] = raw(b"GET /api/predict HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")[0]
    finish(all(c == 405 for c in codes.values()), f"wrong methods on /api/predict: {codes} (README: 405 for a wrong method)")
if A == "unknown-route":
    codes = [raw(f"{m} {p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{{}}".encode())[0] for m, p in [("GET", "/nope"), ("GET", "/api/nope"), ("POST", "/api/nope")]]
    finish(all(c == 404 for c in codes), f"unknown routes: {codes}")
if A == "files":
    hits = []
    for path, b in [("/api/predict", {"scenario": dict(SMALL, model={"hf_config": "/etc/passwd"})}), ("/api/predict", {"scenario": dict(SMALL, model={"preset": "../../../../etc/passwd"})}),
                    ("/api/compare", {"scenario": SMALL, "hardware": ["model.hf_config=/etc/passwd"]}), ("/api/compare", {"scenario": SMALL, "cost": ["cloud,model.hf_config=/etc/passwd"]}),
                    ("/api/compare", {"scenario": SMALL, "hardware": [" model.hf_config = /etc/passwd"]}), ("/api/sweep", {"scenario": dict(SMALL, model={"hf_config": "/etc/passwd"})}),
                    ("/api/predict", {"scenario": SMALL, "calibration": "/etc/passwd"})]:
        s, r = post(path, json.dumps(b))
        if b"root:" in r or b"not valid JSON" in r or b"/etc/passwd:" in r:
            hits.append(path)
    finish(not hits, "bodies naming /etc/passwd: " + (f"READ by {hits}" if hits else "none read"))
if A == "cors":
    s, b = raw(b"OPTIONS /api/predict HTTP/1.1\r\nHost: x\r\nOrigin: http://evil.example\r\nAccess-Control-Request-Method: POST\r\nConnection: close\r\n\r\n")
    s2, b2 = post("/api/predict", json.dumps({"scenario": SMALL}), "Origin: http://evil.example\r\n")
    acao = b"access-control-allow-origin" in (b + b2).lower()
    finish(not acao, f"preflight {s}, cross-origin POST {s2}, Access-Control-Allow-Origin {'present' if acao else 'absent'}")
if A == "cross-site-post":
    s, b = raw(f"POST /api/sweep HTTP/1.1\r\nHost: evil.example\r\nOrigin: http://evil.example\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: {len(json.dumps({'scenario': SMALL}))}\r\n\r\n{json.dumps({'scenario': SMALL})}".encode())
    finish(s != 200, f"a text/plain POST from another origin with a foreign Host header (what a web page or DNS rebinding sends): status {s}")
if A == "slowloris":
    socks = []
    for _ in range(10):
        c = socket.create_connection(("127.0.0.1", PORT), timeout=5); c.sendall(b"POST /api/predict HTTP/1.1\r\nHost: x\r\n"); socks.append(c)
    stop = threading.Event()
    def drip():
        k = 0
        while not stop.wait(1.5):
            for c in socks:
                try: c.sendall(b"X-%d: y\r\n" % k)
                except OSError: pass
            k += 1
    threading.Thread(target=drip, daemon=True).start()
    time.sleep(1)
    ok = [health(timeout=2.5) for _ in range(2)]
    stop.set(); [c.close() for c in socks]
    finish(all(ok), f"10 connections dribbling a header line every 1.5 s: other clients answered {sum(ok)}/2")
if A == "concurrent-50":
    import concurrent.futures as cf
    T = tomllib.load(open(os.path.join(TOP, "scenarios/llama3-70b-h100-training.toml"), "rb"))
    body = json.dumps({"scenario": T, "devices": [64, 128], "top": 3})
    with cf.ThreadPoolExecutor(50) as ex:
        codes = list(ex.map(lambda _: post("/api/sweep", body, timeout=8)[0], range(50)))
    finish(codes.count(200) == 50, f"50 concurrent sweeps: {dict((c, codes.count(c)) for c in set(codes))}")
if A == "rss-300":
    body = json.dumps({"scenario": SMALL})
    for _ in range(50): post("/api/predict", body)
    r0 = st("VmRSS")
    for i in range(300): post("/api/predict", body if i % 2 else '{"scenario": {"schema_version": 1}}')
    grew = (st("VmRSS") - r0)
    finish(grew < 4096, f"RSS after 300 more requests grew {grew} KiB")
if A == "heavy-10m-devices":
    S = tomllib.load(open(os.path.join(TOP, "scenarios/llama3-70b-h100-serving.toml"), "rb"))
    t = time.time(); s, _ = post("/api/sweep", json.dumps({"scenario": S, "devices": [10000000]}), timeout=8)
    finish(s in (200, 400) and time.time() - t < 8, f"serving sweep at 10,000,000 devices (the API's own bound): status {s} after {time.time() - t:.1f}s")
finish(False, "unknown attack")
''')
for a, desc, to in [("bind", "binds 127.0.0.1 by default", 10), ("cl-1gb", "Content-Length 1 GiB declared, one byte sent: 413 at once", 10),
                    ("cl-negative", "Content-Length -5", 10), ("chunked-50mb", "a 50 MiB chunked body (no Content-Length)", 10),
                    ("gzip-bomb", "a gzip body inflating to 100 MiB", 10), ("expect-100", "Expect: 100-continue with 100 MiB declared", 10),
                    ("malformed", "malformed and hostile JSON/TOML bodies", 10), ("deep", "100k-500k nesting levels under 1 MiB", 10),
                    ("traversal", "path walks on the static routes and /api/hw/NAME", 10), ("wrong-method", "PUT/DELETE/PATCH/OPTIONS/GET on /api/predict", 10),
                    ("unknown-route", "unknown routes", 10), ("files", "bodies naming files on the server's disk", 10), ("cors", "CORS headers for a foreign Origin", 10),
                    ("cross-site-post", "a cross-site text/plain POST with a foreign Host", 10), ("slowloris", "10 slow-header clients against 8 workers", 12),
                    ("concurrent-50", "50 concurrent sweeps", 15), ("rss-300", "RSS across 350 requests", 15),
                    ("heavy-10m-devices", "one request at the API's device bound", 12)]:
    add(f"web-{a}", f"python3 {SERVE_PROBE} {BIN} {TOP} {a}", f"serve: {desc}", "refuse", to)

# ---------------------------------------------------------------- semantic traps
SEM = w("semantic_probe.py", r'''
import json, os, re, subprocess, sys
BIN, TOP, OUT, CHECK = sys.argv[1:5]
def pj(*a):
    p = subprocess.run([BIN, *a, "--format", "json"], capture_output=True, text=True, cwd=TOP, timeout=60)
    return json.loads(p.stdout) if p.returncode == 0 else None
def scen(name, text):
    p = os.path.join(OUT, name); open(p, "w").write(text); return p
def verdict(ok, msg):
    print(msg); sys.exit(0 if ok else 1)
if CHECK in ("moe-ep1-tp-comm", "moe1-vs-dense"):
    mix = json.load(open(os.path.join(TOP, "tests/data/hf/mixtral-8x7b-v0.1/config.json")))
    one = dict(mix, num_local_experts=1, num_experts_per_tok=1)
    dense = {k: v for k, v in mix.items() if k not in ("num_local_experts", "num_experts_per_tok")}; dense.update(architectures=["MistralForCausalLM"], model_type="mistral")
    json.dump(one, open(os.path.join(OUT, "sem-moe1.json"), "w")); json.dump(dense, open(os.path.join(OUT, "sem-dense.json"), "w"))
    r = {}
    for nm in ("moe1", "dense"):
        p = scen(f"sem-{nm}.toml", f'schema_version = 1\n[model]\nhf_config = "sem-{nm}.json"\n[hardware]\nsystem = "dgx-h100"\nnodes = 1\n'
                 '[inference]\ninput_len = 1024\noutput_len = 128\nbatch = 8\n[parallelism]\ntp = 8\n')
        r[nm] = pj("predict", p)["inference"]
    a, b = r["moe1"], r["dense"]
    if CHECK == "moe1-vs-dense":
        verdict(a["ttft_s"] >= b["ttft_s"] * 0.99 and a["tpot_s"] >= b["tpot_s"] * 0.99,
                f"MoE with one expert vs the dense model of the same widths, tp 8: TTFT {a['ttft_s']*1e3:.2f} vs {b['ttft_s']*1e3:.2f} ms, TPOT {a['tpot_s']*1e3:.3f} vs {b['tpot_s']*1e3:.3f} ms (expect MoE >= dense)")
    verdict(abs(a["prefill_comm_s"] / b["prefill_comm_s"] - 1) < 0.05,
            f"TP communication per prefill, tp 8 ep 1: MoE-1 {a['prefill_comm_s']*1e3:.2f} ms vs dense {b['prefill_comm_s']*1e3:.2f} ms (experts are TP-sharded, so the MoE output needs the same all-reduce)")
if CHECK == "sweep-more-gpus":
    prev = 0; seq = []
    for n in (16, 32, 64, 128, 256, 512, 1024):
        j = pj("sweep", "scenarios/llama3-70b-h100-training.toml", "--devices", str(n), "--objective", "tokens_per_s", "--top", "1", "--no-progress")
        t = j["sweep"]["best"][0]["figures"]["tokens_per_s"]; seq.append((n, round(t)))
        if t < prev * 0.999: verdict(False, f"best tokens/s falls with more devices: {seq}")
        prev = t
    verdict(True, f"best tokens/s rises with devices: {seq}")
if CHECK == "capacity-ttft-rate":
    c = pj("capacity", "scenarios/llama3-70b-h100-serving.toml")["capacity"]["latency_curve"]
    pts = [(x["rate_per_s"], x["ttft_mean_s"], x["ttft_p99_s"]) for x in c]
    bad = [(p, q) for p, q in zip(pts, pts[1:]) if q[1] < p[1] * 0.995]
    verdict(not bad, f"TTFT against rate: {[(round(r, 2), round(m, 4)) for r, m, _ in pts]}")
if CHECK == "plan-serving-rate-cost":
    seq = []
    for r in ("25", "100", "400"):
        b = pj("plan", "scenarios/llama3-70b-h100-serving.toml", "--rate", r, "--top", "1", "--pareto", "none")["plan"]["best"][0]; seq.append((r, round(b["usd_per_hour"], 2)))
    verdict(all(q[1] >= p[1] for p, q in zip(seq, seq[1:])), f"cheapest fleet $/h against rate: {seq}")
if CHECK == "outlen1-no-nan":
    p = scen("sem-out1.toml", 'schema_version = 1\n[model]\npreset = "llama3-8b"\n[hardware]\naccelerator = "h100-sxm"\n[inference]\ninput_len = 1\noutput_len = 1\nbatch = 1\n'
             '[serving]\narrival_rate = 2\nttft_slo_s = 1.0\ntpot_slo_s = 0.05\n')
    outs = [subprocess.run([BIN, c, p, "--format", "json"], capture_output=True, text=True, cwd=TOP).stdout for c in ("predict", "capacity")]
    bad = [w for o in outs for w in re.findall(r"(?<![A-Za-z])(NaN|-?nan|-?inf|Infinity)(?![A-Za-z])", o)]
    verdict(not bad, f"input 1, output 1 token: nan/inf in predict/capacity JSON: {bad[:3]}")
if CHECK == "train-nofit-exit":
    p = scen("sem-nofit.toml", 'schema_version = 1\n[model]\npreset = "llama3-8b"\n[hardware]\nsystem = "dgx-h100"\nnodes = 1\n[training]\nseq_len = 1048576\nglobal_batch = 8\n'
             'micro_batch = 1\nprecision = "bf16"\nrecompute = "selective"\ntokens = 1e11\n[parallelism]\ntp = 1\npp = 1\n')
    r = subprocess.run([BIN, "predict", p, "--format", "json"], capture_output=True, text=True, cwd=TOP)
    j = json.loads(r.stdout) if r.returncode == 0 else None
    verdict(r.returncode != 0 or not j["memory"]["fits"] and j["training"].get("step_time_s") is None,
            f"training at 1M tokens per sequence on 8 H100 (5.3 TiB a device): exit {r.returncode}, step_time_s {j and j['training'].get('step_time_s')}, memory.fits {j and j['memory']['fits']} (inference refuses what does not fit)")
verdict(False, "unknown check")
''')
for c, desc in [("moe-ep1-tp-comm", "MoE at tp 8, ep 1: the expert output's TP all-reduce is counted"), ("moe1-vs-dense", "MoE with one expert is not faster than its dense twin"),
                ("sweep-more-gpus", "more GPUs never lower the best layout's tokens/s"), ("capacity-ttft-rate", "a higher request rate never lowers TTFT"),
                ("plan-serving-rate-cost", "a higher rate never makes the cheapest fleet cheaper"), ("outlen1-no-nan", "1-token prompt and output: no nan/inf"),
                ("train-nofit-exit", "a training layout that does not fit memory is not timed as if it did")]:
    add(f"sem-{c}", f"python3 {SEM} {BIN} {TOP} {OUT} {c}", f"semantic: {desc}", "holds", 60)

json.dump(cases, open(os.path.join(OUT, "manifest.json"), "w"), indent=1)
print(len(cases))

# ---------------------------------------------------------------- optional runner
if RUN:
    res = []
    TRACE = re.compile(r"terminate called|what\(\)|Segmentation|Aborted|AddressSanitizer|runtime error|core dumped")
    NANINF = re.compile(r"(?<![A-Za-z])(-?nan|-?inf|NaN|Infinity)(?![A-Za-z])")
    for c in cases:
        t = time.time()
        try:
            p = subprocess.run(["bash", "-c", c["cmd"]], cwd=TOP, capture_output=True, timeout=c["timeout"], stdin=subprocess.DEVNULL)
            rc, so, se = p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            rc, so, se = "hang", "", ""
        dt = time.time() - t
        ex = c["expect"]
        trace = rc != "hang" and (bool(TRACE.search(se)) or rc >= 128 or rc == 3)
        nan = bool(NANINF.search(so)) and not c["id"].startswith(("py-", "web-", "sem-"))
        if rc == "hang":
            verdict = "hang"
        elif trace:
            verdict = "trace"
        elif ex == "holds":
            verdict = "ok" if rc == 0 else "violated"
        elif nan:
            verdict = "naninf"
        elif ex == "refuse":
            verdict = "refused" if rc in (1, 2) else "exit0"
        else:
            verdict = "ok"
        msg = (se.strip().splitlines() or [""])[-1] if rc != 0 else (so.strip().splitlines() or [""])[0]
        if c["id"].startswith(("web-", "sem-")) and so.strip():
            msg = so.strip().splitlines()[0]
        res.append(dict(c, rc=rc, verdict=verdict, seconds=round(dt, 2), message=msg[:300]))
        print(f"{verdict:9s} {c['id']:32s} rc={rc} {dt:5.1f}s {msg[:140]}", flush=True)
    json.dump(res, open(os.path.join(OUT, "results.json"), "w"), indent=1)
    from collections import Counter
    print(json.dumps(Counter(r["verdict"] for r in res)))
    for v in ("exit0", "trace", "hang", "naninf", "violated"):
        ids = [r["id"] for r in res if r["verdict"] == v]
        if ids:
            print(f"{v}: {len(ids)}: {', '.join(ids)}")
