#include "cli/comm_command.hpp"

#include <fmt/format.h>
#include <memory>

#include "engine/predict/communication.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/hardware_db.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/writers/communication_writers.hpp"

namespace perfcast::cli {
namespace {

struct CommOptions {
  std::string scenario, order{default_order()}, format = "table";
};

int run(const GlobalOptions& global, const CommOptions& o) {
  auto order = parse_order(o.order);
  if (!order)
    throw InputError({}, fmt::format("--order '{}': give each of tp, cp, ep, dp, pp once, innermost first, joined by '-' "
                                     "(default {})", o.order, default_order()));
  HardwareDb db = HardwareDb::load(global.hardware_db);
  Scenario s = load_scenario(o.scenario, default_workloads_dir(), db);
  CommunicationReport r = communication_for_scenario(s, *order, models::default_collective_params());
  if (o.format == "json") fmt::print("{}\n", communication_to_json(r).dump(2));
  else if (o.format == "csv") fmt::print("{}", communication_to_csv(r));
  else fmt::print("{}", communication_to_table(r));
  return 0;
}

}  // namespace

void add_comm_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<CommOptions>();
  CLI::App* cmd = app.add_subcommand("comm", "Communication by parallel group: placement, links, bytes, time and overlap");
  cmd->add_option("scenario", o->scenario, "Scenario file")->required();
  cmd->add_option("--order", o->order, "Placement order of the parallel dimensions, innermost first")->capture_default_str();
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
