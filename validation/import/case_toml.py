"""One [[case]] of a scenario-based validation file (training.toml, inference.toml) as TOML text, and the rows of a
transcribed CSV table."""

# The calibration profile of Azure's LLM harness (TensorRT-LLM's Python GenerationSession without CUDA graphs), from
# the case files' folder: perfcast calibrate validation/inference.toml --source ND_H100_v5 --parameters
# kernel_overhead_s -o profiles/trtllm-python-session.toml (README, "A harness's launch cost").
AZURE_HARNESS_PROFILE = "../profiles/trtllm-python-session.toml"
# The ND H100 v5 page's tokens/s for the workloads the other Azure pages repeat (the azure-llm-h100-* cases of
# validation/inference.toml, FP8; Azure_Results/ND_H100_v5_results.md @ 8fd0c6e), by id stem: what the A100 and H200
# importers set their rows beside.
AZURE_ND_H100_V5 = {"mistral-7b-tp1-bs64": 2696.04, "llama-3-8b-tp1-bs64": 2640.07, "llama-3-70b-tp8-bs16": 624.57,
                    "llama-3-70b-tp8-bs32": 825.02, "llama-3-70b-tp8-bs64": 1077.84}
import csv
import json


def q(s):
    return json.dumps(s, ensure_ascii=False)


def emit(c, metric, measured, scenario, notes, tolerance=0.15, skip=None, used_for=None, calibration=None):
    out = ["[[case]]", f"id = {q(c['id'])}", f"source = {q(c['source'])}", f"metric = {q(metric)}",
           f"measured = {measured}", f"tolerance = {tolerance}"]
    if used_for:
        out.append(f"used_for = {q(used_for)}")
    if calibration:
        out.append(f"calibration = {q(calibration)}")
    if skip:
        out.append(f"skip = {q(skip)}")
    out.append(f"notes = {q(notes)}")
    if scenario:
        for table, keys in scenario.items():
            out.append(f"[case.scenario.{table}]")
            for k, v in keys.items():
                out.append(f"{k} = {q(v) if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else v}")
    print("\n".join(out) + "\n")


def emit_azure_llm_case(device, stem, preset, devices, batch, measured, dtype, source, notes):
    """One row of an Azure AI-benchmarking-guide 'End-to-End Inference Workloads' table: a static batch of input 128
    and output 8 on `devices` GPUs (tensor parallel), weights, math and KV cache in `dtype`, scored with the harness's
    profile."""
    scenario = {
        "model": {"preset": preset},
        "hardware": {"accelerator": device, "count": devices},
        "inference": {"input_len": 128, "output_len": 8, "batch": batch, "compute_dtype": dtype, "weight_dtype": dtype,
                      "kv_dtype": dtype},
        "parallelism": {"tp": devices},
    }
    page = {"a100-sxm-80gb": "a100", "h200": "h200"}[device]
    emit({"id": f"azure-llm-{page}-{stem}-128-8", "source": source}, "output_tokens_per_s", measured, scenario, notes,
         calibration=AZURE_HARNESS_PROFILE)


def csv_rows(path):
    """The rows of a transcribed table: a CSV whose leading '#' lines name its source."""
    with open(path) as f:
        yield from csv.DictReader(line for line in f if not line.startswith("#"))
