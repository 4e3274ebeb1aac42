#pragma once
// `perfcast compare SCENARIO --hardware ... --cost ... --region ... [--deadline 90d]`: one workload
// across hardware, ways of paying and regions, with the best of each column.
#include <CLI/CLI.hpp>
#include <functional>

#include "cli/hw_command.hpp"

namespace perfcast::cli {

void add_compare_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);

}  // namespace perfcast::cli
