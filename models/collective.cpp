#include "models/collective.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "models/roofline.hpp"

namespace perfcast::models {
namespace {

constexpr std::string_view kCollectives[] = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all",
                                             "broadcast",  "reduce",     "send_recv"};
constexpr std::string_view kAlgorithmChoices[] = {"auto",           "ring",          "tree", "nvls", "nvls_tree",
                                                   "collnet_direct", "collnet_chain", "pat",  "p2p"};
constexpr std::span<const std::string_view> kAlgorithms = std::span(kAlgorithmChoices).subspan(1);
constexpr std::string_view kProtocolNames[] = {"LL", "LL128", "Simple"};
constexpr int kRing = 0, kTree = 1;  // rows of the latency tables

double us(double v) { return v * 1e-6; }
int index_of(Protocol p) { return static_cast<int>(p); }

// Effective per-rank rate inside a domain: PCIe at its bulk-transfer fraction, NVLink at the
// fraction the traffic pattern reaches (ring or point-to-point).
double intra_rate(const Fabric& f, const CollectiveParams& p, double nvlink_efficiency) {
  return f.intra_Bps * (f.intra_tier == LinkTier::pci ? p.pcie_efficiency : nvlink_efficiency);
}

// Per-rank ring bus bandwidth (what nccl-tests reports as busbw for large messages): the
// scale-up link inside one domain; across domains NCCL runs one ring per NIC, so the g ranks of a
// domain together push g NIC shares (F-COLL-5: busbw ≈ min(B_nvl,eff, g·B_nic,eff)).
double ring_busbw(const Fabric& f, const CollectiveParams& p) {
  const double intra = scale_up_ring_rate(f, p);
  if (f.domains <= 1) return intra;
  const double inter = f.ranks_per_domain() * f.inter_Bps * p.nic_efficiency;
  return f.ranks_per_domain() > 1 ? std::min(intra, inter) : inter;
}

// NCCL's LL bus-bandwidth cap: inside one domain its Ampere-and-later figure (the database holds no
// older NVIDIA part), across domains by the host CPU vendor and whether there are two domains or more.
double ll_cap(const Fabric& f, const CollectiveParams& p) {
  if (f.domains <= 1) return p.ll_max_busbw_one_domain;
  return p.ll_max_busbw[f.amd_host ? 1 : 0][f.domains <= 2 ? 0 : 1];
}

// The ring's bus bandwidth under a protocol (tuning.cc): LL moves a quarter of it across domains and
// for reductions, a third otherwise, capped; LL128 120/128 of it.
double ring_rate(const Fabric& f, const CollectiveParams& p, Protocol proto, Collective op) {
  const double busbw = ring_busbw(f, p);
  switch (proto) {
    case Protocol::ll: {
      const bool quarter = f.domains > 1 || op == Collective::all_reduce || op == Collective::reduce;
      return std::min(ll_cap(f, p), busbw * (quarter ? p.ll_ring_factor : p.ll_ring_gather_factor));
    }
    case Protocol::ll128: return busbw * p.ll128_bandwidth_factor;
    case Protocol::simple: return busbw;
  }
  return busbw;
}

double protocol_factor(Protocol proto, const CollectiveParams& p) {
  switch (proto) {
    case Protocol::ll: return p.ll_bandwidth_factor;
    case Protocol::ll128: return p.ll128_bandwidth_factor;
    case Protocol::simple: return 1;
  }
  return 1;
}

// NCCL's ring latency: base + (steps - inter-domain steps)·intra hop + inter-domain steps·net hop.
// A ring across domains posts a network operation every step, so for all-reduce, all-gather and
// reduce-scatter an intra hop takes at least the network overhead (x3 with Simple).
double ring_latency(const Fabric& f, const CollectiveParams& p, Protocol proto, int steps, int inter_steps,
                    bool net_overhead = false) {
  const int pi = index_of(proto);
  double intra_hop = p.hop_s[static_cast<int>(f.intra_tier)][kRing][pi];
  if (net_overhead && f.domains > 1)
    intra_hop = std::max(intra_hop, p.net_overhead_s[f.amd_host ? 1 : 0] * (proto == Protocol::simple ? p.net_overhead_simple_factor : 1));
  return p.base_s[kRing][pi] + (steps - inter_steps) * intra_hop + inter_steps * p.hop_s[static_cast<int>(LinkTier::net)][kRing][pi];
}

bool protocol_runs(Protocol proto, const Fabric& f) {
  // LL128 needs NVLink inside the domain (NCCL enables it only there by default).
  return proto != Protocol::ll128 || f.intra_tier == LinkTier::nvlink;
}

CollectiveTime finish(CollectiveTime t, const CollectiveParams& p, int ranks) {
  // Simple moves data in slots of NCCL_BUFFSIZE/NCCL_STEPS per channel and a receiver forwards a
  // slot only once it has landed: one slot per channel is exposed as pipeline fill.
  const int channels = t.algorithm == CollectiveAlgorithm::p2p ? p.p2p_channels : p.channels;
  if (t.protocol == Protocol::simple && t.bytes > 0)
    t.fill_s = t.transfer_s * std::min(1.0, p.slot_bytes * channels / t.bytes);
  t.latency_s = std::max(t.latency_s * p.latency_scale, ranks > 1 ? p.latency_floor_s : 0.0);
  t.time_s = t.latency_s + t.transfer_s + t.fill_s;
  t.algbw_Bps = t.time_s > 0 ? t.bytes / t.time_s : 0;
  t.busbw_Bps = t.algbw_Bps * bus_factor(t.op, ranks);
  return t;
}

std::optional<CollectiveTime> all_reduce(double S, const Fabric& f, const CollectiveParams& p, CollectiveAlgorithm a,
                                         Protocol proto, CollectiveTime t) {
  const int n = f.ranks, N = f.domains, g = f.ranks_per_domain();
  const int pi = index_of(proto);
  const int intra = static_cast<int>(f.intra_tier), net = static_cast<int>(LinkTier::net);
  switch (a) {
    case CollectiveAlgorithm::ring: {
      t.latency_s = ring_latency(f, p, proto, 2 * (n - 1), 2 * (N - 1), true);
      // Multi-node ring plateau (NCCL applies it from nRanks/16·64 KiB up).
      if (proto == Protocol::simple && N > 1 && S >= n / 16.0 * 65536) t.latency_s *= p.ring_plateau_factor;
      t.transfer_s = time_at_busbw(Collective::all_reduce, S, n, ring_rate(f, p, proto, Collective::all_reduce));
      return t;
    }
    case CollectiveAlgorithm::tree: {
      t.latency_s = p.base_s[kTree][pi] + 2 * ((g - 1) * p.hop_s[intra][kTree][pi] + std::log2(N) * p.hop_s[net][kTree][pi]);
      // Pipelined double binary tree: each rank moves about 2S, so algbw = busbw / 2 (NCCL's tuner),
      // with NCCL's size-dependent correction for medium messages.
      double busbw = ring_busbw(f, p) * p.tree_bandwidth_factor;
      busbw = proto == Protocol::ll ? std::min(busbw * p.ll_tree_factor, ll_cap(f, p)) : busbw * protocol_factor(proto, p);
      const int log_size = static_cast<int>(std::floor(std::log2(std::max(S / 64, 1.0))));
      if (log_size < 23) busbw *= p.tree_correction[pi][std::max(log_size, 0)];
      t.transfer_s = S / (busbw * 0.5);
      return t;
    }
    case CollectiveAlgorithm::nvls: {
      // Inside one domain; across domains NCCL runs NVLS only on top of CollNet, modelled as collnet_*.
      if (N > 1 || f.nvls_efficiency <= 0 || proto != Protocol::simple) return std::nullopt;
      t.latency_s = p.nvls_latency_s;
      t.transfer_s = S / nvls_algbw(f, p);
      return t;
    }
    case CollectiveAlgorithm::nvls_tree: {
      // In-switch reduction inside each domain, a tree of domains on the NICs (F-COLL-6). The
      // tuner converts the same per-channel NVLS busbw with the whole communicator's n/(2(n-1)):
      // the one-domain algbw scaled by (n/(n-1)) / (g/(g-1)). Across two domains the tree is one
      // exchange, so the NICs count twice (tuning.cc). NCCL's per-channel NVLSTree caps
      // (57.7/45.5 GB/s Hopper, 96/80 Blackwell, x channels) sit above both bounds on every system
      // in the database and are left out.
      if (N <= 1 || g < 2 || f.nvls_efficiency <= 0 || proto != Protocol::simple) return std::nullopt;
      const double to_algbw = n / (2.0 * (n - 1));
      const double intra_algbw = nvls_algbw(f, p) * (n / (n - 1.0)) / (g / (g - 1.0));
      const double inter_algbw = g * f.inter_Bps * p.nic_efficiency * (N <= 2 ? 2 : 1) * to_algbw;
      t.latency_s = p.nvls_latency_s + 2 * std::log2(N) * p.nvls_tree_net_latency_s;
      t.transfer_s = S / std::min(intra_algbw, inter_algbw);
      return t;
    }
    case CollectiveAlgorithm::collnet_direct:
    case CollectiveAlgorithm::collnet_chain: {
      // The scale-out switches reduce (SHARP): each domain's NICs carry its S once each way, S/g per
      // rank, whatever the domain count (F-COLL-6). Inside the domain, Direct scatters and gathers
      // over the NVLink switch (2(g-1)/g of S per rank at the ring rate; the tuner derates
      // Direct by 0.85 on sm90+, applied here on every generation); Chain passes S up and down a chain, the tuner's algbw = busbw / 2.
      const bool direct = a == CollectiveAlgorithm::collnet_direct;
      if (!f.collnet || N <= 1 || proto != Protocol::simple || (direct && !f.intra_switch)) return std::nullopt;
      const double ring = scale_up_ring_rate(f, p);
      const double inter_s = S / (g * f.inter_Bps * p.nic_efficiency);
      const double intra_s = g <= 1 ? 0 : direct ? 2.0 * (g - 1) / g * S / ring : 2 * S / ring;
      t.latency_s = direct ? 2 * (std::min(1, g - 1) * p.collnet_direct_intra_latency_s + (g - 1) * p.collnet_arity_latency_s) +
                                 p.collnet_direct_net_latency_s
                           : 2 * (g - 1) * p.collnet_chain_intra_latency_s + p.collnet_chain_net_latency_s;
      t.transfer_s = std::max(intra_s, inter_s) / (direct ? p.collnet_direct_factor : 1.0);
      return t;
    }
    case CollectiveAlgorithm::pat:
    case CollectiveAlgorithm::p2p: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

// Sources (MODELS-REFERENCE §3.3, §16). None was fitted to the validation cases they are scored on:
//  scale_up_ring_efficiency 370/450: NCCL maintainer, "effective NVLink bandwidth of 370GB/s"
//    for ring and non-all-reduce collectives on 8xH100 (NVIDIA/nccl-tests #212).
//  p2p_efficiency 380/450: NCCL p2p on HGX H100, 380 GB/s unidirectional (NVIDIA/nccl #1264).
//  nic_efficiency 47/50: "for NDR @ 400Gbps you should see 46-48GB/s per NIC" (nccl-tests #290).
//  pcie_efficiency: the roofline's host-link default (models/roofline.cpp names its source).
//  nvls_algbw_fraction 275/450 at nvlsEfficiency 0.85: "peak busBw of ~480GB/s (algbw ~275GB/s)"
//    on 8xH100 (nccl-tests #212, maintainer); other generations scale by their nvlsEfficiency
//    (0.74 Blackwell) from NVIDIA/nccl src/graph/tuning.cc. The #212 case is marked used_for.
//  Protocol factors, latencies, plateau and tree correction: NVIDIA/nccl src/graph/tuning.cc
//    (baseLat, hwLat, LL128 ×0.92 = 120/128, tree ×0.92, NVLS hwLat 25 µs, plateau 1.4
//    for sm80+, treeCorrectionFactor: the snapshot's 24 entries, 64 B to 256 MiB, applied to
//    all-reduce below index 23), as summarised in MODELS-REFERENCE F-COLL-3; from the same
//    file (snapshot 5067397c): NVLSTree network hwLat 20.9 µs; CollNet Direct 3.7 / 31 µs, Chain
//    2.8 / 30 µs (NVLink / network Simple), 0.4 µs arity serialisation per local peer, Direct busbw
//    ×0.85 on sm90+; PAT baseLat 8 µs, log2(nodes) × network tree hop / 3.5 + 2.8 µs per rank,
//    busbw ×0.75. LL (tuning.cc @ b6475625; the ×1/4 rule is the same in the 2020 release @ 01afd20): ring
//    busbw ×1/4 across nodes and for all-reduce / reduce, ×1/3 otherwise; tree ×1/3.8; both capped
//    at llMaxBws: 87.7 GB/s in one node (Ampere, Hopper), 39.0 / 20.4 GB/s on two / more nodes of
//    Intel (or other) hosts, 22.5 / 19.0 on AMD hosts; a multi-node ring step costs at least the
//    network overhead, 1 µs on Intel (and other) hosts, 2 µs on AMD, x3 with Simple (getNetOverhead).
//    Point-to-point LL: half of each 8-byte line is its flag (ll_bandwidth_factor 0.5).
//  slot_bytes: NCCL_BUFFSIZE 4 MiB (NCCL environment-variable docs) / NCCL_STEPS 8 (NCCL source);
//  channels 16: assumed (NCCL_NVLS_NCHANNELS' default; ring channel counts vary by system);
//  p2p_channels 2: NCCL_NCHANNELS_PER_NET_PEER's documented default, used for every peer;
//    all three only shape mid-size messages and are calibration targets.
//  latency_scale 1: the tuner's latencies as they are; `perfcast calibrate` fits it to measured
//    nccl-tests curves (the tuner's constants are its model inputs, not measurements).
//  latency_floor_s 4 µs: a collective is at least one kernel launch, 'about 4-6 µs' (susun-blog.com,
//    'pegainfer (3)'; the efficiency's kernel_overhead_s default); below every tuner latency above
//    (the least, ring LL's base, is 6.6 µs), so it binds only when calibrate raises it to a measured
//    curve's floor (Azure ND H100 v5's all_reduce_perf stays at 42 µs up to 1 MiB; F-COLL-3).
CollectiveParams default_collective_params() {
  CollectiveParams p;
  p.scale_up_ring_efficiency = 370.0 / 450.0;
  p.p2p_efficiency = 380.0 / 450.0;
  p.nic_efficiency = 47.0 / 50.0;
  p.pcie_efficiency = default_efficiency().host_link;
  p.nvls_algbw_fraction = 275.0 / 450.0;
  p.nvls_reference_efficiency = 0.85;
  p.ll_bandwidth_factor = 0.5;
  p.ll_ring_factor = 1.0 / 4;
  p.ll_ring_gather_factor = 1.0 / 3;
  p.ll_tree_factor = 1.0 / 3.8;
  p.ll_max_busbw_one_domain = 87.7e9;
  p.ll_max_busbw = {{{39.0e9, 20.4e9}, {22.5e9, 19.0e9}}};
  p.net_overhead_s = {us(1), us(2)};
  p.net_overhead_simple_factor = 3;
  p.ll128_bandwidth_factor = 0.92;
  p.tree_bandwidth_factor = 0.92;
  p.ring_plateau_factor = 1.4;
  p.slot_bytes = 4.0 * 1024 * 1024 / 8;
  p.latency_floor_s = us(4);
  p.channels = 16;
  p.p2p_channels = 2;
  p.base_s = {{{us(6.6), us(14.0), us(8.4)}, {us(6.8), us(14.0), us(8.4)}}};
  p.hop_s = {{
      {{{us(0.6), us(1.9), us(3.4)}, {us(0.6), us(1.25), us(4.0)}}},  // NVLink: ring, tree
      {{{us(1.0), us(2.5), us(5.7)}, {us(1.0), us(1.9), us(4.0)}}},   // PCI
      {{{us(2.7), us(4.0), us(14.0)}, {us(5.0), us(8.5), us(14.0)}}},  // network
  }};
  p.nvls_latency_s = us(25);
  p.nvls_tree_net_latency_s = us(20.9);
  p.collnet_direct_intra_latency_s = us(3.7);
  p.collnet_direct_net_latency_s = us(31);
  p.collnet_chain_intra_latency_s = us(2.8);
  p.collnet_chain_net_latency_s = us(30);
  p.collnet_arity_latency_s = us(0.4);
  p.collnet_direct_factor = 0.85;
  p.pat_base_latency_s = us(8);
  p.pat_rank_latency_s = us(2.8);
  p.pat_net_latency_divisor = 3.5;
  p.pat_bandwidth_factor = 0.75;
  p.tree_correction = {{
      {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
      {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
  }};
  return p;
}

double scale_up_ring_rate(const Fabric& f, const CollectiveParams& p) {
  return f.intra_tier == LinkTier::nvlink && f.intra_ring_Bps > 0 ? f.intra_ring_Bps : intra_rate(f, p, p.scale_up_ring_efficiency);
}

double nvls_algbw(const Fabric& f, const CollectiveParams& p) {
  return f.intra_Bps * p.nvls_algbw_fraction * f.nvls_efficiency / p.nvls_reference_efficiency;
}

double bus_factor(Collective op, int ranks) {
  const double n = ranks;
  if (ranks <= 1) return op == Collective::send_recv || op == Collective::broadcast || op == Collective::reduce ? 1 : 0;
  switch (op) {
    case Collective::all_reduce: return 2 * (n - 1) / n;
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::all_to_all: return (n - 1) / n;
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::send_recv: return 1;
  }
  return 1;
}

double time_at_busbw(Collective op, double bytes, int ranks, double busbw_Bps) {
  return bytes * bus_factor(op, ranks) / busbw_Bps;
}

std::optional<CollectiveTime> collective_time(Collective op, double S, const Fabric& f, const CollectiveParams& p,
                                              CollectiveAlgorithm a, Protocol proto) {
  CollectiveTime t{.op = op, .algorithm = a, .protocol = proto, .bytes = S};
  const int n = f.ranks, N = f.domains, g = f.ranks_per_domain();
  if (n <= 1) return finish(t, p, n);
  if (!protocol_runs(proto, f)) return std::nullopt;
  if (op == Collective::all_reduce) {
    auto r = all_reduce(S, f, p, a, proto, t);
    if (!r) return std::nullopt;
    return finish(*r, p, n);
  }
  const bool point_to_point = op == Collective::all_to_all || op == Collective::send_recv;
  const bool gather_scatter = op == Collective::all_gather || op == Collective::reduce_scatter;
  const bool runs = point_to_point ? a == CollectiveAlgorithm::p2p
                                   : a == CollectiveAlgorithm::ring || (gather_scatter && (a == CollectiveAlgorithm::nvls ||
                                                                                          a == CollectiveAlgorithm::pat));
  if (!runs) return std::nullopt;
  const int pi = index_of(proto);
  const int intra = static_cast<int>(f.intra_tier), net = static_cast<int>(LinkTier::net);
  if (a == CollectiveAlgorithm::nvls) {
    // NVLS all-gather / reduce-scatter inside one domain: the tuner's NVLS channel rate R takes
    // S / (R (n-1)/n) here and S / (R n/(n-1)) for all-reduce, so algbw = all-reduce algbw ((n-1)/n)^2.
    if (N > 1 || f.nvls_efficiency <= 0 || proto != Protocol::simple) return std::nullopt;
    const double shrink = (n - 1.0) / n;
    t.latency_s = p.nvls_latency_s;
    t.transfer_s = S / (nvls_algbw(f, p) * shrink * shrink);
    return finish(t, p, n);
  }
  if (a == CollectiveAlgorithm::pat) {
    // PAT: log-step exchange at one rank per domain, the ring's busbw x 0.75; latency
    // base + log2(N) x (tree network hop / 3.5) + n x per-rank term (tuning.cc).
    if (N != n || proto != Protocol::simple) return std::nullopt;
    t.latency_s = p.pat_base_latency_s + std::log2(N) * p.hop_s[net][kTree][pi] / p.pat_net_latency_divisor +
                  n * p.pat_rank_latency_s;
    t.transfer_s = time_at_busbw(op, S, n, ring_busbw(f, p) * p.pat_bandwidth_factor);
    return finish(t, p, n);
  }
  switch (op) {
    case Collective::all_gather:
    case Collective::reduce_scatter:
      t.latency_s = ring_latency(f, p, proto, n - 1, N - 1, true);
      t.transfer_s = time_at_busbw(op, S, n, ring_rate(f, p, proto, op));
      break;
    case Collective::broadcast:
    case Collective::reduce:
      // Pipelined chain through the ring (F-COLL-4): n-1 hops of latency, S at the ring rate.
      t.latency_s = ring_latency(f, p, proto, n - 1, N - 1);
      t.transfer_s = S / ring_rate(f, p, proto, op);
      break;
    case Collective::all_to_all: {
      // Pairwise exchange, every peer served at once: of the S bytes a rank sends, (g-1)/n stay in
      // its domain and (n-g)/n cross the network on its NIC share (F-COLL-1, full bisection).
      if (proto != Protocol::simple) return std::nullopt;
      const double intra_s = (g - 1.0) / n * S / intra_rate(f, p, p.p2p_efficiency);
      const double inter_s = N > 1 ? (n - double(g)) / n * S / (f.inter_Bps * p.nic_efficiency) : 0;
      t.latency_s = p.base_s[kRing][pi] + p.hop_s[intra][kRing][pi] + (N > 1 ? p.hop_s[net][kRing][pi] : 0);
      t.transfer_s = std::max(intra_s, inter_s);
      break;
    }
    case Collective::send_recv: {
      // nccl-tests sendrecv: each rank sends S to the next; with several domains some pairs cross the network.
      if (proto == Protocol::ll128) return std::nullopt;
      const bool crosses = N > 1;
      const double rate = crosses ? f.inter_Bps * p.nic_efficiency : intra_rate(f, p, p.p2p_efficiency);
      t.latency_s = p.base_s[kRing][pi] + p.hop_s[crosses ? net : intra][kRing][pi];
      t.transfer_s = S / (rate * protocol_factor(proto, p));
      break;
    }
    case Collective::all_reduce: break;
  }
  return finish(t, p, n);
}

std::optional<CollectiveTime> best_collective_time(Collective op, double bytes, const Fabric& f, const CollectiveParams& p,
                                                   std::optional<CollectiveAlgorithm> a) {
  std::optional<CollectiveTime> best;
  for (int ai = 0; ai < static_cast<int>(kAlgorithms.size()); ++ai) {
    const auto algo = static_cast<CollectiveAlgorithm>(ai);
    if (a && *a != algo) continue;
    for (int pi = 0; pi < kProtocols; ++pi) {
      auto t = collective_time(op, bytes, f, p, algo, static_cast<Protocol>(pi));
      if (t && (!best || t->time_s < best->time_s)) best = t;
    }
  }
  return best;
}

double collective_seconds(Collective op, double bytes, const Fabric& f, const CollectiveParams& p) {
  auto t = best_collective_time(op, bytes, f, p);
  return t ? t->time_s : 0;
}

std::string_view name_of(Collective c) { return kCollectives[static_cast<std::size_t>(c)]; }
std::string_view name_of(CollectiveAlgorithm a) { return kAlgorithms[static_cast<std::size_t>(a)]; }
std::string_view where_it_runs(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::ring: return "ring runs every collective but all-to-all and send/recv";
    case CollectiveAlgorithm::tree: return "tree is all-reduce only";
    case CollectiveAlgorithm::nvls: return "nvls runs all-reduce, all-gather and reduce-scatter inside one NVLink SHARP domain";
    case CollectiveAlgorithm::nvls_tree: return "nvls_tree is all-reduce across several NVLink SHARP domains";
    case CollectiveAlgorithm::collnet_direct:
      return "collnet_direct is all-reduce across NVLink-switched nodes with --collnet on a SHARP network";
    case CollectiveAlgorithm::collnet_chain: return "collnet_chain is all-reduce across nodes with --collnet on a SHARP network";
    case CollectiveAlgorithm::pat: return "pat is all-gather and reduce-scatter at one GPU per node";
    case CollectiveAlgorithm::p2p: return "p2p is all-to-all and send/recv only";
  }
  return "";
}
std::string_view name_of(Protocol p) { return kProtocolNames[static_cast<std::size_t>(p)]; }
std::span<const std::string_view> collective_names() { return kCollectives; }
std::span<const std::string_view> algorithm_choices() { return kAlgorithmChoices; }

std::optional<Collective> collective_from(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kCollectives); ++i)
    if (kCollectives[i] == name) return static_cast<Collective>(i);
  return std::nullopt;
}

std::optional<CollectiveAlgorithm> algorithm_from(std::string_view name) {
  // Compare with case and '_' ignored, so NCCL_ALGO's "NVLSTree" and "CollnetDirect" match too.
  auto folded = [](std::string_view s) {
    std::string out;
    for (char c : s)
      if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string wanted = folded(name);
  for (std::size_t i = 0; i < kAlgorithms.size(); ++i)
    if (folded(kAlgorithms[i]) == wanted) return static_cast<CollectiveAlgorithm>(i);
  return std::nullopt;
}

}  // namespace perfcast::models
