#!/usr/bin/env python3
"""perfcast GPU measurement kit: measure one NVIDIA GPU with PyTorch and write files perfcast reads.

    python3 perfcast_gpu_bench.py --accelerator h100-sxm --out DIR [--quick] [--only SECTIONS]

sections (--only, comma-separated; all by default) and what they write in DIR
  gemm, memory, attention  microbenchmarks.toml: GEMMs by shape in BF16 and FP8 (torch._scaled_mm),
                           timed as CUDA-graph replays over operands spanning twice the L2; an HBM copy;
                           causal GQA attention forward and backward (scored through F-ATT-1 when SDPA
                           picks cuDNN or FlashAttention-2)
  layer                    training.csv rows (layer_time_s): one Llama-3-8B-shaped layer forward+backward,
                           --layer-variants (bf16, fp8, bf16-compile, fp8-compile) x --layer-seqs
  train                    training.csv rows (tokens_per_s_per_device): optimizer steps of the Llama-3-8B
                           shape cut to --train-layers layers, --train-variants
  graph-decode             inference.csv rows (ttft_s, latency_s): static-batch generation with a
                           preallocated KV cache and one CUDA graph per step, --decode-batches, --prompt
  generate                 inference.csv rows: the same generation in eager PyTorch (torch.cat cache)
  sustained                sustained.csv: SM clock, power and GEMM rate under a 20 s GEMM loop
  duty                     duty.csv: the held GEMM rate, SM clock and power when GEMM bursts alternate with
                           idle gaps at duty cycles 1 to 0.2 (the power-limit clock law of F-EN-4)
  decode-attention         decode-attention.csv: one decode step's SDPA over a KV cache of 256-8192 tokens,
                           batch 1-32, grouped and as GQA (graph-decode's two calls), with SDPA's backend
  eager-issue              eager-issue.csv: one layer's GPU activities, the host's time to issue them, and its
                           GPU time eager and as a CUDA graph (prefill 128 and 2,048 tokens; training 4,096)
  launch                   launch.csv: each kernel's cost beyond its work, eager and in a CUDA graph: chains
                           of in-place adds on tensors of 2 B to 256 MiB (the per-kernel overhead of F-ROOF-1)
and beside the CSVs the scenario of every row. FP8 is torchao's default Float8Linear recipe written
out here (dynamic tensorwise scales), checked against BF16 before it is timed. Then
  perfcast ingest measurements DIR/training.csv -o DIR/training.toml
  perfcast ingest measurements DIR/inference.csv -o DIR/inference.toml
  perfcast validate --cases DIR/microbenchmarks.toml (and the two above)
  perfcast calibrate DIR/microbenchmarks.toml DIR/training.toml DIR/inference.toml --select 0/3 -o DIR/profile.toml

Timing: CUDA events around each call after warm-up; the median of the repeats. Nothing here is
tuned to perfcast: each kernel is PyTorch's default (cuBLAS, SDPA's attention). A section that fails
is reported and the others still run; the exit status is 1 if any failed.
"""
import argparse
import csv
import datetime
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

# Llama 3 8B (scenarios/workloads/llama3-8b.toml): hidden 4096, 32 heads of 128, 8 KV heads,
# SwiGLU 14336, 32 layers, vocabulary 128256.
HIDDEN, HEADS, KV_HEADS, FFN, LAYERS, VOCAB = 4096, 32, 8, 14336, 32, 128256
HEAD_DIM = HIDDEN // HEADS


def time_ms(fn, repeats, warmup=3, graph_calls=0):
    """Median milliseconds of one call of fn. With graph_calls, fn is captured graph_calls times in one
    CUDA graph and a replay's time is divided by graph_calls: the kernels' time without Python's
    dispatch between launches (a 2048-cubed GEMM is shorter than its launch from eager Python)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    run, per_run = fn, 1
    if graph_calls:
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(graph_calls):
                fn()
        graph.replay()
        run, per_run = graph.replay, graph_calls
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / per_run)
    return statistics.median(times)


def toml_str(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2


def to_float8(t, dtype):
    """Dynamic tensorwise scaling, torchao Float8Linear's default recipe: one amax over the tensor, one
    scale, the cast in eager kernels (amax, multiply, clamp, convert)."""
    fmax = torch.finfo(dtype).max
    amax = t.detach().abs().max().float().clamp(min=1e-12)
    scale = fmax / amax
    return (t.float() * scale).clamp(-fmax, fmax).to(dtype), scale.reciprocal()


def column_major(t):
    return t.t().contiguous().t()


class Float8Matmul(torch.autograd.Function):
    """y = x w^T with its three GEMMs in FP8, as torchao's Float8Linear runs them under its default
    tensorwise recipe (torchao.float8 matmul_with_hp_or_float8_args): the BF16 x and w are saved, and
    the backward casts again what each GEMM reads -- the output gradient once per GEMM (e5m2), w and x
    once more (e4m3) -- with the transposed copies torch._scaled_mm's layouts need. BF16 out.
    x: [M, K], w: [N, K]."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        x8, sx = to_float8(x, E4M3)
        w8, sw = to_float8(w, E4M3)
        return torch._scaled_mm(x8, w8.t(), scale_a=sx, scale_b=sw, out_dtype=torch.bfloat16)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        g8, sg = to_float8(grad, E5M2)
        w8, sw = to_float8(w, E4M3)
        dx = torch._scaled_mm(g8, column_major(w8), scale_a=sg, scale_b=sw, out_dtype=torch.bfloat16)
        g8, sg = to_float8(grad, E5M2)
        x8, sx = to_float8(x, E4M3)
        dw = torch._scaled_mm(g8.t().contiguous(), column_major(x8), scale_a=sg, scale_b=sx, out_dtype=torch.float32)
        return dx.to(x.dtype), dw.to(w.dtype)


