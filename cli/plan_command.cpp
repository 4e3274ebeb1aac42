#include "cli/plan_command.hpp"

#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <tuple>
#include <type_traits>
#include <variant>

#include "cli/option_checks.hpp"
#include "cli/output_file.hpp"
#include "engine/api/request_limits.hpp"
#include "engine/calibrate/headline_bands.hpp"
#include "engine/core/errors.hpp"
#include "engine/core/units.hpp"
#include "engine/data/calibration_profile.hpp"
#include "engine/data/plan_candidates.hpp"
#include "engine/data/residual_table.hpp"
#include "engine/core/input_file.hpp"
#include "engine/sweep/plan.hpp"
#include "engine/sweep/plan_merge.hpp"
#include "engine/sweep/serving_plan.hpp"
#include "engine/sweep/scaling.hpp"
#include "engine/writers/plan_reader.hpp"
#include "engine/writers/plan_writers.hpp"

namespace perfcast::cli {
namespace {

struct PlanOptions {
  std::string scenario, accelerators = "all", nodes, payment = "cloud,spot,purchase", regions = "all";
  std::string deadline, budget, objective = "cost", pareto = "time,cost,co2", shard, format = "table", calibration, risk = "p50";
  int max_devices = 0, top = 20, threads = 0;
  // Serving scenarios
  std::string ttft_slo, tpot_slo, dtypes;
  std::optional<double> rate, percentile;
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

std::vector<PlanMetric> pareto_metrics(const std::string& text) {
  std::vector<PlanMetric> out;
  if (text != "none")
    for (const std::string& m : words(text, "--pareto")) out.push_back(plan_metric(m, "--pareto"));
  return out;
}

template <class Report>
void print(const Report& report, const std::string& format) {
  if (format == "json") fmt::print("{}\n", plan_to_json(report).dump(2));
  else if (format == "csv") fmt::print("{}", plan_to_csv(report));
  else fmt::print("{}", plan_to_table(report));
}

// The options a training and a serving plan share: the device cap, ranking, threads and shard.
template <class Request>
void set_ranking(Request& r, const PlanOptions& o) {
  if (o.max_devices > 0) r.max_devices = o.max_devices;
  r.objective = plan_metric(o.objective, "--objective");
  r.pareto = pareto_metrics(o.pareto);
  r.top = o.top;
  r.threads = o.threads;
  r.calibration = o.calibration;
  if (!o.shard.empty()) std::tie(r.shard, r.shards) = parse_shard(o.shard);
}

// Each row's empirical band (`bands` of the shipped residuals) and --risk. The bands describe the sourced
// defaults: a calibrated plan carries none, and --risk p90 is refused with a profile (its own spread is
// predict --uncertainty's).
template <class Request>
void set_risk(Request& r, const PlanOptions& o, SlownessOf (*bands)(std::span<const Residual>)) {
  if (o.calibration.empty()) r.slowness = bands(shipped_residuals().cases);
  else if (o.risk == "p90")
    throw InputError({}, "--risk p90: the empirical bands describe the sourced defaults, not a calibration profile; drop --calibration, "
                         "or see the profile's spread with perfcast predict --uncertainty");
  r.risk_p90 = o.risk == "p90";
}

// --budget: money for a training job (the rent or capex), money per hour for a serving fleet.
std::optional<double> budget(const std::string& text, bool serving) {
  if (text.empty()) return std::nullopt;
  return serving ? positive(text, units::dim::usd_per_second, "--budget", "'$400/h' (a serving fleet's cost per hour)")
                 : positive(text, units::dim::usd, "--budget", "'$5M'");
}

int run_serving(const PlanOptions& o, const PlanCandidates& candidates) {
  if (!o.deadline.empty()) throw InputError({}, "--deadline: a serving plan has no job to finish (it is bounded by the rate and the SLOs)");
  if (!o.nodes.empty()) throw InputError({}, "--nodes: a serving plan sizes the fleet itself (bound it with --max-devices)");
  ServingPlanRequest r;
  r.rate = o.rate;
  if (!o.ttft_slo.empty()) r.ttft_slo_s = positive(o.ttft_slo, units::dim::seconds, "--ttft-slo", "1s");
  if (!o.tpot_slo.empty()) r.tpot_slo_s = positive(o.tpot_slo, units::dim::seconds, "--tpot-slo", "50ms");
  r.percentile = o.percentile;
  if (!o.dtypes.empty())
    for (const std::string& d : words(o.dtypes, "--dtypes")) {
      const auto p = precision_from(d);
      if (!p || bytes_per_element(*p) > 2)
        throw InputError({}, fmt::format("--dtypes '{}': not a weight dtype (bf16, fp16, fp8, int8, fp6, int4, fp4)", d));
      r.weight_dtypes.push_back(*p);
    }
  r.budget_usd_per_hour = budget(o.budget, true);
  set_ranking(r, o);
  set_risk(r, o, serving_rate_slowness);
  const InferenceOptions options = with_params(InferenceOptions{}, profile_params(o.calibration));
  print(serving_plan(candidates, o.scenario, r, options), o.format);
  return 0;
}

int run_training(const PlanOptions& o, const PlanCandidates& candidates, const std::vector<int>& nodes) {
  for (const auto& [given, option] : {std::pair{!o.ttft_slo.empty(), "--ttft-slo"}, {!o.tpot_slo.empty(), "--tpot-slo"},
                                      {o.rate.has_value(), "--rate"}, {o.percentile.has_value(), "--percentile"}, {!o.dtypes.empty(), "--dtypes"}})
    if (given) throw InputError({}, fmt::format("{}: plans a serving fleet; the scenario is a training job", option));
  PlanRequest r;
  if (!o.deadline.empty()) r.deadline_s = positive(o.deadline, units::dim::seconds, "--deadline", "60d or 1440h");
  r.budget_usd = budget(o.budget, false);
  set_ranking(r, o);
  set_risk(r, o, training_step_slowness);
  const TrainingOptions options = with_params(TrainingOptions{}, profile_params(o.calibration));
  print(plan(candidates, o.scenario, nodes, r, options), o.format);
  return 0;
}

int run(const GlobalOptions& global, const PlanOptions& o) {
  PlanSpace space;
  if (o.accelerators != "all") space.accelerators = words(o.accelerators, "--accelerators");
  if (o.regions != "all") space.regions = words(o.regions, "--regions");
  space.payments.clear();
  for (const std::string& p : words(o.payment, "--payment")) {
    const std::optional<Payment> kind = payment_named(p);
    if (!kind) throw InputError({}, fmt::format("--payment '{}': give cloud, spot or purchase, comma-separated", p));
    space.payments.push_back(*kind);
  }
  space.nodes = parse_device_counts(o.nodes.empty() ? "1:4096" : o.nodes, "--nodes");
  HardwareDb db = HardwareDb::load(global.hardware_db);
  const PlanCandidates candidates = plan_candidates(o.scenario, space, db);
  return candidates.serving ? run_serving(o, candidates) : run_training(o, candidates, space.nodes);
}

struct MergeOptions {
  std::vector<std::string> files;
  std::string format = "table";
};

template <class Report>
std::vector<Report> shards_of_kind(const std::vector<PlanShard>& shards, const std::vector<std::string>& files) {
  std::vector<Report> out;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    if (!std::holds_alternative<Report>(shards[i]))
      throw InputError({files[i], 0, 0}, fmt::format("a {} plan, but {} is a {} plan", std::is_same_v<Report, PlanReport> ? "serving" : "training",
                                                      files[0], std::is_same_v<Report, PlanReport> ? "training" : "serving"));
    out.push_back(std::get<Report>(shards[i]));
  }
  return out;
}

int run_merge(const MergeOptions& o) {
  std::vector<PlanShard> shards;
  for (const std::string& f : o.files)
    shards.push_back(plan_from_json(read_shard_json(f, "plan shard", "write shards with perfcast plan --format json --shard i/N"), f));
  if (std::holds_alternative<PlanReport>(shards.front())) print(merge_plans(shards_of_kind<PlanReport>(shards, o.files), o.files), o.format);
  else print(merge_plans(shards_of_kind<ServingPlanReport>(shards, o.files), o.files), o.format);
  return 0;
}

}  // namespace

void add_plan_merge_command(CLI::App& app, std::function<int()>& action) {
  auto o = std::make_shared<MergeOptions>();
  CLI::App* cmd = app.add_subcommand("plan-merge", "Combine the JSON outputs of plan --shard i/N runs into what one run of the plan gives");
  cmd->add_option("files", o->files, "Shard JSON files")->required();
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->callback([&action, o] { action = [o] { return run_merge(*o); }; });
}

void add_plan_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand("plan", "What to rent or buy: for a training job, every system of the database x node counts x the "
                                             "layouts its stack runs x cloud offers, spot and purchase x regions; for a served model, the "
                                             "cheapest fleet of replicas meeting the SLOs at a rate; ranked, with the Pareto front");
  cmd->add_option("scenario", o->scenario, "Training scenario with [training] tokens, or an [inference] scenario (its layout, [cost] and "
                                           "[region] are searched)")->required();
  cmd->add_option("--accelerators", o->accelerators, "all, or accelerators whose systems to search, e.g. h100-sxm,b200")->capture_default_str();
  cmd->add_option("--nodes", o->nodes, "Training: node counts, N, FIRST:LAST[:FACTOR] (powers of two by default), or 16,32,48 (default 1:4096)");
  cmd->add_option("--payment", o->payment, "Ways of paying: cloud (on-demand offers), spot, purchase (on-prem TCO)")->capture_default_str();
  cmd->add_option("--regions", o->regions, "all, or regions: purchases are built there, offers outside them are left out")->capture_default_str();
  cmd->add_option("--deadline", o->deadline, "Training: rows whose expected wall time exceeds this are dropped, e.g. 60d");
  cmd->add_option("--budget", o->budget, "Rows paying out more are dropped: training, the rent or a purchase's capex, e.g. '$5M'; serving, "
                                         "the cost per hour, e.g. '$400/h'");
  cmd->add_option("--max-devices", o->max_devices, "At most this many devices")->check(CLI::Range(1, 100000000));
  cmd->add_option("--objective", o->objective, "Rank by cost, time or co2 (serving: cost and CO2e per hour, time the E2E latency at the "
                                               "SLO percentile)")->capture_default_str();
  cmd->add_option("--rate", o->rate, "Serving: requests/s over the fleet (default: [serving] arrival_rate)")->check(positive_rate());
  cmd->add_option("--ttft-slo", o->ttft_slo, "Serving: bound on TTFT at the SLO percentile, e.g. 1s (default: [serving] ttft_slo_s)");
  cmd->add_option("--tpot-slo", o->tpot_slo, "Serving: bound on TPOT at the SLO percentile, e.g. 50ms (default: [serving] tpot_slo_s)");
  cmd->add_option("--percentile", o->percentile, "Serving: SLO percentile (default: [serving] slo_percentile, 99)")->check(CLI::Range(api::limits::percentile.min, api::limits::percentile.max));
  cmd->add_option("--dtypes", o->dtypes, "Serving: weight precisions to search, e.g. bf16,fp8 (default: the scenario's and each lower one "
                                         "the device computes in)");
  cmd->add_option("--pareto", o->pareto, "Metrics of the Pareto front (two or three of time, cost, co2), or none")->capture_default_str();
  cmd->add_option("--top", o->top, "Best rows to show")->capture_default_str()->check(CLI::Range(api::limits::top.min, api::limits::top.max));
  cmd->add_option("--shard", o->shard, "Search shard i of N (i/N) of the system x node-count units (serving: replica layouts); merge the JSON outputs with plan-merge");
  cmd->add_option("--threads", o->threads, "Worker threads per layout sweep (0: every core)")->capture_default_str()->check(CLI::Range(api::limits::threads.min, api::limits::threads.max));
  cmd->add_option("--calibration", o->calibration, "A calibration profile (perfcast calibrate -o) to predict every layout with");
  cmd->add_option("--risk", o->risk, "Rank and bound by the point prediction (p50) or by each row's empirical P90, the slow end: a "
                                     "training job's deadline and budget, a serving fleet's replicas, cost and budget then hold when reality is slow")
      ->check(CLI::IsMember({"p50", "p90"}))->capture_default_str();
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
