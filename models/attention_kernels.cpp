#include "models/attention_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <span>

namespace perfcast::models {
namespace {

// TFLOP/s on an H100 80GB SXM5, BF16, batch x seq = 16k tokens, hidden 2048 (Shah et al. 2024,
// arXiv:2407.08608, Fig. 5 forward and Fig. 6 backward, the figures' bar labels as transcribed at
// subtext.edge.nugit.net; which forward panels are causal follows from the paper's own headline:
// its 740 TFLOP/s maximum is the unmasked head-dim-256 panel's). Columns: kSeq.
constexpr std::array<double, 6> kSeq{512, 1024, 2048, 4096, 8192, 16384};
using Row = std::array<double, 6>;
struct Curve {
  double head_dim;
  Row fa2, cudnn, fa3;
};

constexpr Curve kForwardUnmasked[] = {
    {64, {282, 306, 318, 321, 322, 324}, {335, 373, 395, 408, 412, 413}, {333, 392, 460, 476, 496, 497}},
    {128, {309, 350, 362, 368, 370, 370}, {497, 574, 617, 609, 600, 595}, {467, 565, 625, 638, 646, 648}},
    {256, {275, 313, 321, 323, 324, 326}, {470, 546, 580, 581, 580, 581}, {482, 639, 707, 736, 746, 756}},
};
constexpr Curve kForwardCausal[] = {
    {128, {191, 260, 298, 319, 333, 335}, {315, 410, 484, 518, 529, 539}, {292, 423, 521, 579, 602, 616}},
    {256, {208, 251, 278, 293, 297, 298}, {308, 391, 450, 483, 497, 509}, {286, 427, 537, 612, 628, 642}},
};
constexpr Curve kBackwardUnmasked[] = {
    {64, {198, 238, 264, 279, 287, 291}, {266, 348, 395, 417, 432, 433}, {272, 363, 422, 453, 472, 474}},
    {128, {214, 260, 291, 310, 318, 322}, {305, 408, 465, 499, 518, 516}, {316, 424, 501, 542, 559, 561}},
};

// H100 SXM5 dense BF16 peak, 989.4 TFLOP/s (hardware_db/accelerators/h100-sxm.toml; the paper's
// "75% of peak" for 740 TFLOP/s uses the same figure).
constexpr double kH100Bf16Tflops = 989.4;

const Row& row(const Curve& c, AttentionImpl k) {
  return k == AttentionImpl::fa2 ? c.fa2 : k == AttentionImpl::cudnn ? c.cudnn : c.fa3;
}

// Linear in log2 of x between the neighbouring points of xs, clamped at both ends.
double log_interpolate(std::span<const double> xs, auto&& value_at, double x) {
  if (x <= xs.front()) return value_at(0);
  if (x >= xs.back()) return value_at(xs.size() - 1);
  std::size_t i = 1;
  while (xs[i] < x) ++i;
  const double t = (std::log2(x) - std::log2(xs[i - 1])) / (std::log2(xs[i]) - std::log2(xs[i - 1]));
  return value_at(i - 1) + t * (value_at(i) - value_at(i - 1));
}

double tflops(std::span<const Curve> curves, AttentionImpl k, double head_dim, double seq) {
  std::array<double, 3> dims{};
  for (std::size_t i = 0; i < curves.size(); ++i) dims[i] = curves[i].head_dim;
  auto at_dim = [&](std::size_t i) {
    return log_interpolate(kSeq, [&](std::size_t j) { return row(curves[i], k)[j]; }, seq);
  };
  return log_interpolate(std::span(dims.data(), curves.size()), at_dim, head_dim);
}

// The causal/unmasked ratio of the head-dim-128 forward at this length.
double causal_share(AttentionImpl k, double seq) {
  return tflops(kForwardCausal, k, 128, seq) / tflops(kForwardUnmasked, k, 128, seq);
}

}  // namespace

std::optional<double> attention_kernel_efficiency(AttentionImpl impl, Pass pass, const AttentionKernelShape& s) {
  if (impl == AttentionImpl::generic) return std::nullopt;
  const double seq = std::max(s.seq, 1.0), hd = std::max(s.head_dim, 1.0);
  double t = 0;
  if (pass == Pass::backward) {
    t = tflops(kBackwardUnmasked, impl, hd, seq) * (s.causal ? causal_share(impl, seq) : 1.0);
  } else if (!s.causal) {
    t = tflops(kForwardUnmasked, impl, hd, seq);
  } else if (hd >= kForwardCausal[0].head_dim) {
    t = tflops(kForwardCausal, impl, hd, seq);
  } else {
    t = tflops(kForwardUnmasked, impl, hd, seq) * causal_share(impl, seq);
  }
  return t / kH100Bf16Tflops;
}

}  // namespace perfcast::models
