#include "engine/data/plan_candidates.hpp"

#include <algorithm>
#include <memory>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "engine/core/errors.hpp"
#include "engine/core/input_file.hpp"
#include "engine/core/toml_section.hpp"
#include "engine/data/hardware_resolution.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/data/workload_reader.hpp"

namespace perfcast {
namespace {

bool asked(const std::vector<std::string>& list, std::string_view name) {
  return list.empty() || std::find(list.begin(), list.end(), name) != list.end();
}

bool wants(const PlanSpace& space, Payment p) { return std::find(space.payments.begin(), space.payments.end(), p) != space.payments.end(); }

// The scenario on `system` at `nodes`, without the layout, payment and region the plan searches.
PlanHardware hardware_on(const toml::table& base, const std::string& file, const SystemSpec& system, int nodes, const HardwareDb& db) {
  PlanHardware h{.system = system.name, .accelerator = system.accelerator, .devices_per_node = system.devices_per_node};
  toml::table t = base;
  for (const char* searched : {"parallelism", "cost", "region"}) t.erase(searched);
  t.insert_or_assign("hardware", toml::table{{"system", system.name}, {"nodes", nodes}});
  try {
    TomlSection root(t, file, "");
    h.scenario = read_scenario(root, file, default_workloads_dir(), db, /*layout_searched=*/true);
  } catch (const InputError& e) {
    h.error = e.message();
  }
  return h;
}

}  // namespace

PlanCandidates plan_candidates(const std::string& scenario_file, const PlanSpace& space, const HardwareDb& db) {
  if (space.nodes.empty()) throw InputError({}, "--nodes: no node count to search");
  const std::string content = read_input_file(scenario_file, "scenario file");
  std::shared_ptr<toml::table> storage;
  TomlSection parsed = TomlSection::parse(content, scenario_file, storage);
  require_schema_version(parsed);
  const bool serving = storage->contains("inference");
  if (!storage->contains("training") && !serving)
    throw InputError({scenario_file, 0, 0}, "plan searches a training job ([training]) or a served model ([inference]): the scenario has neither");

  std::vector<std::string> known;
  for (const Record* r : db.records_of(schema::Kind::system)) known.push_back(db.system(r->name).accelerator);
  for (const std::string& a : space.accelerators) {
    db.accelerator(a);  // an unknown name: InputError with a "did you mean"
    if (std::find(known.begin(), known.end(), a) == known.end())
      throw InputError({}, fmt::format("--accelerators: no system in the database is built from {} (a plan rents or buys whole nodes)", a));
  }
  for (const std::string& r : space.regions) db.region(r);

  PlanCandidates out{.space = space, .serving = serving};
  // A plan rents or buys whole nodes: an accelerator no system is built from cannot be placed.
  if (space.accelerators.empty())
    for (const Record* r : db.records_of(schema::Kind::accelerator))
      if (std::find(known.begin(), known.end(), r->name) == known.end()) out.without_system.push_back(r->name);
  const int largest = space.nodes.back();
  for (const Record* r : db.records_of(schema::Kind::system)) {
    const SystemSpec& system = db.system(r->name);
    if (!asked(space.accelerators, system.accelerator)) continue;
    PlanHardware h = hardware_on(*storage, scenario_file, system, space.nodes.front(), db);
    if (!h.scenario) {
      out.hardware.push_back(std::move(h));
      continue;
    }
    auto misfits = [&](const OfferSpec& o) {
      std::vector<std::string> m;
      for (int n : space.nodes) m.push_back(offer_misfit(db, o, n * system.devices_per_node));
      return m;
    };
    for (const Record* ro : db.records_of(schema::Kind::offer)) {
      const OfferSpec& o = db.offer(ro->name);
      if (o.system != system.name) continue;
      if (!asked(space.regions, o.region)) {
        count_reason(out.dropped, "an offer outside the regions asked");
        continue;
      }
      for (Payment kind : {Payment::cloud, Payment::spot}) {
        if (!wants(space, kind)) continue;
        if (kind == Payment::spot && serving) {
          count_reason(out.dropped, "spot: not offered for serving (a preempted replica drops its requests)");
          continue;
        }
        if (kind == Payment::spot && !o.spot_usd_per_device_s) {
          count_reason(out.dropped, "spot: the offer has no spot price in the database");
          continue;
        }
        PlanPayment p{.kind = kind, .label = fmt::format("{} {}", o.name, kind == Payment::spot ? "spot" : "on-demand"),
                      .cost = {.offer = o.name, .spot = kind == Payment::spot}, .region = {.name = o.region}};
        p.offer = o;
        if (!o.region.empty()) p.region_spec = db.region(o.region);
        p.misfit = misfits(o);
        h.payments.push_back(std::move(p));
      }
    }
    if (wants(space, Payment::purchase)) {
      if (!system.price_usd) count_reason(out.dropped, "purchase: the system has no price in the database");
      else
        for (const Record* rr : db.records_of(schema::Kind::region)) {
          const RegionSpec& region = db.region(rr->name);
          if (!asked(space.regions, region.name)) continue;
          if (!region.electricity_usd_per_J) {
            count_reason(out.dropped, "purchase: the region has no electricity price in the database");
            continue;
          }
          PlanPayment p{.kind = Payment::purchase, .label = "purchase", .cost = {.purchase = true}, .region = {.name = region.name}};
          p.region_spec = region;
          // The cloud alternative the TCO is set against: the cheapest on-demand offer holding the largest count.
          if (const OfferSpec* o = choose_offer(db, system.accelerator, largest * system.devices_per_node).cheapest) p.cheapest_offer = *o;
          p.misfit.assign(space.nodes.size(), "");
          h.payments.push_back(std::move(p));
        }
    }
    if (h.payments.empty()) count_reason(out.dropped, "a system with no way of paying for it among those asked");
    out.hardware.push_back(std::move(h));
  }
  return out;
}

}  // namespace perfcast
