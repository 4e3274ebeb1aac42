#pragma once
// `perfcast ingest nccl-tests FILE... --system NAME`: measured output read into validation cases
// (TOML on stdout or -o FILE) that `perfcast validate --cases` scores.
#include <CLI/CLI.hpp>
#include <functional>

#include "cli/hw_command.hpp"

namespace perfcast::cli {

void add_ingest_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);

}  // namespace perfcast::cli
