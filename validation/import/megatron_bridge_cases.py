"""Writes validation/training-megatron-bridge.toml: the dense Llama 3 pre-training rows of NVIDIA's
Megatron-Bridge performance tables (NeMo 25.11 and 26.04.01 containers), transcribed below.

    python3 validation/import/megatron_bridge_cases.py > validation/training-megatron-bridge.toml

Source: github.com/NVIDIA-NeMo/Megatron-Bridge, docs/performance-summary-archive.md @ 4ab94dfad366
(2026-08-11). Per-recipe settings the tables leave out (CPU activation offloading, the embedding and loss
counted as pipeline layers) are read from the same repository's scripts/performance/configs/llama/
*_workload_base_configs.py @ 97ad8cc6f (25.11) and 039635e8c (26.04), src/megatron/bridge/recipes/llama/h100/llama3.py @ 067f987df.
MoE rows (DeepSeek-V3, Qwen3, GPT-OSS, Nemotron 3) are left for the model issue (no presets yet).
"""
from case_toml import emit

ARCHIVE = ("NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @ 4ab94dfad366 (2026-08-11), "
           "'{release} NeMo Container', Pre-Training Performance tables (DGX-GB200, DGX-B200, DGX-H100)")

# (release, system, model, gpus, precision, gbs, mbs, seq, fsdp, tp, pp, cp, vp, tokens/s/GPU, model TFLOP/s/GPU)
ROWS = [
    ("25.11", "gb200", "llama3-8b", 8, "FP8-CS", 128, 2, 8192, 0, 1, 1, 1, 1, 31508, 1622),
    ("25.11", "gb200", "llama3-8b", 8, "FP8-MX", 128, 2, 8192, 0, 1, 1, 1, 1, 29789, 1533),
    ("25.11", "gb200", "llama3-70b", 64, "FP8-CS", 256, 2, 8192, 64, 1, 1, 1, 1, 4312, 1937),
    ("25.11", "gb200", "llama3-405b", 256, "FP8-CS", 1536, 1, 8192, 0, 4, 16, 1, 4, 813, 2053),
    ("25.11", "b200", "llama3-8b", 8, "FP8-CS", 128, 2, 8192, 0, 1, 1, 1, 1, 30624, 1576),
    ("25.11", "b200", "llama3-8b", 8, "FP8-MX", 128, 2, 8192, 0, 1, 1, 1, 1, 29521, 1519),
    ("25.11", "b200", "llama3-405b", 128, "FP8-CS", 64, 1, 8192, 0, 4, 8, 2, 8, 661, 1667),
    ("25.11", "b200", "llama3-405b", 128, "FP8-MX", 64, 1, 8192, 0, 4, 8, 2, 8, 624, 1576),
    ("25.11", "h100", "llama3-8b", 8, "FP8-CS", 128, 1, 8192, 8, 1, 1, 1, 1, 14451, 744),
    ("25.11", "h100", "llama3-70b", 64, "FP8-CS", 128, 1, 8192, 0, 4, 8, 1, 5, 1602, 719),
    ("25.11", "h100", "llama3-405b", 1024, "FP8-CS", 512, 1, 8192, 0, 8, 8, 2, 8, 292, 737),
    ("26.04.01", "gb200", "llama3-70b", 64, "FP8", 256, 2, 8192, 64, 1, 1, 1, 1, 4224, 1892),
    ("26.04.01", "gb200", "llama3-70b", 64, "MXFP8", 256, 1, 8192, 0, 2, 4, 1, 5, 3712, 1664),
    ("26.04.01", "gb200", "llama3-70b", 64, "NVFP4", 256, 1, 8192, 0, 2, 4, 1, 5, 4864, 2202),
    ("26.04.01", "h100", "llama3-70b", 64, "FP8", 256, 1, 8192, 0, 4, 8, 1, 5, 1664, 731),
    ("26.04.01", "gb200", "llama3-405b", 256, "FP8", 1536, 1, 8192, 0, 4, 16, 1, 4, 864, 2144),
    ("26.04.01", "gb200", "llama3-405b", 256, "MXFP8", 1536, 1, 8192, 0, 4, 16, 1, 8, 800, 1994),
    ("26.04.01", "gb200", "llama3-405b", 256, "NVFP4", 1536, 1, 8192, 0, 4, 16, 1, 8, 1184, 2960),
    ("26.04.01", "h100", "llama3-405b", 1024, "FP8", 1536, 1, 8192, 0, 8, 8, 2, 8, 328, 827),
]

LAYERS = {"llama3-8b": 32, "llama3-70b": 80, "llama3-405b": 126}

