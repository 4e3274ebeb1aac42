"""Writes validation/serving-vllm-rtx4090-concurrency.toml: a published vLLM concurrency sweep (Mistral-7B-Instruct-v0.3
on one RTX 4090), each row's mean TTFT and output throughput a case scored through the simulated engine.

    cd validation/import && python3 vllm_rtx4090_concurrency_cases.py > ../serving-vllm-rtx4090-concurrency.toml

Rows: vllm_rtx4090_mistral_concurrency.csv (transcribed; its header names the page and table). What the page states
and what each case assumes:
  - 300 prompts per concurrency at an infinite request rate with --max-concurrency C: a finite closed-loop benchmark
    from an idle engine ([serving] concurrency, benchmark_requests = 300).
  - 256 prompt tokens (fixed: the random dataset's lengths are the asked ones unless a range ratio is given, and the
    page gives none).
  - Output: 128 tokens asked, but every row's output tokens/s over its requests/s is 99.7-100.5 tokens per request:
    requests end at EOS (the page's run does not say --ignore-eos). The cases take the mean, 100, with a spread of
    C^2 = 0.043, that of a uniform draw between 56 and 128 (the only lengths with a mean of 100 and a longest of
    128 that a uniform spread allows), gamma-distributed ([serving] length_cv2); the true spread is not published.
  - BF16 (vLLM's default dtype for the model's config), the vLLM version is not stated: the engine's limits are those
    of `vllm serve` V1 on a device under 70 GiB (F-SRV-1: 2048 tokens a step, 256 sequences, chunked prefill).
  - Mistral 7B v0.3 is v0.1's architecture with a 32,768-token vocabulary (config.json vocab_size).
Uncalibrated. Tolerance 20 %, the issue's bound for serving under load.
"""
from case_toml import csv_rows, emit

SOURCE = ("mushfiqrahman.dev, 'Benchmarking Mistral-7B on RTX 4090: vLLM Concurrency, Latency, and Capacity Planning', "
          "Part 1 'Full Concurrency Sweep' results table (Mistral-7B-Instruct-v0.3, one RTX 4090, vLLM, 256 input -> 128 "
          "output tokens, 300 prompts, request rate inf)")
PROMPTS = 300
MEAN_OUTPUT = 100
OUTPUT_CV2 = 0.043


print("""# A published vLLM concurrency sweep as serving cases, written by validation/import/vllm_rtx4090_concurrency_cases.py
# (read it for the source, what the page states and what each case assumes). Each case is the finite benchmark the
# row measured ([serving] concurrency, benchmark_requests) on vLLM's default limits.
schema_version = 1
suite = "inference"
""")
for r in csv_rows("vllm_rtx4090_mistral_concurrency.csv"):
    conc = int(r["conc"])
    scenario = {
        "model": {"preset": "mistral-7b", "vocab": 32768},
        "hardware": {"accelerator": "rtx-4090"},
        "inference": {"input_len": 256, "output_len": MEAN_OUTPUT, "engine": "vllm"},
        "serving": {"concurrency": conc, "benchmark_requests": PROMPTS, "length_cv2": OUTPUT_CV2},
    }
    where = (f"Concurrency {conc}, {PROMPTS} prompts, 256 prompt tokens, {MEAN_OUTPUT} output tokens per request on "
             f"average ({r['output_tok_per_s']} output tokens/s over {r['req_per_s']} requests/s; 128 asked, ended at EOS).")
    base = f"rahman-vllm-mistral7b-rtx4090-256-128-c{conc}"
    emit({"id": f"{base}-ttft", "source": SOURCE}, "serving_ttft_mean_s", float(r["mean_ttft_ms"]) / 1000, scenario,
         f"Mean TTFT {r['mean_ttft_ms']} ms (median {r['median_ttft_ms']}, p99 {r['p99_ttft_ms']}). {where}", tolerance=0.2)
    emit({"id": f"{base}-throughput", "source": SOURCE}, "serving_output_tokens_per_s", float(r["output_tok_per_s"]), scenario,
         f"Output throughput {r['output_tok_per_s']} tokens/s. {where}", tolerance=0.2)
