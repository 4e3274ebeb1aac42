#pragma once
// `perfcast plan-merge`: the shards of one plan (`plan --shard i/N`, each written as JSON) combined
// into what one run of the whole plan gives — its counts summed, its best rows and Pareto front
// ranked again from the shards' (a row in the whole plan's best or front is in its shard's), ties
// broken by each row's place in the whole search.
#include <string>
#include <vector>

#include "engine/sweep/plan.hpp"
#include "engine/sweep/serving_plan.hpp"

namespace perfcast {

// Throws InputError naming the file when the files are not every shard of one plan exactly once.
PlanReport merge_plans(const std::vector<PlanReport>& shards, const std::vector<std::string>& files);
ServingPlanReport merge_plans(const std::vector<ServingPlanReport>& shards, const std::vector<std::string>& files);

}  // namespace perfcast
