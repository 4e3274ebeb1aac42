"""Writes validation/serving-vllm-fp8-kv-blog.toml: the vLLM blog's measurements of Llama-3.1-8B (H100, B200) and
gpt-oss-20b (B200) served with a BF16 and an FP8 KV cache, as serving cases scored through the simulated engine.

    cd validation/import && python3 vllm_fp8_kv_blog_cases.py > ../serving-vllm-fp8-kv-blog.toml

Source: vLLM blog, 'The State of FP8 KV-Cache and Attention Quantization in vLLM' (Kübler, Kurtić, Wilkinson, Bonanni,
Goin, Marques, Budhathoki; 2026-04-22; vllm-project/vllm-project.github.io _posts/2026-04-22-fp8-kvcache.md), vLLM
v0.19.1. What it states and what each case assumes:
  - 'Single Request Benchmarking': `vllm bench serve` at concurrency 1, 128 output tokens, input lengths swept from
    256 to 125k tokens; the inter-token latency fitted as `ITL = slope x input_len + intercept`. The text gives the fits
    (H100, FlashAttention-3: BF16 4.37e-05 ms/token + 6.44 ms, FP8 2.37e-05 + 6.58 ms; B200, FlashInfer: BF16
    1.80e-05 + 3.93 ms, FP8 9.72e-06 + 3.96 ms), not the points. Each case is the fitted line at 4,096, 16,384 and
    65,536 prompt tokens, inside the swept range; perfcast's TPOT of a closed loop of one client (its mean; at one
    client every token waits one decode step).
  - gpt-oss-20b on B200 ('Performance with FlashInfer on Blackwell', Figure 6: BF16 3.56e-06 ms/token + 3.15 ms, FP8
    2.06e-06 + 3.17 ms; both caches for every layer, no sliding-window skip on B200), at the same lengths: the
    checkpoint's MXFP4 expert weights (`expert_weight_dtype = "mxfp4"`; attention, router, embedding and head BF16, as its
    quantization_config's modules_to_not_convert says), BF16 math. The blog's H100 gpt-oss fits give only a
    range of intercepts (4.03-4.07 ms) and are not used.
  - The B200 FP8 slope is, with the BF16 one, where B200's FP8-cache share comes from (hardware_db b200,
    memory.decode_attention_fp8_kv_share, docs/models.md F-ATT-4): those three cases are `used_for` it and not held out.
  - 'Throughput under Load' (Table 4, H100): 150 requests at concurrency 8, '~20k input tokens and ~2k output tokens
    (±15% variance)': taken as lengths uniform over [17,000, 23,000] and [1,700, 2,300] ([serving] length_min_fraction
    17/23), a benchmark of 150 requests from an idle engine. Median TTFT and output tokens/s are scored; the table's
    median ITL (a median over token gaps) is scored as perfcast's median TPOT (a median over requests of each one's
    mean gap, which the prompt steps in its life raise a little).
  - Llama-3.1-8B in BF16 (the model the blog names; its FP8 path quantises the KV cache and the attention, not the
    weights). vLLM v0.19.1's scheduler: perfcast's pinned vLLM V1 server limits, but with async scheduling, which
    vLLM turned on by default after the pinned defaults (PR #27614): `[serving] overlap_scheduling = true`.
Uncalibrated. Tolerance 20 %, the issue's bound for TTFT and TPOT under load.
"""
from case_toml import emit

SOURCE = ("vLLM blog, 'The State of FP8 KV-Cache and Attention Quantization in vLLM' (2026-04-22, vLLM v0.19.1; "
          "vllm-project/vllm-project.github.io _posts/2026-04-22-fp8-kvcache.md), Llama-3.1-8B and gpt-oss-20b on one H100 / one B200")
