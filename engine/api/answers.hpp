#pragma once
// Each command's question, answered from parsed inputs as the JSON its `--format json` prints:
// what the CLI, the Python module (python/) and a web API share, so each answer is computed in
// one place. The front ends only parse their inputs and print or return these.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/calibrate/headline_bands.hpp"
#include "engine/calibrate/uncertainty.hpp"
#include "engine/data/hardware_db.hpp"
#include "engine/predict/capacity.hpp"
#include "engine/sweep/compare.hpp"
#include "engine/predict/inference.hpp"
#include "engine/predict/training.hpp"
#include "engine/spec/scenario.hpp"
#include "engine/writers/validation_writers.hpp"

namespace perfcast::api {

struct PredictRequest {
  std::string calibration;  // a calibration profile file ("": the sourced defaults)
  std::string order;        // placement order of the parallel dimensions ("": the default)
  bool uncertainty = false; // P10/P50/P90 from the parameters' spread
  int samples = 200;
  bool ignore_memory = false; // training: time a layout the memory model says does not fit (else an InputError)
};

struct PredictAnswer {
  std::variant<TrainingPrediction, InferencePrediction> prediction;
  // The headline figures' empirical bands (F-UNC-2); none with a calibration profile, whose own
  // spread --uncertainty reports.
  std::optional<HeadlineBands> bands;
  // --uncertainty: uncalibrated, the bands (and the priors' spread where no case judges a figure),
  // with the priors' spread of every figure in parameter_spread; calibrated, the profile's spread.
  std::optional<UncertaintyReport> uncertainty, parameter_spread;
};

// `predict`: InputError for a bad order or profile, or what the models refuse.
PredictAnswer predict(const Scenario& s, const PredictRequest& r);
nlohmann::json to_json(const PredictAnswer& a);

// `capacity`: the report and its empirical bands; `risk_p90` sizes the replicas for the bands' slow end
// (InputError without a target rate or a band), `risk_note` then saying so.
struct CapacityAnswer {
  CapacityReport report;
  HeadlineBands bands;
  std::string risk_note;
};
CapacityAnswer capacity_answer(const Scenario& s, const CapacityRequest& r, bool risk_p90 = false);
nlohmann::json to_json(const CapacityAnswer& a);

// `memory`, `capacity` (capacity_answer's JSON), `roofline SCENARIO` (the sourced efficiencies).
nlohmann::json memory(const Scenario& s);
nlohmann::json capacity(const Scenario& s, const CapacityRequest& r);
nlohmann::json roofline(const Scenario& s);

// `sweep`: the layouts of a training or a serving scenario, ranked, with the predicted rows of the best.
struct SweepAsk {
  std::vector<int> devices;              // device counts to search (empty: the scenario's)
  std::string objective = "time";
  int top = 20;
  std::vector<std::string> pareto, constraints;
  int threads = 0;                       // 0: one per core
};
nlohmann::json sweep(const Scenario& s, const SweepAsk& r);

// `compare`: the scenario's variants (engine/data/scenario_variants) predicted side by side, each row's
// figures with their empirical bands (`bands[i]` row i's; empty for a row that could not be predicted).
struct CompareAnswer {
  CompareReport report;
  std::vector<HeadlineBands> bands;
};
CompareAnswer compare_answer(const std::vector<ScenarioVariant>& variants, const std::string& label, std::optional<double> deadline_s);
nlohmann::json to_json(const CompareAnswer& a);
nlohmann::json compare(const std::vector<ScenarioVariant>& variants, const std::string& label, std::optional<double> deadline_s);

struct ValidateRequest {
  std::string cases;        // a case file ("": every file of the shipped validation/)
  std::string kind, source; // filters ("": all); a filter matching no case is an InputError
  std::string calibration;  // score with this profile beside the defaults
};
// `validate`: the cases scored.
ValidationReport validation_report(const ValidateRequest& r, const HardwareDb& db);
// `validate --write-residuals`: the held-out residuals of the report (engine/data/residual_table's format).
nlohmann::json residual_table(const ValidationReport& r);

// `hw list [KIND]` (the records of a kind, "" all; InputError for an unknown kind), `hw show NAME`.
std::vector<const Record*> hw_records(const HardwareDb& db, const std::string& kind);
nlohmann::json hw_list(const std::vector<const Record*>& records);
nlohmann::json hw_show(const HardwareDb& db, const std::string& name);

}  // namespace perfcast::api
