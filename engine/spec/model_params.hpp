#pragma once
// The models' named parameters that a calibration profile may replace: the roofline efficiencies
// (with the overlap window and the per-kernel overhead) and the collective model's. Defaults name
// their sources in models/roofline.cpp and models/collective.cpp.
#include "models/collective.hpp"
#include "models/roofline.hpp"

namespace perfcast {

struct ModelParams {
  models::Efficiency efficiency = models::default_efficiency();
  models::CollectiveParams collective = models::default_collective_params();
};

// `o` (TrainingOptions, InferenceOptions) with the parameters of `p`, everything else kept.
template <class Options>
Options with_params(Options o, const ModelParams& p) {
  o.efficiency = p.efficiency;
  o.collective = p.collective;
  return o;
}

}  // namespace perfcast
