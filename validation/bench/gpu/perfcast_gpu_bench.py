#!/usr/bin/env python3
"""perfcast GPU measurement kit: measure one NVIDIA GPU with PyTorch and write files perfcast reads.

    python3 perfcast_gpu_bench.py --accelerator h100-sxm --out DIR [--quick]

writes
  DIR/microbenchmarks.toml  GEMM sweep (bf16, and fp8 where torch._scaled_mm runs), HBM copy, and
                            fused attention (kept with a skip reason: perfcast's roofline does not
                            predict attention microbenchmarks yet)
  DIR/layer.toml, DIR/decode-b*.toml   the scenarios the measurements below ran (a Llama-3-8B-shaped
                            model, random weights, on this one GPU)
  DIR/training.csv          the generic (scenario, metric, value) rows of one transformer layer's
                            forward + backward (layer_time_s)
  DIR/inference.csv         generation at several batch sizes (ttft_s, latency_s)
then
  perfcast ingest measurements DIR/training.csv -o DIR/training.toml
  perfcast ingest measurements DIR/inference.csv -o DIR/inference.toml
  perfcast calibrate DIR/microbenchmarks.toml DIR/training.toml DIR/inference.toml --select 0/3 -o DIR/profile.toml
  perfcast validate --cases DIR/inference.toml --calibration DIR/profile.toml

Timing: CUDA events around each call after warm-up; the median of the repeats. Nothing here is
tuned to perfcast: each kernel is PyTorch's default (cuBLAS, FlashAttention via SDPA).
"""
import argparse
import csv
import datetime
import os
import statistics

import torch
import torch.nn.functional as F

# Llama 3 8B (scenarios/workloads/llama3-8b.toml): hidden 4096, 32 heads of 128, 8 KV heads,
# SwiGLU 14336, 32 layers, vocabulary 128256.
HIDDEN, HEADS, KV_HEADS, FFN, LAYERS, VOCAB = 4096, 32, 8, 14336, 32, 128256
HEAD_DIM = HIDDEN // HEADS


def time_ms(fn, repeats, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def toml_str(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


class Layer(torch.nn.Module):
    """One Llama layer: RMSNorm, GQA attention (SDPA, causal), RMSNorm, SwiGLU MLP."""

    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(HIDDEN, (HEADS + 2 * KV_HEADS) * HEAD_DIM, bias=False)
        self.o = torch.nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.gate_up = torch.nn.Linear(HIDDEN, 2 * FFN, bias=False)
        self.down = torch.nn.Linear(FFN, HIDDEN, bias=False)
        self.n1 = torch.nn.RMSNorm(HIDDEN)
        self.n2 = torch.nn.RMSNorm(HIDDEN)

    def attend(self, x, cache=None):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.n1(x)).split([HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM], dim=-1)
        q = q.view(b, s, HEADS, HEAD_DIM).transpose(1, 2)
        k = k.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
        v = v.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
        if cache is not None:
            k = torch.cat([cache[0], k], dim=2)
            v = torch.cat([cache[1], v], dim=2)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=cache is None, enable_gqa=True)
        return self.o(out.transpose(1, 2).reshape(b, s, HIDDEN)), (k, v)

    def forward(self, x, cache=None):
        a, cache = self.attend(x, cache)
        x = x + a
        g, u = self.gate_up(self.n2(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(g) * u), cache


def gemm_cases(quick, repeats):
    sizes = [1024, 2048, 4096, 8192] if quick else [512, 1024, 2048, 4096, 6144, 8192, 12288, 16384]
    shapes = [(n, n, n) for n in sizes] + [(4096, 14336, 4096), (4096, 4096, 14336), (16, 8192, 8192), (128, 8192, 8192)]
    cases = []
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        ms = time_ms(lambda: a @ b, repeats)
        cases.append(dict(id=f"gemm-bf16-{m}x{n}x{k}", kind="gemm", m=m, n=n, k=k, dtype="bf16", out_dtype="bf16",
                          measured=f"{2 * m * n * k / ms / 1e9:.6g} TFLOP/s"))
        if hasattr(torch, "_scaled_mm") and torch.cuda.get_device_capability() >= (8, 9):
            a8 = a.to(torch.float8_e4m3fn)
            b8 = b.t().contiguous().to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm wants
            one = torch.ones((), device="cuda")
            ms8 = time_ms(lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16), repeats)
            cases.append(dict(id=f"gemm-fp8-{m}x{n}x{k}", kind="gemm", m=m, n=n, k=k, dtype="fp8", out_dtype="bf16",
                              measured=f"{2 * m * n * k / ms8 / 1e9:.6g} TFLOP/s"))
    return cases


def memory_cases(quick, repeats):
    cases = []
    for gib in ([1, 4] if quick else [0.25, 1, 4, 16]):
        n = int(gib * 2**30) // 2
        src = torch.empty(n, device="cuda", dtype=torch.bfloat16).normal_()
        dst = torch.empty_like(src)
        ms = time_ms(lambda: dst.copy_(src), repeats)
        nbytes = 2 * n
        cases.append(dict(id=f"hbm-copy-{gib}GiB", kind="memory", read=f"{nbytes} B", write=f"{nbytes} B",
                          measured=f"{2 * nbytes / ms / 1e6:.6g} GB/s"))
    return cases


