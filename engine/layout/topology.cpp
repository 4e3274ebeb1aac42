#include "engine/layout/topology.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <vector>

#include "engine/core/errors.hpp"
#include "engine/layout/rules.hpp"

namespace perfcast {
namespace {

constexpr std::array<std::string_view, 5> kDims = {"tp", "cp", "ep", "dp", "pp"};

double per_direction(const LinkSpec& l) { return l.bandwidth_per_direction_Bps.value_or(0); }

void set_scale_up(Topology& t, const std::optional<LinkSpec>& link, const std::optional<LinkSpec>& sw,
                  const std::optional<LinkSpec>& host_link) {
  if (link) {
    t.intra_link = link->name;
    t.intra_tier = models::LinkTier::nvlink;
    t.intra_Bps = per_direction(*link);
    if (link->max_domain) t.scale_up_domain = std::min(t.scale_up_domain, *link->max_domain);
    t.scale_up_switch = sw.has_value();
    if (sw && sw->in_network_reduction) t.nvls_efficiency = sw->nvls_efficiency.value_or(0);
    t.intra_ring_Bps = link->ring_busbw_Bps.value_or(0);
  } else {
    // No scale-up fabric: devices of a node talk over PCIe through the host.
    t.intra_link = host_link ? host_link->name : "pcie";
    t.intra_tier = models::LinkTier::pci;
    t.intra_Bps = host_link ? per_direction(*host_link) / t.pcie_sharing : 0;
  }
}

void set_scale_out(Topology& t, const std::optional<LinkSpec>& link, int nics) {
  if (!link) return;
  t.scale_out = link->name;
  t.nic_Bps = per_direction(*link) * link->links.value_or(1);
  t.nics_per_node = nics;
  t.scale_out_reduction = link->in_network_reduction;
}

int dim_index(ParallelDim d) { return static_cast<int>(d); }

}  // namespace

double Topology::nic_share_Bps() const {
  if (nics_per_node <= 0) return 0;
  return nic_Bps * std::min(1.0, double(nics_per_node) / devices_per_node);
}

double Topology::ranks_per_nic() const { return nics_per_node > 0 ? double(devices_per_node) / nics_per_node : 0; }

Topology topology_of(const ResolvedHardware& hw, int devices, int devices_per_node) {
  Topology t;
  if (hw.system) {
    t.name = hw.system->name;
    t.devices_per_node = hw.system->devices_per_node;
    t.scale_up_domain = hw.system->scale_up_domain;
    t.amd_host = hw.system->amd_host;
  } else {
    t.name = fmt::format("{} x {}", devices, hw.datasheet.name);
    t.devices_per_node = std::max(1, devices_per_node);
    t.scale_up_domain = t.devices_per_node;
  }
  set_scale_up(t, hw.scale_up, hw.scale_up_switch, hw.node_host_link);
  set_scale_out(t, hw.scale_out, hw.nics_per_node);
  return t;
}

Topology topology_of(const Scenario& s) { return topology_of(s.hw, s.hardware.count, s.hardware.devices_per_node); }

Topology system_topology(const ResolvedHardware& hw) { return topology_of(hw, 0, hw.system->devices_per_node); }

models::Fabric fabric_for(const Topology& t, std::span<const int> members) {
  models::Fabric f;
  f.ranks = static_cast<int>(members.size());
  // Distinct scale-up domains and nodes among the members: counted in one pass when the members are
  // in order (place_groups' always are), else sorted first.
  const bool ordered = std::is_sorted(members.begin(), members.end());
  auto distinct = [&](int per) {
    if (ordered) {
      std::size_t n = 0;
      for (std::size_t i = 0; i < members.size(); ++i) n += i == 0 || members[i] / per != members[i - 1] / per;
      return n;
    }
    std::vector<int> ids(members.size());
    for (std::size_t i = 0; i < members.size(); ++i) ids[i] = members[i] / per;
    std::sort(ids.begin(), ids.end());
    return static_cast<std::size_t>(std::unique(ids.begin(), ids.end()) - ids.begin());
  };
  f.domains = static_cast<int>(distinct(t.scale_up_domain));
  const std::size_t nodes = distinct(t.devices_per_node);
  f.intra_tier = t.intra_tier;
  f.intra_Bps = t.intra_Bps;
  f.nvls_efficiency = t.nvls_efficiency;
  f.intra_ring_Bps = t.intra_ring_Bps;
  f.intra_switch = t.scale_up_switch;
  f.collnet = t.collnet && t.scale_out_reduction && nodes > 1;
  f.amd_host = t.amd_host;
  if (f.domains > 1) {
    if (nodes > 1 && t.scale_out.empty())
      throw InputError({}, fmt::format("{} has no scale-out network: a group of {} devices does not fit in one node of {}",
                                   t.name, f.ranks, t.devices_per_node));
    // Domains inside one node (NVLink-bridged pairs) reach each other over PCIe.
    f.inter_Bps = nodes > 1 ? t.nic_share_Bps() / t.oversubscription : t.intra_Bps;
    if (t.scale_up_domain < t.devices_per_node) f.inter_Bps = std::min(f.inter_Bps, t.intra_Bps);
  }
  return f;
}

models::Fabric fabric_for_first(const Topology& t, int ranks) {
  if (t.scale_out.empty() && ranks > t.devices_per_node)
    throw InputError({}, fmt::format("{} has no scale-out network: at most {} devices, not {}", t.name, t.devices_per_node, ranks));
  std::vector<int> members(static_cast<std::size_t>(ranks));
  for (int i = 0; i < ranks; ++i) members[static_cast<std::size_t>(i)] = i;
  return fabric_for(t, members);
}

std::string_view default_order() { return "tp-cp-ep-dp-pp"; }
std::string_view name_of(ParallelDim d) { return kDims[static_cast<std::size_t>(d)]; }

std::optional<std::vector<ParallelDim>> parse_order(std::string_view text) {
  std::vector<ParallelDim> order;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('-', start);
    if (end == std::string_view::npos) end = text.size();
    auto it = std::find(kDims.begin(), kDims.end(), text.substr(start, end - start));
    if (it == kDims.end()) return std::nullopt;
    auto d = static_cast<ParallelDim>(it - kDims.begin());
    if (std::find(order.begin(), order.end(), d) != order.end()) return std::nullopt;
    order.push_back(d);
    start = end + 1;
  }
  if (order.size() != kDims.size()) return std::nullopt;
  return order;
}

