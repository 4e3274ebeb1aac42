#include "engine/data/hardware_records.hpp"

#include <fmt/format.h>

namespace perfcast {
namespace {

std::optional<int> integer(const Record& r, std::string_view path) {
  auto v = r.number(path);
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

}  // namespace

void fill_sustained_classes(AcceleratorSpec& a) {
  const auto take = [&](Precision p, Precision from) {
    const auto to = static_cast<std::size_t>(p), of = static_cast<std::size_t>(from);
    if (a.sustained_dense_ratio[to]) return;
    a.sustained_dense_ratio[to] = a.sustained_dense_ratio[of];
    a.sustained_dense_basis[to] = a.sustained_dense_basis[of];
  };
  for (Precision p : {Precision::tf32, Precision::fp16}) take(p, Precision::bf16);
  for (Precision p : {Precision::fp6, Precision::fp4, Precision::int8, Precision::int4}) take(p, Precision::fp8);
}

AcceleratorSpec accelerator_from(const Record& r) {
  AcceleratorSpec a;
  a.name = r.name;
  a.display_name = r.text("display_name");
  a.vendor = r.text("vendor");
  a.category = r.text("category");
  const std::string architecture = r.text("architecture");
  a.architecture = architecture == "hopper"      ? GpuArchitecture::hopper
                   : architecture == "blackwell" ? GpuArchitecture::blackwell
                                                 : GpuArchitecture::other;
  a.gpu = a.category == "datacenter-gpu" || a.category == "edge-gpu";
  for (std::size_t i = 0; i < kPrecisionCount; ++i) {
    a.peak_dense_ops_per_s[i] = r.number(fmt::format("peak_dense.{}", kPrecisionNames[i]));
    const std::string path = fmt::format("sustained_dense.{}", kPrecisionNames[i]);
    a.sustained_dense_ratio[i] = r.number(path);
    if (const Entry* e = r.find(path); e && a.sustained_dense_ratio[i])
      a.sustained_dense_basis[i] = e->note.empty() ? path : fmt::format("{}: {}", path, e->note);
  }
  a.memory_capacity_marketing_B = r.number("memory.capacity");
  a.memory_capacity_usable_B = r.number("memory.usable_capacity");
  a.memory_bandwidth_Bps = r.number("memory.bandwidth");
  a.decode_attention_Bps = r.number("memory.decode_attention_bandwidth");
  if (a.decode_attention_Bps) a.decode_attention_basis = "memory.decode_attention_bandwidth";
  a.decode_attention_fp8_kv_share = r.number("memory.decode_attention_fp8_kv_share");
  a.l2_B = r.number("on_chip.l2");
  a.sram_B = r.number("on_chip.sram");
  a.tdp_W = r.number("power.tdp");
  a.idle_W = r.number("power.idle");
  a.default_power_limit_W = r.number("power.default_limit");
  a.embodied_kg = r.number("embodied.carbon");
  a.boost_clock_Hz = r.number("compute.boost_clock");
  a.price_usd = r.number("price.purchase");
  a.compute_units = integer(r, "compute.units");
  a.tpcs = integer(r, "compute.tpcs");
  a.scale_up_link = r.text("scale_up.link");
  a.scale_up_bandwidth_per_direction_Bps = r.number("scale_up.bandwidth");
  a.host_link = r.text("host.link");
  a.dla_count = integer(r, "dla.count");
  a.dla_int8_ops_per_s = r.number("dla.int8");
  for (std::size_t i = 0; i < r.array_size("power_modes"); ++i) {
    auto at = [&](std::string_view key) { return fmt::format("power_modes[{}].{}", i, key); };
    a.power_modes.push_back({.name = r.text(at("name")),
                             .power_W = r.number(at("power")).value_or(0),
                             .is_default = r.flag(at("default")),
                             .gpu_max_clock_Hz = r.number(at("gpu_max_clock")),
                             .gpu_tpcs = integer(r, at("gpu_tpcs")),
                             .memory_bandwidth_Bps = r.number(at("memory_bandwidth"))});
  }
  return a;
}

LinkSpec link_from(const Record& r) {
  return {.name = r.name,
          .display_name = r.text("display_name"),
          .link_class = r.text("class"),
          .scope = r.text("scope"),
          .bandwidth_per_direction_Bps = r.number("bandwidth"),
          .per_link_bandwidth_per_direction_Bps = r.number("per_link_bandwidth"),
          .latency_s = r.number("latency"),
          .nvls_efficiency = r.number("nvls_efficiency"),
          .switching_capacity_per_direction_Bps = r.number("switching_capacity"),
          .ring_busbw_Bps = r.number("ring_busbw"),
          .links = integer(r, "links"),
          .max_domain = integer(r, "max_domain"),
          .in_network_reduction = r.flag("in_network_reduction")};
}

SystemSpec system_from(const Record& r) {
  return {.name = r.name,
          .display_name = r.text("display_name"),
          .accelerator = r.text("accelerator"),
          .scale_up = r.text("scale_up"),
          .scale_up_switch = r.text("scale_up_switch"),
          .scale_out = r.text("scale_out"),
          .host_link = r.text("host_link"),
          .cpu = r.text("cpu"),
          .devices_per_node = integer(r, "devices_per_node").value_or(0),
          .scale_up_domain = integer(r, "scale_up_domain").value_or(0),
          .nics_per_node = integer(r, "nics_per_node"),
          .node_power_W = r.number("node_power"),
          .price_usd = r.number("price"),
          .amd_host = r.text("cpu_vendor") == "amd"};
}

OfferSpec offer_from(const Record& r) {
  OfferSpec o{.name = r.name,
              .display_name = r.text("display_name"),
              .provider = r.text("provider"),
              .instance = r.text("instance"),
              .system = r.text("system"),
              .region = r.text("region"),
              .cloud_region = r.text("cloud_region"),
              .as_of = r.text("as_of"),
              .devices = integer(r, "devices").value_or(0)};
  double per = r.text("price_per") == "instance" ? 1.0 / o.devices : 1.0;
  o.on_demand_usd_per_device_s = r.number("on_demand").value_or(0) * per;
  if (auto spot = r.number("spot")) o.spot_usd_per_device_s = *spot * per;
  o.network_per_instance_Bps = r.number("network_per_instance");
  o.community = r.text("market") == "community";
  return o;
}

RegionSpec region_from(const Record& r) {
  const Entry* regions = r.find("cloud_regions");
  return {.name = r.name,
          .display_name = r.text("display_name"),
          .grid_area = r.text("grid_area"),
          .grid_basis = r.text("grid_basis"),
          .grid_year = r.text("grid_year"),
          .grid_kg_per_J = r.number("grid_intensity").value_or(0),
          .electricity_usd_per_J = r.number("electricity_price"),
          .pue = r.number("pue"),
          .cloud_regions = regions ? regions->list : std::vector<std::string>{}};
}


}  // namespace perfcast
