#pragma once
// `perfcast sweep SCENARIO`: every training layout ranked by an objective under constraints, the
// Pareto front, and how far the scenario's own layout is from the best; `perfcast sweep-merge`
// combines the JSON of --shard i/N runs into the result of one run.
#include <CLI/CLI.hpp>
#include <functional>

#include "cli/hw_command.hpp"

namespace perfcast::cli {

void add_sweep_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);
void add_sweep_merge_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);

}  // namespace perfcast::cli
