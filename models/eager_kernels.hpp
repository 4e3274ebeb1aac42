#pragma once
// Eager PyTorch (docs/models.md F-EAGER-1): the kernels a module built from plain torch ops runs
// when torch.compile does not fuse it, and the bytes they move, per element of the module's tensor.
// Counted from torchtitan's modules and PyTorch's autograd formulas (derivatives.yaml,
// FunctionsManual.cpp); `b` is the activation element size (2 for BF16); float32 copies are 4 bytes.
// Tensors of one value per token (a norm's rsqrt) and broadcast operands (a norm's weight, the
// RoPE table) are left out: they are a head-dim or hidden-size fraction of the rest.
#include "models/op.hpp"

namespace perfcast::models {

// Each pass's bytes read and written per element, and its kernel launches.
struct EagerModule {
  MemoryPass forward, backward;
};

// RMSNorm written as torch ops, `(x.float() * rsqrt(x.float().pow(2).mean(-1) + eps)).type_as(x) * w`
// (torchtitan/models/norms.py RMSNorm @ 9dec370), per element of the normalised tensor.
EagerModule eager_rmsnorm(double b);
// Complex-number RoPE (torchtitan apply_rotary_emb): q and k upcast to float32, multiplied as complex64
// by the table, cast back; per element of q and k.
EagerModule eager_rope(double b);
// SwiGLU's `silu(w1 x) * w3 x`, per element of its output (the MLP's intermediate width).
EagerModule eager_swiglu(double b);
// `cross_entropy(logits.float(), labels)` (torchtitan's loss), per logit.
EagerModule eager_cross_entropy(double b);
// One dynamic tensorwise FP8 cast as torchao's Float8Linear runs it without torch.compile, per element of
// the high-precision tensor (F-LP-2): amax = max(abs(x)), the scale from it, then
// (x.to(float32) * scale).clamp(...).to(float8).
MemoryPass eager_float8_cast(double b);
// The add that sums a residual branch's two gradients (the skip path and the block's), per element
// of the hidden state; a fused norm backward does it inside the norm kernel.
MemoryPass eager_residual_gradient(double b);

}  // namespace perfcast::models
