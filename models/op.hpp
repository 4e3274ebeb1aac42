#pragma once
// One operator of a workload as the roofline sees it: FLOPs, bytes moved per memory level, the
// precision its math runs in, and the GEMM shape where it is one. Built by the op-accounting
// models (transformer_ops, vision_ops); timed by roofline.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/precision.hpp"

namespace perfcast::models {

enum class OpKind { gemm, attention, memory };  // memory: elementwise/reduction, modelled as bytes
enum class Pass { forward, backward, recompute };
// The fused attention kernel an op runs (models/attention_kernels); generic: not known, the
// roofline's scalar `attention` efficiencies apply.
enum class AttentionImpl { generic, fa2, cudnn, fa3 };
inline constexpr std::array<std::string_view, 4> kAttentionImplKeys{"generic", "flashattention-2", "cudnn", "flashattention-3"};
inline std::string_view name_of(AttentionImpl k) { return kAttentionImplKeys[static_cast<std::size_t>(k)]; }

// C[M x N] = A[M x K] . B[K x N], `count` independent times (heads, experts, batched GEMMs).
struct GemmShape {
  double m = 0, n = 0, k = 0;
  double count = 1;
  double a_bytes = 0, b_bytes = 0, c_bytes = 0;  // bytes per element of each operand
  bool b_is_weight = false;                      // B is a parameter (its gradient is a wgrad)
};

// A memory op's backward where it is not the one fused pass backward_ops assumes (eager PyTorch
// modules, F-EAGER-1): bytes moved and kernels launched.
struct MemoryPass {
  double read = 0, written = 0, kernels = 1;
};

struct Op {
  std::string name;          // "attn.qkv", "mlp.down.wgrad"
  OpKind kind = OpKind::memory;
  Pass pass = Pass::forward;
  Precision precision = Precision::bf16;  // the math (tensor-core) format
  double flops = 0;          // executed, recomputation included
  double model_flops = 0;    // what MFU counts (PaLM App. B): no recomputation, chosen mask convention
  double bytes_read = 0;     // device memory (HBM/DRAM)
  double bytes_written = 0;
  double weight_bytes = 0;   // the parameter part of bytes_read (on-chip caching on edge NPUs)
  GemmShape gemm{};          // kind == gemm
  double kernels = 1;        // launches (each pays the per-kernel overhead)
  // kind == attention: the fused kernel that runs it and what it sees (models/attention_kernels).
  AttentionImpl attention_impl = AttentionImpl::generic;
  double attention_head_dim = 0, attention_seq = 0;
  bool attention_causal = true;
  bool attention_decode = false;  // a decode step's: each sequence's few query tokens over its KV cache
  double attention_kv_bytes = 0;  // bytes per element of the per-head K/V cache it reads (0: none, or a latent MLA cache)
  // Share of a weight GEMM that PyTorch op-level selective checkpointing recomputes: the layer's
  // even-numbered matmuls in execution order (one GEMM here may stand for several, as q, k, v).
  double op_sac_share = 0;
  std::optional<MemoryPass> backward;  // kind == memory

  double bytes() const { return bytes_read + bytes_written; }
  double intensity() const { return bytes() > 0 ? flops / bytes() : 0; }  // FLOP per byte
};

// A run of identical ops repeated `repeats` times: one transformer layer (x layers), the head.
struct OpGroup {
  std::string name;
  double repeats = 1;
  std::vector<Op> ops;
};

// C = A.B with operands read once and the result written once (F-ROOF-3).
Op gemm_op(std::string name, GemmShape shape, Precision math, double a_bytes, double b_bytes,
           double c_bytes, bool b_is_weight);
// An elementwise or reduction kernel: no tensor-core math, only bytes.
Op memory_op(std::string name, double bytes_read, double bytes_written);

}  // namespace perfcast::models
