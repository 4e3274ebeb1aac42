#!/usr/bin/env python3
"""Writes validation/inference.toml from ../shared/validation/inference_cases.json.

Each published serving or edge benchmark becomes a perfcast scenario plus the figure it reports.
What the source does not state and the scenario needs is named in the case's notes as an
assumption; cases whose model or device is not in the database are kept with a skip reason.
Run from the repository root: python3 validation/import/inference_cases.py > validation/inference.toml
"""
import json
import sys

from case_toml import AZURE_HARNESS_PROFILE, emit

# What Azure's harness ran, read in its repository and in the TensorRT-LLM code it pins (the results page says neither).
AZURE_RUN = ("Checked, Azure/AI-benchmarking-guide @ 8fd0c6e: Benchmarks/LLMBenchmark.py quantizes Mistral 7B and Llama 3 "
             "8B/70B with TensorRT-LLM's quantize.py --qformat fp8 --kv_cache_dtype fp8 (405B: Meta's FP8 checkpoint "
             "converted; in BF16 its 810 GB would not fit 8 x 80 GB) and times them with TensorRT-LLM's "
             "benchmarks/python/benchmark.py (Python GenerationSession, no --enable_cuda_graph), whose tokens_per_sec is "
             "batch x output_len / latency (gpt_benchmark.py): output tokens only. Its committed config lists 128,128; "
             "the results page states output 8, used here. ")

# TensorRT-LLM's 2023 tables (v0.5, v0.6.1) generate with its masked multi-head attention kernel, one thread block per
# query head reading its KV head's cache (F-ATT-3); XQA, which reads each KV head once for its group, came with v0.8
# (docs/source/blogs/XQA-kernel.md).
PRE_XQA = ("'Performance of TensorRT-LLM' (performance.md)", "'H100 has 4.6x A100 Performance in TensorRT-LLM'")

cases = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "../shared/validation/inference_cases.json"))

PRESETS = {"GPT-J-6B": "gpt-j-6b", "LLaMA 7B (Llama-2-7b per methodology)": "llama2-7b", "Llama-2-70B": "llama2-70b",
           "Falcon-180B": "falcon-180b", "Mistral-7B": "mistral-7b", "Llama-3-8B": "llama3-8b", "Llama-3-70B": "llama3-70b",
           "Llama-3-405B": "llama3-405b", "MobileNet v2 (224x224)": "mobilenet-v2",
           "MobileNet v1 (224x224)": "mobilenet-v1", "VGG16 (224x224)": "vgg16"}
DEVICES = {"NVIDIA H100": "h100-sxm", "NVIDIA A100 SXM 80GB": "a100-sxm-80gb", "NVIDIA L40S": "l40s",
           "Google Coral USB Accel": "coral-usb", "Google Coral Dev Board": "coral-devboard"}


def device_of(name):
    return next((v for k, v in DEVICES.items() if name.startswith(k)), None)


print("""# Inference cases: published LLM serving and edge benchmarks as perfcast scenarios, imported by
# validation/import/inference_cases.py from ../shared/validation/inference_cases.json (citations kept).
# Metrics: output_tokens_per_s (the replica), output_tokens_per_s_per_device, ttft_s, latency_s (one
# frame). LLM cases score as kind "inference" (tolerance 15 %), vision cases as kind "edge" (25 %),
# the issue's targets; the model is uncalibrated but for Azure's rows, which name their harness's launch cost
# (calibration = profiles/trtllm-python-session.toml, fitted on them), and a case outside its band makes
# `perfcast validate` exit non-zero.
schema_version = 1
suite = "inference"
""")

for c in cases:
    if c["kind"] not in ("llm_inference", "edge_inference"):
        continue
    s, m, meas, hw = c["settings"], c["model"], c["measured"], c["hardware"]
    preset, device = PRESETS.get(m["name"]), device_of(hw["accelerator"])
    skip = None
    if not preset:
        skip = f"no workload preset for {m['name']} (its op list is not in scenarios/workloads)"
    elif not device:
        skip = f"no database entry for {hw['accelerator']}"
    if c["kind"] == "edge_inference":
        sc = {"model": {"preset": preset}, "hardware": {"accelerator": device},
              "inference": {"batch": 1, "compute_dtype": "int8", "weight_dtype": "int8"}} if not skip else None
        emit(c, "latency_s", meas["latency_ms"] / 1000, sc,
             "Coral's published latency per inference (Edge TPU compiled INT8 TFLite, batch 1). " + c["notes"][:300], 0.25, skip)
        continue
    fp8 = s["precision"] in ("FP8", None)
    batch, n_in = s["batch"], s["input_len"]
    n_out = s["output_len"] or 1
    dtype = "fp8" if fp8 else "bf16" if device == "h100-sxm" else "fp16"
    inference = {"input_len": n_in, "output_len": n_out, "batch": batch, "compute_dtype": dtype, "weight_dtype": dtype,
                 "kv_dtype": dtype if (s["kv_bits"] or 8) == 8 or not fp8 else "bf16"}
    if not skip and (s["tp"] or 1) > 1 and meas.get("tokens_per_s") is not None and "per-TP-group not stated" in c["notes"]:
        skip = ("'Throughput (out tok/s)' with tp > 1: the source does not say per GPU or per tp group, and the two readings "
                "differ by the factor tp")
    sc = {"model": {"preset": preset}, "hardware": {"accelerator": device, "count": s["tp"] or 1},
          "inference": inference, "parallelism": {"tp": s["tp"] or 1}} if not skip else None
    if sc and any(k in c["source"] for k in PRE_XQA):
        sc["attention"] = {"decode_kv": "per-query-head"}
    note = ((AZURE_RUN if "Azure/AI-benchmarking-guide" in c["source"] else
             "Assumed: FP8 weights, activations and KV cache (the source's precision is not stated). ")
            if s["precision"] is None else "") + c["notes"][:300]
    if "ttft_ms" in meas and meas["ttft_ms"] is not None and (meas.get("tokens_per_s") is None or batch == 1):
        emit(c, "ttft_s", meas["ttft_ms"] / 1000, sc, "Time to first token of one prompt. " + note, 0.15, skip)
    elif meas.get("tokens_per_s_per_gpu") is not None:
        emit(c, "output_tokens_per_s_per_device", meas["tokens_per_s_per_gpu"], sc,
             "Static batch: output tokens / (prefill + decode) per GPU. " + note, 0.15, skip)
    else:
        harness = AZURE_HARNESS_PROFILE if "Azure/AI-benchmarking-guide" in c["source"] else None
        emit(c, "output_tokens_per_s", meas["tokens_per_s"], sc, "Static batch: output tokens / (prefill + decode). " + note, 0.15, skip,
             calibration=harness)
        # A batch row that also times its first token: the batch's prompts prefilled together, a case of its own.
        if batch > 1 and meas.get("ttft_ms") is not None:
            emit({**c, "id": c["id"] + "-ttft"}, "ttft_s", meas["ttft_ms"] / 1000, sc,
                 f"Time to first token of the static batch: its {batch} prompts prefilled together. " + note, 0.15, skip)
