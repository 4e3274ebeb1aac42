#!/usr/bin/env python3
"""Writes validation/training.toml from ../shared/validation/training_cases.json.

Each published run becomes a perfcast scenario plus the figure the source reports, compared in
that source's own convention. Everything the source does not state and the scenario needs is
named in the case's notes as an assumption. Cases whose layout or architecture is not published
(or that need what perfcast does not model yet) are kept with a skip reason, never guessed.
Run from the repository root: python3 validation/import/training_cases.py > validation/training.toml
"""
import json
import sys

from case_toml import emit as emit_case

# The training stack each source ran (models/training_stack.hpp; perfcast stacks).
STACKS = (("narayanan2021-t2-zero3", "deepspeed-2021"), ("narayanan2021", "megatron-lm-2021"), ("korthikanti2022", "megatron-lm-2022"),
          ("bloom", "deepspeed"), ("nemo2407", "nemo"),
          # Meta's own FSDP + TP + PP stack is not public; torchtitan (compiled: fused elementwise ops
          # assumed) is the modelled stack closest to it.
          ("llama3-405b", "torchtitan"))


def emit(c, metric, measured, sc, notes, **kw):
    stack = next((st for prefix, st in STACKS if c["id"].startswith(prefix)), None)
    if sc and stack:
        sc["training"]["stack"] = stack
        if stack == "torchtitan":
            sc["training"]["compile"] = True
        # NeMo 24.07 builds Transformer Engine's DelayedScaling recipe (NVIDIA/NeMo @ 070a0bb,
        # nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py); the nemo stack's
        # default is Megatron-Bridge's current scaling.
        if c["id"].startswith("nemo2407") and sc["training"].get("precision") == "fp8":
            sc["training"]["fp8_recipe"] = "delayed"
    emit_case(c, metric, measured, sc, notes, **kw)

cases = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "../shared/validation/training_cases.json"))

NAR_T2_PTD = {"174p6b": (8, 12), "529p6b": (8, 35)}  # tp x pp = 96 / 280 with tp = 8 (the paper's node size)
NEMO_PRESETS = {"LLAMA2-7B": "llama2-7b", "LLAMA2-13B": "llama2-13b", "LLAMA2-70B": "llama2-70b",
                "LLAMA3-8B": "llama3-8b", "LLAMA3-70B": "llama3-70b", "GPT3-175B": "gpt3-175b"}


