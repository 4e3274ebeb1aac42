#include "cli/compare_command.hpp"

#include <fmt/format.h>
#include <memory>

#include "engine/api/answers.hpp"
#include "engine/sweep/compare.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/scenario_variants.hpp"
#include "engine/core/units.hpp"
#include "engine/writers/compare_writers.hpp"

namespace perfcast::cli {
namespace {

struct CompareOptions {
  CompareRequest request;
  std::string deadline, format = "table";
};

int run(const GlobalOptions& global, CompareOptions o) {
  if (!o.deadline.empty()) {
    units::Quantity q;
    try {
      q = units::parse_quantity(o.deadline);
    } catch (const UnitError& e) {
      throw InputError({}, fmt::format("--deadline '{}': {}", o.deadline, e.what()));
    }
    if (q.dimension != units::dim::seconds || !(q.value > 0))
      throw InputError({}, fmt::format("--deadline '{}': give a positive time such as 90d or 2160h", o.deadline));
    o.request.deadline_s = q.value;
  }
  HardwareDb db = HardwareDb::load(global.hardware_db);
  const api::CompareAnswer a = api::compare_answer(scenario_variants(o.request, db), o.request.scenario_file, o.request.deadline_s);
  const CompareReport& r = a.report;
  if (o.format == "json") fmt::print("{}\n", api::to_json(a).dump(2));
  else if (o.format == "csv") fmt::print("{}", compare_to_csv(r, a.bands));
  else fmt::print("{}", compare_to_table(r, a.bands));
  // A variant that could not be predicted is bad input: the table shows the row, stderr says which.
  int invalid = 0;
  for (const CompareRow& row : r.rows)
    if (!row.error.empty()) {
      ++invalid;
      fmt::print(stderr, "perfcast: error: {}: variant '{} · {} · {}': {}\n", o.request.scenario_file, row.hardware, row.cost,
                 row.region, row.error);
    }
  return invalid ? 2 : 0;
}

}  // namespace

void add_compare_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand("compare", "One workload across hardware, cloud offers or purchase, and regions: time, cost, energy, CO2e");
  cmd->add_option("scenario", o->request.scenario_file, "Training or inference scenario file")->required();
  cmd->add_option("--hardware", o->request.hardware,
                  "A [hardware] variant, e.g. \"system=dgx-b200,nodes=64\" (dotted keys such as parallelism.tp=8 override other tables); repeat");
  cmd->add_option("--cost", o->request.cost,
                  "A [cost] variant: \"offer=aws-p5.48xlarge\", \"cloud\" (cheapest on-demand offer for the hardware), \"purchase\", "
                  "\"offer=...,spot=true,spot_preemptions_per_day=2\"; repeat");
  cmd->add_option("--region", o->request.region, "A [region] variant, e.g. \"name=us-oregon\" or \"name=ca-quebec,pue=1.1\"; repeat");
  cmd->add_option("--deadline", o->deadline, "Training: rows whose expected wall time exceeds this miss, e.g. 90d");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
