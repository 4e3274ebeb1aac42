#include "cli/collective_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>

#include "engine/predict/collective.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/hardware_resolution.hpp"
#include "engine/writers/collective_writers.hpp"

namespace perfcast::cli {
namespace {

struct CollectiveOptions {
  std::string op = "all_reduce", system, algo = "auto", sizes = "8:8G:2", format = "table";
  int gpus = 0;
  double oversubscription = 1;
  bool collnet = false;
};

int run(const GlobalOptions& global, const CollectiveOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  CollectiveRequest r;
  r.op = *models::collective_from(o.op);
  r.gpus = o.gpus;
  if (o.algo != "auto") r.algorithm = models::algorithm_from(o.algo);
  r.sizes_B = parse_size_range(o.sizes);
  r.oversubscription = o.oversubscription;
  r.collnet = o.collnet;
  r.hardware = resolve_system(db, o.system);
  CollectiveSweep s = collective_sweep(r);
  if (o.format == "json") fmt::print("{}\n", collective_to_json(s).dump(2));
  else if (o.format == "csv") fmt::print("{}", collective_to_csv(s));
  else fmt::print("{}", collective_to_table(s));
  return 0;
}

}  // namespace

void add_collective_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<CollectiveOptions>();
  CLI::App* cmd = app.add_subcommand("collective", "Predict a collective over a size range, shaped like nccl-tests output");
  std::vector<std::string> ops(models::collective_names().begin(), models::collective_names().end());
  std::vector<std::string> algos(models::algorithm_choices().begin(), models::algorithm_choices().end());
  cmd->add_option("--op", o->op, "Collective")->check(CLI::IsMember(ops))->capture_default_str();
  cmd->add_option("--system", o->system, "System from the hardware database (e.g. dgx-h100)")->required();
  cmd->add_option("--gpus", o->gpus, "Ranks, filling nodes in order (default: one node)")->check(CLI::Range(1, 1'000'000));
  cmd->add_option("--algo", o->algo,
                  "Algorithm, ours or NCCL_ALGO's spelling (auto: the fastest, as NCCL's tuner picks): " + fmt::format("{}", fmt::join(algos, ", ")))
      ->check(CLI::Validator(
          [](std::string& v) {
            return v == "auto" || models::algorithm_from(v) ? std::string() : "not an algorithm: " + v;
          },
          "ALGORITHM"))
      ->capture_default_str();
  cmd->add_option("--sizes", o->sizes, "MIN:MAX:FACTOR in bytes (K/M/G = 1024^n, as nccl-tests -b/-e/-f), or one size")
      ->capture_default_str();
  cmd->add_option("--oversubscription", o->oversubscription, "Scale-out taper (1 = non-blocking fat tree)")
      ->check(CLI::Range(1.0, 64.0))
      ->capture_default_str();
  cmd->add_flag("--collnet", o->collnet,
                "In-network reduction in the InfiniBand switches (SHARP), as NCCL_COLLNET_ENABLE=1 with the SHARP plugin");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
