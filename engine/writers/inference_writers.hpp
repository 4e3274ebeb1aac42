#pragma once
// Inference predictions as a terminal table, JSON (DESIGN.md "inference.{...}" names) and CSV
// (the throughput-vs-batch curve).
#include <nlohmann/json.hpp>
#include <string>

#include "engine/predict/inference.hpp"

namespace perfcast {

std::string inference_to_table(const InferencePrediction& p, bool detail);
nlohmann::json inference_to_json(const InferencePrediction& p);
std::string inference_to_csv(const InferencePrediction& p);

}  // namespace perfcast
