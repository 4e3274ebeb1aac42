#pragma once
// `perfcast comm`: a scenario's communication by parallel group (placement, traffic, time, overlap).
#include <CLI/CLI.hpp>
#include <functional>

#include "cli/hw_command.hpp"

namespace perfcast::cli {

void add_comm_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);

}  // namespace perfcast::cli