std::vector<GroupPlacement> place_groups(const Topology& t, const ParallelismSettings& p, int devices,
                                         std::span<const ParallelDim> order) {
  const int dp = data_parallel(p, devices);
  const bool ep_in_dp = p.ep > 1 && dp % p.ep == 0;
  std::array<int, 5> size{};
  size[dim_index(ParallelDim::tp)] = p.tp;
  size[dim_index(ParallelDim::cp)] = p.cp;
  size[dim_index(ParallelDim::ep)] = ep_in_dp ? p.ep : 1;
  size[dim_index(ParallelDim::dp)] = ep_in_dp ? dp / p.ep : dp;
  size[dim_index(ParallelDim::pp)] = p.pp;
  std::array<int, 5> stride{};
  int s = 1;
  for (ParallelDim d : order) {
    stride[dim_index(d)] = s;
    s *= size[dim_index(d)];
  }

  // Members of the group through device 0 varying `dims` (innermost first), at most `limit`.
  auto members_of = [&](std::initializer_list<ParallelDim> dims, int limit) {
    std::vector<ParallelDim> varying;
    for (ParallelDim d : order)
      if (std::find(dims.begin(), dims.end(), d) != dims.end() && size[dim_index(d)] > 1) varying.push_back(d);
    std::vector<int> ids{0};
    for (ParallelDim d : varying) {
      std::vector<int> next;
      for (int c = 0; c < size[dim_index(d)]; ++c)
        for (int id : ids) next.push_back(id + c * stride[dim_index(d)]);
      ids = std::move(next);
    }
    if (static_cast<int>(ids.size()) > limit) ids.resize(static_cast<std::size_t>(limit));
    return ids;
  };

  std::vector<GroupPlacement> groups;
  auto add = [&](std::string name, std::vector<int> ids) {
    if (ids.size() <= 1) return;
    GroupPlacement g;
    g.group = std::move(name);
    g.ranks = static_cast<int>(ids.size());
    g.stride = ids[1] - ids[0];
    g.fabric = fabric_for(t, ids);
    g.domains = g.fabric.domains;
    if (g.domains == 1) g.crosses = t.intra_link;
    else {
      const std::string out = t.scale_out.empty() ? t.intra_link : t.scale_out;
      g.crosses = g.fabric.ranks_per_domain() > 1 ? t.intra_link + " + " + out : out;
      g.ranks_per_nic = t.ranks_per_nic();
    }
    groups.push_back(std::move(g));
  };
  const int big = devices;
  add("tp", members_of({ParallelDim::tp}, big));
  add("cp", members_of({ParallelDim::cp}, big));
  if (ep_in_dp) add("ep", members_of({ParallelDim::ep}, big));
  else if (p.ep > 1) add("ep", members_of({ParallelDim::tp, ParallelDim::cp, ParallelDim::dp}, p.ep));
  add("dp", members_of({ParallelDim::cp, ParallelDim::ep, ParallelDim::dp}, big));
  if (ep_in_dp) {
    const int etp = expert_tensor_parallel(p, dp);
    const int edp = p.tp * p.cp * dp / (p.ep * etp);
    add("edp", members_of({ParallelDim::cp, ParallelDim::dp}, edp));
  }
  add("pp", members_of({ParallelDim::pp}, big));
  return groups;
}

}  // namespace perfcast
