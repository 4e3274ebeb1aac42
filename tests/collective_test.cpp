// Collectives (MODELS-REFERENCE §3): NCCL's busbw convention and the worked example E5, the
// tuner's latency term, the published nccl-tests figures (validation/collectives.toml), the
// latency-bound shape of small messages, and every shipped system answering every collective.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <vector>

#include "engine/core/errors.hpp"
#include "engine/layout/topology.hpp"
#include "engine/validate/validation.hpp"
#include "models/collective.hpp"
#include "tests/case_files.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;
using namespace perfcast::models;

namespace {

Fabric nvlink8() {
  return fabric_for_first(system_topology("dgx-h100"), 8);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

TEST_CASE("E5: 1 GB all-reduce over 8 GPUs at 450 GB/s busbw takes 3.889 ms (F-COLL-2/4)") {
  CHECK(time_at_busbw(Collective::all_reduce, 1e9, 8, 450e9) == doctest::Approx(3.8889e-3).epsilon(1e-4));
  CHECK(time_at_busbw(Collective::all_reduce, 1073741824, 8, 450e9) == doctest::Approx(4.1757e-3).epsilon(1e-4));
  CHECK(time_at_busbw(Collective::all_reduce, 1e9, 8, 370e9) == doctest::Approx(4.7297e-3).epsilon(1e-4));
  CHECK(time_at_busbw(Collective::all_reduce, 1e9, 8, 480e9) == doctest::Approx(3.6458e-3).epsilon(1e-4));
  // algbw = S / t = 257.14 GB/s at 450 busbw.
  CHECK(1e9 / time_at_busbw(Collective::all_reduce, 1e9, 8, 450e9) == doctest::Approx(257.14e9).epsilon(1e-4));
}

TEST_CASE("nccl-tests bus factors") {
  CHECK(bus_factor(Collective::all_reduce, 8) == doctest::Approx(1.75));
  CHECK(bus_factor(Collective::all_gather, 8) == doctest::Approx(0.875));
  CHECK(bus_factor(Collective::reduce_scatter, 16) == doctest::Approx(15.0 / 16));
  CHECK(bus_factor(Collective::all_to_all, 4) == doctest::Approx(0.75));
  CHECK(bus_factor(Collective::broadcast, 8) == 1);
  CHECK(bus_factor(Collective::send_recv, 2) == 1);
}

TEST_CASE("NCCL tuner latency: ring all-reduce on 8 NVLink GPUs, Simple = 8.4 + 14 x 3.4 = 56 us (E5)") {
  auto t = collective_time(Collective::all_reduce, 8, nvlink8(), default_collective_params(), CollectiveAlgorithm::ring,
                           Protocol::simple);
  REQUIRE(t);
  CHECK(t->latency_s == doctest::Approx(56e-6).epsilon(1e-9));
  // Tree latency is logarithmic in nodes: one node of 8 = 8.4 + 2 x 7 x 4.0 us (Simple).
  auto tree = collective_time(Collective::all_reduce, 8, nvlink8(), default_collective_params(), CollectiveAlgorithm::tree,
                              Protocol::simple);
  REQUIRE(tree);
  CHECK(tree->latency_s == doctest::Approx(64.4e-6).epsilon(1e-9));
}

TEST_CASE("NCCL's LL rates and network overhead: 100 MB all-gather over 1,536 A100 on AMD-hosted DGX A100 (F-COLL-3)") {
  const Fabric f = fabric_for_first(system_topology("dgx-a100-80gb"), 1536);
  REQUIRE(f.domains == 192);
  CHECK(f.amd_host);
  const CollectiveParams p = default_collective_params();
  auto ll = collective_time(Collective::all_gather, 1e8, f, p, CollectiveAlgorithm::ring, Protocol::ll);
  auto ll128 = collective_time(Collective::all_gather, 1e8, f, p, CollectiveAlgorithm::ring, Protocol::ll128);
  REQUIRE(ll);
  REQUIRE(ll128);
  // LL: 6.6 + 1,344 x max(0.6, 2) + 191 x 2.7 us; a quarter of 8 x 23.5 GB/s capped at llMaxBw 19.0 GB/s.
  CHECK(ll->latency_s == doctest::Approx(6.6e-6 + 1344 * 2e-6 + 191 * 2.7e-6).epsilon(1e-9));
  CHECK(ll->transfer_s == doctest::Approx(1e8 * 1535.0 / 1536 / 19.0e9).epsilon(1e-9));
  CHECK(ll->time_s == doctest::Approx(8.47e-3).epsilon(2e-3));
  // LL128: 14 + 1,344 x max(1.9, 2) + 191 x 4 us at 188 x 0.92 GB/s: 4.04 ms, the faster, as the tuner picks.
  CHECK(ll128->time_s == doctest::Approx(4.04e-3).epsilon(2e-3));
  auto best = best_collective_time(Collective::all_gather, 1e8, f, p, std::nullopt);
  REQUIRE(best);
  CHECK(best->protocol == Protocol::ll128);
  // Inside one node the LL ring all-gather moves a third of the ring's rate, the all-reduce a quarter;
  // one DGX A100's ring (300 x 370/450 = 246.7 GB/s) stays under the 87.7 GB/s cap either way, one
  // DGX H100's (370 GB/s) does not: a third and a quarter are both capped.
  const Fabric a100 = fabric_for_first(system_topology("dgx-a100-80gb"), 8);
  const double ring = 300e9 * 370 / 450;
  auto ag = collective_time(Collective::all_gather, 1e8, a100, p, CollectiveAlgorithm::ring, Protocol::ll);
  auto ar = collective_time(Collective::all_reduce, 1e8, a100, p, CollectiveAlgorithm::ring, Protocol::ll);
  auto ar_h100 = collective_time(Collective::all_reduce, 1e8, nvlink8(), p, CollectiveAlgorithm::ring, Protocol::ll);
  REQUIRE(ag);
  REQUIRE(ar);
  REQUIRE(ar_h100);
  CHECK(ag->transfer_s == doctest::Approx(1e8 * 7.0 / 8 / (ring / 3)).epsilon(1e-9));
  CHECK(ar->transfer_s == doctest::Approx(1e8 * 14.0 / 8 / (ring / 4)).epsilon(1e-9));
  CHECK(ar_h100->transfer_s == doctest::Approx(1e8 * 14.0 / 8 / 87.7e9).epsilon(1e-9));
}

TEST_CASE("large messages approach the link figures they come from") {
  const CollectiveParams p = default_collective_params();
  const double big = 8.0 * 1024 * 1024 * 1024;
  // Ring all-gather on 8 x H100: 370 GB/s busbw (maintainer, nccl-tests #212).
  auto ag = best_collective_time(Collective::all_gather, big, nvlink8(), p, CollectiveAlgorithm::ring);
  CHECK(ag->busbw_Bps == doctest::Approx(370e9).epsilon(0.01));
  // Two DGX A100 nodes, ring: the 8 HDR NICs bind, min(NVLink ring, 8 x 25 x 0.94) = 188 GB/s (F-COLL-5),
  // which is also what auto takes there: A100's NVSwitch has no SHARP, and nothing beats the ring.
  Fabric a100 = fabric_for_first(system_topology("dgx-a100-80gb"), 16);
  CHECK(a100.domains == 2);
  auto ring = best_collective_time(Collective::all_reduce, big, a100, p, CollectiveAlgorithm::ring);
  CHECK(ring->busbw_Bps == doctest::Approx(188e9).epsilon(0.01));
  CHECK(best_collective_time(Collective::all_reduce, big, a100, p)->algorithm == CollectiveAlgorithm::ring);
  // NVLS is modelled by its algbw: 275 GB/s on Hopper, whatever busbw says.
  auto nvls = best_collective_time(Collective::all_reduce, big, nvlink8(), p, CollectiveAlgorithm::nvls);
  CHECK(nvls->algbw_Bps == doctest::Approx(275e9).epsilon(0.01));
  // NVLS needs NVLink SHARP: not on A100's NVSwitch, not across domains.
  CHECK_FALSE(best_collective_time(Collective::all_reduce, big, a100, p, CollectiveAlgorithm::nvls));
  Fabric a100_one = fabric_for_first(system_topology("dgx-a100-80gb"), 8);
  CHECK_FALSE(best_collective_time(Collective::all_reduce, big, a100_one, p, CollectiveAlgorithm::nvls));
  // Tree is all-reduce only; p2p is for all-to-all and send/recv.
  CHECK_FALSE(best_collective_time(Collective::all_gather, big, nvlink8(), p, CollectiveAlgorithm::tree));
  CHECK_FALSE(best_collective_time(Collective::all_reduce, big, nvlink8(), p, CollectiveAlgorithm::p2p));
}

TEST_CASE("a link's measured ring rate replaces its rate x the ring efficiency (F-COLL-7)") {
  const CollectiveParams p = default_collective_params();
  const double big = 8.0 * 1024 * 1024 * 1024;
  // NVLink 5 in the shipped database: 679.61 GB/s, Azure's ND GB200 v6 ring all-reduce at 8 GiB over 4 GPUs; the
  // model lands within 0.5 % of the row it comes from (the Simple slot's pipeline fill and the latency are left).
  const Fabric gb200 = fabric_for_first(system_topology("gb200-nvl72"), 4);
  CHECK(gb200.intra_ring_Bps == doctest::Approx(679.61e9));
  auto ring = best_collective_time(Collective::all_reduce, big, gb200, p, CollectiveAlgorithm::ring);
  CHECK(ring->busbw_Bps == doctest::Approx(679.61e9).epsilon(0.005));
  // Without the measured figure: the link's 900 GB/s per direction at NVLink 4's 370/450, 740 GB/s.
  Fabric unmeasured = gb200;
  unmeasured.intra_ring_Bps = 0;
  auto before = best_collective_time(Collective::all_reduce, big, unmeasured, p, CollectiveAlgorithm::ring);
  CHECK(before->busbw_Bps == doctest::Approx(900e9 * 370 / 450).epsilon(0.005));
  // LL128 derates from the measured rate: 16 MiB at 679.61 x 0.92 = 625.2 GB/s, busbw 383 GB/s with the latency.
  auto mid = collective_time(Collective::all_reduce, 16.0 * 1024 * 1024, gb200, p, CollectiveAlgorithm::ring, Protocol::ll128);
  CHECK(mid->busbw_Bps == doctest::Approx(383.3e9).epsilon(0.002));
  // NVLink 4 has no measured ring figure: H100 keeps the maintainer's efficiency.
  CHECK(nvlink8().intra_ring_Bps == 0);
}

TEST_CASE("NCCL's algorithms by name, and where each runs (F-COLL-6)") {
  const CollectiveParams p = default_collective_params();
  const double big = 4.0 * 1024 * 1024 * 1024;
  // NCCL_ALGO spellings are accepted; the old made-up "hierarchical" is not an NCCL algorithm.
  CHECK(algorithm_from("NVLSTree") == CollectiveAlgorithm::nvls_tree);
  CHECK(algorithm_from("CollnetDirect") == CollectiveAlgorithm::collnet_direct);
  CHECK(algorithm_from("collnet_chain") == CollectiveAlgorithm::collnet_chain);
  CHECK(algorithm_from("PAT") == CollectiveAlgorithm::pat);
  CHECK_FALSE(algorithm_from("hierarchical"));

  // Two DGX H100: NVLSTree. algbw = min(NVLS 275 x (16/15)/(8/7) = 256.7, NICs 8 x 50 x 0.94 x 2 x 16/30
  // = 401.1) GB/s; latency 25 + 2 x log2(2) x 20.9 = 66.8 us.
  Fabric h100x2 = fabric_for_first(system_topology("dgx-h100"), 16);
  auto tree = collective_time(Collective::all_reduce, big, h100x2, p, CollectiveAlgorithm::nvls_tree, Protocol::simple);
  REQUIRE(tree);
  CHECK(tree->latency_s == doctest::Approx(66.8e-6).epsilon(1e-9));
  CHECK(tree->transfer_s == doctest::Approx(big / (275e9 * (16.0 / 15) / (8.0 / 7))).epsilon(1e-9));
  CHECK(best_collective_time(Collective::all_reduce, big, h100x2, p)->algorithm == CollectiveAlgorithm::nvls_tree);
  // ... not inside one node, where NVLS itself runs; NVLS does not cross nodes without CollNet.
  CHECK_FALSE(collective_time(Collective::all_reduce, big, nvlink8(), p, CollectiveAlgorithm::nvls_tree, Protocol::simple));
  CHECK_FALSE(collective_time(Collective::all_reduce, big, h100x2, p, CollectiveAlgorithm::nvls, Protocol::simple));

  // CollNet only when the network reduces and NCCL is told to use it.
  Fabric h100x8 = fabric_for_first(system_topology("dgx-h100"), 64);
  CHECK_FALSE(collective_time(Collective::all_reduce, big, h100x8, p, CollectiveAlgorithm::collnet_direct, Protocol::simple));
  h100x8.collnet = true;
  // Direct: max(RS + AG in the node 1.75 S / 370, S / (8 x 50 x 0.94)) / 0.85; latency 2 (3.7 + 7 x 0.4) + 31 us.
  auto direct = collective_time(Collective::all_reduce, big, h100x8, p, CollectiveAlgorithm::collnet_direct, Protocol::simple);
  REQUIRE(direct);
  CHECK(direct->latency_s == doctest::Approx(44e-6).epsilon(1e-9));
  CHECK(direct->transfer_s == doctest::Approx(1.75 * big / 370e9 / 0.85).epsilon(1e-9));
  // Chain: the tuner's busbw / 2 inside the node; latency 2 x 7 x 2.8 + 30 us.
  auto chain = collective_time(Collective::all_reduce, big, h100x8, p, CollectiveAlgorithm::collnet_chain, Protocol::simple);
  REQUIRE(chain);
  CHECK(chain->latency_s == doctest::Approx(69.2e-6).epsilon(1e-9));
  CHECK(chain->transfer_s == doctest::Approx(2 * big / 370e9).epsilon(1e-9));
  CHECK_FALSE(collective_time(Collective::all_reduce, big, h100x8, p, CollectiveAlgorithm::collnet_direct, Protocol::ll));

  // NVLS all-gather inside one node: the all-reduce algbw x (7/8)^2 = 210.5 GB/s; loses to the ring
  // (busbw 370 -> algbw 422.9) on large messages, as NCCL's tuner has it.
  auto nvls_ag = collective_time(Collective::all_gather, big, nvlink8(), p, CollectiveAlgorithm::nvls, Protocol::simple);
  REQUIRE(nvls_ag);
  CHECK(nvls_ag->transfer_s == doctest::Approx(big / (275e9 * 49 / 64)).epsilon(1e-6));
  CHECK(best_collective_time(Collective::all_gather, big, nvlink8(), p)->algorithm == CollectiveAlgorithm::ring);

  // PAT: all-gather at one GPU per node; latency 8 + log2(4) x 14 / 3.5 + 4 x 2.8 = 27.2 us, ring busbw x 0.75.
  Fabric one_per_node{.ranks = 4, .domains = 4, .intra_Bps = 450e9, .inter_Bps = 50e9};
  auto pat = collective_time(Collective::all_gather, big, one_per_node, p, CollectiveAlgorithm::pat, Protocol::simple);
  REQUIRE(pat);
  CHECK(pat->latency_s == doctest::Approx(27.2e-6).epsilon(1e-9));
  CHECK(pat->transfer_s == doctest::Approx(big * 0.75 / (50e9 * 0.94 * 0.75)).epsilon(1e-9));
  CHECK_FALSE(collective_time(Collective::all_gather, big, h100x2, p, CollectiveAlgorithm::pat, Protocol::simple));
  CHECK_FALSE(collective_time(Collective::all_reduce, big, one_per_node, p, CollectiveAlgorithm::pat, Protocol::simple));
}

TEST_CASE("small messages are latency-bound: time nearly flat, busbw proportional to size") {
  const CollectiveParams p = default_collective_params();
  auto at = [&](double s) { return *best_collective_time(Collective::all_reduce, s, nvlink8(), p); };
  CHECK(at(1024).time_s == doctest::Approx(at(8).time_s).epsilon(0.02));
  CHECK(at(2048).busbw_Bps / at(1024).busbw_Bps == doctest::Approx(2).epsilon(0.02));
  // The auto choice moves from low-latency protocols to Simple as messages grow.
  CHECK(at(1024).protocol != Protocol::simple);
  CHECK(at(1 << 30).protocol == Protocol::simple);
  // With one rank there is nothing to move.
  Fabric one = fabric_for_first(system_topology("dgx-h100"), 1);
  CHECK(best_collective_time(Collective::all_reduce, 1e9, one, p)->time_s == 0);
}

TEST_CASE("validation: Azure ND H100 v5 all_reduce_perf and maintainer figures (validation/collectives.toml)") {
  std::vector<CaseScore> scores = score_file(std::filesystem::path(PERFCAST_DEFAULT_VALIDATION) / "collectives.toml", shipped_db());
  REQUIRE(scores.size() >= 26);
  std::vector<double> large_errors;
  std::vector<std::pair<double, double>> small;  // (size, measured busbw), (size, predicted busbw)
  std::vector<std::pair<double, double>> small_pred;
  for (const CaseScore& s : scores) {
    CAPTURE(s.id);
    CHECK(s.scored);
    CHECK(s.within_tolerance);
    if (!s.held_out || s.id.rfind("azure-", 0) != 0) continue;
    const double bytes = std::stod(s.detail.substr(s.detail.find("GPUs, ") + 6));
    if (bytes >= 64.0 * 1024 * 1024) large_errors.push_back(std::abs(s.error));
    else if (bytes <= 1024.0 * 1024) {
      small.emplace_back(bytes, s.measured);
      small_pred.emplace_back(bytes, s.predicted);
    }
  }
  // The target: median |busbw error| <= 10 % for messages of 64 MiB and more.
  REQUIRE(large_errors.size() == 8);
  CHECK(median(large_errors) <= 0.10);
  // Latency-bound shape up to 1 MiB: the log-log slope of busbw against size matches the
  // measured one (busbw ~ size when the time is a latency floor), and the floor itself is right.
  REQUIRE(small.size() == 11);
  auto slope = [](const std::vector<std::pair<double, double>>& v) {
    return std::log(v.back().second / v.front().second) / std::log(v.back().first / v.front().first);
  };
  CHECK(slope(small_pred) == doctest::Approx(slope(small)).epsilon(0.15));
  CHECK(small_pred.front().second == doctest::Approx(small.front().second).epsilon(0.10));
}

TEST_CASE("every shipped system answers every collective, inside a node and across two") {
  const CollectiveParams p = default_collective_params();
  for (const Record* r : shipped_db().records_of(schema::Kind::system)) {
    Topology t = system_topology(r->name);
    std::vector<int> counts{2, t.devices_per_node};
    if (!t.scale_out.empty()) counts.push_back(2 * t.devices_per_node);
    for (int gpus : counts) {
      Fabric f = fabric_for_first(t, gpus);
      for (std::string_view name : collective_names()) {
        for (double bytes : {8.0, 1048576.0, 1073741824.0}) {
          CAPTURE(r->name);
          CAPTURE(gpus);
          CAPTURE(name);
          CAPTURE(bytes);
          auto c = best_collective_time(*collective_from(name), bytes, f, p);
          REQUIRE(c);
          CHECK(std::isfinite(c->time_s));
          CHECK(c->time_s > 0);
          CHECK(c->busbw_Bps > 0);
          // Every collective moves at least (n−1)/n of the message through some rank's link, no
          // faster than that link's per-direction rate.
          const double fastest_link = std::max(f.intra_Bps, f.inter_Bps);
          if (fastest_link > 0) CHECK(c->time_s >= bytes * (f.ranks - 1) / f.ranks / fastest_link * (1 - 1e-9));
        }
      }
    }
    if (t.scale_out.empty()) CHECK_THROWS_AS(fabric_for_first(t, 2 * t.devices_per_node), InputError);
  }
}

TEST_CASE("a bad collective case names the file, the key and the problem") {
  auto error_of = [](const std::string& body) {
    return case_text_error("schema_version = 1\nsuite = \"collective\"\n[[case]]\nid = \"x\"\nsource = \"s\"\nop = \"all_reduce\"\ngpus = 8\n" + body,
                           "perfcast-bad-collectives");
  };
  CHECK(error_of("system = \"dgx-h100\"\nmeasured_busbw = \"400 GB\"\n")
            .ends_with("case[0].measured_busbw: '400 GB' is not a bandwidth (B/s)"));
  CHECK(error_of("system = \"dgx-h100\"\n").find("missing required key 'case[0].measured_busbw'") != std::string::npos);
  CHECK(error_of("system = \"dgx-h1000\"\nmeasured_busbw = \"400 GB/s\"\n").find("case[0].system:") != std::string::npos);
  CHECK(error_of("system = \"dgx-h100\"\nalgorithm = \"rng\"\nmeasured_busbw = \"400 GB/s\"\n").find("case[0].algorithm:") !=
        std::string::npos);
}
