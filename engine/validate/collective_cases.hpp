#pragma once
// Collective validation cases (validation/collectives.toml): nccl-tests busbw for an operation,
// message size, system and rank count, predicted with the same model `perfcast collective` runs.
#include <optional>
#include <string>
#include <vector>

#include "engine/data/hardware_db.hpp"
#include "engine/spec/model_params.hpp"
#include "engine/validate/validation.hpp"
#include "models/collective.hpp"

namespace perfcast {

struct CollectiveCase {
  std::string id, source, system, notes, used_for, skip;
  models::Collective op = models::Collective::all_reduce;
  std::optional<models::CollectiveAlgorithm> algorithm;  // empty: auto
  int gpus = 0;
  std::optional<double> bytes;   // empty: the source gives the peak without a size
  double measured_busbw_Bps = 0;
  double tolerance = 0.10;
  ResolvedHardware hardware;     // `system` resolved
};

// The size a "peak" case (no size given) is predicted at: nccl-tests' usual largest, -e 8G.
constexpr double kPeakCaseBytes = 8.0 * 1024 * 1024 * 1024;

std::vector<CollectiveCase> load_collective_cases(CaseFile& f, const HardwareDb& db);
std::vector<CaseScore> score_collective_cases(const std::vector<CollectiveCase>& cases, const ModelParams& params = {});

}  // namespace perfcast
