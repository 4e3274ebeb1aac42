#pragma once
// Memory validation cases (validation/memory.toml): model-state bytes per device for a parameter
// count, optimizer recipe, ZeRO stage and data-parallel degree (ZeRO paper Table 1, DeepSpeed's
// estimator), and KV-cache bytes for a preset (published per-token figures).
#include <filesystem>
#include <string>
#include <vector>

#include "engine/validate/validation.hpp"
#include "models/memory.hpp"
#include "models/transformer.hpp"

namespace perfcast {

struct MemoryCase {
  enum class Kind { model_states, kv_cache };
  std::string id, source, subject, notes, used_for, skip;
  Kind kind = Kind::model_states;
  // model_states
  double parameters = 0, largest_layer_parameters = 0, dp = 1;
  const models::OptimizerRecipe* recipe = nullptr;
  int zero = 0;
  models::Offload offload = models::Offload::none;
  bool include_gather = false;  // the published figure counts the ZeRO-3 gathered layer
  // kv_cache
  models::TransformerSpec model;
  Precision kv_dtype = Precision::bf16;
  int tp = 1;
  double tokens = 1;
  double measured_B = 0;
  double tolerance = 0.01;
};

std::vector<MemoryCase> load_memory_cases(CaseFile& f, const std::filesystem::path& workloads);
std::vector<CaseScore> score_memory_cases(const std::vector<MemoryCase>& cases);

}  // namespace perfcast
