#include "engine/data/hardware_resolution.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/energy.hpp"

namespace perfcast {
namespace {

std::optional<LinkSpec> link_or_none(const HardwareDb& db, const std::string& name) {
  if (name.empty()) return std::nullopt;
  return db.link(name);
}

// The mode named, else the device's default mode, else none.
std::optional<PowerMode> chosen_mode(const AcceleratorSpec& a, const std::string& name) {
  for (const PowerMode& m : a.power_modes)
    if (name.empty() ? m.is_default : m.name == name) return m;
  return std::nullopt;
}

// The system whose node power stands for the hosts: the scenario's, else the database's first
// system holding the same accelerator with a node power.
std::optional<SystemSpec> node_system_of(const HardwareDb& db, const HardwareChoice& h) {
  if (!h.system.empty()) return db.system(h.system);
  for (const Record* r : db.records_of(schema::Kind::system)) {
    const SystemSpec& sys = db.system(r->name);
    if (sys.accelerator == h.accelerator && sys.node_power_W) return sys;
  }
  return std::nullopt;
}

// F-ROOF-8: the part with the dense rates a benchmark measured it reaching, in place of its datasheet's
// (before a power mode scales them or one DLA core replaces them).
AcceleratorSpec reached(AcceleratorSpec a) {
  for (std::size_t i = 0; i < kPrecisionCount; ++i)
    if (auto& peak = a.peak_dense_ops_per_s[i]; peak && a.dense_reached_share[i]) *peak *= *a.dense_reached_share[i];
  return a;
}

}  // namespace

AcceleratorSpec apply_power_mode(AcceleratorSpec a, const std::optional<PowerMode>& mode, bool dla) {
  if (mode) {
    double scale = 1;
    if (mode->gpu_max_clock_Hz && a.boost_clock_Hz) scale *= std::min(1.0, *mode->gpu_max_clock_Hz / *a.boost_clock_Hz);
    if (mode->gpu_tpcs && a.tpcs) scale *= std::min(1.0, double(*mode->gpu_tpcs) / *a.tpcs);
    for (auto& peak : a.peak_dense_ops_per_s)
      if (peak) *peak *= scale;
    if (mode->memory_bandwidth_Bps) a.memory_bandwidth_Bps = mode->memory_bandwidth_Bps;
    a.tdp_W = mode->power_W;
  }
  if (dla) {
    // One DLA core (TensorRT builds an engine for one core): its share of the dense INT8 rate, the
    // module's shared memory. The database lists no DLA FP16 rate and no DLA clock caps per mode.
    a.peak_dense_ops_per_s = {};
    a.peak_dense_ops_per_s[static_cast<std::size_t>(Precision::int8)] = *a.dla_int8_ops_per_s / *a.dla_count;
    a.compute_units.reset();
    a.tpcs.reset();
    a.display_name += ", one DLA core";
  }
  return a;
}

std::string offer_misfit(const HardwareDb& db, const OfferSpec& o, int devices) {
  if (devices <= o.devices) return "";
  const int per_node = db.system(o.system).devices_per_node;
  if (o.devices != per_node)
    return fmt::format("{} device{} per instance, not a whole {}-device node", o.devices, o.devices == 1 ? "" : "s", per_node);
  if (!o.network_per_instance_Bps) return "no scale-out network between instances in the database";
  if (devices % o.devices != 0) return fmt::format("{} devices do not fill whole instances of {}", devices, o.devices);
  return "";
}

OfferChoice choose_offer(const HardwareDb& db, std::string_view accelerator, int devices) {
  OfferChoice out;
  int fitting = 0;
  for (const Record* r : db.records_of(schema::Kind::offer)) {
    const OfferSpec& o = db.offer(r->name);
    if (db.system(o.system).accelerator != accelerator) continue;
    if (const std::string why = offer_misfit(db, o, devices); !why.empty()) {
      out.misfits += fmt::format("{}{} ({})", out.misfits.empty() ? "" : "; ", o.name, why);
      continue;
    }
    ++fitting;
    if (!out.cheapest || o.on_demand_usd_per_device_s < out.cheapest->on_demand_usd_per_device_s) out.cheapest = &o;
  }
  if (out.cheapest)
    out.why = fmt::format("{}: the cheapest on-demand of {} offer(s) that hold {} {}{}", out.cheapest->name, fitting, devices, accelerator,
                          out.misfits.empty() ? "" : "; passed over: " + out.misfits);
  return out;
}

ResolvedHardware resolve_accelerator(const HardwareDb& db, std::string_view name) {
  ResolvedHardware hw;
  hw.datasheet = db.accelerator(name);
  hw.device = reached(hw.datasheet);
  hw.host_link = link_or_none(db, hw.datasheet.host_link);
  hw.node_host_link = hw.host_link;
  return hw;
}

ResolvedHardware resolve_system(const HardwareDb& db, std::string_view name) {
  const SystemSpec& s = db.system(name);
  ResolvedHardware hw = resolve_accelerator(db, s.accelerator);
  hw.system = s;
  hw.node_system = s;
  hw.scale_up = link_or_none(db, s.scale_up);
  hw.scale_up_switch = link_or_none(db, s.scale_up_switch);
  hw.node_host_link = link_or_none(db, s.host_link);
  hw.scale_out = link_or_none(db, s.scale_out);
  hw.nics_per_node = s.nics_per_node.value_or(0);
  return hw;
}

void hold_at_power_limit(ResolvedHardware& hw) {
  if (hw.sustained) return;
  for (std::size_t i = 0; i < kPrecisionCount; ++i)
    if (auto& peak = hw.device.peak_dense_ops_per_s[i]; peak && hw.datasheet.sustained_dense_ratio[i]) *peak *= *hw.datasheet.sustained_dense_ratio[i];
  hw.sustained = true;
}

ResolvedHardware resolve_hardware(const HardwareDb& db, const HardwareChoice& h) {
  ResolvedHardware hw;
  if (!h.system.empty()) {
    hw = resolve_system(db, h.system);
    // A scale-out network other than the system's: one NIC per device unless the system says.
    if (!h.scale_out.empty() && h.scale_out != hw.system->scale_out) {
      hw.scale_out = db.link(h.scale_out);
      hw.nics_per_node = hw.system->nics_per_node.value_or(hw.system->devices_per_node);
    }
  } else {
    hw = resolve_accelerator(db, h.accelerator);
    hw.scale_up = link_or_none(db, !h.scale_up.empty() ? h.scale_up : hw.datasheet.scale_up_link);
    // One NIC per device unless a system says otherwise (rail-optimised, as DGX-class nodes are built).
    hw.scale_out = link_or_none(db, h.scale_out);
    hw.nics_per_node = std::max(1, h.devices_per_node);
    hw.node_system = node_system_of(db, h);
  }
  hw.power_mode = chosen_mode(hw.datasheet, h.power_mode);
  hw.device = apply_power_mode(reached(hw.datasheet), hw.power_mode, h.dla);
  hw.power_limit_W = h.power_limit_W ? h.power_limit_W : hw.datasheet.default_power_limit_W;
  if (hw.power_limit_W && hw.datasheet.tdp_W && *hw.power_limit_W >= *hw.datasheet.tdp_W) hw.power_limit_W.reset();
  if (hw.power_limit_W) {
    hw.clock_ratio = models::sustained_clock_ratio(*hw.power_limit_W, *hw.datasheet.tdp_W, hw.datasheet.idle_W.value_or(0));
    for (auto& peak : hw.device.peak_dense_ops_per_s)
      if (peak) *peak *= hw.clock_ratio;
  }
  hold_at_power_limit(hw);
  return hw;
}

void resolve_offer_and_region(const HardwareDb& db, const CostSettings& c, const RegionSettings& r, int devices, ResolvedHardware& hw) {
  hw.offer.reset();
  hw.region.reset();
  hw.cheapest_offer.reset();
  if (!c.offer.empty()) hw.offer = db.offer(c.offer);
  if (!r.name.empty()) hw.region = db.region(r.name);
  else if (hw.offer && !hw.offer->region.empty()) hw.region = db.region(hw.offer->region);
  if (c.purchase)
    if (const OfferSpec* o = choose_offer(db, hw.datasheet.name, devices).cheapest) hw.cheapest_offer = *o;
}

}  // namespace perfcast
