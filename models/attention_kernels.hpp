#pragma once
// Fused attention kernels as measured: the share of the dense BF16 peak FlashAttention-2, cuDNN's
// fused attention and FlashAttention-3 reach on an H100 SXM5, by pass, mask, head dimension and
// sequence length (Shah et al. 2024, "FlashAttention-3", arXiv:2407.08608, Figs. 5 and 6;
// docs/models.md F-ATT-1). Which kernel a software stack runs is a stack fact (training_stack).
#include <optional>

#include "models/op.hpp"

namespace perfcast::models {

// What the kernel sees: per-head width, query (= key block) length of one call, and the mask.
struct AttentionKernelShape {
  double head_dim = 128;
  double seq = 0;
  bool causal = true;
};

// Achieved FLOP/s over the dense BF16 peak, FLOPs counted as the paper counts them (a causal
// mask halves them; backward = 2.5 x forward). Log-linear in sequence length and head dimension
// between the measured points, clamped outside them (512-16k tokens, head dim 64-256 forward,
// 64-128 backward). Derived where the figures are silent: a causal forward below head dim 128,
// and every causal backward (the figures' backward is unmasked), take the causal/unmasked ratio
// of the head-dim-128 forward at the same length. nullopt for AttentionImpl::generic.
std::optional<double> attention_kernel_efficiency(AttentionImpl impl, Pass pass, const AttentionKernelShape& s);

}  // namespace perfcast::models
