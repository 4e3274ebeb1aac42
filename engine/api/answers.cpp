#include "engine/api/answers.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/api/request_limits.hpp"
#include "engine/calibrate/calibration.hpp"
#include "engine/calibrate/empirical_bands.hpp"
#include "engine/data/residual_table.hpp"
#include "engine/core/edit_distance.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/calibration_profile.hpp"
#include "engine/validate/validation.hpp"
#include "engine/predict/roofline.hpp"
#include "engine/sweep/inference_sweep.hpp"
#include "engine/sweep/training_sweep.hpp"
#include "engine/writers/calibration_writers.hpp"
#include "engine/writers/compare_writers.hpp"
#include "engine/writers/roofline_writers.hpp"
#include "engine/writers/sweep_writers.hpp"
#include "engine/writers/capacity_writers.hpp"
#include "engine/writers/inference_writers.hpp"
#include "engine/writers/memory_writers.hpp"
#include "engine/writers/record_writers.hpp"
#include "engine/writers/training_writers.hpp"
#include "engine/data/schema/field.hpp"

namespace perfcast::api {
namespace {

// A filter that matches no case in the files would score nothing and pass: refuse it, naming what is there.
void check_filters(const ValidateRequest& r, const std::vector<CaseScore>& all) {
  std::vector<std::string> kinds;
  bool source_seen = r.source.empty();
  for (const CaseScore& s : all) {
    if (std::find(kinds.begin(), kinds.end(), s.kind) == kinds.end()) kinds.push_back(s.kind);
    if (!source_seen && (r.kind.empty() || s.kind == r.kind) && s.source.find(r.source) != std::string::npos) source_seen = true;
  }
  if (!r.kind.empty() && std::find(kinds.begin(), kinds.end(), r.kind) == kinds.end())
    throw InputError({}, fmt::format("validate --kind '{}': no case of that kind in the files scored{}; their kinds: {}", r.kind,
                                     did_you_mean(r.kind, kinds), fmt::join(kinds, ", ")));
  if (!source_seen)
    throw InputError({}, fmt::format("validate --source '{}': no{} case's source contains it", r.source,
                                     r.kind.empty() ? "" : " " + r.kind));
}

// --uncertainty: the profile's draws as they are; uncalibrated, the bands first, the priors' draws beside.
void with_uncertainty(PredictAnswer& a, UncertaintyReport draws) {
  if (!a.bands) {
    a.uncertainty = std::move(draws);
    return;
  }
  a.uncertainty = empirical_uncertainty(*a.bands, draws);
  a.parameter_spread = std::move(draws);
}

}  // namespace

PredictAnswer predict(const Scenario& s, const PredictRequest& r) {
  check_request(r);
  const std::string order_text = r.order.empty() ? std::string(default_order()) : r.order;
  const auto order = parse_order(order_text);
  if (!order)
    throw InputError({}, fmt::format("--order '{}': give each of tp, cp, ep, dp, pp once, innermost first, joined by '-' (default {})",
                                     order_text, default_order()));
  const CalibrationProfile profile = r.calibration.empty() ? prior_profile() : load_calibration_profile(r.calibration);
  const ModelParams params = profile.model_params();
  PredictAnswer a;
  if (s.inference) {
    const InferenceOptions options = with_params(InferenceOptions{}, params);
    InferencePrediction p = predict_inference(s, options);
    if (!r.calibration.empty()) p.assumptions.push_back(profile_assumption(profile, s.hardware.accelerator));
    if (r.calibration.empty()) a.bands = inference_bands(s, p, shipped_residuals().cases);
    if (r.uncertainty) with_uncertainty(a, inference_uncertainty(s, options, profile, r.samples));
    a.prediction = std::move(p);
    return a;
  }
  const TrainingOptions options = with_params(TrainingOptions{.order = *order}, params);
  TrainingPrediction p = predict_training(s, options);
  // As inference refuses a batch that does not fit: a step time for a layout that cannot run is no answer.
  if (!p.memory.fits && !r.ignore_memory)
    throw InputError({s.file, 0, 0}, fmt::format("training: the layout does not fit in device memory: {} (perfcast memory shows each part; "
                                                 "--ignore-memory times it anyway)",
                                                 p.memory.verdict));
  if (!p.memory.fits) p.assumptions.push_back("timed though it does not fit in device memory (--ignore-memory): " + p.memory.verdict);
  if (!r.calibration.empty()) p.assumptions.push_back(profile_assumption(profile, s.hardware.accelerator));
  if (r.calibration.empty()) a.bands = training_bands(s, p, shipped_residuals().cases);
  if (r.uncertainty) with_uncertainty(a, training_uncertainty(s, options, profile, r.samples));
  a.prediction = std::move(p);
  return a;
}

nlohmann::json to_json(const PredictAnswer& a) {
  nlohmann::json j = std::holds_alternative<InferencePrediction>(a.prediction) ? inference_to_json(std::get<InferencePrediction>(a.prediction))
                                                                               : training_to_json(std::get<TrainingPrediction>(a.prediction));
  if (a.bands) j["bands"] = bands_json(*a.bands);
  if (a.uncertainty) j["uncertainty"] = uncertainty_json(*a.uncertainty);
  if (a.parameter_spread) j["parameter_spread"] = uncertainty_json(*a.parameter_spread);
  return j;
}

nlohmann::json memory(const Scenario& s) { return memory_to_json(memory_for_scenario(s)); }

CapacityAnswer capacity_answer(const Scenario& s, const CapacityRequest& r, bool risk_p90) {
  check_request(r);
  CapacityAnswer a{.report = capacity_for_scenario(s, r)};
  a.bands = capacity_bands(s, a.report, shipped_residuals().cases);
  if (risk_p90) a.risk_note = size_for_risk(a.report, a.bands);
  return a;
}

nlohmann::json to_json(const CapacityAnswer& a) {
  nlohmann::json j = capacity_to_json(a.report);
  j["bands"] = bands_json(a.bands);
  return j;
}

nlohmann::json capacity(const Scenario& s, const CapacityRequest& r) { return to_json(capacity_answer(s, r)); }

nlohmann::json roofline(const Scenario& s) { return roofline_to_json(roofline_for_scenario(s, nullptr, prior_profile().model_params().efficiency)); }

nlohmann::json sweep(const Scenario& s, const SweepAsk& a) {
  check_request(a);
  if (s.inference) {
    const ServeRequest r{.devices = a.devices, .objective = a.objective, .constraints = a.constraints, .pareto = a.pareto, .top = a.top,
                         .threads = a.threads};
    const ServeResult result = inference_sweep(s, r);
    const std::vector<InferencePrediction> best = predict_rows(s, result.best);
    return sweep_to_json(result, best, sweep_bands(s, result.best, best, shipped_residuals().cases));
  }
  const SweepRequest r{.devices = a.devices, .objective = a.objective, .constraints = a.constraints, .pareto = a.pareto, .top = a.top,
                       .threads = a.threads};
  const SweepResult result = perfcast::sweep(s, r);
  const std::vector<TrainingPrediction> best = predict_rows(s, result.best);
  return sweep_to_json(result, best, sweep_bands(s, result.best, best, shipped_residuals().cases));
}

CompareAnswer compare_answer(const std::vector<ScenarioVariant>& variants, const std::string& label, std::optional<double> deadline_s) {
  check_deadline(deadline_s);
  CompareAnswer a{.report = perfcast::compare(variants, label, deadline_s)};
  a.bands.resize(a.report.rows.size());
  for (std::size_t i = 0; i < a.report.rows.size() && i < variants.size(); ++i)
    if (a.report.rows[i].error.empty() && variants[i].scenario)
      a.bands[i] = compare_bands(*variants[i].scenario, a.report.rows[i], shipped_residuals().cases);
  return a;
}

nlohmann::json to_json(const CompareAnswer& a) { return compare_to_json(a.report, a.bands); }

nlohmann::json compare(const std::vector<ScenarioVariant>& variants, const std::string& label, std::optional<double> deadline_s) {
  return to_json(compare_answer(variants, label, deadline_s));
}

nlohmann::json residual_table(const ValidationReport& r) {
  return residual_table_json({.generated = "perfcast validate --write-residuals: the held-out cases of validation/ scored with the sourced defaults",
                              .cases = residuals_of(r.scores)});
}

ValidationReport validation_report(const ValidateRequest& q, const HardwareDb& db) {
  ValidationReport r;
  r.files = q.cases.empty() ? validation_files(default_validation_dir()) : std::vector<std::filesystem::path>{q.cases};
  auto wanted = [&](const CaseScore& s) {
    return (q.kind.empty() || s.kind == q.kind) && (q.source.empty() || s.source.find(q.source) != std::string::npos);
  };
  // A kind no suite has is refused before any case is predicted, with a profile or without.
  if (!q.kind.empty()) {
    const std::vector<std::string_view> known = case_kinds();
    if (std::find(known.begin(), known.end(), q.kind) == known.end()) {
      const std::vector<std::string> kinds(known.begin(), known.end());
      throw InputError({}, fmt::format("validate --kind '{}': not a kind of case{}; the kinds: {}", q.kind, did_you_mean(q.kind, kinds),
                                       fmt::join(kinds, ", ")));
    }
  }
  // With a profile: `before` holds the defaults' scores of the same cases, fitted ones not held-out.
  if (!q.calibration.empty()) {
    const CalibratedScores all = score_with_profile(r.files, db, load_calibration_profile(q.calibration));
    check_filters(q, all.after);
    CalibratedScores calibrated = keep_cases(all, wanted);  // counted over the kept cases, as the table shows them
    r.profile = q.calibration, r.fitted = calibrated.fitted, r.other_device = calibrated.other_device;
    r.scores = std::move(calibrated.after), r.before = std::move(calibrated.before);
    return r;
  }
  // A kind filter predicts only the cases of that kind (`validate --kind training` predicts no serving
  // case); all of them when none is of it, for check_filters' message.
  auto score = [&](std::string_view kind) {
    std::vector<CaseScore> out;
    for (const auto& file : r.files)
      for (CaseScore& s : score_file_with_case_profiles(file, db, kind)) out.push_back(std::move(s));
    return out;
  };
  std::vector<CaseScore> all = score(q.kind);
  if (!q.kind.empty() && all.empty()) all = score({});
  check_filters(q, all);
  for (CaseScore& s : all)
    if (wanted(s)) r.scores.push_back(std::move(s));
  return r;
}

std::vector<const Record*> hw_records(const HardwareDb& db, const std::string& kind) {
  if (!kind.empty() && !schema::find_kind(kind)) throw InputError({}, fmt::format("hw list '{}': not a kind of record", kind));
  std::vector<const Record*> out;
  for (const Record& r : db.records())
    if (kind.empty() || schema::schema_for(r.kind).name == kind) out.push_back(&r);
  return out;
}

nlohmann::json hw_list(const std::vector<const Record*>& records) {
  nlohmann::json items = nlohmann::json::array();
  for (const Record* r : records) items.push_back(record_to_json(*r));
  return items;
}

nlohmann::json hw_show(const HardwareDb& db, const std::string& name) { return record_to_json(db.record(name)); }

}  // namespace perfcast::api
