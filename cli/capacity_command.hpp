#pragma once
// `perfcast capacity SCENARIO --rate 200 --ttft-slo 1s --tpot-slo 50ms`: the load one replica takes
// within the SLOs, and the replicas (devices) a target rate needs.
#include <CLI/CLI.hpp>
#include <functional>

#include "cli/hw_command.hpp"

namespace perfcast::cli {

void add_capacity_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);

}  // namespace perfcast::cli
