#include "cli/reference_command.hpp"

#include <fmt/format.h>
#include <memory>

#include "engine/core/errors.hpp"
#include "engine/data/schema/scenario.hpp"
#include "engine/writers/output_fields.hpp"
#include "engine/writers/stack_writers.hpp"

namespace perfcast::cli {
namespace {

struct FieldsOptions {
  std::string command, format = "table";
};

int run_fields(const FieldsOptions& o) {
  std::span<const CommandFields> commands = output_fields();
  if (!o.command.empty()) {
    const CommandFields* c = fields_of(o.command);
    if (!c) {
      std::string names;
      for (const CommandFields& x : output_fields()) names += (names.empty() ? "" : ", ") + std::string(x.command);
      throw InputError({}, fmt::format("fields: '{}' is not a command that writes fields (they are: {})", o.command, names));
    }
    commands = std::span<const CommandFields>(c, 1);
  }
  if (o.format == "json") fmt::print("{}\n", fields_to_json(commands));
  else if (o.format == "csv") fmt::print("{}", fields_to_csv(commands));
  else fmt::print("{}", fields_to_table(commands));
  return 0;
}

}  // namespace

void add_fields_command(CLI::App& app, std::function<int()>& action) {
  auto o = std::make_shared<FieldsOptions>();
  CLI::App* cmd = app.add_subcommand("fields", "Every field a command writes (JSON path or CSV column), with its unit and meaning");
  cmd->add_option("command", o->command, "One command (predict, sweep, ...); default: all");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->callback([&action, o] { action = [o] { return run_fields(*o); }; });
}

void add_schema_command(CLI::App& app, std::function<int()>& action) {
  auto format = std::make_shared<std::string>("markdown");
  CLI::App* cmd = app.add_subcommand("schema", "The scenario file's keys: type, unit, default, range and meaning (docs/scenario-format.md)");
  cmd->add_option("kind", "What to describe")->check(CLI::IsMember({"scenario"}))->required();
  cmd->add_option("--format", *format, "Output format")->check(CLI::IsMember({"markdown", "json"}))->capture_default_str();
  cmd->callback([&action, format] {
    action = [format] {
      fmt::print("{}", *format == "json" ? schema::scenario_schema_json() + "\n" : schema::scenario_schema_markdown());
      return 0;
    };
  });
}

void add_stacks_command(CLI::App& app, std::function<int()>& action) {
  auto format = std::make_shared<std::string>("markdown");
  CLI::App* cmd = app.add_subcommand("stacks", "Training stacks: the layouts, overlaps and bytes per parameter of each (docs/stacks.md)");
  cmd->add_option("--format", *format, "Output format")->check(CLI::IsMember({"markdown", "json"}))->capture_default_str();
  cmd->callback([&action, format] {
    action = [format] {
      fmt::print("{}", *format == "json" ? stacks_json() + "\n" : stacks_markdown());
      return 0;
    };
  });
}

}  // namespace perfcast::cli
