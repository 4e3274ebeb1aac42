"""Writes validation/training-mlperf.toml: NVIDIA's MLPerf Training v4.0 GPT-3 175B submissions on DGX H100
(512, 10,752 and 11,616 GPUs), each with the layout of its published configuration and the step time of its
published logs.

    python3 validation/import/mlperf_training_cases.py > validation/training-mlperf.toml
    python3 validation/import/mlperf_training_cases.py --check path/to/training_results_v4.0

With --check it re-derives each row's batch, accumulation and step time from the logs of a checkout of
github.com/mlcommons/training_results_v4.0 and prints them beside the rows below.

Source: mlcommons/training_results_v4.0 @ 6fe954378efe (2024-06-11), NVIDIA/benchmarks/gpt3/implementations/
nemo (config_DGXH100_*.sh, config_common.sh, config_fp8.sh, conf/custom.yaml) and NVIDIA/results/<system>/gpt3/
result_*.txt. The step time is the median, over every run's logged training blocks, of a block's time
(block_start to block_stop, which exclude the evaluations between blocks) over its steps (the block's
epoch_count in tokens / (global_batch_size x max_sequence_length)).
"""
import json
import statistics
import subprocess
import sys

from case_toml import emit

SOURCE = ("MLCommons, MLPerf Training v4.0 results, NVIDIA closed-division GPT-3 175B on DGX H100 "
          "(github.com/mlcommons/training_results_v4.0 @ 6fe954378efe, NVIDIA/benchmarks/gpt3/implementations/nemo "
          "configs and NVIDIA/results/*/gpt3/result_*.txt logs)")

# (system, nodes, config, tp, pp, vp, mbs, gbs, accumulation, median step s, spread of the blocks' step s, runs, blocks)
ROWS = [
    ("eos_n64_ngc24.04_nemo", 64, "config_DGXH100_64x8x128x4x8_mbs2.sh", 4, 8, 4, 2, 2304, 72, 10.9800, (10.896, 10.989), 3, 70),
    ("eos-dfw_n1344_ngc24.04_nemo", 1344, "config_DGXH100_1344x8x6x4x6_mbs1_cg.sh", 4, 6, 8, 1, 2688, 6, 0.92070, (0.9183, 0.9636), 3, 66),
    ("eos-dfw_n1452_ngc24.04_nemo", 1452, "config_DGXH100_1452x8x6x4x6_mbs1_cg.sh", 4, 6, 8, 1, 2904, 6, 0.92167, (0.9186, 0.9696), 3, 69),
]
SEQ = 2048


def logged(repo, system):
    """Batch, accumulation and the median step time of a system's logs in a checkout."""
    def git(*args):
        return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout

    info, steps = {}, []
    for path in git("ls-tree", "--name-only", "HEAD", f"NVIDIA/results/{system}/gpt3/").split():
        if not path.endswith(".txt"):
            continue
        start = None
        for line in git("show", f"HEAD:{path}").splitlines():
            if not line.startswith(":::MLLOG"):
                continue
            event = json.loads(line[len(":::MLLOG"):])
            key = event["key"]
            if key in ("global_batch_size", "gradient_accumulation_steps", "max_sequence_length"):
                info[key] = event["value"]
            elif key == "block_start":
                start = (event["time_ms"], event["metadata"]["epoch_count"])
            elif key == "block_stop" and start:
                block_steps = start[1] / (info["global_batch_size"] * info["max_sequence_length"])
                steps.append((event["time_ms"] - start[0]) / 1000 / block_steps)
                start = None
    return info, statistics.median(steps), (min(steps), max(steps)), len(steps)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        for system, *_, gbs, accumulation, step, spread, _, blocks in ROWS:
            print(system, "row:", gbs, accumulation, step, spread, blocks)
            print(system, "log:", *logged(sys.argv[2], system))
        return
    print("""# Training cases: NVIDIA's MLPerf Training v4.0 GPT-3 175B submissions on DGX H100, written by
# validation/import/mlperf_training_cases.py (edit the script, not this file). Metric: the median step
# time of the published logs; layout from the published configuration.
schema_version = 1
suite = "training"
""")
    for system, nodes, config, tp, pp, vp, mbs, gbs, accumulation, step, spread, runs, blocks in ROWS:
        gpus = nodes * 8
        dp = gpus // (tp * pp)
        case = {"id": f"mlperf40-gpt3-175b-{gpus}xh100", "source": SOURCE}
        # The reference's model has no dropout (mlcommons/training large_language_model/megatron-lm/run_gpt3.sh:
        # --attention-dropout 0.0 --hidden-dropout 0.0); the gpt3-175b preset keeps Megatron-LM's 0.1.
        scenario = {"model": {"preset": "gpt3-175b", "dropout": 0},
                    "hardware": {"system": "dgx-h100", "nodes": nodes},
                    "training": {"seq_len": SEQ, "global_batch": gbs, "micro_batch": mbs, "precision": "fp8",
                                 "fp8_recipe": "delayed", "recompute": "none", "stack": "nemo",
                                 "fp8_param_gather": True, "grad_reduce_dtype": "bf16"},
                    "parallelism": {"tp": tp, "pp": pp, "vp": vp, "sequence_parallel": True, "zero": 1}}
        notes = (f"{system}, {config}: {gpus} H100 SXM, TP {tp}, PP {pp} (interleaved, {vp} chunks per stage), DP {dp}, "
                 f"micro-batch {mbs}, global batch {gbs} of {SEQ} tokens ({accumulation} micro-batches per step, as the "
                 "log's gradient_accumulation_steps); FP8 hybrid with delayed scaling (amax history 1024, config_fp8.sh), "
                 "FP8 parameters gathered in FP8 (FP8_PARAMS=True), the distributed optimizer reducing gradients in BF16 "
                 "(conf/optim/distributed_fused_adam.yaml grad_sync_dtype), TP communication overlap on userbuffers, sequence "
                 "parallelism, no activation recomputation (conf/custom.yaml defaults), no dropout (the reference's run_gpt3.sh). "
                 "Measured: median step time over "
                 f"{blocks} logged blocks of {runs} runs, {spread[0]:.4g}-{spread[1]:.4g} s. Not modelled: ")
        notes += ("per-layer CUDA graphs (LAYER_CUDA_GRAPH=1), which remove host launch overhead, and the atomic "
                  "FP8 reduce-scatter GEMMs of the TP overlap." if "_cg" in config else
                  "the atomic reduce-scatter GEMMs of the TP overlap (NVTE_UB_ATOMIC_GEMM_RS).")
        emit(case, "step_time_s", step, scenario, notes)


if __name__ == "__main__":
    main()