class Float8Linear(torch.nn.Linear):
    def forward(self, x):
        y = Float8Matmul.apply(x.reshape(-1, x.shape[-1]), self.weight)
        return y.view(*x.shape[:-1], y.shape[-1])


class Layer(torch.nn.Module):
    """One Llama layer: RMSNorm, GQA attention (SDPA, causal), RMSNorm, SwiGLU MLP."""

    def __init__(self, linear=torch.nn.Linear):
        super().__init__()
        self.qkv = linear(HIDDEN, (HEADS + 2 * KV_HEADS) * HEAD_DIM, bias=False)
        self.o = linear(HIDDEN, HIDDEN, bias=False)
        self.gate_up = linear(HIDDEN, 2 * FFN, bias=False)
        self.down = linear(FFN, HIDDEN, bias=False)
        self.n1 = torch.nn.RMSNorm(HIDDEN)
        self.n2 = torch.nn.RMSNorm(HIDDEN)

    def project(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.n1(x)).split([HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM], dim=-1)
        return (q.view(b, s, HEADS, HEAD_DIM).transpose(1, 2), k.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2),
                v.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2))

    def attend(self, x, cache=None):
        b, s, _ = x.shape
        q, k, v = self.project(x)
        if cache is not None:
            k = torch.cat([cache[0], k], dim=2)
            v = torch.cat([cache[1], v], dim=2)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=cache is None, enable_gqa=True)
        return self.o(out.transpose(1, 2).reshape(b, s, HIDDEN)), (k, v)

    def mlp(self, x):
        g, u = self.gate_up(self.n2(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(g) * u)

    def forward(self, x, cache=None):
        a, cache = self.attend(x, cache)
        return self.mlp(x + a), cache


class Model(torch.nn.Module):
    """A Llama-3-8B-shaped decoder with `layers` layers: embedding, layers, final RMSNorm, LM head."""

    def __init__(self, layers, linear=torch.nn.Linear):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, HIDDEN)
        self.layers = torch.nn.ModuleList(Layer(linear) for _ in range(layers))
        self.norm = torch.nn.RMSNorm(HIDDEN)
        self.head = torch.nn.Linear(HIDDEN, VOCAB, bias=False)

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x, _ = layer(x)
        return self.head(self.norm(x))


def float8_supported():
    return hasattr(torch, "_scaled_mm") and torch.cuda.get_device_capability() >= (8, 9)


def gemm_shapes(quick):
    sizes = [1024, 2048, 4096, 8192] if quick else [512, 1024, 2048, 4096, 6144, 8192, 12288, 16384]
    shapes = [(n, n, n) for n in sizes] + [(4096, 14336, 4096), (4096, 4096, 14336), (16, 8192, 8192), (128, 8192, 8192)]
    if quick:
        return shapes
    # One Llama-3-8B layer on 8,192 tokens: QKV, O, gate+up, down and the LM head forward (T, N, K);
    # the backward's input gradients (T, K, N) and weight gradients (N, K, T).
    tokens = 8192
    layer = [(6144, 4096), (4096, 4096), (2 * FFN, 4096), (4096, FFN), (VOCAB, 4096)]
    shapes += [(tokens, n, k) for n, k in layer] + [(tokens, k, n) for n, k in layer] + [(n, k, tokens) for n, k in layer]
    # Decode: a batch of 1 to 256 tokens against the same weights (memory-bound below ~300 rows).
    shapes += [(m, n, k) for m in (1, 8, 32, 64, 256) for n, k in layer[:4]]
    # The O projection's input gradient is its forward's shape: each shape once (case ids are unique).
    return list(dict.fromkeys(shapes))


