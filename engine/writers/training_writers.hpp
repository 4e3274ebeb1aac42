#pragma once
// Training predictions as a terminal table, JSON (DESIGN.md "training.{...}" names) and CSV.
#include <nlohmann/json.hpp>
#include <string>

#include "engine/sweep/scaling.hpp"
#include "engine/predict/training.hpp"

namespace perfcast {

std::string training_to_table(const TrainingPrediction& p, bool detail);
nlohmann::json training_to_json(const TrainingPrediction& p);
std::string training_to_csv(const TrainingPrediction& p);

std::string scaling_to_table(const ScalingReport& r);
nlohmann::json scaling_to_json(const ScalingReport& r);
std::string scaling_to_csv(const ScalingReport& r);

}  // namespace perfcast