# (device, kv, slope ms per token, intercept ms, used for a default)
FITS = [
    ("llama3.1-8b", "h100-sxm", "bf16", 4.37e-05, 6.44, None),
    ("llama3.1-8b", "h100-sxm", "fp8", 2.37e-05, 6.58, None),
    ("llama3.1-8b", "b200", "bf16", 1.80e-05, 3.93, None),
    ("llama3.1-8b", "b200", "fp8", 9.72e-06, 3.96, "hardware_db b200 memory.decode_attention_fp8_kv_share (F-ATT-4)"),
    ("gpt-oss-20b", "b200", "bf16", 3.56e-06, 3.15, None),
    ("gpt-oss-20b", "b200", "fp8", 2.06e-06, 3.17, None),
]
LENGTHS = [4096, 16384, 65536]
# Table 4: (kv, median TTFT ms, median ITL ms, output tokens/s)
TABLE4 = [("bf16", 763.6, 15.18, 450.3), ("fp8", 742.8, 12.93, 517.5)]


def scenario(device, kv, input_len, output_len, serving, model="llama3.1-8b"):
    inference = {"input_len": input_len, "output_len": output_len, "engine": "vllm", "compute_dtype": "bf16",
                 "weight_dtype": "bf16", "kv_dtype": kv}
    if model == "gpt-oss-20b":
        inference["expert_weight_dtype"] = "mxfp4"  # the checkpoint's MXFP4 experts, the rest BF16
    return {
        "model": {"preset": model},
        "hardware": {"accelerator": device, "count": 1},
        "inference": inference,
        "serving": dict(serving, overlap_scheduling=True),
    }


print("""# The vLLM blog's FP8 KV-cache measurements (Llama-3.1-8B on H100 and B200, gpt-oss-20b on B200, vLLM v0.19.1) as serving cases, written by
# validation/import/vllm_fp8_kv_blog_cases.py (read it for the source, what the blog states and what each case assumes).
schema_version = 1
suite = "inference"
""")
for model, device, kv, slope, intercept, used_for in FITS:
    part = "H100" if device.startswith("h100") else "B200"
    for n in LENGTHS:
        itl_ms = intercept + slope * n
        emit({"id": f"vllm-fp8kv-blog-{model}-{device}-{kv}-c1-{n}-tpot", "source": SOURCE}, "serving_tpot_mean_s",
             round(itl_ms / 1000, 8), scenario(device, kv, n, 128, {"concurrency": 1}, model),
             f"{model}, single request on {part}, {kv.upper()} KV cache: the fitted ITL {slope:g} ms/token x {n} + {intercept:g} ms = "
             f"{itl_ms:.3f} ms at {n} prompt tokens, 128 output tokens.", tolerance=0.2, used_for=used_for)
for kv, ttft_ms, itl_ms, tokens_s in TABLE4:
    load = {"concurrency": 8, "benchmark_requests": 150, "length_min_fraction": round(17 / 23, 6)}
    s = scenario("h100-sxm", kv, 23000, 2300, load)
    where = (f"Table 4, H100, {kv.upper()} KV cache: 150 requests at concurrency 8, ~20k input and ~2k output tokens "
             f"(±15 %, taken as uniform over 17,000-23,000 and 1,700-2,300).")
    base = f"vllm-fp8kv-blog-llama3.1-8b-h100-sxm-{kv}-c8-20k-2k"
    emit({"id": f"{base}-ttft", "source": SOURCE}, "serving_ttft_p50_s", round(ttft_ms / 1000, 8), s,
         f"Median TTFT {ttft_ms} ms. {where}", tolerance=0.2)
    emit({"id": f"{base}-tpot", "source": SOURCE}, "serving_tpot_p50_s", round(itl_ms / 1000, 8), s,
         f"Median ITL {itl_ms} ms, scored as the median TPOT. {where}", tolerance=0.2)
    emit({"id": f"{base}-throughput", "source": SOURCE}, "serving_output_tokens_per_s", tokens_s, s,
         f"Output {tokens_s} tokens/s. {where}", tolerance=0.2)
