#pragma once
// Numeric formats the hardware database quotes peaks for, and their storage size.
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace perfcast {

enum class Precision { fp64, fp64_tensor, fp32, tf32, bf16, fp16, fp8, fp6, fp4, int8, int4 };
inline constexpr std::size_t kPrecisionCount = 11;
inline constexpr std::array<std::string_view, kPrecisionCount> kPrecisionNames{
    "fp64", "fp64_tensor", "fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8", "int4"};

// Bytes per element as stored (MODELS-REFERENCE §0: FP32 4, BF16/FP16 2, FP8/INT8 1, INT4 0.5).
// TF32 operands are stored as FP32; FP6 packs 6 bits. Block-scale overhead is not included.
constexpr double bytes_per_element(Precision p) {
  constexpr std::array<double, kPrecisionCount> bytes{8, 8, 4, 4, 2, 2, 1, 0.75, 0.5, 1, 0.5};
  return bytes[static_cast<std::size_t>(p)];
}

// The formats Transformer Engine's training recipes quantise GEMM inputs to (FP8, NVFP4); attention,
// the LM head and the norms stay in BF16 beside them.
constexpr bool quantised_training_format(Precision p) { return p == Precision::fp8 || p == Precision::fp4; }

constexpr std::string_view name_of(Precision p) { return kPrecisionNames[static_cast<std::size_t>(p)]; }

// The block scales of 4-bit float weights: NVFP4 (an E4M3 scale per 16 values, NVIDIA Model Optimizer's
// checkpoints) or MXFP4 (an E8M0 scale per 32, OCP Microscaling v1.0: gpt-oss). "fp4" names NVFP4.
enum class Fp4Blocks { nvfp4, mxfp4 };

// A weight format's name as a scenario gives it: MXFP4 by name, the rest (NVFP4 included) as their precision.
constexpr std::string_view storage_name(Precision p, Fp4Blocks b) {
  return p == Precision::fp4 && b == Fp4Blocks::mxfp4 ? "mxfp4" : name_of(p);
}

constexpr std::optional<Precision> precision_from(std::string_view name) {
  for (std::size_t i = 0; i < kPrecisionCount; ++i)
    if (kPrecisionNames[i] == name) return static_cast<Precision>(i);
  return std::nullopt;
}

}  // namespace perfcast
