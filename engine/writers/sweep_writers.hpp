#pragma once
// Sweep results as a terminal table, JSON (what `sweep-merge` reads back) and CSV. The best rows
// carry their full predictions (`predict` on that layout) and, when given (parallel to them), their
// empirical bands (sweep_bands).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/calibrate/headline_bands.hpp"
#include "engine/sweep/inference_sweep.hpp"
#include "engine/sweep/training_sweep.hpp"

namespace perfcast {

std::string sweep_to_table(const SweepResult& r, const std::vector<TrainingPrediction>& best, const std::vector<HeadlineBands>& bands = {});
nlohmann::json sweep_to_json(const SweepResult& r, const std::vector<TrainingPrediction>& best, const std::vector<HeadlineBands>& bands = {});
std::string sweep_to_csv(const SweepResult& r);

// The inference sweep: best serving layouts with their full predictions, the front, the drops.
std::string sweep_to_table(const ServeResult& r, const std::vector<InferencePrediction>& best, const std::vector<HeadlineBands>& bands = {});
nlohmann::json sweep_to_json(const ServeResult& r, const std::vector<InferencePrediction>& best, const std::vector<HeadlineBands>& bands = {});
std::string sweep_to_csv(const ServeResult& r);

// A shard written by sweep_to_json; InputError naming `file` when it is not one.
SweepResult sweep_from_json(const nlohmann::json& j, const std::string& file);

}  // namespace perfcast
