#include "cli/capacity_command.hpp"

#include <cmath>
#include <fmt/format.h>
#include <memory>

#include "engine/api/answers.hpp"
#include "engine/api/request_limits.hpp"
#include "engine/predict/capacity.hpp"
#include "cli/option_checks.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/hardware_db.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/core/units.hpp"
#include "engine/writers/calibration_writers.hpp"
#include "engine/writers/capacity_writers.hpp"

namespace perfcast::cli {
namespace {

struct CapacityOptions {
  std::string scenario, ttft_slo, tpot_slo, format = "table";
  std::optional<double> rate, percentile;
  std::optional<int> concurrency;
  bool disaggregated = false;
  bool detail = false;
  std::string risk = "p50";
};

// "1s", "50 ms", "0.5 s": a positive time.
std::optional<double> duration_option(const std::string& flag, const std::string& text) {
  if (text.empty()) return std::nullopt;
  units::Quantity q;
  try {
    q = units::parse_quantity(text);
  } catch (const UnitError& e) {
    throw InputError({}, fmt::format("{} '{}': {}", flag, text, e.what()));
  }
  if (q.dimension != units::dim::seconds || !(q.value > 0))
    throw InputError({}, fmt::format("{} '{}': give a positive time such as 1s or 50ms", flag, text));
  return q.value;
}

int run(const GlobalOptions& global, const CapacityOptions& o) {
  CapacityRequest request;
  request.ttft_slo_s = duration_option("--ttft-slo", o.ttft_slo);
  request.tpot_slo_s = duration_option("--tpot-slo", o.tpot_slo);
  request.rate = o.rate;
  request.percentile = o.percentile;
  if (o.concurrency) request.concurrency = *o.concurrency;
  request.disaggregated = o.disaggregated;
  HardwareDb db = HardwareDb::load(global.hardware_db);
  Scenario s = load_scenario(o.scenario, default_workloads_dir(), db);
  const api::CapacityAnswer a = api::capacity_answer(s, request, o.risk == "p90");
  if (o.format == "json") fmt::print("{}\n", api::to_json(a).dump(2));
  else if (o.format == "csv") fmt::print("{}", capacity_to_csv(a.report));
  // --detail lists the risk note among the assumptions; otherwise it follows the bands.
  else fmt::print("{}{}{}", capacity_to_table(a.report, o.detail), bands_text(a.bands), a.risk_note.empty() || o.detail ? "" : a.risk_note + "\n");
  return 0;
}

}  // namespace

void add_capacity_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<CapacityOptions>();
  CLI::App* cmd = app.add_subcommand("capacity", "Serving capacity: the load one replica takes within TTFT/TPOT SLOs, and the replicas a rate needs");
  cmd->add_option("scenario", o->scenario, "Inference scenario file")->required();
  cmd->add_option("--rate", o->rate, "Target requests/s in total (default: [serving] arrival_rate)")->check(positive_rate());
  cmd->add_option("--concurrency", o->concurrency,
                  "Closed loop of N clients (each sends its next request when the last finishes): the engine's steady state")
      ->check(CLI::Range(api::limits::concurrency.min, api::limits::concurrency.max))
      ->excludes(cmd->get_option("--rate"));
  cmd->add_option("--ttft-slo", o->ttft_slo, "Bound on TTFT at the SLO percentile, e.g. 1s (default: [serving] ttft_slo_s)");
  cmd->add_option("--tpot-slo", o->tpot_slo, "Bound on TPOT at the SLO percentile, e.g. 50ms (default: [serving] tpot_slo_s)");
  cmd->add_option("--percentile", o->percentile, "SLO percentile (default: [serving] slo_percentile, 99)")->check(CLI::Range(api::limits::percentile.min, api::limits::percentile.max));
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->add_flag("--disaggregated", o->disaggregated,
                "Also size separate prefill and decode pools (needs a rate, both SLOs and a scale-out network for the KV hand-over)")
      ->excludes(cmd->get_option("--concurrency"));
  cmd->add_flag("--detail", o->detail, "Every assumption of the queueing model");
  cmd->add_option("--risk", o->risk, "Size replicas for the point prediction (p50) or so that the SLO holds at the slow end of the "
                  "empirical band (p90, docs/models.md F-UNC-2)")
      ->check(CLI::IsMember({"p50", "p90"}))
      ->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