def gemm_cases(quick, repeats):
    """Each shape's rate: a CUDA graph of up to 50 calls (at least ~2 TFLOP a replay), the calls cycling
    through enough copies of the operands to span twice the L2 cache, so that no call finds its operands
    left in L2 by the one before (a 4096 x 4096 BF16 weight is 32 MiB, under H100's 50 MiB L2)."""
    cases = []
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    for m, n, k in gemm_shapes(quick):
        flop = 2 * m * n * k
        calls = max(1, min(50, int(2e12 // flop)))
        copies = max(1, min(calls, -(-2 * l2 // (2 * (m * k + k * n + m * n)))))
        a = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for _ in range(copies)]
        b = [torch.randn(k, n, device="cuda", dtype=torch.bfloat16) for _ in range(copies)]
        turn = iter(range(1 << 62))
        ms = time_ms(lambda: (lambda i: a[i] @ b[i])(next(turn) % copies), repeats, graph_calls=calls)
        note = f"a CUDA graph of {calls} call(s) over {copies} operand set(s)"
        cases.append(dict(id=f"gemm-bf16-{m}x{n}x{k}", kind="gemm", m=m, n=n, k=k, dtype="bf16", out_dtype="bf16",
                          measured=f"{flop / ms / 1e9:.6g} TFLOP/s", notes=note))
        if not float8_supported():
            continue
        a8 = [x.to(E4M3) for x in a]
        b8 = [column_major(x.to(E4M3)) for x in b]
        one = torch.ones((), device="cuda")
        try:
            ms8 = time_ms(lambda: (lambda i: torch._scaled_mm(a8[i], b8[i], scale_a=one, scale_b=one, out_dtype=torch.bfloat16))(
                next(turn) % copies), repeats, graph_calls=calls)
        except RuntimeError as e:  # cuBLASLt's FP8 wants dimensions in multiples of 16
            print(f"fp8 {m}x{n}x{k} not run: {str(e).splitlines()[0]}")
            continue
        cases.append(dict(id=f"gemm-fp8-{m}x{n}x{k}", kind="gemm", m=m, n=n, k=k, dtype="fp8", out_dtype="bf16",
                          measured=f"{flop / ms8 / 1e9:.6g} TFLOP/s", notes=note + " (FP8 operands half the bytes)"))
        del a, b, a8, b8
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


def sdpa_backend(q, k, v, causal=True, gqa=True):
    """The kernel F.scaled_dot_product_attention picks for these inputs (flash = FlashAttention-2,
    cudnn, efficient, math), as torch's own dispatcher reports it."""
    try:
        choice = int(torch._fused_sdp_choice(q, k, v, None, 0.0, causal, enable_gqa=gqa))
    except (AttributeError, RuntimeError, TypeError) as e:
        return f"unknown ({type(e).__name__})"
    names = {int(v): n for n, v in torch.nn.attention.SDPBackend.__members__.items()}
    return names.get(choice, f"code {choice}")


# SDPA's backends as perfcast's attention kernels (F-ATT-1); the others have no measured efficiency.
SDPA_KERNELS = {"CUDNN_ATTENTION": "cudnn", "FLASH_ATTENTION": "flashattention-2"}


def attention_cases(repeats):
    """Causal GQA attention (Llama 3: 32 query heads, 8 KV heads of 128) on 16,384 tokens, forward and
    backward apart (backward: the forward+backward time less the forward's), each case with the call's
    shape and the kernel SDPA picked, as perfcast scores it (F-ATT-1)."""
    cases = []
    for seq in (2048, 4096, 8192, 16384):
        batch = 16384 // seq
        q = torch.randn(batch, HEADS, seq, HEAD_DIM, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        k = torch.randn(batch, KV_HEADS, seq, HEAD_DIM, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        v = torch.randn_like(k, requires_grad=True)
        grad = torch.randn_like(q)

        def forward():
            return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)

        backend = sdpa_backend(q, k, v)
        fwd = time_ms(forward, repeats)
        both = time_ms(lambda: torch.autograd.grad(forward(), (q, k, v), grad), repeats)
        flop = 4 * batch * seq * seq * HEAD_DIM * HEADS / 2  # causal: half of QK^T and PV
        shape = dict(batch=batch, heads=HEADS, kv_heads=KV_HEADS, seq=seq, head_dim=HEAD_DIM)
        kernel = ({"kernel": SDPA_KERNELS[backend]} if backend in SDPA_KERNELS
                  else {"skip": f"SDPA picked {backend}, a kernel perfcast has no measured efficiency for"})
        cases.append(dict(id=f"attention-gqa-causal-{seq}-fwd", kind="attention", measured=f"{flop / fwd / 1e9:.6g} TFLOP/s",
                          notes=f"batch {batch}, forward {fwd:.4g} ms, SDPA backend {backend}", **kernel, **{"pass": "forward"},
                          **shape, causal=True))
        cases.append(dict(id=f"attention-gqa-causal-{seq}-bwd", kind="attention",
                          measured=f"{2.5 * flop / (both - fwd) / 1e9:.6g} TFLOP/s",
                          notes=f"batch {batch}, backward {both - fwd:.4g} ms at 2.5 times the forward's FLOPs, SDPA backend {backend}",
                          **kernel, **{"pass": "backward"}, **shape, causal=True))
    return cases


def decode_attention_rows(repeats):
    """One decode step's attention over a BF16 KV cache (Llama 3: 8 KV heads of 128, 4 query heads each),
    called two ways: grouped (each KV head's 4 query rows as a query length, no mask: graph-decode's
    `--decode-query grouped`) and as GQA with one query row per head (enable_gqa, its default). Per call: SDPA's backend and the time of
    a CUDA-graph replay of up to 50 calls cycling over copies of the cache that span twice the L2, so each
    call reads its cache from HBM."""
    rows = []
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    for batch in (1, 8, 32):
        for cache in (256, 2048, 8192):
            nbytes = 2 * batch * KV_HEADS * cache * HEAD_DIM * 2  # K and V, BF16
            copies = max(1, min(50, -(-2 * l2 // nbytes)))
            k = [torch.randn(batch, KV_HEADS, cache, HEAD_DIM, device="cuda", dtype=torch.bfloat16) for _ in range(copies)]
            v = [torch.randn_like(x) for x in k]
            for layout in ("grouped", "gqa"):
                if layout == "grouped":
                    q = torch.randn(batch, KV_HEADS, HEADS // KV_HEADS, HEAD_DIM, device="cuda", dtype=torch.bfloat16)
                    gqa = False
                else:
                    q = torch.randn(batch, HEADS, 1, HEAD_DIM, device="cuda", dtype=torch.bfloat16)
                    gqa = True
                backend = sdpa_backend(q, k[0], v[0], causal=False, gqa=gqa)
                turn = iter(range(1 << 62))
                ms = time_ms(lambda: (lambda i: F.scaled_dot_product_attention(q, k[i], v[i], enable_gqa=gqa))(
                    next(turn) % copies), repeats, graph_calls=50)
                rows.append(f"{layout},{batch},{cache},{backend},{ms * 1e3:.2f},{nbytes},{nbytes / ms / 1e9:.3f}")
                print(f"decode attention {layout} batch {batch} cache {cache}: {backend}, {ms * 1e3:.2f} us, "
                      f"{nbytes / ms / 1e9:.3f} TB/s over its cache")
            del k, v
    return rows


def eager_issue_rows(repeats, forwards=20):
    """The host's share of an eager layer: for one Llama-3-8B-shaped layer (the layer section's module) on
    one sequence, the GPU activities one call launches (torch.profiler), the host's time to issue one call
    while a spin kernel keeps the GPU busy (so the issue never waits for it), and the call's GPU time eager
    and replayed as one CUDA graph. Forward without gradients (a prefill) at 128 and 2,048 tokens; forward
    and backward at 4,096 (a training micro-batch, no graph)."""
    from torch.profiler import ProfilerActivity, profile
    rows = []
    layer = Layer().cuda().to(torch.bfloat16)
    spin = 2 * 10**8  # cycles, about 0.1 s at 1,980 MHz: longer than issuing `forwards` calls

    def gpu_activities(fn):
        fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        return sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)

    def host_us(fn, calls):
        times = []
        for _ in range(5):
            torch.cuda.synchronize()
            torch.cuda._sleep(spin)
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            times.append((time.perf_counter() - t0) / calls * 1e6)
            torch.cuda.synchronize()
        return statistics.median(times)

    for tokens, backward in ((128, False), (2048, False), (4096, True)):
        x = torch.randn(1, tokens, HIDDEN, device="cuda", dtype=torch.bfloat16, requires_grad=backward)
        if backward:
            grad = torch.randn_like(x)
            fn = lambda: torch.autograd.backward(layer(x)[0], grad)  # noqa: E731
        else:
            def fn():
                with torch.no_grad():
                    return layer(x)
        kernels = gpu_activities(fn)
        # Calls whose launches fit the launch queue (about 1,024 entries): a full queue makes the host wait.
        host = host_us(fn, max(1, min(forwards, 512 // kernels)))
        eager = time_ms(fn, repeats) * 1e3
        graph = "" if backward else f"{time_ms(fn, repeats, graph_calls=1) * 1e3:.1f}"
        rows.append(f"{'forward+backward' if backward else 'forward'},{tokens},{kernels},{host:.1f},{host / kernels:.2f},{eager:.1f},{graph}")
        print(f"eager issue {rows[-1]}")
        layer.zero_grad(set_to_none=True)
    return rows


def layer_time_ms(seq, repeats, linear=torch.nn.Linear, compile=False):
    layer = Layer(linear).cuda().to(torch.bfloat16)
    if compile:
        layer.compile()
    x = torch.randn(1, seq, HIDDEN, device="cuda", dtype=torch.bfloat16, requires_grad=True)

    def step():
        y, _ = layer(x)
        y.sum().backward()

    return time_ms(step, repeats)


def variant(tag):
    """'bf16', 'fp8', 'bf16-compile', 'fp8-compile' -> (precision, linear class, compiled)."""
    precision, _, compiled = tag.partition("-")
    if precision not in ("bf16", "fp8") or compiled not in ("", "compile"):
        raise ValueError(f"unknown variant {tag!r}: bf16 or fp8, optionally with -compile")
    return precision, Float8Linear if precision == "fp8" else torch.nn.Linear, compiled == "compile"


def runnable_variants(tags):
    """(tag, precision, linear class, compiled) for each comma-separated tag this GPU can run:
    FP8 needs torch._scaled_mm on sm89 or later."""
    for tag in tags.split(","):
        precision, linear, compiled = variant(tag)
        if precision != "fp8" or float8_supported():
            yield tag, precision, linear, compiled


def train_step_ms(layers, seq, repeats, linear=torch.nn.Linear, compile=False):
    """One optimizer step of a Llama-3-8B-shaped model cut to `layers` layers: FP32 parameters, BF16
    autocast, cross-entropy in FP32 over the whole vocabulary, fused AdamW; with compile, each layer and
    the loss compiled apart, as torchtitan does."""
    torch.cuda.reset_peak_memory_stats()
    model = Model(layers, linear).cuda()
    if compile:
        for layer in model.layers:
            layer.compile()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
    tokens = torch.randint(0, VOCAB, (1, seq + 1), device="cuda")

    def loss_fn(logits, labels):
        return F.cross_entropy(logits.float().view(-1, VOCAB), labels.reshape(-1))

    if compile:  # torchtitan compiles the loss with the blocks (CompileConfig components "model", "loss")
        loss_fn = torch.compile(loss_fn)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens[:, :-1])
        loss = loss_fn(logits, tokens[:, 1:])
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    ms = time_ms(step, repeats, warmup=3)
    peak = torch.cuda.max_memory_allocated() / 2**30
    del model, opt
    return ms, peak


class StaticDecoder:
    """Generation as serving engines run it: a preallocated KV cache and one CUDA graph per decode step
    (no Python between kernels). Prompts are prefilled in chunks of sequences; each step appends one
    token per sequence."""

    def __init__(self, layers, embed, norm, head, batch, prompt, new_tokens, chunk=16, grouped=False):
        self.layers, self.embed, self.norm, self.head, self.grouped = layers, embed, norm, head, grouped
        self.batch, self.prompt, self.chunk = batch, prompt, chunk
        length = prompt + new_tokens
        shape = (batch, KV_HEADS, length, HEAD_DIM)
        self.k = [torch.empty(shape, device="cuda", dtype=torch.bfloat16) for _ in layers]
        self.v = [torch.empty(shape, device="cuda", dtype=torch.bfloat16) for _ in layers]
        self.tokens = torch.randint(0, VOCAB, (batch, prompt), device="cuda")
        self.next = torch.zeros(batch, 1, device="cuda", dtype=torch.long)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            self.prefill()
            self.step(prompt)
        torch.cuda.current_stream().wait_stream(side)
        self.graphs, pool = [], None
        for t in range(new_tokens - 1):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g, pool=pool):
                self.step(prompt + t)
            pool = g.pool()
            self.graphs.append(g)

    def prefill(self):
        for b0 in range(0, self.batch, self.chunk):
            b1 = min(self.batch, b0 + self.chunk)
            x = self.embed(self.tokens[b0:b1])
            for i, layer in enumerate(self.layers):
                a, (k, v) = layer.attend(x)
                self.k[i][b0:b1, :, :self.prompt].copy_(k)
                self.v[i][b0:b1, :, :self.prompt].copy_(v)
                x = layer.mlp(x + a)
            self.next[b0:b1] = self.head(self.norm(x[:, -1:])).argmax(-1)

    def step(self, pos):
        x = self.embed(self.next)
        b = self.batch
        for i, layer in enumerate(self.layers):
            q, k, v = layer.project(x)
            self.k[i][:, :, pos] = k[:, :, 0]
            self.v[i][:, :, pos] = v[:, :, 0]
            keys, values = self.k[i][:, :, :pos + 1], self.v[i][:, :, :pos + 1]
            if self.grouped:  # the query heads that share a KV head as a query length (runs before 2026-11-29)
                out = F.scaled_dot_product_attention(q.reshape(b, KV_HEADS, HEADS // KV_HEADS, HEAD_DIM), keys, values)
                out = out.reshape(b, 1, HIDDEN)
            else:  # one query row per head: 4x to 6x faster at batch 1 over 2,048-8,192 cached tokens (decode-attention)
                out = F.scaled_dot_product_attention(q, keys, values, enable_gqa=True).transpose(1, 2).reshape(b, 1, HIDDEN)
            x = layer.mlp(x + layer.o(out))
        self.next.copy_(self.head(self.norm(x)).argmax(-1))

    def generate(self):
        self.prefill()
        for g in self.graphs:
            g.replay()


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


def launch_rows(repeats, kernels=1000):
    """What a kernel costs beyond its own work (the per-kernel overhead of F-ROOF-1): chains of
    `kernels` in-place adds on one BF16 tensor of each size, launched one by one from eager Python and
    replayed as one CUDA graph. Per kernel: the chain's GPU time (CUDA events) both ways, and the
    host's time to issue one eager add (time.perf_counter around the issuing alone). A tensor of
    bytes_each <= L2 stays in L2 between adds; larger ones stream from HBM."""
    rows = []
    for nbytes in (2, 4096, 65536, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20):
        n = kernels if nbytes <= 16 << 20 else kernels // 10
        x = torch.zeros(nbytes // 2, device="cuda", dtype=torch.bfloat16)

        def chain():
            for _ in range(n):
                x.add_(1.0)  # BF16 stops growing at 256 (256 + 1 rounds to 256): never inf or NaN

        eager = time_ms(chain, repeats) / n
        graph = time_ms(chain, repeats, graph_calls=1) / n
        issue = []
        for _ in range(repeats):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            chain()
            issue.append((time.perf_counter() - t0) / n)
        torch.cuda.synchronize()
        host = statistics.median(issue) * 1e3
        rows.append(f"{nbytes},{n},{eager * 1e3:.3f},{graph * 1e3:.3f},{host * 1e3:.3f}")
        print(f"launch {nbytes} B x {n}: eager {eager * 1e3:.2f} us, graph {graph * 1e3:.2f} us, host issue {host * 1e3:.2f} us per kernel")
        del x
    return rows


def square_product(dtype, n=8192):
    """One n-cubed product in BF16, or in FP8 through torch._scaled_mm with unit scales."""
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    if dtype == "fp8":
        a8, b8, one = a.to(E4M3), column_major(b.to(E4M3)), torch.ones((), device="cuda")
        return lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    return lambda: a @ b


def smi_logger(period_ms):
    """nvidia-smi's clocks, power, temperature and throttle reasons every period_ms, until terminated."""
    return subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,"
                             "clocks_throttle_reasons.active", "--format=csv,noheader", "-lms", str(period_ms)],
                            stdout=subprocess.PIPE, text=True)


def sustained_rows(seconds, dtype):
    """nvidia-smi's SM clock, power and throttle reasons every 250 ms under a loop of 8192-cubed GEMMs,
    beside the GEMM rate of each 50-product window. Reads the card's settings; changes none."""
    smi = smi_logger(250)
    n = 8192
    product = square_product(dtype, n)
    rates, end_at = [], time.time() + seconds
    while time.time() < end_at:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(50):
            product()
        end.record()
        torch.cuda.synchronize()
        rates.append(f"{time.time():.3f},{dtype},{50 * 2 * n**3 / start.elapsed_time(end) / 1e9:.1f}")
    smi.terminate()
    samples = smi.communicate()[0].strip().splitlines()
    median = sorted(float(r.split(",")[2]) for r in rates)[len(rates) // 2]
    print(f"sustained {dtype}: {len(rates)} windows, median {median:.0f} TFLOP/s")
    return [f"smi,{dtype},{s}" for s in samples] + [f"gemm,{r}" for r in rates]


# Duty patterns: (GEMMs per burst, the share of time the bursts are to take). Bursts of 4 products
# (about 6 ms) repeat far inside the power governor's window, so it sees their mean power; bursts
# of 32 (about 50 ms) test that window.
DUTY_PATTERNS = [(4, d) for d in (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2)] + [(32, 0.8), (32, 0.6)]


def duty_rows(dtype, seconds_each, settle_s=2.0):
    """The held GEMM rate when bursts of 8192-cubed products alternate with idle gaps (a one-thread
    spin kernel, torch.cuda._sleep) at each of DUTY_PATTERNS, every pattern held seconds_each and
    measured after settle_s, with nvidia-smi every 100 ms. At the power limit the board holds
    P_idle + d * c * f^alpha = P_limit, so the rate (proportional to the SM clock) at two throttled
    duties d gives alpha, the exponent of F-EN-4. Reads the card's settings; changes none."""
    n = 8192
    product = square_product(dtype, n)
    flop = 2 * n**3

    def timed(fn):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end)

    time.sleep(3)  # idle: the burst rate is the first products' from boost clocks
    burst = max(flop / timed(product) / 1e9 for _ in range(10))
    spin_ms = timed(lambda: torch.cuda._sleep(10**7))
    cycles_per_ms = 10**7 / spin_ms
    product_ms = timed(lambda: [product() for _ in range(50)]) / 50
    rows = [f"meta,{dtype},burst TFLOP/s {burst:.1f},spin cycles per ms {cycles_per_ms:.0f},product ms {product_ms:.3f}"]
    smi = smi_logger(100)
    summary = []
    for per_burst, duty in DUTY_PATTERNS:
        gap_cycles = int(per_burst * product_ms * (1 - duty) / duty * cycles_per_ms)
        periods = max(1, int(100 / (per_burst * product_ms / duty)))  # about 100 ms of pattern per window
        began, pending, kept = time.time(), None, []
        rows.append(f"pattern,{dtype},{per_burst},{duty},{datetime.datetime.now().strftime('%Y/%m/%d %H:%M:%S.%f')[:-3]}")
        while True:
            marks = []
            for _ in range(periods):
                on, off = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                on.record()
                for _ in range(per_burst):
                    product()
                off.record()
                if gap_cycles:
                    torch.cuda._sleep(gap_cycles)
                marks.append((on, off))
            last = torch.cuda.Event(enable_timing=True)
            last.record()
            if pending is not None:
                window_marks, window_last, at = pending
                window_last.synchronize()
                busy = sum(a.elapsed_time(b) for a, b in window_marks)
                total = window_marks[0][0].elapsed_time(window_last)
                rate = len(window_marks) * per_burst * flop / busy / 1e9
                rows.append(f"window,{dtype},{per_burst},{duty},{at - began:.3f},{busy / total:.4f},{rate:.1f}")
                if at - began >= settle_s:
                    kept.append((busy / total, rate))
            pending = (marks, last, time.time())
            if time.time() - began > seconds_each:
                break
        torch.cuda.synchronize()
        if kept:
            d = statistics.median(k[0] for k in kept)
            r = statistics.median(k[1] for k in kept)
            summary.append((per_burst, d, r))
            print(f"duty {dtype}: bursts of {per_burst}, duty {d:.3f}: {r:.1f} TFLOP/s ({r / burst:.3f} of burst {burst:.1f})")
    smi.terminate()
    samples = smi.communicate()[0].strip().splitlines()
    throttled = [(d, r) for per, d, r in summary if per == DUTY_PATTERNS[0][0] and r < 0.97 * burst]
    if len(throttled) >= 2:
        import math
        xs, ys = [math.log(r) for d, r in throttled], [math.log(d) for d, r in throttled]
        mx, my = statistics.mean(xs), statistics.mean(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        print(f"duty {dtype}: d * f^alpha held constant over {len(throttled)} throttled duties: alpha = {-slope:.2f}")
    return rows + [f"smi,{dtype},{s}" for s in samples]


def gpu_facts():
    """Driver, power limit and clocks as nvidia-smi reports them (empty where it is missing)."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,power.limit,clocks.max.sm,clocks.max.memory",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=30).stdout.strip()
        driver, power, sm, mem = [f.strip() for f in out.splitlines()[0].split(",")]
        return f", driver {driver}, power limit {power}, max clocks SM {sm} / memory {mem}"
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return ""


class RowFile(list):
    """Measurements of one suite, each written to its CSV as it is measured: a run stopped midway (a
    timeout, a lost machine) keeps every row it finished. One suite per file: perfcast ingest
    measurements refuses training and inference rows mixed."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    def append(self, row):
        with open(self.path, "w" if not self else "a", newline="") as f:
            w = csv.writer(f)
            if not self:
                w.writerow(["scenario", "metric", "value", "id", "source", "notes"])
            w.writerow(row)
        super().append(row)


SECTIONS = ("gemm", "memory", "attention", "layer", "train", "graph-decode", "generate", "sustained", "duty", "launch",
            "decode-attention", "eager-issue")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--accelerator", required=True, help="perfcast's name for this GPU (perfcast hw list), e.g. h100-sxm")
    p.add_argument("--out", default=".")
    p.add_argument("--quick", action="store_true", help="fewer sizes and repeats")
    p.add_argument("--only", default=",".join(SECTIONS), help=f"comma-separated sections of {', '.join(SECTIONS)}")
    p.add_argument("--train-layers", type=int, default=8, help="layers of the model the train section steps")
    p.add_argument("--train-variants", default="bf16,fp8,bf16-compile,fp8-compile", help="train section: precisions, -compile")
    p.add_argument("--layer-variants", default="bf16,fp8", help="layer section: precisions, -compile")
    p.add_argument("--layer-seqs", default="4096", help="layer section: tokens of the one sequence")
    p.add_argument("--decode-batches", default="1,8,32,128", help="graph-decode section: batch sizes")
    p.add_argument("--prompt", type=int, default=1024, help="graph-decode and generate sections: prompt tokens")
    p.add_argument("--decode-query", choices=("gqa", "grouped"), default="gqa",
                   help="graph-decode section: SDPA's query per step, one row per head (gqa) or each KV head's query "
                        "heads as a query length (grouped, the kit's call before 2026-11-29)")
    a = p.parse_args()
    only = a.only.split(",")
    unknown = sorted(set(only) - set(SECTIONS))
    if unknown:
        p.error(f"--only: unknown section(s) {', '.join(unknown)}")
    os.makedirs(a.out, exist_ok=True)
    repeats = 10 if a.quick else 30
    props = torch.cuda.get_device_properties(0)
    date = datetime.date.today().isoformat()
    source = (f"perfcast_gpu_bench.py, {date}, {props.name}, torch {torch.__version__}, CUDA {torch.version.cuda}, "
              f"cuDNN {torch.backends.cudnn.version()}{gpu_facts()}")
    hardware = f'[hardware]\naccelerator = {toml_str(a.accelerator)}\n'
    training = RowFile(os.path.join(a.out, "training.csv"))
    inference = RowFile(os.path.join(a.out, "inference.csv"))
    failed = []

    def section(name, fn):
        """Runs one section; a failure is printed and kept, and the next section still runs."""
        if name not in only:
            return []
        try:
            return fn() or []
        except Exception as e:  # noqa: BLE001 -- a broken section must not lose the others' measurements
            failed.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            print(f"section {name} failed: {failed[-1]}")
            return []
        finally:
            torch.cuda.empty_cache()

    def write_scenario(name, title, table):
        with open(os.path.join(a.out, name), "w") as f:
            f.write(f'schema_version = 1\nname = {toml_str(title + ", " + props.name)}\n\n[model]\npreset = "llama3-8b"\n'
                    f'{table}')

    cases = []
    cases += section("gemm", lambda: gemm_cases(a.quick, repeats))
    cases += section("memory", lambda: memory_cases(a.quick, repeats))
    cases += section("attention", lambda: attention_cases(repeats))
    if cases:
        with open(os.path.join(a.out, "microbenchmarks.toml"), "w") as f:
            f.write(f"# Measured by perfcast_gpu_bench.py on {date}; median of {repeats} CUDA-event-timed calls "
                    "(GEMMs: replays of a CUDA graph of up to 50 calls, per call).\n")
            f.write('schema_version = 1\nsuite = "microbenchmark"\n')
            for c in cases:
                f.write(f"\n[[case]]\nsource = {toml_str(source)}\ndevice = {toml_str(props.name)}\n"
                        f"accelerator = {toml_str(a.accelerator)}\ntolerance = 0.15\n")
                for key, value in c.items():
                    text = str(value).lower() if isinstance(value, bool) else value if isinstance(value, int) else toml_str(value)
                    f.write(f"{key} = {text}\n")

    seq = 4096
    # Today's torchtitan modules (nn.RMSNorm, SDPA with enable_gqa); compile as its CompileConfig does.
    stack = 'stack = "torchtitan"\n'

    def training_table(seq_len, precision, compiled):
        recipe = 'fp8_recipe = "current"\n' if precision == "fp8" else ""
        return (f'\n{hardware}\n[training]\nseq_len = {seq_len}\nmicro_batch = 1\nglobal_batch = 1\n'
                f'precision = "{precision}"\n{recipe}{stack}compile = {str(compiled).lower()}\n')

    def float8_error():
        """Relative error of the FP8 product and its two gradients against BF16: a check that the
        hand-written recipe computes the same function (FP8 lands near 5e-2, never NaN)."""
        x = torch.randn(4096, HIDDEN, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        w = torch.randn(FFN, HIDDEN, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        g = torch.randn(4096, FFN, device="cuda", dtype=torch.bfloat16)
        ref = torch.autograd.grad(x @ w.t(), (x, w), g)
        y = Float8Matmul.apply(x, w)
        got = torch.autograd.grad(y, (x, w), g)
        rel = lambda a, b: ((a.float() - b.float()).norm() / b.float().norm()).item()  # noqa: E731
        errors = [rel(y, x @ w.t()), rel(got[0], ref[0]), rel(got[1], ref[1])]
        print("float8 relative error: output {:.3g}, input gradient {:.3g}, weight gradient {:.3g}".format(*errors))
        if not all(e < 0.2 for e in errors):
            raise RuntimeError(f"the FP8 recipe is wrong: relative errors {errors}")

    def layers():
        if float8_supported():
            float8_error()
        for seq_len in [int(x) for x in a.layer_seqs.split(",")]:
            for tag, precision, linear, compiled in runnable_variants(a.layer_variants):
                name = f"layer-{tag}-s{seq_len}.toml"
                write_scenario(name, f"Llama-3-8B-shaped layer forward+backward on {seq_len} tokens in {tag}",
                               training_table(seq_len, precision, compiled))
                note = (f"one layer, batch 1, no recompute, random BF16 weights, SDPA attention, "
                        f"{'torch.compile of the layer' if compiled else 'eager PyTorch'}")
                if precision == "fp8":
                    note += ("; QKV, O, gate+up and down GEMMs in FP8 with dynamic tensorwise scales "
                             "(torchao's default recipe, written out)")
                training.append([name, "layer_time_s", layer_time_ms(seq_len, repeats, linear, compiled) / 1e3,
                                 f"layer-{tag}-s{seq_len}", source, note])
                torch.cuda.empty_cache()

    def train():
        for tag, precision, linear, compiled in runnable_variants(a.train_variants):
            name = f"train-{a.train_layers}l-{tag}.toml"
            write_scenario(name, f"Llama-3-8B-shaped model of {a.train_layers} layers, one training step in {tag}",
                           f'layers = {a.train_layers}\n' + training_table(seq, precision, compiled))
            ms, peak = train_step_ms(a.train_layers, seq, max(5, repeats // 3), linear, compiled)
            note = (f"one GPU, batch 1 x {seq} tokens, FP32 parameters with BF16 autocast, fused AdamW, no recompute, "
                    f"random data; peak allocated {peak:.1f} GiB; {'torch.compile of each layer and of the loss' if compiled else 'eager'}")
            if precision == "fp8":
                note += "; layer GEMMs in FP8 tensorwise (torchao's default recipe, written out), LM head in BF16"
            training.append([name, "tokens_per_s_per_device", seq / (ms / 1e3), f"train-{a.train_layers}l-{tag}", source, note])
            torch.cuda.empty_cache()

    section("layer", layers)
    section("train", train)

    prompt, new_tokens = a.prompt, 128 if not a.quick else 32
    tail = "" if prompt == 1024 else f"-p{prompt}"  # names and ids as before at the default prompt

    def decode_scenario(name, batch, what):
        write_scenario(name, f"Llama-3-8B-shaped generation, batch {batch}, {what}",
                       f'\n{hardware}\n[inference]\ninput_len = {prompt}\noutput_len = {new_tokens}\nbatch = {batch}\n')

    def graph_decode():
        model = Model(LAYERS).cuda().to(torch.bfloat16)
        with torch.no_grad():
            for batch in [int(x) for x in a.decode_batches.split(",")]:
                name = f"graph-decode-b{batch}{tail}.toml"
                decode_scenario(name, batch, "static KV cache, CUDA graphs")
                d = StaticDecoder(model.layers, model.embed, model.norm, model.head, batch, prompt, new_tokens,
                                  grouped=a.decode_query == "grouped")
                ttft, e2e = time_ms(d.prefill, 3, warmup=1), time_ms(d.generate, 3, warmup=1)
                note = ("PyTorch, preallocated KV cache, one CUDA graph per decode step, SDPA attention "
                        f"({'grouped query' if d.grouped else 'one query row per head, enable_gqa'}), prompts prefilled "
                        f"{d.chunk} sequences at a time, random weights")
                inference.append([name, "ttft_s", ttft / 1e3, f"graph-decode-b{batch}{tail}-ttft", source, note])
                inference.append([name, "latency_s", e2e / 1e3, f"graph-decode-b{batch}{tail}-e2e", source, note])
                try:  # the same prefill without Python between its kernels: how much of the TTFT is the host's
                    print(f"graph-decode batch {batch} prompt {prompt}: prefill {ttft:.3f} ms eager, "
                          f"{time_ms(d.prefill, 3, warmup=1, graph_calls=1):.3f} ms as one CUDA graph")
                except RuntimeError as e:
                    print(f"graph-decode batch {batch}: prefill not captured: {str(e).splitlines()[0] if str(e) else e}")
                del d
                torch.cuda.empty_cache()

    def eager_generate():
        layers = [Layer().cuda().to(torch.bfloat16) for _ in range(LAYERS)]
        for batch in (1, 8, 32) if a.quick else (1, 4, 16, 64):
            name = f"decode-b{batch}{tail}.toml"
            decode_scenario(name, batch, "eager")
            ttft, e2e = generation_ms(layers, batch, prompt, new_tokens, repeats)
            note = "eager PyTorch, one token per step, KV cache by concatenation, random weights"
            inference.append([name, "ttft_s", ttft / 1e3, f"generate-b{batch}{tail}-ttft", source, note])
            inference.append([name, "latency_s", e2e / 1e3, f"generate-b{batch}{tail}-e2e", source, note])

    section("graph-decode", graph_decode)
    section("generate", eager_generate)

    def write_rows(name, header, rows):
        """A section's rows as DIR/name, under the run's source line and the columns' header; no file for a section with no rows."""
        if rows:
            with open(os.path.join(a.out, name), "w") as f:
                f.write(f"# {source}\n# {header}\n" + "\n".join(rows) + "\n")

    write_rows("sustained.csv", "smi,dtype,timestamp,SM clock,memory clock,power,temperature,throttle reasons | "
               "gemm,wall time,dtype,TFLOP/s of 50 8192-cubed products",
               section("sustained", lambda: sustained_rows(20, "bf16") + (sustained_rows(20, "fp8") if float8_supported() else [])))
    write_rows("duty.csv", "meta,dtype,... | pattern,dtype,products per burst,target duty,start (local) | "
               "window,dtype,products per burst,target duty,seconds into the pattern,measured duty,TFLOP/s while busy"
               " | smi,dtype,timestamp,SM clock,memory clock,power,temperature,throttle reasons",
               section("duty", lambda: duty_rows("bf16", 6) + (duty_rows("fp8", 6) if float8_supported() else [])))
    write_rows("eager-issue.csv", "pass,tokens,GPU activities per call,host us to issue one call,host us per activity,"
               "eager GPU us per call,CUDA-graph GPU us per call", section("eager-issue", lambda: eager_issue_rows(repeats)))
    write_rows("decode-attention.csv", "query layout,batch,cached tokens,SDPA backend,us per call,cache bytes read,TB/s",
               section("decode-attention", lambda: decode_attention_rows(repeats)))
    write_rows("launch.csv", "bytes of the tensor each add reads and writes,kernels in the chain,eager GPU us per kernel,"
               "CUDA-graph GPU us per kernel,host us to issue one eager add", section("launch", lambda: launch_rows(repeats)))

    print(f"wrote {len(cases)} microbenchmark cases and {len(training) + len(inference)} measurements to {a.out}")
    for line in failed:
        print(f"FAILED {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