def gpt_model(m, case_id):
    # GPT-3-style Megatron model of Narayanan/Korthikanti: the gpt3-175b preset's layer kind with this size
    # (dropout 0.1 included: Megatron-LM's --attention-dropout / --hidden-dropout defaults, which those
    # runs kept). A size other than the preset's is named after the paper's table.
    h, a = m["hidden"], m["heads"]
    model = {"preset": "gpt3-175b", "layers": m["layers"], "hidden": h, "heads": a, "kv_heads": a,
             "head_dim": h // a, "ffn_hidden": m["ffn_hidden"] or 4 * h, "vocab": m["vocab"] or 51200}
    if (m["layers"], h) != (96, 12288):
        model = {"preset": "gpt3-175b", "display_name": f"Megatron GPT {model_size(case_id)} ({table_of(case_id)})", **model}
    return model


def model_size(case_id):
    # "1p7b" -> "1.7B"; "1008p0b" and "1t" -> "1T"
    token = next(t for t in case_id.split("-")[1:] if t[0].isdigit() and t[-1] in "bt")
    if token in ("1008p0b", "1t"):
        return "1T"
    return token.replace("p", ".").upper()


def table_of(case_id):
    if case_id.startswith("narayanan2021-t1"):
        return "Narayanan et al. 2021, Table 1"
    if case_id.startswith("narayanan2021-t2"):
        return "Narayanan et al. 2021, Table 2"
    return "Korthikanti et al. 2022, Table 3"


def a100_nodes(count):
    return {"system": "dgx-a100-80gb", "nodes": count // 8}


print("""# Training cases: published step times and throughputs as perfcast scenarios, imported by
# validation/import/training_cases.py from ../shared/validation/training_cases.json (citations kept).
# Each case names the metric compared, in the source's own convention:
#   narayanan_tflops_per_device  Narayanan et al. 2021 Eq. 3 (full recompute counted, full s x s attention)
#   step_time_s                  an iteration time
#   tokens_per_s_per_device      tokens per second per GPU
#   layer_time_s                 one transformer layer's forward + backward (+ recompute), one micro-batch
# Tolerance 15 % on end-to-end figures and 20 % on single-layer times: the model is uncalibrated and
# the sources' runs include effects it does not model (see each case's notes); a case outside its
# band makes `perfcast validate` exit non-zero.
# 2021-2022 Megatron-LM runs used a fused softmax over materialised scores (no FlashAttention):
# those scenarios say [attention] kernel = "materialised".
schema_version = 1
suite = "training"
""")

for c in cases:
    if c["kind"] != "training_throughput":
        continue
    i, m, p, b, meas = c["id"], c["model"], c["parallelism"], c["batch"], c["measured"]
    n = c["hardware"]["count"]
    if i.startswith("narayanan2021-t1"):
        sc = {"model": gpt_model(m, i), "hardware": a100_nodes(n),
              "training": {"seq_len": 2048, "global_batch": b["global_batch"], "micro_batch": 1, "precision": "fp16", "recompute": "full"},
              "parallelism": {"tp": p["tp"], "pp": p["pp"]}, "attention": {"kernel": "materialised"}}
        emit(c, "narayanan_tflops_per_device", meas["tflops_per_gpu"], sc,
             "Table 1 (weak scaling). Assumed where the paper is silent: micro-batch 1 and the plain 1F1B schedule "
             "(Table 1 does not give the micro-batch or the interleaving degree; interleaving would shrink the bubble). "
             + c["notes"][:300])
    elif i.startswith("narayanan2021-t2-zero3"):
        sc = {"model": gpt_model(m, i), "hardware": a100_nodes(n),
              "training": {"seq_len": 2048, "global_batch": b["global_batch"], "micro_batch": b["micro_batch"], "precision": "fp16",
                           "recompute": "full"},
              "parallelism": {"zero": 3}, "attention": {"kernel": "materialised"}}
        emit(c, "narayanan_tflops_per_device", meas["tflops_per_gpu"], sc, "Table 2, ZeRO-3 (DeepSpeed) without model parallelism. " + c["notes"][:300])
    elif i.startswith("narayanan2021-t2-ptd"):
        tp, pp = NAR_T2_PTD[i.split("-")[3]]
        sc = {"model": gpt_model(m, i), "hardware": a100_nodes(n),
              "training": {"seq_len": 2048, "global_batch": b["global_batch"], "micro_batch": 1, "precision": "fp16", "recompute": "full"},
              "parallelism": {"tp": tp, "pp": pp}, "attention": {"kernel": "materialised"}}
        emit(c, "narayanan_tflops_per_device", meas["tflops_per_gpu"], sc,
             f"Table 2, PTD-P. Assumed: tp {tp} x pp {pp} (Table 2 gives only tp x pp; tp = 8 as in every other PTD-P run), plain 1F1B. "
             + c["notes"][:300])
    elif i.startswith("korthikanti2022"):
        selective = p["recompute"] == "selective"
        tr = {"seq_len": 2048, "global_batch": b["global_batch"], "micro_batch": b["micro_batch"], "precision": "fp16",
              "recompute": p["recompute"]}
        par = {"tp": p["tp"], "pp": p["pp"], "sequence_parallel": bool(p["sp"])}
        if p.get("vp"):
            par["vp"] = p["vp"]
        if p.get("dp") and p["dp"] > 1:
            par["dp"] = p["dp"]
        sc = {"model": gpt_model(m, i), "hardware": a100_nodes(n), "training": tr, "parallelism": par, "attention": {"kernel": "materialised"}}
        note = "Assumed: fp16 (the paper says mixed precision, 16-bit). " + c["notes"][:400]
        if "t4" in i:
            emit(c, "layer_time_s", meas["layer_combined_ms"] / 1000, sc, "Table 4: one layer's forward + backward. " + note, tolerance=0.2)
        else:
            emit(c, "step_time_s", meas["iteration_time_s"], sc, note)
    elif i.startswith("nemo2407"):
        name = m["name"]
        preset = NEMO_PRESETS.get(name)
        lora = "lora" in i
        skip = None
        if lora:
            skip = "LoRA fine-tuning (frozen base weights, adapter gradients only) is not modelled"
        elif not preset:
            skip = f"{name}: architecture not given by the source and not verified here"
        tp = p["tp"] or 1
        sc = None
        if preset:
            par = {"tp": tp, "pp": p["pp"] or 1, "cp": p["cp"] or 1, "sequence_parallel": tp > 1, "zero": 1}
            if p.get("vp") and p["vp"] > 1:
                par["vp"] = p["vp"]
            model = {"preset": preset}
            if preset == "gpt3-175b":
                model["dropout"] = 0  # NeMo's GPTConfig175B: hidden_dropout = attention_dropout = 0.0
            sc = {"model": model, "hardware": {"system": "dgx-h100", "nodes": n // 8},
                  "training": {"seq_len": m["seq_len"], "global_batch": b["global_batch"], "micro_batch": b["micro_batch"],
                               "precision": "fp8", "recompute": "none"}, "parallelism": par}
        emit(c, "tokens_per_s_per_device", meas["tokens_per_s_per_gpu"], sc,
             "Assumed NeMo defaults where the table is silent: sequence parallelism whenever tp > 1, the distributed optimizer (ZeRO-1), "
             "no recomputation, FlashAttention. "
             + ("No dropout: NeMo's GPTConfig175B sets hidden_dropout = attention_dropout = 0.0 (NVIDIA/NeMo @ 7ce2c55 "
                "nemo/collections/llm/gpt/model/base.py). " if preset == "gpt3-175b" else "")
             + c["notes"][:300], skip=skip)
    elif i.startswith("bloom"):
        # Megatron-DeepSpeed's --pp-partition-method 'type:transformer|embedding' counts the two
        # embedding stages as layers: 72 units / 12 stages = 6, so the first and last stage hold
        # the embedding (tied LM head) and 5 transformer layers, the ten between 6 each.
        sc = {"model": {"preset": "bloom-176b"}, "hardware": {"system": "jean-zay-a100-80gb", "nodes": n // 8},
              "training": {"seq_len": m["seq_len"], "global_batch": b["global_batch"], "micro_batch": b["micro_batch"],
                           "precision": "bf16", "recompute": "full"},
              "parallelism": {"tp": p["tp"], "pp": p["pp"], "zero": 1, "first_stage_layers": 5, "last_stage_layers": 5},
              "attention": {"kernel": "materialised"}}
        emit(c, "step_time_s", meas["iteration_time_s"], sc,
             "Assumed: 5 transformer layers on the first and last stage (the tr11 scripts' partition method "
             "'type:transformer|embedding' counts each embedding as a layer: 72 / 12 = 6 per stage), no sequence parallelism "
             "(Megatron-DeepSpeed of 2022 had none), a fused softmax over materialised scores (no FlashAttention). "
             "The README also sets CUDA_LAUNCH_BLOCKING=1 ('tiny impact'). " + c["notes"][:300])
    else:
        why = {"opt": "tensor-parallel degree, micro-batch and FLOP convention not published",
               "llama1": "layout (model/sequence parallel degrees, micro-batch) not published",
               "pythia": "layout, sequence length and batch not captured in the shared case"}
        key = next(k for k in why if i.startswith(k))
        note = c["notes"][:300]
        if key == "bloom":
            metric, measured = "step_time_s", meas["iteration_time_s"]
        elif key == "opt":
            metric, measured = "narayanan_tflops_per_device", 147
            note = "'up to 147 TFLOP/s per GPU', convention unstated. " + note
        elif i == "llama1-65b":
            metric, measured = "tokens_per_s_per_device", 380
            note = "'around 380 tokens/sec/GPU on 2048 A100'. " + note
        else:  # GPU-hours for a token count: tokens / (GPU-hours x 3600) per GPU
            metric = "tokens_per_s_per_device"
            measured = round(meas["training_tokens"] / (meas["gpu_hours"] * 3600), 1)
            note = f"derived: {meas['training_tokens']:.4g} tokens / ({meas['gpu_hours']} GPU-hours x 3600 s). " + note
        emit(c, metric, measured, None, note, skip=why[key])

# Found here, not in the shared set: Llama 3 405B pre-training layouts (Llama 3 paper Table 4, as
# shown by P. Balaji, "Herding Llamas", SC'24, transcribed at glennklockwood.com/garden/llama-3.1).
LLAMA3_SOURCE = ("Llama Team, AI @ Meta, 'The Llama 3 Herd of Models', arXiv:2407.21783, Table 4 (via P. Balaji, SC'24 talk "
                 "'Herding Llamas', transcribed at glennklockwood.com/garden/llama-3.1; secondary)")
for gpus, dp, tflops in ((8192, 64, 430), (16384, 128, 400)):
    sc = {"model": {"preset": "llama3-405b"}, "hardware": {"system": "dgx-h100", "nodes": gpus // 8, "scale_out": "roce-400g"},
          "training": {"seq_len": 8192, "global_batch": 2048, "micro_batch": 1, "precision": "bf16", "recompute": "none"},
          "parallelism": {"tp": 8, "pp": 16, "sequence_parallel": True, "zero": 2, "first_stage_layers": 7, "last_stage_layers": 7}}
    emit({"id": f"llama3-405b-{gpus}-h100", "source": LLAMA3_SOURCE}, "palm_tflops_per_device", tflops, sc,
         f"Llama 3 405B, {gpus} H100 (RoCE, 400 Gb/s per GPU), tp 8, cp 1, pp 16, dp {dp}, seq 8192, 16M tokens (2,048 sequences) per "
         "batch, BF16; TFLOP/s per GPU in the paper's MFU convention (not stated exactly; compared as PaLM's 6N + 12LHQT). "
         "From Section 3.3.2: one layer fewer on the first and the last stage (7 | 8 x 14 | 7). Assumed: micro-batch 1, plain 1F1B "
         "(the paper interleaves with an unstated V and its own flexible-N schedule), sequence parallelism, FSDP without "
         "resharding after forward as ZeRO-2, no recomputation; torchtitan with torch.compile stands in for Meta's stack "
         "(fused elementwise ops assumed: the paper does not say).")
