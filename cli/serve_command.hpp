#pragma once
// `perfcast serve`: the what-if page and its JSON API (web/); `perfcast report`: one standalone HTML file.
#include <CLI/CLI.hpp>
#include <functional>

#include "cli/hw_command.hpp"

namespace perfcast::cli {

void add_serve_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);
void add_report_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action);

}  // namespace perfcast::cli
