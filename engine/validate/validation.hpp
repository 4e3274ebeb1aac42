#pragma once
// Validation cases (validation/*.toml) and their scoring: predict each case with the models,
// report the signed error per case and the summary over held-out cases. A case flagged
// `used_for` is the source of a default and is never counted as held-out.
#include <filesystem>
#include <functional>
#include <memory>
#include <type_traits>
#include <optional>
#include <span>
#include <set>
#include <string>
#include <vector>

#include "engine/data/hardware_db.hpp"
#include "engine/spec/model_params.hpp"
#include "engine/spec/residuals.hpp"
#include "models/precision.hpp"
#include "engine/core/toml_section.hpp"
#include "engine/core/units.hpp"
#include "models/roofline.hpp"

namespace perfcast {

enum class MicrobenchKind { gemm, memory, host_link, attention, peer_link };

struct MicrobenchCase {
  std::string id, source, device, accelerator, notes, used_for, skip;
  MicrobenchKind kind = MicrobenchKind::gemm;
  double m = 0, n = 0, k = 0;
  Precision dtype = Precision::bf16, out_dtype = Precision::bf16;
  double read_B = 0, write_B = 0;
  // kind = attention: one fused attention call (F-ATT-1), its FLOPs counted as FlashAttention's
  // papers count them (a causal mask halves them, the backward pass is 2.5 times the forward).
  models::AttentionImpl attention_kernel = models::AttentionImpl::generic;
  models::Pass pass = models::Pass::forward;
  double batch = 0, heads = 0, kv_heads = 0, seq = 0, head_dim = 0;
  bool causal = true;
  double measured = 0;           // SI: FLOP/s for gemm/attention, B/s otherwise
  double tolerance = 0.10;       // |error| within which the case passes
  ResolvedHardware hardware;     // `accelerator` resolved (empty for a skipped case without one)
};

// One scored case of any suite, in SI units of `dimension`.
struct CaseScore {
  std::string id, kind, source, subject;  // subject: the device or model the case is about
  std::string accelerator;               // the device the case ran on, when it names one
  std::string engine;                    // LLM inference: "serving · vllm", "inference · trtllm", ... (kind · engine, or unstated)
  std::string vendor;                    // LLM inference: the accelerator's vendor
  std::string used_for, skip, detail;     // detail: what bounds the prediction, or what was compared
  std::string calibration;               // the profile the case names for its harness (scenario cases), or empty
  BandFeatures features;                 // what the case shares with a question (engine/validate/case_features)
  std::string profile_used;              // that profile's file name when validate scored the case with it
  units::Dimension dimension = units::dim::none;
  double measured = 0, predicted = 0;
  double error = 0;              // predicted / measured - 1
  double tolerance = 0;
  bool scored = false;           // false: skipped (see skip)
  bool held_out = false;         // scored and not used to set a default
  bool within_tolerance = false;

  // Scores `value` against `measured`: the error, held-out unless `used_for`, within `tolerance`.
  void set_prediction(double value);
};

// What every suite copies from its case into the score: id, kind, source, used_for, skip, tolerance.
template <class Case>
CaseScore score_of(const Case& c, std::string kind) {
  CaseScore s;
  s.id = c.id;
  s.kind = std::move(kind);
  s.source = c.source;
  s.used_for = c.used_for;
  s.skip = c.skip;
  s.tolerance = c.tolerance;
  if constexpr (requires { c.calibration; }) s.calibration = c.calibration;
  return s;
}

// The keys every case carries besides its own: tolerance (`default_tolerance` when absent),
// used_for, skip and notes.
template <class Case>
void read_shared_keys(TomlSection& t, Case& c, double default_tolerance) {
  c.tolerance = t.number("tolerance", 0, false, 10).value_or(default_tolerance);
  c.used_for = t.string("used_for").value_or("");
  c.skip = t.string("skip").value_or("");
  c.notes = t.string("notes").value_or("");
}

struct ValidationSummary {
  int cases = 0, scored = 0, held_out = 0, within_tolerance = 0;
  double median_abs_error = 0, mean_abs_error = 0, max_abs_error = 0;  // over held-out cases
};

// A parsed case file: its root table (schema_version read) and its top-level `suite`
// ("microbenchmark" or "memory"), which says which model predicts its cases.
struct CaseFile {
  std::shared_ptr<toml::table> doc;
  TomlSection root;
  std::optional<std::string> suite;
};
CaseFile open_case_file(const std::filesystem::path& file);

// Every [[case]] of `f` through `read`, then refuses unknown top-level keys. Case ids are unique in
// a file: calibration lists its fitted cases and --select picks them by id.
template <class Read>
auto read_cases(CaseFile& f, Read read) {
  std::vector<std::invoke_result_t<Read, TomlSection&>> cases;
  std::set<std::string, std::less<>> ids;
  for (TomlSection& t : f.root.table_array("case")) {
    cases.push_back(read(t));
    if (!ids.insert(cases.back().id).second) t.fail("id", "'" + cases.back().id + "' is the id of an earlier case in this file");
  }
  f.root.finish();
  return cases;
}

// A case's quantity `key` in SI units of `d` (0 when absent and not required); failures name the key.
double case_quantity(TomlSection& t, std::string_view key, units::Dimension d, bool required);

std::filesystem::path default_validation_dir();
std::vector<MicrobenchCase> load_microbenchmarks(CaseFile& f, const HardwareDb& db);
std::vector<MicrobenchCase> load_microbenchmarks(const std::filesystem::path& file, const HardwareDb& db);
std::vector<CaseScore> score_microbenchmarks(const std::vector<MicrobenchCase>& cases,
                                             const models::Efficiency& e);
ValidationSummary summarise(const std::vector<CaseScore>& scores);
// Summaries keyed by case kind, source, engine or vendor (cases that name one), in first-seen order.
enum class SummaryKey { kind, source, engine, vendor };
std::vector<std::pair<std::string, ValidationSummary>> summarise_by(const std::vector<CaseScore>& scores, SummaryKey key);

// The case files of a validation directory (*.toml, sorted) and the scores of one file, by its suite.
std::vector<std::filesystem::path> validation_files(const std::filesystem::path& dir);
// `kind`: only the cases that score as that kind (all when empty), the others not predicted.
std::vector<CaseScore> score_file(const std::filesystem::path& file, const HardwareDb& db, const ModelParams& params = {},
                                  std::string_view kind = {});

// A file's cases loaded once and scored on demand with any parameters (what calibration evaluates
// many times); `keep` chooses cases by id (all when empty). `db` must outlive the scorer.
using CaseScorer = std::function<std::vector<CaseScore>(const ModelParams&)>;
CaseScorer case_scorer(const std::filesystem::path& file, const HardwareDb& db,
                       const std::function<bool(std::string_view id)>& keep = {}, std::string_view kind = {});

std::string_view name_of(MicrobenchKind k);

// The kinds a suite's cases score as (each suite's scorer names them), so that a kind filter skips
// the files that hold none without predicting their cases; empty for an unknown suite.
std::span<const std::string_view> suite_kinds(std::string_view suite);
// Every kind of every suite: what `validate --kind` can name.
std::vector<std::string_view> case_kinds();

}  // namespace perfcast
