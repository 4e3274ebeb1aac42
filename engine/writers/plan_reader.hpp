#pragma once
// A plan shard read back from the JSON `perfcast plan --format json` wrote (what `plan-merge`
// combines): the training or serving report, its rows through the plan columns. Anything that is
// not such a file is an InputError naming the file and the key.
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "engine/sweep/plan.hpp"
#include "engine/sweep/serving_plan.hpp"

namespace perfcast {

using PlanShard = std::variant<PlanReport, ServingPlanReport>;
PlanShard plan_from_json(const nlohmann::json& doc, const std::string& file);

}  // namespace perfcast
