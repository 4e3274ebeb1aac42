#pragma once
// `perfcast calibrate MEASURED... [--system NAME] -o profile.toml`: fit the models' named
// parameters to measured cases and write the calibration profile predict/sweep/validate take.
#include <CLI/CLI.hpp>
#include <functional>

#include "cli/hw_command.hpp"

namespace perfcast::cli {

void add_calibrate_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);

}  // namespace perfcast::cli
