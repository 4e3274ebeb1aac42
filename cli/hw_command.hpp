#pragma once
// `perfcast hw list|show|check`: browse the hardware database and validate data files.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace perfcast::cli {

struct GlobalOptions {
  std::string hardware_db;  // --db / PERFCAST_HARDWARE_DB, default: the source tree's hardware_db/
};

// Adds the `hw` subcommand; when it is chosen, `action` is set to the function that runs it.
void add_hw_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);

}  // namespace perfcast::cli
