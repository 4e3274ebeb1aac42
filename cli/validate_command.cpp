#include "cli/validate_command.hpp"

#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "engine/hardware_db.hpp"
#include "engine/units.hpp"
#include "engine/validation.hpp"
#include "engine/writers/text_table.hpp"

namespace perfcast::cli {
namespace {

struct ValidateOptions {
  std::string cases;
  std::string format = "table";
};

std::string rate(double v, MicrobenchKind k) {
  return k == MicrobenchKind::gemm || k == MicrobenchKind::attention ? fmt::format("{:.1f} TFLOP/s", v / 1e12)
                                                                     : fmt::format("{:.3f} TB/s", v / 1e12);
}

int run(const GlobalOptions& global, const ValidateOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  std::filesystem::path file = o.cases.empty() ? default_validation_dir() / "microbenchmarks.toml" : std::filesystem::path(o.cases);
  auto cases = load_microbenchmarks(file, db);
  auto scores = score_microbenchmarks(cases, db, models::default_efficiency());
  ValidationSummary v = summarise(scores);
  if (o.format == "json") {
    nlohmann::json j;
    j["file"] = file.string();
    j["cases"] = nlohmann::json::array();
    for (const CaseScore& s : scores) {
      nlohmann::json c{{"id", s.c->id}, {"kind", name_of(s.c->kind)}, {"source", s.c->source}, {"measured", s.c->measured}};
      if (s.scored) {
        c["accelerator"] = s.c->accelerator;
        c["predicted"] = s.predicted;
        c["error"] = s.error;
        c["held_out"] = s.held_out;
        c["within_tolerance"] = s.within_tolerance;
        c["tolerance"] = s.c->tolerance;
        c["bound"] = s.bound;
        if (!s.c->used_for.empty()) c["used_for"] = s.c->used_for;
      } else {
        c["skipped"] = s.c->skip;
      }
      j["cases"].push_back(c);
    }
    j["summary"] = {{"cases", v.cases}, {"scored", v.scored}, {"held_out", v.held_out},
                    {"within_tolerance", v.within_tolerance}, {"median_abs_error", v.median_abs_error},
                    {"mean_abs_error", v.mean_abs_error}, {"max_abs_error", v.max_abs_error}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  if (o.format == "csv") {
    fmt::print("id,kind,accelerator,measured,predicted,error,held_out,within_tolerance,skipped\n");
    for (const CaseScore& s : scores)
      fmt::print("{},{},{},{:.6g},{:.6g},{:.6g},{},{},{}\n", csv_field(s.c->id), name_of(s.c->kind), s.c->accelerator,
                 s.c->measured, s.predicted, s.error, s.held_out, s.within_tolerance, csv_field(s.c->skip));
    return 0;
  }
  TextTable t({"case", "device", "measured", "predicted", "error", "bound", "note"});
  for (const CaseScore& s : scores) {
    if (!s.scored) {
      t.add_row({s.c->id, s.c->device, rate(s.c->measured, s.c->kind), "-", "-", "-", "skipped: " + s.c->skip});
      continue;
    }
    std::string note = !s.held_out ? "source of a default, not held-out" : s.within_tolerance ? "" : fmt::format("outside ±{:.0f}%", 100 * s.c->tolerance);
    t.add_row({s.c->id, s.c->accelerator, rate(s.c->measured, s.c->kind), rate(s.predicted, s.c->kind),
               fmt::format("{:+.1f}%", 100 * s.error), s.bound, note});
  }
  fmt::print("{}", t.render());
  fmt::print("\n{} cases, {} scored, {} held-out; held-out |error|: median {:.1f}%, mean {:.1f}%, max {:.1f}%; {} of {} scored within their tolerance\n",
             v.cases, v.scored, v.held_out, 100 * v.median_abs_error, 100 * v.mean_abs_error, 100 * v.max_abs_error, v.within_tolerance,
             v.scored);
  return 0;
}

}  // namespace

void add_validate_command(CLI::App& app, const GlobalOptions& options, std::function<int()>& action) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand("validate", "Score predictions against measured microbenchmark cases");
  cmd->add_option("--cases", o->cases, "Cases file (default: validation/microbenchmarks.toml)");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}))->capture_default_str();
  cmd->callback([&action, &options, o] { action = [&options, o] { return run(options, *o); }; });
}

}  // namespace perfcast::cli
