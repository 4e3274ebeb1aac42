#pragma once
// Where devices sit and which links a communicator's traffic crosses (MODELS-REFERENCE §3.5):
// scale-up domains (NVSwitch, NVL72, NVLink bridges, or PCIe for boxes without one), NICs per
// node on a rail-optimised scale-out fabric, oversubscription, and the placement of a layout's
// parallel groups onto device ids in a configurable order (Megatron/NeMo: TP innermost).
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/spec/scenario.hpp"
#include "models/collective.hpp"

namespace perfcast {

struct Topology {
  std::string name;                   // system, or "<n> x <accelerator>"
  int devices_per_node = 1;
  int scale_up_domain = 1;            // devices one scale-up fabric connects
  std::string intra_link;             // link name inside a domain ("nvlink4", "pcie5-x16")
  models::LinkTier intra_tier = models::LinkTier::pci;
  double intra_Bps = 0;               // per device, per direction
  double nvls_efficiency = 0;         // the switch's NCCL nvlsEfficiency; 0 without NVLink SHARP
  double intra_ring_Bps = 0;          // the scale-up link's measured ring busbw; 0 where none (F-COLL-7)
  bool scale_up_switch = false;       // the domain hangs off an NVLink switch
  std::string scale_out;              // "" when the node has no scale-out network
  double nic_Bps = 0;                 // one NIC, per direction
  int nics_per_node = 0;
  double oversubscription = 1;        // scale-out bisection taper (1 = non-blocking)
  int pcie_sharing = 1;               // devices behind one PCIe switch uplink (PCIe-only boxes)
  bool scale_out_reduction = false;   // the scale-out switches reduce in the network (InfiniBand SHARP)
  bool collnet = false;               // ... and NCCL uses it (CollNet is opt-in: NCCL_COLLNET_ENABLE=1)
  bool amd_host = false;              // the nodes' host CPUs are AMD (NCCL's tuner: LL cap, network overhead)

  // Per-device share of the NICs when every device of a node talks across nodes at once.
  double nic_share_Bps() const;
  double ranks_per_nic() const;
};

// The topology of resolved hardware: a system's nodes, or `devices` accelerators, `devices_per_node`
// a node, on their own scale-up link with an optional scale-out network.
Topology topology_of(const ResolvedHardware& hw, int devices, int devices_per_node);
// ... of a scenario's hardware.
Topology topology_of(const Scenario& s);
// ... of a system's nodes (`hw.system` set: resolve_system), what nccl-tests runs on.
Topology system_topology(const ResolvedHardware& hw);

// The collective fabric of a communicator over device ids `members` (0-based, node-major).
models::Fabric fabric_for(const Topology& t, std::span<const int> members);
// ... over devices 0..ranks-1 (what nccl-tests runs on `ranks` GPUs). InputError when the
// topology cannot hold them (no scale-out network).
models::Fabric fabric_for_first(const Topology& t, int ranks);

// ---- Parallel groups ----------------------------------------------------------------------------

enum class ParallelDim { tp, cp, ep, dp, pp };
// "tp-cp-ep-dp-pp" (innermost first; every dimension once). nullopt when malformed.
std::optional<std::vector<ParallelDim>> parse_order(std::string_view text);
std::string_view default_order();
std::string_view name_of(ParallelDim d);

struct GroupPlacement {
  std::string group;        // "tp", "cp", "ep", "dp" (dense gradients: dp x cp), "edp" (expert gradients), "pp"
  int ranks = 1;
  int stride = 1;           // device-id distance between neighbouring ranks (first dimension)
  int domains = 1;          // scale-up domains spanned
  std::string crosses;      // links its traffic uses: "nvlink4", "nvlink4 + ib-ndr", "ib-ndr"
  double ranks_per_nic = 0; // when it crosses the network: devices sharing one NIC
  models::Fabric fabric;
};

// The groups of `p` on `devices` devices of `t`, dimensions laid out in `order`. EP is carved
// from the dp ranks when it divides dp (Megatron expert parallelism inside data parallelism),
// else from the tp x cp x dp block starting at the innermost rank.
std::vector<GroupPlacement> place_groups(const Topology& t, const ParallelismSettings& p, int devices,
                                         std::span<const ParallelDim> order);

}  // namespace perfcast
