"""Writes validation/inference-azure-nd-a100.toml: Azure's ND A100 v4 end-to-end inference table, the ND H100 v5
page's workloads (validation/inference.toml, ids azure-llm-h100-*) on A100s in FP16.

    cd validation/import && python3 azure_nd_a100_cases.py > ../inference-azure-nd-a100.toml

Source: Azure/AI-benchmarking-guide, Azure_Results/ND_A100_v4_results.md @ 3bb66ca (2024-09-25; system: NVIDIA
A100-SXM4-80GB, AMD EPYC 7V12, CUDA 12.5, driver 550.90.07, NCCL 2.18.5, PyTorch 2.4.1), 'End-to-End Inference
Workloads': tokens per second at input length 128, output length 8 and "datatype float16", Mistral 7B and Llama 3
8B at batch 64 on one GPU, Llama 3 70B at batch 16 / 32 / 64 over world size 8.

Harness: the repository's Benchmarks/LLMBenchmark.py (read @ 8fd0c6e, the ND H100 v5 cases' notes), which pins
TensorRT-LLM a681853d, builds with trtllm-build --gemm_plugin auto and times TensorRT-LLM's Python benchmarks/python/
benchmark.py (GenerationSession, no CUDA graphs; tokens_per_sec = batch x output_len / latency). On the A100, which
has no FP8, the FP16 path is the one its non-FP8 branch takes (convert_checkpoint.py --dtype float16): FP16 weights,
math and KV cache. What the A100 rows add to the H100 and H200 pages: the same harness, host work and static batch
with another device and precision, so a residual the three share is the harness's and one the Hopper rows alone
show is their FP8 path's.
"""
from case_toml import AZURE_ND_H100_V5, emit_azure_llm_case

SOURCE = ("Azure/AI-benchmarking-guide, Azure_Results/ND_A100_v4_results.md @ commit 3bb66ca "
          "(Microsoft Azure, ND A100 v4 results, 2024-09-25), 'End-to-End Inference Workloads' tables")
# (id stem, preset, devices, batch, tokens/s on the page)
ROWS = [
    ("mistral-7b-tp1-bs64", "mistral-7b", 1, 64, 858.61),
    ("llama-3-8b-tp1-bs64", "llama3-8b", 1, 64, 828.11),
    ("llama-3-70b-tp8-bs16", "llama3-70b", 8, 16, 298.99),
    ("llama-3-70b-tp8-bs32", "llama3-70b", 8, 32, 416.85),
    ("llama-3-70b-tp8-bs64", "llama3-70b", 8, 64, 492.29),
]

print("""# Azure's ND A100 v4 end-to-end inference table as inference cases, written by
# validation/import/azure_nd_a100_cases.py (read it for the source and what each case assumes): the ND H100 v5
# page's workloads (validation/inference.toml, azure-llm-h100-*) on A100-SXM4-80GB in FP16, static batches,
# input 128, output 8; tolerance 15 % as the other inference cases. Scored with the harness's launch cost,
# profiles/trtllm-python-session.toml (fitted on the ND H100 v5 rows, not these).
schema_version = 1
suite = "inference"
""")
for stem, preset, devices, batch, measured in ROWS:
    h100 = AZURE_ND_H100_V5[stem]
    notes = (f"{measured:,} tokens/s at batch {batch}, input 128, output 8, over {devices} GPU(s), datatype float16: "
             "output tokens / (prefill + 7 decode steps), FP16 weights, math and KV cache. The ND H100 v5 page measures "
             f"{h100:,} in FP8 for the same workload (case azure-llm-h100-{stem}-128-8).")
    emit_azure_llm_case("a100-sxm-80gb", stem, preset, devices, batch, measured, "fp16", SOURCE, notes)
