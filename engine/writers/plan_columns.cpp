#include "engine/writers/plan_columns.hpp"

#include <fmt/format.h>
#include <stdexcept>

#include "engine/writers/sweep_columns.hpp"

namespace perfcast {
namespace {

using nlohmann::json;

// A column holding the member reached by `Path` (one member, or a member of a member).
template <class Row, auto... Path>
PlanColumn<Row> field(std::string key, std::string unit, std::string description) {
  return {std::move(key), std::move(unit), std::move(description), [](const Row& r) { return json((r .* ... .* Path)); },
          [](Row& r, const json& v) { v.get_to((r .* ... .* Path)); }};
}

// Emissions are unknown (null) where the row has no region and so no grid intensity.
template <class Row, double Row::*Value>
PlanColumn<Row> emissions(std::string key, std::string unit, std::string description) {
  return {std::move(key), std::move(unit), std::move(description),
          [](const Row& r) { return r.co2_known ? json(r.*Value) : json(nullptr); },
          [](Row& r, const json& v) {
            r.co2_known = !v.is_null();
            r.*Value = r.co2_known ? v.get<double>() : 0;
          }};
}

// A member of the row's band (null: none); read back, a number makes the band.
template <class Row, auto Member>
PlanColumn<Row> band_member(std::string key, std::string unit, std::string description) {
  return {std::move(key), std::move(unit), std::move(description),
          [](const Row& r) { return r.slowness ? json((*r.slowness).*Member) : json(nullptr); },
          [](Row& r, const json& v) {
            if (v.is_null()) return;
            if (!r.slowness) r.slowness = StepSlowness{};
            v.get_to((*r.slowness).*Member);
          }};
}

// A figure at a percentile of the band (derived: not read back; null without a band).
PlanColumn<PlanRow> at_band(std::string key, std::string unit, std::string description, double PlanRow::*figure,
                            double StepSlowness::*q) {
  return {std::move(key), std::move(unit), std::move(description), [figure, q](const PlanRow& r) {
            if (!r.slowness || (figure == &PlanRow::co2e_kg && !r.co2_known)) return json(nullptr);
            return json(r.at(r.*figure, q));
          }, {}};
}

template <class Row>
PlanColumn<Row> payment_kind() {
  return {"payment", "", "cloud (on-demand), spot or purchase", [](const Row& r) { return json(name_of(r.kind)); },
          [](Row& r, const json& v) {
            const std::string name = v.get<std::string>();
            const std::optional<Payment> kind = payment_named(name);
            if (!kind) throw std::out_of_range(fmt::format("'{}' is unknown", name));
            r.kind = *kind;
          }};
}

// The sweep's layout columns, reached through the row's `Layout` member; `renamed` gives a key its
// plan name ("" leaves the column out).
template <class Row, class Layout, Layout Row::*Member>
void add_layout(std::vector<PlanColumn<Row>>& out, std::span<const LayoutColumn<Layout>> columns,
                const std::vector<std::pair<std::string_view, std::string_view>>& renamed) {
  for (const LayoutColumn<Layout>& l : columns) {
    std::string key(l.key);
    for (const auto& [from, to] : renamed)
      if (l.key == from) key = to;
    if (key.empty()) continue;
    PlanColumn<Row> c{key, std::string(l.unit), std::string(l.description), [get = l.get](const Row& r) { return get(r.*Member); }};
    if (l.set) c.set = [set = l.set](Row& r, const json& v) { set(r.*Member, v); };
    out.push_back(std::move(c));
  }
}

std::vector<PlanColumn<PlanRow>> training_columns() {
  using R = PlanRow;
  std::vector<PlanColumn<R>> c = {
      field<R, &R::id>("id", "", "The row's place in the whole search (ties rank by it; shards keep it)"),
      field<R, &R::system>("system", "", "System (node) type"),
      field<R, &R::accelerator>("accelerator", "", "Device"),
      field<R, &R::nodes>("nodes", "nodes", "Nodes"),
      {"devices", "devices", "Devices", [](const R& r) { return json(r.devices); },
       [](R& r, const json& v) { r.layout.devices = r.devices = v.get<int>(); }},
  };
  // The layout's devices are the row's.
  add_layout<R, SweepLayout, &R::layout>(c, training_layout_columns(), {{"label", "layout"}, {"devices", ""}});
  c.push_back(payment_kind<R>());
  for (auto&& x : {field<R, &R::payment>("paid_as", "", "The offer and how it is paid, or purchase"),
                   field<R, &R::offer>("offer", "", "Cloud offer (empty for a purchase)"),
                   field<R, &R::region>("region", "", "Region: the offer's, or where the purchase runs"),
                   field<R, &R::wall_s>("wall_s", "s", "Expected wall time after failures, as billed"),
                   field<R, &R::usd>("usd", "USD", "The job's cost: rented device-hours, or a purchase's share of the TCO"),
                   field<R, &R::capex_usd>("capex_usd", "USD", "Purchase: the systems' price, up front (0 when rented)"),
                   emissions<R, &R::co2e_kg>("co2e_kg", "kg CO2e", "Operational (location-based) plus embodied emissions of the job (null: no region)"),
                   field<R, &R::energy_J>("energy_J", "J", "Facility energy of the job"),
                   field<R, &R::tokens_per_s>("tokens_per_s", "tokens/s", "Training throughput"),
                   field<R, &R::mfu>("mfu", "fraction", "Model FLOPs utilisation"),
                   field<R, &R::memory_B>("memory_bytes", "B", "Memory of the busiest device"),
                   field<R, &R::binds>("binds", "", "The bound nearest to binding (deadline, budget, memory, device cap) and its share"),
                   field<R, &R::at_p90>("ranked_at_p90", "", "Ranked and bounded at the band's P90 (--risk p90)"),
                   band_member<R, &StepSlowness::p10>("slowness_p10", "", "The step's empirical band: P10 of ln(reality / prediction) (F-UNC-2)"),
                   band_member<R, &StepSlowness::p50>("slowness_p50", "", "Its P50"),
                   band_member<R, &StepSlowness::p90>("slowness_p90", "", "Its P90"),
                   band_member<R, &StepSlowness::cases>("band_cases", "cases", "Held-out validation cases behind the band"),
                   band_member<R, &StepSlowness::sources>("band_sources", "sources", "Their sources"),
                   at_band("wall_s_p10", "s", "Wall time at the band's P10", &R::wall_s, &StepSlowness::p10),
                   at_band("wall_s_p90", "s", "Wall time at the band's P90", &R::wall_s, &StepSlowness::p90),
                   at_band("usd_p10", "USD", "The job's cost at the band's P10", &R::usd, &StepSlowness::p10),
                   at_band("usd_p90", "USD", "The job's cost at the band's P90", &R::usd, &StepSlowness::p90),
                   at_band("co2e_kg_p90", "kg CO2e", "Emissions at the band's P90 (null: no region)", &R::co2e_kg, &StepSlowness::p90)})
    c.push_back(x);
  return c;
}

std::vector<PlanColumn<ServingPlanRow>> serving_columns() {
  using R = ServingPlanRow;
  using P = models::ServingPoint;
  std::vector<PlanColumn<R>> c = {
      field<R, &R::id>("id", "", "The row's place in the whole search (ties rank by it; shards keep it)"),
      field<R, &R::system>("system", "", "System (node) type"),
      field<R, &R::accelerator>("accelerator", "", "Device"),
  };
  // One replica's layout; a replica has no replicas of its own, and its batch is the simulation's
  // (so is the label's, which would name one).
  add_layout<R, ServeLayout, &R::replica>(c, serving_layout_columns(),
                                           {{"label", ""}, {"devices", "replica_devices"}, {"replicas", ""}, {"batch", ""}});
  c.push_back({"compute_dtype", "", "GEMM precision", [](const R& r) { return json(name_of(r.compute)); },
               [](R& r, const json& v) { r.compute = precision_named(v); }});
  for (auto&& x : {field<R, &R::replicas>("replicas", "", "The fewest replicas meeting the SLOs at the rate"),
                   field<R, &R::units>("units", "", "Instances rented or nodes bought"),
                   field<R, &R::devices>("devices", "devices", "Devices paid for")})
    c.push_back(x);
  c.push_back(payment_kind<R>());
  for (auto&& x : {field<R, &R::payment>("paid_as", "", "The offer and how it is paid, or purchase"),
                   field<R, &R::offer>("offer", "", "Cloud offer (empty for a purchase)"),
                   field<R, &R::region>("region", "", "Region: the offer's, or where the purchase runs"),
                   field<R, &R::rate_per_replica>("rate_per_replica", "requests/s", "Each replica's share"),
                   field<R, &R::point, &P::load>("load", "fraction", "That share over the replica's saturation rate"),
                   field<R, &R::point, &P::ttft_p50_s>("ttft_p50_s", "s", "Median TTFT"),
                   field<R, &R::point, &P::ttft_p_s>("ttft_p_s", "s", "TTFT at the SLO percentile"),
                   field<R, &R::point, &P::tpot_p50_s>("tpot_p50_s", "s", "Median TPOT"),
                   field<R, &R::point, &P::tpot_p_s>("tpot_p_s", "s", "TPOT at the SLO percentile"),
                   field<R, &R::point, &P::e2e_mean_s>("e2e_mean_s", "s", "Mean end-to-end latency"),
                   field<R, &R::point, &P::e2e_p_s>("e2e_p_s", "s", "End-to-end latency at the SLO percentile"),
                   field<R, &R::usd_per_hour>("usd_per_hour", "USD/h", "The fleet's cost per hour: rent, or a purchase's share of the TCO"),
                   field<R, &R::usd_per_million_tokens>("usd_per_million_tokens", "USD/Mtoken", "Per million output tokens"),
                   field<R, &R::capex_usd>("capex_usd", "USD", "Purchase: the systems' price, up front (0 when rented)"),
                   emissions<R, &R::co2e_kg_per_hour>("co2e_kg_per_hour", "kg CO2e/h",
                                                      "Operational (location-based) plus embodied, per hour (null: no region)"),
                   field<R, &R::power_W>("facility_power_W", "W", "The fleet's facility power at the load"),
                   field<R, &R::binds>("binds", "", "The bound nearest to binding (ttft, tpot, budget, device cap) and its share"),
                   band_member<R, &StepSlowness::p10>("slowness_p10", "",
                                                      "The replica's serving-rate band: P10 of ln(predicted / measured) (F-UNC-2)"),
                   band_member<R, &StepSlowness::p90>("slowness_p90", "", "Its P90"),
                   band_member<R, &StepSlowness::cases>("band_cases", "cases", "Held-out validation cases behind the band"),
                   band_member<R, &StepSlowness::sources>("band_sources", "sources", "Their sources"),
                   field<R, &R::replicas_p90>("replicas_p90", "", "Replicas if each sustains e^-P90 of its predicted rate (0: no band)"),
                   field<R, &R::units_p90>("units_p90", "", "Instances or nodes holding them"),
                   field<R, &R::usd_per_hour_p90>("usd_per_hour_p90", "USD/h", "That fleet's cost per hour"),
                   field<R, &R::at_p90>("ranked_at_p90", "", "Ranked and bounded as the P90 fleet (--risk p90)")})
    c.push_back(x);
  return c;
}

}  // namespace

const std::vector<PlanColumn<PlanRow>>& training_plan_columns() {
  static const std::vector<PlanColumn<PlanRow>> columns = training_columns();
  return columns;
}

const std::vector<PlanColumn<ServingPlanRow>>& serving_plan_columns() {
  static const std::vector<PlanColumn<ServingPlanRow>> columns = serving_columns();
  return columns;
}

}  // namespace perfcast
