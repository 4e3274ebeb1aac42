// Placement of parallel groups on devices and the traffic each sends (MODELS-REFERENCE §5, E15).
#include <doctest/doctest.h>

#include <algorithm>

#include "engine/predict/communication.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/layout/topology.hpp"
#include "engine/data/workload_reader.hpp"
#include "models/traffic.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;
using namespace perfcast::models;

namespace {

const GroupPlacement& group(const std::vector<GroupPlacement>& g, std::string_view name) {
  auto it = std::find_if(g.begin(), g.end(), [&](const GroupPlacement& p) { return p.group == name; });
  REQUIRE(it != g.end());
  return *it;
}

// Bytes a device sends for the items of `g` (size x busbw factor x calls).
double sent(const std::vector<TrafficItem>& items, TrafficGroup g, int ranks) {
  double total = 0;
  for (const TrafficItem& i : items)
    if (i.group == g) total += i.calls * i.bytes * bus_factor(i.op, ranks);
  return total;
}

TransformerSpec llama70b() { return load_preset(PERFCAST_DEFAULT_WORKLOADS, "llama3-70b").transformer(); }

}  // namespace

TEST_CASE("groups are laid out TP innermost, then CP, EP, DP, PP, and the order is an option") {
  Topology t = system_topology("dgx-h100");
  ParallelismSettings p;
  p.tp = 8;
  p.pp = 2;
  auto order = *parse_order(default_order());
  auto g = place_groups(t, p, 64, order);  // dp = 4
  CHECK(group(g, "tp").stride == 1);
  CHECK(group(g, "tp").domains == 1);
  CHECK(group(g, "tp").crosses == "nvlink4");
  CHECK(group(g, "dp").ranks == 4);
  CHECK(group(g, "dp").stride == 8);
  CHECK(group(g, "dp").crosses == "ib-ndr");
  CHECK(group(g, "dp").ranks_per_nic == 1);
  CHECK(group(g, "pp").stride == 32);
  // DP innermost instead: DP stays inside a node, TP is spread over 8 nodes (a bad idea, shown).
  auto swapped = place_groups(t, p, 64, *parse_order("dp-tp-cp-ep-pp"));
  CHECK(group(swapped, "dp").crosses == "nvlink4");
  CHECK(group(swapped, "tp").stride == 4);
  CHECK(group(swapped, "tp").domains == 4);
  CHECK(group(swapped, "tp").crosses == "nvlink4 + ib-ndr");
  CHECK_FALSE(parse_order("tp-cp-dp-pp"));
  CHECK_FALSE(parse_order("tp-tp-ep-dp-pp"));
  CHECK_FALSE(parse_order("tp-cp-ep-dp-xx"));
}

TEST_CASE("EP folds into DP when it divides it, expert-DP is what is left") {
  Topology t = system_topology("dgx-h100");
  ParallelismSettings p;
  p.tp = 2;
  p.ep = 4;
  auto g = place_groups(t, p, 64, *parse_order(default_order()));  // dp = 32
  CHECK(group(g, "ep").ranks == 4);
  CHECK(group(g, "ep").stride == 2);
  CHECK(group(g, "ep").domains == 1);
  CHECK(group(g, "dp").ranks == 32);
  CHECK(group(g, "edp").ranks == 8);
  CHECK(group(g, "edp").stride == 8);
}

TEST_CASE("NIC sharing: fewer NICs than GPUs split the NIC bandwidth") {
  Topology t = system_topology("dgx-h100");
  t.nics_per_node = 4;
  CHECK(t.ranks_per_nic() == 2);
  CHECK(t.nic_share_Bps() == doctest::Approx(25e9));
  t.oversubscription = 2;
  CHECK(fabric_for_first(t, 16).inter_Bps == doctest::Approx(12.5e9));
}

TEST_CASE("E15 TP: Llama-3-70B layer, b = 1, s = 8192, BF16, t = 8: 939.52 MB per device per layer") {
  TrainingLayout l;
  l.tp = 8;
  l.seq_len = 8192;
  l.dense_layers = 1;
  l.first_stage = l.last_stage = false;
  auto items = training_traffic(llama70b(), l);
  REQUIRE(!items.empty());
  CHECK(items.front().bytes == doctest::Approx(134217728));
  CHECK(sent(items, TrafficGroup::tp, 8) == doctest::Approx(939.52e6).epsilon(1e-4));
  CHECK(time_at_busbw(Collective::all_reduce, items.front().bytes, 8, 370e9) == doctest::Approx(0.6348e-3).epsilon(1e-3));
  // Sequence parallelism: the same 4 AG + 4 RS volume plus 2 re-gathers for the weight gradients.
  l.sequence_parallel = true;
  auto sp = training_traffic(llama70b(), l);
  CHECK(sent(sp, TrafficGroup::tp, 8) == doctest::Approx(939.52e6 + 2 * 134217728 * 7.0 / 8).epsilon(1e-4));
  // Full recompute repeats the forward collectives.
  l.sequence_parallel = false;
  l.recompute = Recompute::full;
  CHECK(sent(training_traffic(llama70b(), l), TrafficGroup::tp, 8) == doctest::Approx(939.52e6 * 1.5).epsilon(1e-4));
}