# CPU activation offloading of the GB200 FSDP recipes (cpu_offloading_num_layers in the workload configs).
OFFLOADED = {("gb200", "llama3-70b"): 40}


def hardware(system, gpus):
    if system == "h100":
        return {"system": "dgx-h100", "nodes": gpus // 8}
    if system == "b200":
        return {"system": "dgx-b200", "nodes": gpus // 8}
    # DGX GB200: NVL72 racks; the tables give no rack count, so the job's GPUs share NVLink domains
    # of up to 64 (an assumption) and InfiniBand NDR between them (the rack's ConnectX-7 per GPU).
    per_domain = min(gpus, 64)
    return {"accelerator": "gb200", "count": gpus, "gpus_per_node": per_domain, "scale_up": "nvlink5", "scale_out": "ib-ndr"}


BLOCK_SCALED = ("FP8-MX", "MXFP8", "NVFP4")


def training_precision(precision):
    """The scenario's precision and FP8 recipe for a row: the tables' FP8 and FP8-CS rows ran Megatron-Bridge's
    fp8_cs (per-tensor current scaling, the stack's default); FP8-MX / MXFP8 its fp8_mx (recipe 'mxfp8'); NVFP4
    its nvfp4 (bf16_with_nvfp4_mixed: every linear layer in FP4), per scripts/performance/utils/precision.py."""
    if precision in ("FP8-MX", "MXFP8"):
        return {"precision": "fp8", "fp8_recipe": "mxfp8"}
    if precision == "NVFP4":
        return {"precision": "fp4"}
    return {"precision": "fp8"}


def skip_reason(system, model, precision, fsdp):
    if fsdp and (system, model) in OFFLOADED:
        return (f"the recipe offloads the activations of {OFFLOADED[(system, model)]} layers to Grace memory "
                "(cpu_offloading_num_layers); activation offloading is not modelled")
    return None


def pipeline_split(model, pp, vp):
    """Megatron-Bridge's Llama 3.1 405B recipes count the embedding and the loss as pipeline layers."""
    layers = LAYERS[model]
    if layers % pp == 0:
        return {}
    per_stage = (layers + 2) // pp
    return {"first_stage_layers": per_stage - 1, "last_stage_layers": per_stage - 1}


def main():
    print("""# Training cases: NVIDIA's Megatron-Bridge pre-training tables (dense Llama 3, NeMo 25.11 and 26.04.01),
# written by validation/import/megatron_bridge_cases.py (edit the script, not this file). Metric and
# tolerance as in training.toml; activation-offloading rows are kept, skipped with why.
schema_version = 1
suite = "training"
""")
    for (release, system, model, gpus, precision, gbs, mbs, seq, fsdp, tp, pp, cp, vp, tokens, tflops) in ROWS:
        tag = precision.lower().replace("-", "")
        case = {"id": f"mbridge{release.replace('.', '')}-{system}-{model}-{gpus}gpu-{tag}",
                "source": ARCHIVE.format(release=release) + (", block-scaled rows" if precision in BLOCK_SCALED else "")}
        parallelism = {"tp": tp, "pp": pp, "cp": cp, "vp": vp, "sequence_parallel": tp > 1, "zero": 3 if fsdp else 1}
        parallelism.update(pipeline_split(model, pp, vp))
        if vp == 1:
            del parallelism["vp"]
        scenario = {"model": {"preset": model}, "hardware": hardware(system, gpus),
                    "training": {"seq_len": seq, "global_batch": gbs, "micro_batch": mbs, **training_precision(precision),
                                 "recompute": "none", "stack": "nemo"},
                    "parallelism": parallelism}
        notes = (f"DGX-{system.upper()}, {gpus} GPUs, {precision}, GBS {gbs}, MBS {mbs}, seq {seq}, FSDP {fsdp}, TP {tp}, PP {pp}, "
                 f"CP {cp}, VP {vp}; the table's Model TFLOP/s/GPU is {tflops}. Assumed where the table is silent: the "
                 "recipes' sequence parallelism with TP, the distributed optimizer (ZeRO-1) unless FSDP (Megatron FSDP as "
                 "ZeRO-3), no recomputation, TP communication overlap on (the stack's default).")
        if parallelism.get("first_stage_layers"):
            notes += " The 405B recipe counts the embedding and the loss as pipeline layers (account_for_*_in_pipeline_split)."
        emit(case, "tokens_per_s_per_device", tokens, scenario, notes, skip=skip_reason(system, model, precision, fsdp))


if __name__ == "__main__":
    main()
