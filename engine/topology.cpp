#include "engine/topology.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <vector>

#include "engine/errors.hpp"

namespace perfcast {
namespace {

constexpr std::array<std::string_view, 5> kDims = {"tp", "cp", "ep", "dp", "pp"};

double per_direction(const LinkSpec& l) { return l.bandwidth_per_direction_Bps.value_or(0); }

void set_scale_up(Topology& t, const HardwareDb& db, const std::string& link, const std::string& sw,
                  const std::string& host_link) {
  if (!link.empty()) {
    const LinkSpec& l = db.link(link);
    t.intra_link = link;
    t.intra_tier = models::LinkTier::nvlink;
    t.intra_Bps = per_direction(l);
    if (l.max_domain) t.scale_up_domain = std::min(t.scale_up_domain, *l.max_domain);
    if (!sw.empty()) {
      const LinkSpec& s = db.link(sw);
      if (s.in_network_reduction) t.nvls_efficiency = s.nvls_efficiency.value_or(0);
    }
  } else {
    // No scale-up fabric: devices of a node talk over PCIe through the host.
    t.intra_link = host_link.empty() ? "pcie" : host_link;
    t.intra_tier = models::LinkTier::pci;
    t.intra_Bps = host_link.empty() ? 0 : per_direction(db.link(host_link)) / t.pcie_sharing;
  }
}

void set_scale_out(Topology& t, const HardwareDb& db, const std::string& link, int nics) {
  if (link.empty()) return;
  const LinkSpec& l = db.link(link);
  t.scale_out = link;
  t.nic_Bps = per_direction(l) * l.links.value_or(1);
  t.nics_per_node = nics;
}

int dim_index(ParallelDim d) { return static_cast<int>(d); }

}  // namespace

double Topology::nic_share_Bps() const {
  if (nics_per_node <= 0) return 0;
  return nic_Bps * std::min(1.0, double(nics_per_node) / devices_per_node);
}

double Topology::ranks_per_nic() const { return nics_per_node > 0 ? double(devices_per_node) / nics_per_node : 0; }

Topology topology_of_system(const HardwareDb& db, std::string_view name) {
  const SystemSpec& s = db.system(name);
  Topology t;
  t.name = s.name;
  t.devices_per_node = s.devices_per_node;
  t.scale_up_domain = s.scale_up_domain;
  set_scale_up(t, db, s.scale_up, s.scale_up_switch, s.host_link);
  set_scale_out(t, db, s.scale_out, s.nics_per_node.value_or(0));
  return t;
}

Topology topology_of(const HardwareDb& db, const HardwareChoice& h) {
  if (!h.system.empty()) {
    Topology t = topology_of_system(db, h.system);
    if (!h.scale_out.empty() && h.scale_out != t.scale_out)
      set_scale_out(t, db, h.scale_out, db.system(h.system).nics_per_node.value_or(t.devices_per_node));
    return t;
  }
  const AcceleratorSpec& a = db.accelerator(h.accelerator);
  Topology t;
  t.name = fmt::format("{} x {}", h.count, h.accelerator);
  t.devices_per_node = std::max(1, h.devices_per_node);
  t.scale_up_domain = t.devices_per_node;
  const std::string link = !h.scale_up.empty() ? h.scale_up : a.scale_up_link;
  set_scale_up(t, db, link, "", a.host_link);
  // One NIC per device unless a system says otherwise (rail-optimised, as DGX-class nodes are built).
  set_scale_out(t, db, h.scale_out, t.devices_per_node);
  return t;
}

models::Fabric fabric_for(const Topology& t, std::span<const int> members) {
  models::Fabric f;
  f.ranks = static_cast<int>(members.size());
  // Distinct scale-up domains and nodes among the members (sorted, then counted once each).
  auto distinct = [&](int per) {
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
