#include "engine/validate/collective_cases.hpp"

#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/validate/case_features.hpp"
#include "engine/data/hardware_resolution.hpp"
#include "engine/core/toml_section.hpp"
#include "engine/layout/topology.hpp"
#include "engine/core/units.hpp"

namespace perfcast {
namespace {

CollectiveCase read_case(TomlSection& t, const HardwareDb& db) {
  CollectiveCase c;
  c.id = t.require_string("id");
  c.source = t.require_string("source");
  c.system = t.require_string("system");
  try {
    c.hardware = resolve_system(db, c.system);
  } catch (const InputError& e) {
    t.fail("system", e.message());
  }
  auto op = t.choice("op", models::collective_names());
  if (!op) t.fail_here(fmt::format("missing required key '{}op'", t.path()));
  c.op = *models::collective_from(*op);
  if (auto a = t.choice("algorithm", models::algorithm_choices()); a && *a != "auto") c.algorithm = models::algorithm_from(*a);
  c.gpus = static_cast<int>(t.require_integer("gpus", 1, 1'000'000));
  if (auto b = t.integer("bytes", 1, std::int64_t{1} << 50)) c.bytes = static_cast<double>(*b);
  c.measured_busbw_Bps = case_quantity(t, "measured_busbw", units::dim::bytes_per_second, true);
  read_shared_keys(t, c, 0.10);
  t.finish();
  return c;
}

}  // namespace

std::vector<CollectiveCase> load_collective_cases(CaseFile& f, const HardwareDb& db) {
  return read_cases(f, [&](TomlSection& t) { return read_case(t, db); });
}

std::vector<CaseScore> score_collective_cases(const std::vector<CollectiveCase>& cases, const ModelParams& mp) {
  const models::CollectiveParams& params = mp.collective;
  std::vector<CaseScore> scores;
  for (const CollectiveCase& c : cases) {
    CaseScore s = score_of(c, "collective");
    s.subject = c.system;
    s.features = kernel_features("collective", "", "");
    s.features.values[1] = models::name_of(c.op);
    if (!c.system.empty()) s.accelerator = c.hardware.system->accelerator;
    s.dimension = units::dim::bytes_per_second;
    s.measured = c.measured_busbw_Bps;
    const double bytes = c.bytes.value_or(kPeakCaseBytes);
    s.detail = fmt::format("{} {} on {} GPUs, {}{} B, busbw", models::name_of(c.op),
                           c.algorithm ? models::name_of(*c.algorithm) : "auto", c.gpus, c.bytes ? "" : "peak at ", bytes);
    if (c.skip.empty()) {
      const models::Fabric f = fabric_for_first(system_topology(c.hardware), c.gpus);
      auto t = models::best_collective_time(c.op, bytes, f, params, c.algorithm);
      if (!t) throw InputError({}, fmt::format("case '{}': the algorithm cannot run this collective here", c.id));
      s.set_prediction(t->busbw_Bps);
    }
    scores.push_back(s);
  }
  return scores;
}

}  // namespace perfcast
