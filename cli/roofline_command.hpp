#pragma once
// `perfcast roofline`: per-op roofline of a scenario, a workload preset or one op on a device.
#include <CLI/CLI.hpp>
#include <functional>

#include "cli/hw_command.hpp"

namespace perfcast::cli {

void add_roofline_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);

}  // namespace perfcast::cli
