#include "cli/serve_command.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <memory>

#include "cli/option_checks.hpp"
#include "cli/output_file.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/data/workload_reader.hpp"
#include "web/report.hpp"
#include "web/server.hpp"
#include "web/site.hpp"

namespace perfcast::cli {
namespace {

struct ReportOptions {
  std::string scenario, output;
};

int serve(const GlobalOptions& global, const web::ServeOptions& o) {
  const web::Site site(global.hardware_db, default_workloads_dir().parent_path());
  web::serve(site, o, [&o](int port) {
    fmt::print("perfcast serve: http://{}:{}/ (Ctrl-C stops)\n", o.host, port);
    if (o.host != "127.0.0.1" && o.host != "localhost" && o.host != "::1")
      fmt::print(stderr, "perfcast serve: listening beyond this machine on {}: anyone who reaches it can run predictions\n", o.host);
    std::fflush(stdout);
  });
  return 0;
}

int report(const GlobalOptions& global, const ReportOptions& o) {
  OutputFile out(o.output, "report file", {o.scenario});  // refused before the report is computed
  const HardwareDb db = HardwareDb::load(global.hardware_db);
  const Scenario s = load_scenario(o.scenario, default_workloads_dir(), db);
  out.commit(web::report_html(s, o.scenario, db));
  fmt::print("wrote {}\n", o.output);
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<web::ServeOptions>();
  CLI::App* cmd = app.add_subcommand("serve", "A what-if web page and JSON API (/api/predict, memory, capacity, roofline, sweep, compare, hw, validate)");
  cmd->add_option("--port", o->port, "TCP port (0: any free port, printed)")->check(CLI::Range(0, 65535))->capture_default_str();
  cmd->add_option("--host", o->host, "Address to listen on; anything but loopback serves other machines")->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return serve(options, *o); }; });
}

void add_report_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("report", "One standalone HTML file: prediction, charts, assumptions, sources and measured error");
  cmd->add_option("scenario", o->scenario, "Scenario file")->required();
  cmd->add_option("-o,--output", o->output, "The HTML file to write")->check(output_path())->required();
  cmd->callback([&action, &options, o] { action = [&options, o] { return report(options, *o); }; });
}

}  // namespace perfcast::cli
