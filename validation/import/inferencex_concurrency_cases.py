"""Writes validation/serving-inferencex-concurrency.toml: a published concurrency sweep (InferenceX, SemiAnalysis) of
DeepSeek-R1 in FP4 on one 8x B200 node under TensorRT-LLM, each row's mean TTFT, mean TPOT and output throughput a
case scored through the simulated engine under the benchmark's own protocol.

    cd validation/import && python3 inferencex_concurrency_cases.py > ../serving-inferencex-concurrency.toml

Rows: inferencex_dsr1_b200_trt_fp4.csv (transcribed; its header names the snapshot and each row its measuring run).
The protocol, from SemiAnalysisAI/InferenceX @ 843c6254 (benchmarks/benchmark_lib.sh, utils/bench_serving/
benchmark_serving.py) and the run script of the row's date (benchmarks/dsr1_fp4_b200_trt_slurm.sh @ 9596d23d7,
2025-10-29, and @ d22bf9ca9, 2025-11-21; benchmarks/dsr1_fp4_b200_trt.sh @ 6eecc0e66, 2026-02-03):
  - `benchmark_serving.py --dataset-name random --random-range-ratio 0.8 --num-prompts 10*CONC --max-concurrency CONC
    --request-rate inf --ignore-eos --num-warmups 2*CONC`: the warm-up requests finish before the measured run starts,
    so the run starts from an idle (warm) engine with CONC requests at once; prompt and output lengths are drawn
    uniformly from [int(0.8 L), L] (sample_random_requests); every output runs to its drawn length (ignore_eos).
  - trtllm-serve --backend pytorch --tp_size 8 --ep_size 1 --max_num_tokens MAX_NUM_TOKENS, with MAX_NUM_TOKENS =
    (CONC + ISL + 127) // 64 * 64, raised to at least 8192 from 2026-01-21 on (commit 64af5a771); chunked prefill is
    not enabled (the LLM API's enable_chunked_prefill defaults to false); KV cache FP8 at free_gpu_memory_fraction 0.8;
    stream_interval 10 (tokens reach the client in groups of 10: not modelled).
  - model nvidia/DeepSeek-R1-0528-FP4-V2 (NVFP4 weights and activations in the MoE and dense GEMMs), the DeepSeek-V3
    architecture (perfcast's deepseek-v3 preset).
output_tput_per_gpu is the benchmark's output tokens over its duration per GPU; the cases score the node's (x 8).
Uncalibrated. Tolerance 20 %, the issue's bound for TTFT and TPOT under load.
"""
from case_toml import csv_rows, emit

SOURCE = ("InferenceX (SemiAnalysis) benchmark results, DeepSeek-R1 FP4, B200, TensorRT-LLM, TP 8, as served by the InferenceX "
          "API (snapshot SemiAnalysisAI/InferenceX-app packages/app/cypress/fixtures/api/benchmarks.json @ 3a600f1d9ce1)")
GPUS = 8


def max_num_tokens(conc, isl, date):
    tokens = (conc + isl + 64 + 63) // 64 * 64
    return max(tokens, 8192) if date >= "2026-01-21" else tokens


print("""# A published concurrency sweep as serving cases, written by validation/import/inferencex_concurrency_cases.py (read it
# for the source, the benchmark's protocol and the engine's settings). Each case is the finite benchmark the row
# measured ([serving] concurrency, benchmark_requests, length_min_fraction) on the engine's settings of the day.
schema_version = 1
suite = "inference"
""")
for r in csv_rows("inferencex_dsr1_b200_trt_fp4.csv"):
    isl, osl, conc = int(r["isl"]), int(r["osl"]), int(r["conc"])
    image = r["image"] or "image not recorded in the row; nvidia-master.yaml then named release:1.1.0rc2.post2"
    tokens = max_num_tokens(conc, isl, r["date"])
    scenario = {
        "model": {"preset": "deepseek-v3"},
        "hardware": {"system": "dgx-b200", "nodes": 1},
        "inference": {"input_len": isl, "output_len": osl, "engine": "trtllm", "compute_dtype": "fp4", "weight_dtype": "fp4",
                      "kv_dtype": "fp8"},
        "parallelism": {"tp": GPUS},
        "serving": {"concurrency": conc, "benchmark_requests": 10 * conc, "length_min_fraction": 0.8,
                    "max_batched_tokens": tokens, "chunked_prefill": False},
    }
    where = (f"ISL/OSL {isl}/{osl}, concurrency {conc}, {10 * conc} requests; measured {r['date']} ({image}), run "
             f"{r['run_url']}; max_num_tokens {tokens}.")
    base = f"inferencex-dsr1-fp4-b200-trt-tp8-{isl}-{osl}-c{conc}"
    emit({"id": f"{base}-ttft", "source": SOURCE}, "serving_ttft_mean_s", r["mean_ttft_s"], scenario,
         f"Mean TTFT {float(r['mean_ttft_s']):g} s. {where}", tolerance=0.2)
    emit({"id": f"{base}-tpot", "source": SOURCE}, "serving_tpot_mean_s", r["mean_tpot_s"], scenario,
         f"Mean TPOT {float(r['mean_tpot_s']) * 1e3:g} ms. {where}", tolerance=0.2)
    node = round(float(r["output_tput_per_gpu"]) * GPUS, 1)
    emit({"id": f"{base}-throughput", "source": SOURCE}, "serving_output_tokens_per_s", node, scenario,
         f"Output throughput {float(r['output_tput_per_gpu']):g} tokens/s per GPU x {GPUS}. {where}", tolerance=0.2)
