#pragma once
// Collective communication time (MODELS-REFERENCE §3): NCCL's own analytic tuner form
// t = latency(algorithm, protocol, ranks, nodes) + bytes / algbw(algorithm, protocol) (F-COLL-3)
// on a two-tier fabric (scale-up domain + scale-out network), with NCCL's busbw convention
// (F-COLL-2) for reporting. Pure functions; every constant is a named, sourced parameter.
#include <array>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace perfcast::models {

enum class Collective { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, send_recv };
// NCCL's algorithms (NCCL_ALGO names: Ring, Tree, NVLS, NVLSTree, CollnetDirect, CollnetChain, PAT):
// nvls reduces in the NVLink switch inside one domain; nvls_tree reduces in the switch inside each
// domain and runs a tree across domains; collnet_* reduce in the scale-out switches (InfiniBand
// SHARP, opt-in in NCCL); pat is NCCL's log-step all-gather / reduce-scatter at one rank per
// domain (F-COLL-6). p2p is not an NCCL algorithm: all-to-all and send/recv are point-to-point
// sends to every peer at once.
enum class CollectiveAlgorithm { ring, tree, nvls, nvls_tree, collnet_direct, collnet_chain, pat, p2p };
// NCCL's protocols: LL (8-byte stores with flags), LL128 (128-byte lines), Simple (bulk with
// per-slot flags). Low latency traded against bandwidth.
enum class Protocol { ll, ll128, simple };
enum class LinkTier { nvlink, pci, net };  // NCCL's hardware classes for latency

constexpr int kProtocols = 3;
// The largest collective buffer anything reads or predicts: it lives in one device's memory, and no
// device in the database holds 1 TiB (`collective --sizes`, nccl-tests rows).
constexpr double kMaxCollectiveBytes = 1099511627776.0;

// Where one communicator's ranks sit, as the collective model needs it.
struct Fabric {
  int ranks = 1;
  int domains = 1;               // scale-up domains (NCCL's "nodes") the ranks span
  LinkTier intra_tier = LinkTier::nvlink;
  double intra_Bps = 0;          // per-rank, per-direction line rate inside a domain
  double inter_Bps = 0;          // per-rank, per-direction share of the NICs (after sharing, oversubscription)
  double nvls_efficiency = 0;    // the switch's NCCL nvlsEfficiency; 0 without NVLink SHARP
  double intra_ring_Bps = 0;     // ring busbw measured on the scale-up link (F-COLL-7); 0: link rate x scale_up_ring_efficiency
  bool intra_switch = false;     // the domain is an NVLink switch (CollNet Direct needs one)
  bool collnet = false;          // in-network reduction in the scale-out switches, enabled (NCCL_COLLNET_ENABLE=1)
  bool amd_host = false;         // AMD host CPUs: NCCL's tuner takes its multi-node LL cap and network overhead by CPU vendor
  int ranks_per_domain() const { return ranks / domains; }
};

// Named, calibratable efficiencies and NCCL tuner constants (sources in collective.cpp).
struct CollectiveParams {
  double scale_up_ring_efficiency = 0;  // ring/AG/RS busbw / per-direction link rate
  double p2p_efficiency = 0;            // point-to-point over the scale-up link
  double nic_efficiency = 0;            // per-NIC busbw / line rate
  double pcie_efficiency = 0;           // bulk PCIe transfers / per-direction rate
  double nvls_algbw_fraction = 0;       // NVLS algbw / per-direction link rate at nvls_reference_efficiency
  double nvls_reference_efficiency = 0; // NCCL's nvlsEfficiency of the generation that fraction was measured on
  double ll_bandwidth_factor = 0;       // point-to-point LL: half of each 8-byte line is flag
  double ll_ring_factor = 0;            // ring LL busbw / ring busbw: across domains, all-reduce and reduce
  double ll_ring_gather_factor = 0;     // ring LL busbw / ring busbw: other collectives inside one domain
  double ll_tree_factor = 0;            // tree LL busbw / tree busbw
  double ll_max_busbw_one_domain = 0;   // LL busbw cap inside one domain (Ampere and later)
  std::array<std::array<double, 2>, 2> ll_max_busbw{};  // LL busbw cap [Intel or other, AMD host][two domains, more]
  std::array<double, 2> net_overhead_s{};  // per ring step across domains, at least [Intel or other, AMD host]
  double net_overhead_simple_factor = 0;   // Simple protocol: that overhead x this
  double ll128_bandwidth_factor = 0, tree_bandwidth_factor = 0;
  double ring_plateau_factor = 0;       // multi-node ring Simple all-reduce latency multiplier
  double slot_bytes = 0;                // NCCL_BUFFSIZE / NCCL_STEPS: the Simple protocol's pipeline unit
  int channels = 0;                     // channels a collective is split over
  int p2p_channels = 0;                 // channels per peer of point-to-point (all-to-all, send/recv)
  // latency tables, µs → s: base[algorithm][protocol], hop[tier][algorithm][protocol] (ring, tree)
  std::array<std::array<double, kProtocols>, 2> base_s{};
  std::array<std::array<std::array<double, kProtocols>, 2>, 3> hop_s{};
  double nvls_latency_s = 0;                                  // NVLS and NVLSTree, inside the domain
  double nvls_tree_net_latency_s = 0;                         // NVLSTree, per tree level across domains
  double collnet_direct_intra_latency_s = 0, collnet_direct_net_latency_s = 0;
  double collnet_chain_intra_latency_s = 0, collnet_chain_net_latency_s = 0;
  double collnet_arity_latency_s = 0;                         // CollNet Direct, per local peer
  double collnet_direct_factor = 0;                           // CollNet Direct busbw derate (tuning.cc: sm90+)
  double pat_base_latency_s = 0, pat_rank_latency_s = 0, pat_net_latency_divisor = 0;
  double pat_bandwidth_factor = 0;
  std::array<std::array<double, 24>, kProtocols> tree_correction{};  // by log2(bytes/64), applied below 23
  double latency_scale = 1;             // every latency above x this: calibration's handle on the latency term
  double latency_floor_s = 0;           // no collective on two ranks or more starts faster (a measured curve's floor)
};

