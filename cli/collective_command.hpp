#pragma once
// `perfcast collective`: a collective over a size range on a system, shaped like nccl-tests output.
#include <CLI/CLI.hpp>
#include <functional>

#include "cli/hw_command.hpp"

namespace perfcast::cli {

void add_collective_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);

}  // namespace perfcast::cli
