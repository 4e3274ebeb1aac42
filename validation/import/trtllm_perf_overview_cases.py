"""Writes validation/inference-trtllm-max-throughput.toml: TensorRT-LLM's published maximum-throughput table
(`trtllm-bench throughput`, every request queued at once) for the dense Llama models on H100, H200 (FP8) and
B200, GB200 (NVFP4), each row as a batch = "max" case scored through the engine's steady state.

    cd validation/import && python3 trtllm_perf_overview_cases.py > ../inference-trtllm-max-throughput.toml

Source: NVIDIA/TensorRT-LLM, docs/source/performance/perf-overview.md @ 00f37686aa85 (the v1.0 tables),
'Throughput Measurements': "Total Output Throughput (tokens/sec)" of the whole TP group; models quantized with
ModelOpt (nvidia/Llama-3.1-8B-Instruct-FP8, Llama-3.3-70B-Instruct-FP8/-FP4, Llama-3.1-405B-Instruct-FP8/-FP4);
PyTorch backend; datasets of fixed lengths (prepare_dataset.py --input-stdev=0 --output-stdev=0); CUDA graphs
with padding; "in many cases" kv_cache_free_gpu_mem_fraction 0.95. Every dense Llama row of the table is here,
none left out; the MoE tables (Llama 4, Qwen3) wait for those presets.

Each row is a finite run: the page's 'Preparing a Dataset' table gives the $num_requests of each ISL/OSL (30,000
requests at 128/128 down to 1,000 at 20000/2000), and trtllm-bench "will run an offline maximum throughput
scenario such that all requests are queued in rapid succession"; its Total Output Throughput is the output tokens
over the Total Latency (the page's example: 43.2089 requests/s x 115.717 s = 5,000 requests). So every case is
[serving] benchmark_requests = $num_requests: the dataset queued at once on an idle engine, the ramp and the
drain included (F-SRV-2).

The page's `llm_options.yml` for the dense models turns on CUDA graphs with padding for the batch sizes 1, 2, 4, ...,
256, 384, 512, 1024, ..., 8192 (`cuda_graph_config: enable_padding: true, batch_sizes: [...]`), and every case
carries it ([serving] cuda_graph_padding and cuda_graph_batch_sizes, F-SRV-4): a step of decodes alone runs the
graph of the smallest captured size at or above its requests. Scored so since 2026-11-29 (after GB200's GEMMs
counted their waves on its 152 SMs): the page's median 5.46 % -> 5.14 % (93 -> 96 within 15 %, 2 -> 1 above 20 %),
the NVFP4 rows 8.5 % -> 6.7 %, the FP8 rows 3.5 % -> 5.0 % (signed -2.1 % -> -4.0 %: padding uncovers Hopper decode
GEMMs the model times slow, few output tiles over a deep K without split-K).
"""
from case_toml import emit

SOURCE = ("NVIDIA TensorRT-LLM docs 'Overview' of performance (docs/source/performance/perf-overview.md @ "
          "00f37686aa854010d68bcbd0f4ab000221541ca6, v1.0 tables): Throughput Measurements, trtllm-bench throughput, "
          "Total Output Throughput (tokens/sec)")

LENGTHS = ["128/128", "128/2048", "128/4096", "500/2000", "1000/1000", "1000/2000", "2048/128", "2048/2048", "5000/500",
           "20000/2000"]
# The page's $num_requests for each ISL/OSL ('Preparing a Dataset').
NUM_REQUESTS = {"128/128": 30000, "128/2048": 3000, "128/4096": 1500, "1000/2000": 1500, "2048/128": 3000,
                "2048/2048": 1500, "5000/500": 1500, "1000/1000": 3000, "500/2000": 3000, "20000/2000": 1000}