def attention_cases(repeats):
    cases = []
    for seq in (2048, 8192):
        q = torch.randn(1, HEADS, seq, HEAD_DIM, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(1, HEADS, seq, HEAD_DIM, device="cuda", dtype=torch.bfloat16)
        v = torch.randn_like(k)
        ms = time_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), repeats)
        flops = 4 * seq * seq * HEAD_DIM * HEADS / 2  # causal: half of QK^T and PV
        cases.append(dict(id=f"attention-causal-{seq}", kind="attention", measured=f"{flops / ms / 1e9:.6g} TFLOP/s",
                          skip="perfcast's roofline does not predict attention microbenchmarks yet"))
    return cases


def layer_time_ms(seq, repeats):
    layer = Layer().cuda().to(torch.bfloat16)
    x = torch.randn(1, seq, HIDDEN, device="cuda", dtype=torch.bfloat16, requires_grad=True)

    def step():
        y, _ = layer(x)
        y.sum().backward()

    return time_ms(step, repeats)


def generation_ms(layers, batch, prompt, new_tokens, repeats):
    """TTFT (prefill of the batch) and end-to-end time of a generation with a KV cache."""
    embed = torch.nn.Embedding(VOCAB, HIDDEN).cuda().to(torch.bfloat16)
    head = torch.nn.Linear(HIDDEN, VOCAB, bias=False).cuda().to(torch.bfloat16)
    tokens = torch.randint(0, VOCAB, (batch, prompt), device="cuda")

    def prefill():
        x = embed(tokens)
        caches = []
        for layer in layers:
            x, c = layer(x)
            caches.append(c)
        return head(x[:, -1:]).argmax(-1), caches

    def generate():
        nxt, caches = prefill()
        for _ in range(new_tokens - 1):
            x = embed(nxt)
            for i, layer in enumerate(layers):
                x, caches[i] = layer(x, caches[i])
            nxt = head(x).argmax(-1)

    with torch.no_grad():
        return time_ms(prefill, repeats), time_ms(generate, max(3, repeats // 3), warmup=1)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--accelerator", required=True, help="perfcast's name for this GPU (perfcast hw list), e.g. h100-sxm")
    p.add_argument("--out", default=".")
    p.add_argument("--quick", action="store_true", help="fewer sizes and repeats")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    repeats = 10 if a.quick else 30
    props = torch.cuda.get_device_properties(0)
    date = datetime.date.today().isoformat()
    source = (f"perfcast_gpu_bench.py, {date}, {props.name}, torch {torch.__version__}, CUDA {torch.version.cuda}, "
              f"cuDNN {torch.backends.cudnn.version()}")

    cases = gemm_cases(a.quick, repeats) + memory_cases(a.quick, repeats) + attention_cases(repeats)
    with open(os.path.join(a.out, "microbenchmarks.toml"), "w") as f:
        f.write(f"# Measured by perfcast_gpu_bench.py on {date}; median of {repeats} CUDA-event-timed calls.\n")
        f.write('schema_version = 1\nsuite = "microbenchmark"\n')
        for c in cases:
            f.write(f"\n[[case]]\nsource = {toml_str(source)}\ndevice = {toml_str(props.name)}\n"
                    f"accelerator = {toml_str(a.accelerator)}\ntolerance = 0.15\n")
            for key, value in c.items():
                f.write(f"{key} = {value if isinstance(value, int) else toml_str(value)}\n")

    training, inference = [], []
    seq = 4096
    with open(os.path.join(a.out, "layer.toml"), "w") as f:
        f.write(f'schema_version = 1\nname = "Llama-3-8B-shaped layer forward+backward, {props.name}"\n\n[model]\npreset = "llama3-8b"\n\n'
                f'[hardware]\naccelerator = {toml_str(a.accelerator)}\n\n[training]\nseq_len = {seq}\nmicro_batch = 1\n'
                f'global_batch = 1\nprecision = "bf16"\n')
    training.append(["layer.toml", "layer_time_s", layer_time_ms(seq, repeats) / 1e3, "layer-fwd-bwd", source,
                 "one layer, batch 1, no recompute, random weights, SDPA (FlashAttention) attention"])

    layers = [Layer().cuda().to(torch.bfloat16) for _ in range(LAYERS)]
    prompt, new_tokens = 1024, 128 if not a.quick else 32
    for batch in (1, 8, 32) if a.quick else (1, 4, 16, 64):
        name = f"decode-b{batch}.toml"
        with open(os.path.join(a.out, name), "w") as f:
            f.write(f'schema_version = 1\nname = "Llama-3-8B-shaped generation, batch {batch}, {props.name}"\n\n'
                    f'[model]\npreset = "llama3-8b"\n\n[hardware]\naccelerator = {toml_str(a.accelerator)}\n\n'
                    f'[inference]\ninput_len = {prompt}\noutput_len = {new_tokens}\nbatch = {batch}\n')
        ttft, e2e = generation_ms(layers, batch, prompt, new_tokens, repeats)
        note = "eager PyTorch, one token per step, KV cache by concatenation, random weights"
        inference.append([name, "ttft_s", ttft / 1e3, f"generate-b{batch}-ttft", source, note])
        inference.append([name, "latency_s", e2e / 1e3, f"generate-b{batch}-e2e", source, note])

    # One suite per file: perfcast ingest measurements refuses training and inference rows mixed.
    for file, rows in (("training.csv", training), ("inference.csv", inference)):
        with open(os.path.join(a.out, file), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["scenario", "metric", "value", "id", "source", "notes"])
            w.writerows(rows)
    print(f"wrote {len(cases)} microbenchmark cases and {len(training) + len(inference)} measurements to {a.out}")


if __name__ == "__main__":
    main()
