#include "models/op.hpp"

namespace perfcast::models {

// F-ROOF-3: W = 2MNK, Q = beta_A MK + beta_B KN + beta_C MN (per GEMM, times `count`).
Op gemm_op(std::string name, GemmShape s, Precision math, double a_bytes, double b_bytes, double c_bytes,
           bool b_is_weight) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::gemm;
  op.precision = math;
  op.gemm = s;
  op.gemm.a_bytes = a_bytes;
  op.gemm.b_bytes = b_bytes;
  op.gemm.c_bytes = c_bytes;
  op.gemm.b_is_weight = b_is_weight;
  op.flops = 2 * s.m * s.n * s.k * s.count;
  op.model_flops = op.flops;
  double b = b_bytes * s.k * s.n * s.count;
  op.bytes_read = a_bytes * s.m * s.k * s.count + b;
  op.bytes_written = c_bytes * s.m * s.n * s.count;
  op.weight_bytes = b_is_weight ? b : 0;
  return op;
}

Op memory_op(std::string name, double bytes_read, double bytes_written) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::memory;
  op.bytes_read = bytes_read;
  op.bytes_written = bytes_written;
  return op;
}

}  // namespace perfcast::models
