#pragma once
// `perfcast plan SCENARIO [--accelerators ...] [--nodes 1:4096] [--payment cloud,spot,purchase]
// [--regions ...] [--deadline 60d] [--budget '$5M'] [--max-devices N] [--objective cost|time|co2]
// [--pareto time,cost,co2] [--top 20] [--shard i/N]`: what to rent or buy for a training job, or (an
// [inference] scenario with --rate and SLOs) the cheapest serving fleet. `perfcast plan-merge
// SHARD.json...` combines the shards of one plan.
#include <CLI/CLI.hpp>
#include <functional>

#include "cli/hw_command.hpp"

namespace perfcast::cli {

void add_plan_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);
void add_plan_merge_command(CLI::App& app, std::function<int()>& action);

}  // namespace perfcast::cli
