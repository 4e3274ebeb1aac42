#pragma once
// `perfcast model import|show`: a Hugging Face config.json as a workload preset, and any
// transformer workload's architecture and parameter counts.
#include <CLI/CLI.hpp>
#include <functional>

#include "cli/hw_command.hpp"

namespace perfcast::cli {

void add_model_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);

}  // namespace perfcast::cli
