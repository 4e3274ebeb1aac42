#include "models/vision.hpp"

#include <fmt/format.h>

namespace perfcast::models {

// "Same" padding: the output is the input divided by the stride, rounded up (ResNet's 7x7/2 and
// 3x3/2 max pool, MobileNet-v2's strided convolutions and Darknet's pools all follow it).
int VisionLayer::out_h() const { return kind == VisionOpKind::upsample ? in_h * scale : (in_h + stride - 1) / stride; }
int VisionLayer::out_w() const { return kind == VisionOpKind::upsample ? in_w * scale : (in_w + stride - 1) / stride; }

int VisionLayer::out_c() const {
  switch (kind) {
    case VisionOpKind::conv:
    case VisionOpKind::pointwise:
    case VisionOpKind::fully_connected: return filters;
    default: return in_c;
  }
}

double VisionLayer::macs() const {
  const double out = double(out_h()) * out_w() * out_c();
  switch (kind) {
    case VisionOpKind::conv:
    case VisionOpKind::pointwise: return out * kernel * kernel * in_c;
    case VisionOpKind::depthwise: return out * kernel * kernel;
    case VisionOpKind::fully_connected: return double(in_h) * in_w * in_c * filters;
    default: return 0;
  }
}

double VisionLayer::parameters() const {
  double weights = 0;
  switch (kind) {
    case VisionOpKind::conv:
    case VisionOpKind::pointwise: weights = double(kernel) * kernel * in_c * filters; break;
    case VisionOpKind::depthwise: weights = double(kernel) * kernel * in_c; break;
    case VisionOpKind::fully_connected: weights = double(in_h) * in_w * in_c * filters; break;
    default: return 0;
  }
  return weights + (bias ? out_c() : 0) + (batch_norm ? 2.0 * out_c() : 0);
}

double VisionModel::macs() const {
  double sum = 0;
  for (const VisionLayer& l : layers) sum += l.repeat * l.macs();
  return sum;
}

double VisionModel::parameters() const {
  double sum = 0;
  for (const VisionLayer& l : layers) sum += l.repeat * l.parameters();
  return sum;
}

namespace {

Op layer_op(const VisionLayer& l, const std::string& name, const VisionContext& c) {
  const double in = c.batch * l.in_h * l.in_w * l.in_c * c.activation_bytes;
  const double out = c.batch * l.out_h() * l.out_w() * l.out_c() * c.activation_bytes;
  const double pixels = c.batch * l.out_h() * l.out_w();
  switch (l.kind) {
    case VisionOpKind::conv:
    case VisionOpKind::pointwise:
    case VisionOpKind::fully_connected: {
      // Implicit GEMM: M = output pixels, N = filters, K = kernel^2 x input channels.
      double k = l.kind == VisionOpKind::fully_connected ? double(l.in_h) * l.in_w * l.in_c : double(l.kernel) * l.kernel * l.in_c;
      Op op = gemm_op(name, {pixels, double(l.filters), k, 1}, c.math, c.activation_bytes, c.weight_bytes, c.activation_bytes, true);
      op.bytes_read = in + op.weight_bytes;  // each input pixel read once (im2col reuse on chip)
      return op;
    }
    case VisionOpKind::depthwise: {
      // Per channel, kernel^2 taps per output pixel: FLOPs of an M = pixels, N = channels,
      // K = kernel^2 GEMM without the cross-channel reuse (weights are kernel^2 x channels).
      // Low intensity: memory-bound wherever there is device memory.
      Op op = gemm_op(name, {pixels, double(l.in_c), double(l.kernel) * l.kernel, 1}, c.math, c.activation_bytes,
                      c.weight_bytes, c.activation_bytes, true);
      op.bytes_read = in + op.weight_bytes;
      return op;
    }
    case VisionOpKind::add: return memory_op(name, 2 * in, out);
    default: return memory_op(name, in, out);
  }
}

}  // namespace

std::vector<Op> vision_ops(const VisionModel& m, const VisionContext& c) {
  std::vector<Op> ops;
  for (const VisionLayer& l : m.layers)
    for (int i = 0; i < l.repeat; ++i)
      ops.push_back(layer_op(l, l.repeat > 1 ? fmt::format("{}#{}", l.name, i + 1) : l.name, c));
  return ops;
}

}  // namespace perfcast::models
