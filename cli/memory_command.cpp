#include "cli/memory_command.hpp"

#include <fmt/format.h>
#include <memory>

#include "cli/output_file.hpp"
#include "engine/data/hardware_db.hpp"
#include "engine/predict/memory.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/writers/memory_writers.hpp"

namespace perfcast::cli {
namespace {

struct MemoryOptions {
  std::string scenario, format = "table", svg;
  bool detail = false;
};

int run(const GlobalOptions& global, const MemoryOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  Scenario s = load_scenario(o.scenario, default_workloads_dir(), db);
  MemoryReport r = memory_for_scenario(s);
  if (!o.svg.empty()) write_output_file(o.svg, memory_to_svg(r), "SVG file");
  if (o.format == "json") fmt::print("{}\n", memory_to_json(r).dump(2));
  else if (o.format == "csv") fmt::print("{}", memory_to_csv(r));
  else fmt::print("{}", memory_to_table(r, o.detail));
  return 0;
}

}  // namespace

void add_memory_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<MemoryOptions>();
  CLI::App* cmd = app.add_subcommand("memory", "Memory per device by component: does the scenario fit, and what would make it fit");
  cmd->add_option("scenario", o->scenario, "Scenario file")->required();
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->add_option("--svg", o->svg, "Also write the breakdown as a stacked bar to this SVG file");
  cmd->add_flag("--detail", o->detail, "Also print one layer's saved tensors and the assumptions");
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
