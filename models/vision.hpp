#pragma once
// Small vision networks as op lists (edge workloads): convolutions as implicit GEMMs, depthwise
// convolutions, fully connected layers, pooling and elementwise ops, with their shapes.
#include <string>
#include <vector>

#include "models/op.hpp"

namespace perfcast::models {

enum class VisionOpKind { conv, depthwise, pointwise, fully_connected, max_pool, avg_pool, add, upsample, concat };

struct VisionLayer {
  std::string name;
  VisionOpKind kind = VisionOpKind::conv;
  int in_h = 1, in_w = 1, in_c = 1;
  int filters = 0;       // output channels (depthwise: = in_c; pooling/elementwise: = in_c)
  int kernel = 1, stride = 1;
  int scale = 1;         // upsample factor
  bool bias = false;
  bool batch_norm = false;  // learned scale and shift per output channel (folded at inference)
  int repeat = 1;        // identical layers in sequence

  int out_h() const;
  int out_w() const;
  int out_c() const;
  double macs() const;        // multiply-accumulates of one image, one repeat
  double parameters() const;  // one repeat
};

struct VisionModel {
  std::string name;
  std::vector<VisionLayer> layers;
  double macs() const;
  double parameters() const;
};

struct VisionContext {
  double batch = 1;
  Precision math = Precision::int8;
  double activation_bytes = 1;
  double weight_bytes = 1;
};

// One forward op per layer repeat ("layer3.conv2#2"); a FLOP is 2 MACs (MODELS-REFERENCE §0).
std::vector<Op> vision_ops(const VisionModel& m, const VisionContext& c);

}  // namespace perfcast::models
