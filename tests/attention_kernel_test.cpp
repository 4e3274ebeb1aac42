// The measured attention kernels (models/attention_kernels, docs/models.md F-ATT-1): the FlashAttention-3
// paper's H100 figures at their own points, the log-linear reading between them, the derived causal
// cases, and the roofline using them. Expected values are hand-computed from the figures' bar labels
// over the H100 SXM5 dense BF16 peak, 989.4 TFLOP/s.
#include <doctest/doctest.h>

#include <cmath>

#include "models/attention_kernels.hpp"
#include "models/roofline.hpp"

using namespace perfcast::models;

namespace {

constexpr double kPeak = 989.4;

double efficiency(AttentionImpl k, Pass p, double head_dim, double seq, bool causal) {
  return attention_kernel_efficiency(k, p, {head_dim, seq, causal}).value();
}

}  // namespace

TEST_CASE("F-ATT-1: a kernel at one of the figures' own points is that bar over the peak") {
  using enum AttentionImpl;
  CHECK(efficiency(cudnn, Pass::forward, 128, 8192, true) == doctest::Approx(529 / kPeak));  // Fig. 5, causal, hd 128
  CHECK(efficiency(fa3, Pass::forward, 256, 16384, false) == doctest::Approx(756 / kPeak));  // the paper's "740 TFLOPs/s, 75 %"
  CHECK(efficiency(fa2, Pass::forward, 128, 512, true) == doctest::Approx(191 / kPeak));
  CHECK(efficiency(fa3, Pass::backward, 64, 2048, false) == doctest::Approx(422 / kPeak));   // Fig. 6, hd 64
  CHECK(efficiency(cudnn, Pass::recompute, 256, 4096, true) == doctest::Approx(483 / kPeak)); // a recompute is a forward
  CHECK_FALSE(attention_kernel_efficiency(AttentionImpl::generic, Pass::forward, {128, 8192, true}).has_value());
}

TEST_CASE("F-ATT-1: between the points the reading is linear in log2 of the length and of the head dimension") {
  using enum AttentionImpl;
  // FA2, unmasked, hd 128, 3,000 tokens: 362 + log2(3000/2048) x (368 - 362) = 365.30 TFLOP/s.
  CHECK(efficiency(fa2, Pass::forward, 128, 3000, false) == doctest::Approx((362 + std::log2(3000.0 / 2048) * 6) / kPeak));
  // cuDNN, unmasked, 4,096 tokens, hd 96: 408 + log2(96/64) x (609 - 408) = 525.58 TFLOP/s.
  CHECK(efficiency(cudnn, Pass::forward, 96, 4096, false) == doctest::Approx((408 + std::log2(1.5) * 201) / kPeak));
  // Outside the measured lengths and head dims the nearest measured point holds.
  CHECK(efficiency(fa3, Pass::forward, 128, 100, false) == doctest::Approx(467 / kPeak));
  CHECK(efficiency(fa3, Pass::forward, 128, 1 << 20, false) == doctest::Approx(648 / kPeak));
  CHECK(efficiency(fa3, Pass::backward, 256, 8192, false) == doctest::Approx(559 / kPeak));
}

TEST_CASE("F-ATT-1: a causal backward, and a causal forward below head dim 128, take the hd-128 forward's causal share") {
  using enum AttentionImpl;
  // cuDNN backward, hd 128, 8,192 tokens, causal: 518 x 529 / 600 = 456.70 TFLOP/s.
  CHECK(efficiency(cudnn, Pass::backward, 128, 8192, true) == doctest::Approx(518.0 * 529 / 600 / kPeak));
  // FA3 forward, hd 64, 8,192 tokens, causal: 496 x 602 / 646 = 462.22 TFLOP/s.
  CHECK(efficiency(fa3, Pass::forward, 64, 8192, true) == doctest::Approx(496.0 * 602 / 646 / kPeak));
}

TEST_CASE("The roofline times a known kernel's attention by the figures, an unknown one by the scalar efficiencies") {
  Op op;
  op.kind = OpKind::attention;
  op.attention_head_dim = 128;
  op.attention_seq = 8192;
  const Efficiency e = default_efficiency();
  CHECK(compute_efficiency(op, e) == doctest::Approx(e.attention));
  op.pass = Pass::backward;
  CHECK(compute_efficiency(op, e) == doctest::Approx(e.attention_backward));
  op.attention_impl = AttentionImpl::cudnn;
  CHECK(compute_efficiency(op, e) == doctest::Approx(518.0 * 529 / 600 / kPeak));
}
