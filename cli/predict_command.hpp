#pragma once
// `perfcast predict SCENARIO`: the training prediction — step time, throughput, MFU/HFU, where the
// time goes, the bottleneck, memory, time-to-train and goodput.
#include <CLI/CLI.hpp>
#include <functional>

#include "cli/hw_command.hpp"

namespace perfcast::cli {

void add_predict_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);
// `perfcast scaling SCENARIO --devices 8:16384:2`: strong/weak scaling and the Amdahl/Gustafson fits.
void add_scaling_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);

}  // namespace perfcast::cli
