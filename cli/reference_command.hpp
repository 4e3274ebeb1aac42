#pragma once
// `perfcast fields [COMMAND]`: every output field with its unit and meaning; `perfcast schema
// scenario`: every scenario key with its type, unit, default and range; `perfcast stacks`: what
// each training stack runs.
#include "cli/hw_command.hpp"

namespace perfcast::cli {

void add_fields_command(CLI::App& app, std::function<int()>& action);
void add_schema_command(CLI::App& app, std::function<int()>& action);
void add_stacks_command(CLI::App& app, std::function<int()>& action);

}  // namespace perfcast::cli
