#pragma once
// Validation cases (validation/*.toml) and their scoring: predict each case with the models,
// report the signed error per case and the summary over held-out cases. A case flagged
// `used_for` is the source of a default and is never counted as held-out.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/hardware_db.hpp"
#include "engine/precision.hpp"
#include "models/roofline.hpp"

namespace perfcast {

enum class MicrobenchKind { gemm, memory, host_link, attention, peer_link };

struct MicrobenchCase {
  std::string id, source, device, accelerator, notes, used_for, skip;
  MicrobenchKind kind = MicrobenchKind::gemm;
  double m = 0, n = 0, k = 0;
  Precision dtype = Precision::bf16, out_dtype = Precision::bf16;
  double read_B = 0, write_B = 0;
  double measured = 0;           // SI: FLOP/s for gemm/attention, B/s otherwise
  double tolerance = 0.10;       // |error| within which the case passes
};

struct CaseScore {
  const MicrobenchCase* c = nullptr;
  double predicted = 0;
  double error = 0;              // predicted / measured - 1
  bool scored = false;           // false: skipped (see c->skip)
  bool held_out = false;         // scored and not used to set a default
  bool within_tolerance = false;
  std::string bound;
};

struct ValidationSummary {
  int cases = 0, scored = 0, held_out = 0, within_tolerance = 0;
  double median_abs_error = 0, mean_abs_error = 0, max_abs_error = 0;  // over held-out cases
};

std::filesystem::path default_validation_dir();
std::vector<MicrobenchCase> load_microbenchmarks(const std::filesystem::path& file, const HardwareDb& db);
std::vector<CaseScore> score_microbenchmarks(const std::vector<MicrobenchCase>& cases, const HardwareDb& db,
                                             const models::Efficiency& e);
ValidationSummary summarise(const std::vector<CaseScore>& scores);

std::string_view name_of(MicrobenchKind k);

}  // namespace perfcast
