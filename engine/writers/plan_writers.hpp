#pragma once
// `perfcast plan` (a training job's or a serving fleet's) as a table (the best rows, the Pareto front, what was dropped and why), JSON and CSV.
#include <nlohmann/json.hpp>
#include <string>

#include "engine/sweep/plan.hpp"
#include "engine/sweep/serving_plan.hpp"

namespace perfcast {

std::string plan_to_table(const PlanReport& r);
nlohmann::json plan_to_json(const PlanReport& r);
std::string plan_to_csv(const PlanReport& r);

std::string plan_to_table(const ServingPlanReport& r);
nlohmann::json plan_to_json(const ServingPlanReport& r);
std::string plan_to_csv(const ServingPlanReport& r);

}  // namespace perfcast