TEST_CASE("E15 CP: s = 131072, cp = 16, h_kv = 1024, BF16: 503.32 MB forward, 1006.63 MB backward per layer") {
  TrainingLayout l;
  l.cp = 16;
  l.seq_len = 131072;
  l.dense_layers = 1;
  auto items = training_traffic(llama70b(), l);  // 8 KV heads x 128 = 1024
  double fwd = 0, bwd = 0;
  for (const TrafficItem& i : items) {
    if (i.group != TrafficGroup::cp) continue;
    CHECK(i.overlap == OverlapWith::attention);
    (i.what.find("forward") == 0 ? fwd : bwd) += i.calls * i.bytes;
  }
  CHECK(fwd == doctest::Approx(503.32e6).epsilon(1e-4));
  CHECK(bwd == doctest::Approx(1006.63e6).epsilon(1e-4));
}

TEST_CASE("E15 EP: DeepSeek ISCA'25, (1 B + 2 B) x 32 tokens x 9 experts x 7000 / 50 GB/s = 120.96 us per layer") {
  TransformerSpec m;
  m.hidden = 7000;
  m.moe = MoeSpec{.experts = 256, .top_k = 9};
  InferenceLayout l;
  l.ep = 64;
  l.tokens = 32;
  l.dispatch_bytes = 1;
  l.combine_bytes = 2;
  l.moe_layers = 1;
  double bytes = 0;
  for (const TrafficItem& i : inference_traffic(m, l)) bytes += i.calls * i.bytes;
  CHECK(bytes == doctest::Approx(6.048e6));
  CHECK(bytes / 50e9 == doctest::Approx(120.96e-6));
}

TEST_CASE("DP: ZeRO-3 moves 1.5x the bytes of a plain gradient all-reduce (F-COMM-DP)") {
  TrainingLayout l;
  l.dp = 64;
  l.dense_parameters = 7.5e9;
  l.gradient_bytes = l.parameter_bytes = 2;
  auto plain = training_traffic(llama70b(), l);
  CHECK(sent(plain, TrafficGroup::dp, 64) == doctest::Approx(2 * 7.5e9 * 2 * 63.0 / 64));
  l.zero = 1;
  CHECK(sent(training_traffic(llama70b(), l), TrafficGroup::dp, 64) == doctest::Approx(sent(plain, TrafficGroup::dp, 64)));
  l.zero = 3;
  CHECK(sent(training_traffic(llama70b(), l), TrafficGroup::dp, 64) == doctest::Approx(1.5 * sent(plain, TrafficGroup::dp, 64)));
}

TEST_CASE("PP sends once per micro-batch each way, vp times when interleaved") {
  TrainingLayout l;
  l.pp = 4;
  l.vp = 2;
  l.tp = 2;
  l.seq_len = 2048;
  l.micro_batches = 16;
  l.dense_layers = 2;
  for (const TrafficItem& i : training_traffic(llama70b(), l)) {
    if (i.group != TrafficGroup::pp) continue;
    CHECK(i.calls == 32);
    CHECK(i.bytes == doctest::Approx(2048.0 * 8192 * 2 / 2));
    CHECK(i.overlap == OverlapWith::other_microbatch);
  }
}

TEST_CASE("a scenario's communication by group: GPT-3 175B on 1024 A100 (Narayanan Table 2 layout)") {
  Scenario s = load_scenario(std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios/gpt3-175b-a100-training.toml",
                             PERFCAST_DEFAULT_WORKLOADS, shipped_db());
  CommunicationReport r = communication_for_scenario(s, *parse_order(default_order()), default_collective_params());
  REQUIRE(r.phases.size() == 1);
  const CommunicationPhase& ph = r.phases.front();
  auto by = [&](std::string_view g) {
    auto it = std::find_if(ph.groups.begin(), ph.groups.end(), [&](const GroupCommunication& c) { return c.group == g; });
    REQUIRE(it != ph.groups.end());
    return *it;
  };
  // tp 8 inside a DGX, dp 16 and pp 8 across nodes on one HDR rail each.
  CHECK(group(r.placements, "tp").crosses == "nvlink3");
  CHECK(group(r.placements, "dp").crosses == "ib-hdr");
  // 12 layers x 96 micro-batches x (2 fwd + 2 bwd + 2 recomputed) all-reduces of 2048 x 12288 x 2 B,
  // plus one embedding all-reduce per micro-batch.
  CHECK(by("tp").sent_B == doctest::Approx((12 * 96 * 6 + 96) * 2048.0 * 12288 * 2 * 1.75).epsilon(1e-9));
  CHECK(by("dp").exposed_s == 0);
  CHECK(by("dp").overlappable_s > 0);
  CHECK(ph.time_s == doctest::Approx(by("tp").time_s + by("dp").time_s + by("pp").time_s));
  CHECK(ph.exposed_s < ph.time_s);
}
