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

constexpr std::optional<Precision> precision_from(std::string_view name) {
  for (std::size_t i = 0; i < kPrecisionCount; ++i)
    if (kPrecisionNames[i] == name) return static_cast<Precision>(i);
  return std::nullopt;
}

}  // namespace perfcast