# The CUDA-graph batch sizes of the page's llm_options.yml (dense models), captured with padding.
CUDA_GRAPH_BATCH_SIZES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024, 2048, 4096, 8192]
# (table, preset, accelerator, tp, weight/math dtype): the table's column, one figure per LENGTHS entry.
COLUMNS = [
    ("Llama 3.1 8B", "llama3.1-8b", "h200", 1, "fp8", [27911, 26221, 18027, 20770, 17744, 16828, 3538, 12194, 3902, 1804]),
    ("Llama 3.1 8B", "llama3.1-8b", "h100-sxm", 1, "fp8", [28312, 22714, 14325, 17660, 15220, 13899, 3450, 9305, 3459, 1351]),
    ("Llama 3.3 70B", "llama3.1-70b", "b200", 1, "fp4", [11147, 9922, 6831, 7762, 7007, 6271, 1339, 4783, 1459, 665]),
    ("Llama 3.3 70B", "llama3.1-70b", "gb200", 1, "fp4", [12189, 11309, 7849, 9028, 7326, 6513, 1450, 5646, 1602, 755]),
    ("Llama 3.3 70B", "llama3.1-70b", "h200", 1, "fp8", [3803, 4336, 2872, 3666, 2909, 2994, 442, 2003, 566, 283]),
    ("Llama 3.3 70B", "llama3.1-70b", "h100-sxm", 2, "fp8", [6378, 6651, 4199, 5222, 4205, 4146, 762, 3082, 898, 437]),
    ("Llama 3.1 405B", "llama3.1-405b", "b200", 4, "fp4", [6281, 8020, 6345, 6244, 5209, 4933, 749, 4212, 1048, 672]),
    ("Llama 3.1 405B", "llama3.1-405b", "gb200", 4, "fp4", [6740, 8151, 6608, 6540, 5389, 5135, 797, 4407, 1112, 739]),
    ("Llama 3.1 405B", "llama3.1-405b", "h200", 8, "fp8", [3814, 5348, 4741, 4724, 3330, 3722, 456, 2948, 650, 505]),
    ("Llama 3.1 405B", "llama3.1-405b", "h100-sxm", 8, "fp8", [3627, 4340, 3116, 3994, 2919, 2895, 453, 2296, 610, 345]),
]

print("""# TensorRT-LLM's maximum-throughput table as inference cases, written by
# validation/import/trtllm_perf_overview_cases.py (read it for the source and what each column is). Each case is
# batch = "max" with engine = "trtllm" over the page's dataset of [serving] benchmark_requests, all queued at once
# on an idle engine, throughput over the time to the last completion (F-SRV-2), with the CUDA graphs the page's
# llm_options.yml captures, padded (F-SRV-4). Uncalibrated; tolerance 15 % as the other inference cases.
schema_version = 1
suite = "inference"
""")
for table, preset, accelerator, tp, dtype, figures in COLUMNS:
    for lengths, measured in zip(LENGTHS, figures):
        isl, osl = (int(x) for x in lengths.split("/"))
        case = {"id": f"trtllm-v1.0-max-{preset}-{accelerator}-tp{tp}-{dtype}-{isl}-{osl}", "source": SOURCE}
        notes = (f"{table} column '{accelerator.upper()} TP{tp} ({dtype.upper()})', ISL/OSL {lengths}: {measured:,} output tokens/s "
                 f"for the TP group over a dataset of {NUM_REQUESTS[lengths]:,} requests. KV cache FP8 as in the ModelOpt "
                 "checkpoints (kv_cache_quant_algo FP8).")
        scenario = {
            "model": {"preset": preset},
            "hardware": {"accelerator": accelerator, "count": tp},
            "inference": {"input_len": isl, "output_len": osl, "batch": "max", "engine": "trtllm", "compute_dtype": dtype,
                          "weight_dtype": dtype, "kv_dtype": "fp8"},
            "parallelism": {"tp": tp},
            "serving": {"benchmark_requests": NUM_REQUESTS[lengths], "cuda_graph_padding": True,
                        "cuda_graph_batch_sizes": CUDA_GRAPH_BATCH_SIZES},
        }
        emit(case, "output_tokens_per_s", measured, scenario, notes)
