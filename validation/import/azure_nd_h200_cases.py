"""Writes validation/inference-azure-nd-h200.toml: Azure's ND H200 v5 end-to-end inference table, the same
workloads its ND H100 v5 page measured (validation/inference.toml, ids azure-llm-h100-*), now on H200.

    cd validation/import && python3 azure_nd_h200_cases.py > ../inference-azure-nd-h200.toml

Source: Azure/AI-benchmarking-guide, Azure_Results/ND_H200_v5_results.md @ 7f20e5fa3b2f (system: NVIDIA H200
141GB, Xeon Platinum 8480C, CUDA 12.6, driver 560.28.03, PyTorch 2.4.0), 'End-to-End Inference Workloads':
tokens per second at input length 128 and output length 8, Mistral 7B and Llama 3 8B at batch 64 on one GPU,
Llama 3 70B at batch 16 / 32 / 64 and Llama 3 405B at batch 96 over world size 8.

The page does not name its harness; its tables have the ND H100 v5 page's form and workloads (input 128,
output 8, the same batches but 405B's 96), which Benchmarks/LLMBenchmark.py ran there (read @ 8fd0c6e:
TensorRT-LLM's quantize.py --qformat fp8 --kv_cache_dtype fp8, TensorRT-LLM's Python benchmarks/python/
benchmark.py, GenerationSession without CUDA graphs, tokens_per_sec = batch x output_len / latency). So each
case is the ND H100 v5 case's scenario on the H200: the same static batch, FP8 weights, math and KV cache.
What the pair tests is the device: the H100 and H200 rows differ by 4-6 % in the measurement.
"""
from case_toml import AZURE_ND_H100_V5, emit_azure_llm_case

SOURCE = ("Azure/AI-benchmarking-guide, Azure_Results/ND_H200_v5_results.md @ commit 7f20e5fa3b2f9a46d8404af1f6fb14b049d6d5cc "
          "(Microsoft Azure, ND H200 v5 results), 'End-to-End Inference Workloads' tables")
# (id stem, preset, devices, batch, tokens/s on the page)
ROWS = [
    ("mistral-7b-tp1-bs64", "mistral-7b", 1, 64, 2822.37),
    ("llama-3-8b-tp1-bs64", "llama3-8b", 1, 64, 2757.54),
    ("llama-3-70b-tp8-bs16", "llama3-70b", 8, 16, 647.78),
    ("llama-3-70b-tp8-bs32", "llama3-70b", 8, 32, 861.77),
    ("llama-3-70b-tp8-bs64", "llama3-70b", 8, 64, 1145.14),
    ("llama-3-405b-tp8-bs96", "llama3-405b", 8, 96, 333.47),
]

print("""# Azure's ND H200 v5 end-to-end inference table as inference cases, written by
# validation/import/azure_nd_h200_cases.py (read it for the source and what each case assumes): the ND H100 v5
# page's workloads (validation/inference.toml, azure-llm-h100-*) on the H200, static batches, input 128, output 8.
# Tolerance 15 % as the other inference cases. Scored with the harness's launch cost,
# profiles/trtllm-python-session.toml (fitted on the ND H100 v5 rows, not these).
schema_version = 1
suite = "inference"
""")
for stem, preset, devices, batch, measured in ROWS:
    h100 = AZURE_ND_H100_V5.get(stem)
    pair = (f" The ND H100 v5 page measures {h100:,} for the same workload (case azure-llm-h100-{stem}-128-8): "
            f"{measured / h100 - 1:+.1%} on the H200." if h100 else " The ND H100 v5 page ran 405B at batch 32 only.")
    notes = (f"{measured:,} tokens/s at batch {batch}, input 128, output 8, over {devices} GPU(s): output tokens / "
             "(prefill + 7 decode steps), FP8 weights, math and KV cache as on the ND H100 v5 page's harness." + pair)
    emit_azure_llm_case("h200", stem, preset, devices, batch, measured, "fp8", SOURCE, notes)
