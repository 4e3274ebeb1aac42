#pragma once
// What a scenario is, in the terms the empirical bands match on (spec/residuals.hpp): the same
// function describes a validated case and the question a user asks, so that the two compare.
#include <string>
#include <string_view>

#include "engine/spec/residuals.hpp"
#include "engine/spec/scenario.hpp"

namespace perfcast {

// `kind`: training, inference or serving; `figure`: step, throughput, ttft, tpot, e2e or latency.
BandFeatures scenario_features(const Scenario& s, std::string_view kind, std::string_view figure);
// A case without a scenario (a kernel, a collective): its kind, what it measures, vendor and precision.
BandFeatures kernel_features(std::string_view kind, std::string_view vendor, std::string_view precision);
// The devices' bucket: 1, 2-8 (one node), 9-64, 65-512, 513+.
std::string scale_bucket(int devices);

}  // namespace perfcast
