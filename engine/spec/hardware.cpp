#include "engine/spec/hardware.hpp"

namespace perfcast {

std::string precision_list(const AcceleratorSpec& a) {
  std::string out;
  for (std::size_t i = 0; i < kPrecisionCount; ++i)
    if (a.peak_dense_ops_per_s[i]) out += (out.empty() ? "" : ", ") + std::string(kPrecisionNames[i]);
  return out;
}

}  // namespace perfcast
