"""Writes validation/serving-nim-concurrency.toml: a published concurrency sweep from NVIDIA's NIM LLM benchmarking
guide (Llama 3.3 70B Instruct in FP8 on two H100 under NIM 1.8.0), each row's TTFT, inter-token latency and output
throughput a case scored through the simulated engine in a closed loop of that many clients.

    cd validation/import && python3 nim_concurrency_cases.py > ../serving-nim-concurrency.toml

Rows: nim_llama33_70b_h100_concurrency.csv (transcribed; its header names the page and table). What the guide states
and what each case assumes:
  - The guide measures with NVIDIA's client-side benchmark (GenAI-Perf, later AIPerf) at a fixed concurrency: C
    clients, each sending its next request when its last one finishes, synthetic prompts of the table's input length
    and outputs of its output length. The cases take the lengths as fixed (5000 prompt and 500 output tokens) and the
    closed loop's steady state (the benchmark's measurement windows run with the load applied throughout).
  - TTFT, ITL and throughput as the table's averages; ITL is GenAI-Perf's inter-token latency, (request latency -
    TTFT) / (output tokens - 1) per request: perfcast's TPOT. Throughput is output tokens/s (at concurrency 1 the
    row's 51.67 tokens/s is 500 tokens over 406.77 ms + 499 x 18.58 ms).
  - "fp8 TP2" is one of NIM's TensorRT-LLM profiles: FP8 weights and activations, tensor parallel 2; the KV cache
    taken as FP8, as TensorRT-LLM's FP8 checkpoints store it. The engine's build limits (max_batch_size,
    max_num_tokens) and KV-cache fraction are not published: the cases take perfcast's TensorRT-LLM server defaults
    (F-SRV-1), but for the overlap scheduler: a profile built as TensorRT engines runs TensorRT-LLM's C++ executor,
    which syncs each step before it fetches new requests and launches the next (executorImpl.cpp, executionLoop), so
    `[serving] overlap_scheduling = false`. "H100 80G" is taken as the SXM part (NIM's optimized profiles are built for H100 SXM/NVLink).
  - Llama 3.3 70B is Llama 3.1 70B's architecture (config.json identical but for the weights).
Uncalibrated. Tolerance 20 %, the issue's bound for TTFT and TPOT under load.
"""
from case_toml import csv_rows, emit

SOURCE = ("NVIDIA NIM LLM Benchmarking Guide 1.0.0, Performance, Llama-3.3-70b-instruct Results, NIM 1.8.0, 2 x H100 80G, "
          "fp8 TP2, 5000 Input Tokens / 500 Output Tokens (docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance.md)")
ISL, OSL = 5000, 500

print("""# A published concurrency sweep from NVIDIA's NIM LLM benchmarking guide as serving cases, written by
# validation/import/nim_concurrency_cases.py (read it for the source, what the guide states and what each case assumes).
# Each case is the closed loop's steady state at the row's concurrency on TensorRT-LLM's default server limits.
schema_version = 1
suite = "inference"
""")
for r in csv_rows("nim_llama33_70b_h100_concurrency.csv"):
    conc = int(r["conc"])
    scenario = {
        "model": {"preset": "llama3.1-70b"},
        "hardware": {"accelerator": "h100-sxm", "count": 2},
        "inference": {"input_len": ISL, "output_len": OSL, "engine": "trtllm", "compute_dtype": "fp8", "weight_dtype": "fp8",
                      "kv_dtype": "fp8"},
        "parallelism": {"tp": 2},
        "serving": {"concurrency": conc, "overlap_scheduling": False},
    }
    where = f"Concurrency {conc}, {ISL} prompt + {OSL} output tokens, NIM 1.8.0 fp8 TP2 on 2 x H100 80G."
    base = f"nim-llama33-70b-fp8-2xh100-{ISL}-{OSL}-c{conc}"
    emit({"id": f"{base}-ttft", "source": SOURCE}, "serving_ttft_mean_s", round(float(r["ttft_ms"]) / 1000, 8), scenario,
         f"TTFT {r['ttft_ms']} ms. {where}", tolerance=0.2)
    emit({"id": f"{base}-tpot", "source": SOURCE}, "serving_tpot_mean_s", round(float(r["itl_ms"]) / 1000, 8), scenario,
         f"ITL {r['itl_ms']} ms. {where}", tolerance=0.2)
    emit({"id": f"{base}-throughput", "source": SOURCE}, "serving_output_tokens_per_s", float(r["throughput_tok_s"]), scenario,
         f"Throughput {r['throughput_tok_s']} output tokens/s. {where}", tolerance=0.2)
