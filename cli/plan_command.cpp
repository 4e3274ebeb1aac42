#include "cli/plan_command.hpp"

#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <tuple>

#include "engine/core/errors.hpp"
#include "engine/core/units.hpp"
#include "engine/data/calibration_profile.hpp"
#include "engine/data/plan_candidates.hpp"
#include "engine/sweep/plan.hpp"
#include "engine/sweep/scaling.hpp"
#include "engine/writers/plan_writers.hpp"

namespace perfcast::cli {
namespace {

struct PlanOptions {
  std::string scenario, accelerators = "all", nodes = "1:4096", payment = "cloud,spot,purchase", regions = "all";
  std::string deadline, budget, objective = "cost", pareto = "time,cost,co2", shard, format = "table", calibration;
  int max_devices = 0, top = 20, threads = 0;
};

std::vector<std::string> words(const std::string& text, std::string_view option) {
  std::vector<std::string> out;
  std::string word;
  for (char c : text + ",") {
    if (c == ',') {
      if (word.empty()) throw InputError({}, fmt::format("{} '{}': an empty item (two commas, or a trailing one)", option, text));
      out.push_back(word);
      word.clear();
    } else if (c != ' ') {
      word += c;
    }
  }
  return out;
}

double positive(const std::string& text, units::Dimension want, std::string_view option, std::string_view example) {
  units::Quantity q;
  try {
    q = units::parse_quantity(text);
  } catch (const UnitError& e) {
    throw InputError({}, fmt::format("{} '{}': {}", option, text, e.what()));
  }
  if (q.dimension != want || !(q.value > 0) || !std::isfinite(q.value))
    throw InputError({}, fmt::format("{} '{}': give a positive amount such as {}", option, text, example));
  return q.value;
}

int run(const GlobalOptions& global, const PlanOptions& o) {
  PlanSpace space;
  if (o.accelerators != "all") space.accelerators = words(o.accelerators, "--accelerators");
  if (o.regions != "all") space.regions = words(o.regions, "--regions");
  space.payments.clear();
  for (const std::string& p : words(o.payment, "--payment")) {
    if (p == "cloud") space.payments.push_back(Payment::cloud);
    else if (p == "spot") space.payments.push_back(Payment::spot);
    else if (p == "purchase") space.payments.push_back(Payment::purchase);
    else throw InputError({}, fmt::format("--payment '{}': give cloud, spot or purchase, comma-separated", p));
  }
  space.nodes = parse_device_counts(o.nodes, "--nodes");
  PlanRequest r;
  if (!o.deadline.empty()) r.deadline_s = positive(o.deadline, units::dim::seconds, "--deadline", "60d or 1440h");
  if (!o.budget.empty()) r.budget_usd = positive(o.budget, units::dim::usd, "--budget", "'$5M'");
  if (o.max_devices > 0) r.max_devices = o.max_devices;
  r.objective = plan_metric(o.objective, "--objective");
  r.pareto.clear();
  if (o.pareto != "none")
    for (const std::string& m : words(o.pareto, "--pareto")) r.pareto.push_back(plan_metric(m, "--pareto"));
  r.top = o.top;
  r.threads = o.threads;
  if (!o.shard.empty()) std::tie(r.shard, r.shards) = parse_shard(o.shard);
  HardwareDb db = HardwareDb::load(global.hardware_db);
  const PlanCandidates candidates = plan_candidates(o.scenario, space, db);
  const TrainingOptions options = with_params(TrainingOptions{}, profile_params(o.calibration));
  const PlanReport report = plan(candidates, o.scenario, space.nodes, r, options);
  if (o.format == "json") fmt::print("{}\n", plan_to_json(report).dump(2));
  else if (o.format == "csv") fmt::print("{}", plan_to_csv(report));
  else fmt::print("{}", plan_to_table(report));
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand("plan", "What to rent or buy for a training job: every system of the database x node counts x the layouts "
                                             "its stack runs x cloud offers, spot and purchase x regions, ranked, with the Pareto front");
  cmd->add_option("scenario", o->scenario, "Training scenario with [training] tokens (its layout, [cost] and [region] are searched)")->required();
  cmd->add_option("--accelerators", o->accelerators, "all, or accelerators whose systems to search, e.g. h100-sxm,b200")->capture_default_str();
  cmd->add_option("--nodes", o->nodes, "Node counts: N, FIRST:LAST[:FACTOR] (powers of two by default), or 16,32,48")->capture_default_str();
  cmd->add_option("--payment", o->payment, "Ways of paying: cloud (on-demand offers), spot, purchase (on-prem TCO)")->capture_default_str();
  cmd->add_option("--regions", o->regions, "all, or regions: purchases are built there, offers outside them are left out")->capture_default_str();
  cmd->add_option("--deadline", o->deadline, "Rows whose expected wall time exceeds this are dropped, e.g. 60d");
  cmd->add_option("--budget", o->budget, "Rows paying out more are dropped (the rent, or a purchase's capex), e.g. '$5M'");
  cmd->add_option("--max-devices", o->max_devices, "At most this many devices")->check(CLI::Range(1, 100000000));
  cmd->add_option("--objective", o->objective, "Rank by cost, time or co2")->capture_default_str();
  cmd->add_option("--pareto", o->pareto, "Metrics of the Pareto front (two or three of time, cost, co2), or none")->capture_default_str();
  cmd->add_option("--top", o->top, "Best rows to show")->capture_default_str()->check(CLI::Range(0, 100000));
  cmd->add_option("--shard", o->shard, "Search shard i of N (i/N) of the system x node-count units");
  cmd->add_option("--threads", o->threads, "Worker threads per layout sweep (0: every core)")->capture_default_str()->check(CLI::Range(0, 4096));
  cmd->add_option("--calibration", o->calibration, "A calibration profile (perfcast calibrate -o) to predict every layout with");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
