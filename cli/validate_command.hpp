#pragma once
// `perfcast validate`: score the models' predictions against the cases in validation/.
#include <CLI/CLI.hpp>
#include <functional>

#include "cli/hw_command.hpp"

namespace perfcast::cli {

void add_validate_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);

}  // namespace perfcast::cli
