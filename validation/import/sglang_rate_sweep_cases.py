"""Writes validation/serving-sglang-rate-sweep.toml: a published rate sweep (SGLang v0.3.0 and vLLM v0.6.0 serving
ShareGPT requests arriving at 4 and 8 requests/s, Llama 3.1 8B on one A100 80GB and Llama 3.1 70B on four H100), each
row's median TTFT, TPOT, end-to-end latency and ITL a case scored through the simulated engine at that rate.

    cd validation/import && python3 sglang_rate_sweep_cases.py > ../serving-sglang-rate-sweep.toml

Rows: sglang_v030_rate_sweep.csv (transcribed; its header names the file and commit). What the source states and what
each case assumes:
  - `sglang.bench_serving --dataset-name sharegpt --num-prompts 1200 --request-rate 4` (2400 at 8): Poisson arrivals at
    the rate ([serving] arrival_rate; bench_serving draws exponential gaps), scored against the engine's steady state at
    that rate (30 % of saturation or less here, so the run's ramp and drain move little).
  - Servers: SGLang v0.3.0 with `--disable-radix-cache` (so no prefix cache) and, on the 8B, `--enable-torch-compile`;
    TP 4 for the 70B; BF16 weights and KV cache (the models' dtype). SGLang's own default limits apply (F-SRV-1), but
    v0.3.0 predates the overlap scheduler (on by default from v0.4): `[serving] overlap_scheduling = false` on its rows.
  - Lengths: ShareGPT as bench_serving samples it, which the README does not print. Mean output 194 tokens, the
    README's own offline rows (4281.51 output tokens/s over 22.03 requests/s on the 8B; 3856.01 / 19.84 on the 70B:
    194.3 both). Mean prompt 248 tokens: 74,403 over the first 300 prompts of the same sampling in an SGLang
    maintainer's H100 run (sgl-project/sglang#1268, 2024-08-30; 50 prompts of vLLM's sampling give 244 with the Llama 3
    tokenizer, sgl-project/sglang#1639). The prompt is taken at its mean; outputs are gamma-spread with C^2 = 1.4
    ([serving] length_cv2), the spread whose median is 0.59 of its mean, as in #1268's rate-1 and rate-2 rows
    ((median E2E - median TTFT) / (mean E2E - median TTFT) = 0.588 and 0.591, each latency close to linear in the
    output length there). The true length distribution is not modelled.
  - vLLM v0.6.0 ran its V0 engine with `--num-scheduler-steps 10 --max_model_len 4096`, scored as it ran (F-SRV-5):
    multi-step scheduling, a decode round of ten steps scheduled once, its tokens streamed at the round's end (the
    rows' median ITL, 129-275 ms, is ten of their TPOTs), prompts admitted only between rounds, each prompt step a
    single step (vllm/sequence.py init_multi_step_from_lookahead_slots: a prefill's lookahead slots are 0, a decode's
    num_scheduler_steps - 1); `[serving] scheduler_steps = 10`. V0's own limits, not V1's: max_num_seqs 256
    (EngineArgs); chunked prefill off (V0 turns it on by default only past a 32K context, and multi-step came to
    chunked prefill after 0.6.0, vllm PR #8378), so max_num_batched_tokens = max(max_model_len, 2048) = 4096
    (SchedulerConfig); V0's default scheduler runs prompts first, in steps of their own, the running requests'
    decodes only when no prompt is admitted (`_schedule_default`): chunked_prefill and mixed_prefill false.
  - ITL as bench_serving measures it (python/sglang/bench_serving.py): every gap between two streamed chunks of a
    request, the median over all of them (SGLang v0.3.0 sends each step's token, --stream-interval 1 by default;
    vLLM v0.6.0 with multi-step scheduling a round's tokens at its end).
Uncalibrated. Tolerance 20 %, the issue's bound for serving under load.
"""
from case_toml import csv_rows, emit

SOURCE = ("sgl-project/sglang, benchmark/benchmark_vllm_060/README.md @ 120affb9613c, 'Online benchmark results' "
          "(SGLang v0.3.0 and vLLM v0.6.0, ShareGPT through sglang.bench_serving at a request rate)")
INPUT, OUTPUT, OUTPUT_CV2 = 248, 194, 1.4
SYSTEMS = {
    "a100-8b": ({"preset": "llama3.1-8b"}, {"accelerator": "a100-sxm-80gb"}, None, "Llama 3.1 8B Instruct on one A100 80GB"),
    "h100x4-70b": ({"preset": "llama3.1-70b"}, {"accelerator": "h100-sxm", "count": 4}, {"tp": 4},
                   "Llama 3.1 70B Instruct on four H100 80GB, TP 4"),
}
# vLLM v0.6.0's V0 engine as the README's server ran it (see above).
VLLM_V060 = {"max_concurrency": 256, "max_batched_tokens": 4096, "chunked_prefill": False, "mixed_prefill": False,
             "scheduler_steps": 10}

print("""# A published rate sweep as serving cases, written by validation/import/sglang_rate_sweep_cases.py (read it for the
# source, the benchmark's protocol and what each case assumes). Each case is a median the row measured, scored against
# the engine simulated at the row's request rate ([serving] arrival_rate).
schema_version = 1
suite = "inference"
""")
for r in csv_rows("sglang_v030_rate_sweep.csv"):
    model, hardware, parallelism, what = SYSTEMS[r["system"]]
    engine, rps = r["engine"], int(r["rps"])
    scenario = {"model": model, "hardware": hardware}
    if parallelism:
        scenario["parallelism"] = parallelism
    scenario["inference"] = {"input_len": INPUT, "output_len": OUTPUT, "engine": engine}
    scenario["serving"] = {"arrival_rate": rps, "length_cv2": OUTPUT_CV2}
    if engine == "sglang":
        scenario["serving"]["overlap_scheduling"] = False
    else:
        scenario["serving"].update(VLLM_V060)
    where = (f"{what}, {engine} ({'v0.3.0' if engine == 'sglang' else 'v0.6.0'}), ShareGPT, {r['prompts']} prompts at "
             f"{rps} requests/s. Median E2E {r['median_e2e_ms']} ms, TTFT {r['median_ttft_ms']} ms, TPOT "
             f"{r['median_tpot_ms']} ms, ITL {r['median_itl_ms']} ms.")
    base = f"sglang-v030-readme-{engine}-{r['system']}-sharegpt-rps{rps}"
    for metric, column, name in (("serving_ttft_p50_s", "median_ttft_ms", "ttft"), ("serving_tpot_p50_s", "median_tpot_ms", "tpot"),
                                 ("serving_e2e_p50_s", "median_e2e_ms", "e2e"), ("serving_itl_p50_s", "median_itl_ms", "itl")):
        emit({"id": f"{base}-{name}-p50", "source": SOURCE}, metric, float(r[column]) / 1000, scenario, where, tolerance=0.2)
