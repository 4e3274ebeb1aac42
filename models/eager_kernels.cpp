#include "models/eager_kernels.hpp"

namespace perfcast::models {
namespace {
constexpr double kF32 = 4;  // bytes of a float32 element
}  // namespace

EagerModule eager_rmsnorm(double b) {
  // Forward, 8 kernels: x.float() (b -> 4), pow(2) (4 -> 4), mean (reads 4), + eps and rsqrt (per
  // token), x * rsqrt (4 -> 4), type_as (4 -> b), * weight (b -> b).
  const MemoryPass forward{.read = 2 * b + 4 * kF32, .written = 3 * kF32 + 2 * b, .kernels = 8};
  // Backward, 16 kernels: * weight: grad * w (b -> b), grad * y (2b -> b) summed over tokens (b);
  // type_as: grad to float32 (b -> 4); x * rsqrt: grad * r (4 -> 4), grad * x (8 -> 4) summed over the
  // hidden dim (4); rsqrt (three per-token kernels); mean: grad expanded / n (-> 4); pow:
  // grad * (2 * x.pow(1)), x.pow(1) a copy in ATen (4 -> 4, 4 -> 4, 8 -> 4); the two float32
  // gradients of x summed (8 -> 4); float(): grad to b (4 -> b).
  const MemoryPass backward{.read = 5 * b + 11 * kF32, .written = 3 * b + 8 * kF32, .kernels = 16};
  return {forward, backward};
}

EagerModule eager_rope(double b) {
  // Per tensor (q, then k): .float() (b -> 4), the complex64 product with the table (4 -> 4),
  // type_as (4 -> b). Backward: to float32 (b -> 4), grad * conj(table) (4 -> 4), to b (4 -> b);
  // the table takes no gradient.
  const MemoryPass pass{.read = b + 2 * kF32, .written = 2 * kF32 + b, .kernels = 6};
  return {pass, pass};
}

EagerModule eager_swiglu(double b) {
  // Forward: silu(h1) (b -> b), * h3 (2b -> b). Backward: grad * h3 and grad * silu(h1)
  // (2b -> b each), silu_backward(grad, h1) (2b -> b).
  return {{.read = 3 * b, .written = 2 * b, .kernels = 2}, {.read = 6 * b, .written = 3 * b, .kernels = 3}};
}

EagerModule eager_cross_entropy(double b) {
  // Forward: logits.float() (b -> 4); log_softmax over a row longer than shared memory holds
  // (ATen cunn_SoftMaxForward: a max pass, a sum-of-exp pass and a writing pass, each reading the
  // row: 12 -> 4); nll_loss gathers one value per row. Backward: nll_loss's gradient, a zero-filled
  // float32 tensor (-> 4) and a scatter; log_softmax's (cunn_SoftMaxBackward: sum of the gradient,
  // then grad - exp(out) * sum: 12 -> 4); to b (4 -> b).
  return {{.read = b + 3 * kF32, .written = 2 * kF32, .kernels = 3},
          {.read = 4 * kF32, .written = 2 * kF32 + b, .kernels = 4}};
}

MemoryPass eager_float8_cast(double b) {
  // torchao.float8 (float8_utils.py tensor_to_amax, amax_to_scale, to_fp8_saturated;
  // float8_scaling_utils.py hp_tensor_to_float8_dynamic): abs (b -> b), max (reads b), four kernels on
  // the one-value amax (to float64, clamp, divide, to float32), to(float32) (b -> 4), * scale (4 -> 4),
  // clamp (4 -> 4), to(float8) (4 -> 1).
  return {.read = 3 * b + 3 * kF32, .written = b + 3 * kF32 + 1, .kernels = 10};
}

MemoryPass eager_residual_gradient(double b) { return {.read = 2 * b, .written = b, .kernels = 1}; }

}  // namespace perfcast::models