CollectiveParams default_collective_params();

struct CollectiveTime {
  Collective op = Collective::all_reduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  Protocol protocol = Protocol::simple;
  double bytes = 0;              // nccl-tests "size": the whole user buffer
  double latency_s = 0, transfer_s = 0, fill_s = 0, time_s = 0;
  double algbw_Bps = 0, busbw_Bps = 0;
};

// In-switch all-reduce algbw inside one domain: the measured Hopper fraction of the link rate,
// scaled by the switch's nvlsEfficiency; 0 without NVLink SHARP.
double nvls_algbw(const Fabric& f, const CollectiveParams& p);
// A ring's bus bandwidth inside one domain: the link's measured ring busbw where the database has one (F-COLL-7),
// else its rate x scale_up_ring_efficiency.
double scale_up_ring_rate(const Fabric& f, const CollectiveParams& p);

// nccl-tests' busbw / algbw factor: 2(n-1)/n all-reduce, (n-1)/n all-gather, reduce-scatter and
// all-to-all, 1 broadcast, reduce and send/recv (F-COLL-2).
double bus_factor(Collective op, int ranks);
// Planning form (F-COLL-4, E5): time to move `bytes` when the collective runs at `busbw`.
double time_at_busbw(Collective op, double bytes, int ranks, double busbw_Bps);

// Time with one algorithm and protocol; nullopt where NCCL would not run it: tree, NVLSTree and
// CollNet all-reduce only, across domains (tree anywhere); NVLS all-reduce, all-gather and
// reduce-scatter inside one domain with NVLink SHARP; PAT all-gather and reduce-scatter at one rank
// per domain; CollNet only with `Fabric::collnet`, Direct only on a switched domain; p2p only
// all-to-all and send/recv; LL128 only on NVLink; NVLS, NVLSTree, CollNet and PAT Simple only.
std::optional<CollectiveTime> collective_time(Collective op, double bytes, const Fabric& f, const CollectiveParams& p,
                                              CollectiveAlgorithm a, Protocol proto);
// The fastest protocol for `a`, or over every algorithm when `a` is empty (NCCL's auto choice).
// With one rank the time is zero. nullopt only when `a` is given and cannot run.
std::optional<CollectiveTime> best_collective_time(Collective op, double bytes, const Fabric& f, const CollectiveParams& p,
                                                   std::optional<CollectiveAlgorithm> a = std::nullopt);
// Convenience for models that only need seconds: the auto choice.
double collective_seconds(Collective op, double bytes, const Fabric& f, const CollectiveParams& p);

std::string_view name_of(Collective c);
std::string_view name_of(CollectiveAlgorithm a);
// One phrase saying which collectives and fabrics `a` runs on, for errors.
std::string_view where_it_runs(CollectiveAlgorithm a);
std::string_view name_of(Protocol p);
std::optional<Collective> collective_from(std::string_view name);
// Our names or NCCL_ALGO's spellings ("NVLSTree", "CollnetDirect"), case and '_' ignored.
std::optional<CollectiveAlgorithm> algorithm_from(std::string_view name);
std::span<const std::string_view> collective_names();
// "auto" followed by every algorithm name: what --algo and a case's `algorithm` accept.
std::span<const std::string_view> algorithm_choices();

}  // namespace perfcast::models
