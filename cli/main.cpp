// perfcast: argument parsing and printing only; the engine does the work.
// Exit codes: 0 ok, 1 usage error, 2 bad input (data file, scenario, unknown name), 3 internal error,
// 4 validate: a scored case left its tolerance band.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fmt/format.h>

#include "cli/capacity_command.hpp"
#include "cli/compare_command.hpp"
#include "cli/plan_command.hpp"
#include "cli/collective_command.hpp"
#include "cli/comm_command.hpp"
#include "cli/hw_command.hpp"
#include "cli/ingest_command.hpp"
#include "cli/calibrate_command.hpp"
#include "cli/memory_command.hpp"
#include "cli/model_command.hpp"
#include "cli/predict_command.hpp"
#include "cli/reference_command.hpp"
#include "cli/roofline_command.hpp"
#include "cli/serve_command.hpp"
#include "cli/sweep_command.hpp"
#include "cli/validate_command.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/hardware_db.hpp"
#include "perfcast/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"perfcast predicts what AI hardware will do for an AI workload, before anyone buys it.", "perfcast"};
  app.set_version_flag("--version", std::string("perfcast ") + perfcast::version);
  app.require_subcommand(1);
  perfcast::cli::GlobalOptions options{.hardware_db = perfcast::default_hardware_db_dir().string()};
  app.add_option("--db", options.hardware_db, "Hardware database directory")
      ->envname("PERFCAST_HARDWARE_DB")
      ->capture_default_str();
  std::function<int()> action;
  perfcast::cli::add_hw_command(app, options, action);
  perfcast::cli::add_predict_command(app, options, action);
  perfcast::cli::add_scaling_command(app, options, action);
  perfcast::cli::add_capacity_command(app, options, action);
  perfcast::cli::add_compare_command(app, options, action);
  perfcast::cli::add_plan_command(app, options, action);
  perfcast::cli::add_plan_merge_command(app, action);
  perfcast::cli::add_sweep_command(app, options, action);
  perfcast::cli::add_sweep_merge_command(app, options, action);
  perfcast::cli::add_roofline_command(app, options, action);
  perfcast::cli::add_memory_command(app, options, action);
  perfcast::cli::add_model_command(app, options, action);
  perfcast::cli::add_collective_command(app, options, action);
  perfcast::cli::add_comm_command(app, options, action);
  perfcast::cli::add_validate_command(app, options, action);
  perfcast::cli::add_ingest_command(app, options, action);
  perfcast::cli::add_calibrate_command(app, options, action);
  perfcast::cli::add_serve_command(app, options, action);
  perfcast::cli::add_report_command(app, options, action);
  perfcast::cli::add_fields_command(app, action);
  perfcast::cli::add_schema_command(app, action);
  perfcast::cli::add_stacks_command(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 1;
  }
  try {
    return action ? action() : 1;
  } catch (const perfcast::InputError& e) {
    fmt::print(stderr, "perfcast: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "perfcast: internal error: {}\n", e.what());
    return 3;
  }
}
