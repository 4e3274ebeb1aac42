#include "engine/sweep/serving_plan.hpp"

#include <chrono>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/core/parallel.hpp"
#include "engine/core/quantity_text.hpp"
#include "engine/layout/rules.hpp"
#include "engine/predict/capacity.hpp"
#include "engine/predict/economics.hpp"
#include "engine/predict/engine_serving.hpp"
#include "engine/predict/memory.hpp"

namespace perfcast {
namespace {

// The stages a candidate passes, in order (PlanFunnel names the one furthest along).
enum Stage { kCandidate, kRule, kMemory, kSlo, kDeviceCap, kOffer, kPrice, kBudget };

// Replicas span at most this many nodes (TP within a node, PP across them); tried only when no
// replica of one node holds the model.
constexpr int kMaxReplicaNodes = 4;
constexpr int kMaxTp = 64;  // as the sweeps' spaces

struct Recipe {
  Precision weights, kv, compute;
};

// One replica layout on one system: what the parallel part of the search simulates.
struct Unit {
  std::uint64_t index = 0;  // its place among the replica layouts of every shard
  std::size_t hardware = 0;
  ServeLayout layout;
  Precision compute = Precision::bf16;
  Scenario replica;  // one replica of the layout at the plan's rate and SLOs
};

struct Sized {
  int stage = -1;  // a drop stage, or -1 when sized
  std::string reason;
  int replicas = 0;
  double rate_per_replica = 0;
  models::ServingPoint point;
  std::string engine;
};

// The rate and SLOs asked, or the scenario's [serving] ones.
struct Target {
  double rate = 0;
  models::Slo slo;
};

Target target_of(const Scenario& s, const ServingPlanRequest& r) {
  Target t;
  const std::optional<double> rate = r.rate ? r.rate : s.serving.arrival_rate;
  if (!rate) throw InputError({s.file, 0, 0}, "plan: a serving plan needs a rate: give --rate or [serving] arrival_rate");
  t.rate = *rate;
  t.slo = slo_for(s, {.ttft_slo_s = r.ttft_slo_s, .tpot_slo_s = r.tpot_slo_s, .percentile = r.percentile});
  if (!t.slo.ttft_s && !t.slo.tpot_s)
    throw InputError({s.file, 0, 0}, "plan: a serving plan needs an SLO: give --ttft-slo and/or --tpot-slo, or [serving] ttft_slo_s / tpot_slo_s");
  if (s.serving.concurrency || s.serving.benchmark_requests)
    throw InputError({s.file, 0, 0}, "plan: a serving plan sizes a fleet for a rate; [serving] concurrency and benchmark_requests describe a "
                                     "closed loop");
  return t;
}

// The weights, KV cache and compute precisions searched on a device: the scenario's own, and each
// lower precision asked (or, by default, each the device has a dense tensor peak in) with an FP8
// KV cache where the device computes FP8.
std::vector<Recipe> recipes(const Scenario& s, const std::vector<Precision>& asked) {
  const InferenceSettings& in = *s.inference;
  const Precision compute = in.compute_dtype.value_or(Precision::bf16);
  const Recipe own{in.weight_dtype.value_or(compute), in.kv_dtype.value_or(compute), compute};
  const bool fp8 = s.hw.device.peak(Precision::fp8).has_value();
  auto lowered = [&](Precision w) {
    const Precision kv = fp8 && bytes_per_element(Precision::fp8) < bytes_per_element(own.kv) ? Precision::fp8 : own.kv;
    return Recipe{w, kv, s.hw.device.peak(w) ? w : own.compute};
  };
  std::vector<Recipe> out;
  if (asked.empty()) {
    out.push_back(own);
    for (Precision w : {Precision::fp8, Precision::fp4})
      if (s.hw.device.peak(w) && bytes_per_element(w) < bytes_per_element(own.weights)) out.push_back(lowered(w));
    return out;
  }
  for (Precision w : asked) out.push_back(w == own.weights ? own : lowered(w));
  return out;
}

// The scenario with one replica of `l` on its system, at the plan's rate and SLOs (what `capacity` reads).
Scenario replica_scenario(const Scenario& base, const ServeLayout& l, Precision compute, const Target& t) {
  Scenario x = base;
  apply_layout(x, l);
  x.inference->compute_dtype = compute;
  x.serving.arrival_rate = t.rate;
  x.serving.ttft_slo_s = t.slo.ttft_s;
  x.serving.tpot_slo_s = t.slo.tpot_s;
  x.serving.slo_percentile = t.slo.percentile * 100;
  return x;
}

// Replica sizes on a system: powers of two up to a node (TP), then whole nodes (TP a node, PP the
// nodes) when the system has a scale-out network — vLLM's and SGLang's multi-node deployment.
std::vector<std::pair<int, int>> replica_shapes(int devices_per_node, bool scale_out) {
  std::vector<std::pair<int, int>> tp_pp;
  for (int d = 1; d <= std::min(devices_per_node, kMaxTp); d *= 2)
    if (devices_per_node % d == 0) tp_pp.emplace_back(d, 1);
  if (scale_out && devices_per_node <= kMaxTp)
    for (int n = 2; n <= kMaxReplicaNodes; n *= 2) tp_pp.emplace_back(devices_per_node, n);
  return tp_pp;
}

// The replica layouts of the search, judged by the layout rules and memory (one sequence beside
// the weights) on the way: multi-node replicas only for a recipe no node holds.
std::vector<Unit> units_of(const PlanCandidates& candidates, const Target& t, const ServingPlanRequest& r, ServingPlanReport& out,
                           PlanFunnel& funnel) {
  std::vector<Unit> units;
  std::uint64_t index = 0;
  for (std::size_t k = 0; k < candidates.hardware.size(); ++k) {
    const PlanHardware& h = candidates.hardware[k];
    if (!h.scenario) {
      if (r.shard == 0) funnel.drop(kCandidate, fmt::format("{}: {}", h.system, h.error));
      continue;
    }
    const Scenario& s = *h.scenario;
    out.systems.push_back(h.system);
    if (h.payments.empty()) continue;
    const std::optional<models::MoeSpec>& moe = s.workload.transformer().moe;
    for (const Recipe& recipe : recipes(s, r.weight_dtypes)) {
      bool node_holds = false;
      for (const auto& [tp, pp] : replica_shapes(h.devices_per_node, s.hw.scale_out.has_value())) {
        if (pp > 1 && node_holds) break;
        std::vector<int> eps{1};
        if (moe && tp * pp > 1 && moe->experts % (tp * pp) == 0) eps.push_back(tp * pp);
        for (int ep : eps) {
          const ServeLayout l{.devices = tp * pp, .tp = tp, .pp = pp, .ep = ep, .batch = 1, .weights = recipe.weights, .kv = recipe.kv};
          // Every shard judges every layout (whether a node holds the recipe decides the multi-node
          // ones) and counts and keeps its own.
          const bool mine = index++ % std::uint64_t(r.shards) == std::uint64_t(r.shard);
          out.layouts += mine;
          Scenario x = replica_scenario(s, l, recipe.compute, t);
          if (broken_layout_rule(x.workload, x.parallelism, l.devices, std::nullopt)) {
            if (mine) funnel.drop(kRule, "the layout rules refuse the replica layout");
            continue;
          }
          if (!memory_for_scenario(x).fits) {
            if (mine) funnel.drop(kMemory, "one sequence and the weights do not fit in device memory");
            continue;
          }
          node_holds = true;
          if (mine) units.push_back({index - 1, k, l, recipe.compute, std::move(x)});
        }
      }
    }
  }
  return units;
}

// The fewest replicas of the unit's layout meeting the SLOs at the rate, as `capacity` sizes them.
Sized size_fleet(const Unit& u, const Target& t, const InferenceOptions& o) {
  Sized out;
  RateModel m;
  try {
    m = rate_model(u.replica, o);
  } catch (const InputError&) {
    out.stage = kMemory, out.reason = "one sequence and the weights do not fit in device memory";
    return out;
  }
  out.engine = m.engine;
  RateSizing z;
  try {
    z = size_for_rate(m, t.slo, t.rate);
  } catch (const InputError&) {
    out.stage = kDeviceCap, out.reason = fmt::format("more than {} replicas", kMaxReplicas);
    return out;
  }
  if (!z.slo_rate) {
    out.stage = kSlo, out.reason = "no load meets the SLOs (a lone request already misses them)";
    return out;
  }
  out.replicas = *z.replicas;
  out.rate_per_replica = t.rate / out.replicas;
  out.point = *z.at_share;
  return out;
}

// Instances (or nodes) of `per_unit` devices holding `replicas` replicas of `devices` each; 0 when
// a replica can neither share one nor fill whole ones (`joined`: units have a network between them).
int units_holding(int replicas, int devices, int per_unit, bool joined) {
  if (devices <= per_unit) {
    const int per = per_unit / devices;
    return (replicas + per - 1) / per;
  }
  if (devices % per_unit != 0 || !joined) return 0;
  return replicas * (devices / per_unit);
}

// One device's hour at the row's load, per second: prompt steps as compute-bound, decode steps as
// HBM-bound (F-EN-1's levels), devices of an instance no replica uses and the engine's waits idle.
models::Activity device_activity(const ServingPlanRow& row) {
  const double used = double(row.replicas * row.replica.devices) / row.devices;
  const models::ServingPoint& p = row.point;
  // Both shares are over the measured window while steps run on past its end: the busy share is
  // capped at 1 and the prompt share can then exceed it.
  const double busy = std::max(p.busy_share, p.prefill_share);
  return {.compute_s = used * p.prefill_share, .memory_s = used * (busy - p.prefill_share), .idle_s = 1 - used * busy};
}

std::string binding(const ServingPlanRow& row, const Target& t, const ServingPlanRequest& r) {
  std::pair<double, std::string> worst{0, "-"};
  if (t.slo.ttft_s) worst = std::max(worst, {row.point.ttft_p_s / *t.slo.ttft_s, "ttft"});
  if (t.slo.tpot_s) worst = std::max(worst, {row.point.tpot_p_s / *t.slo.tpot_s, "tpot"});
  if (r.budget_usd_per_hour) worst = std::max(worst, {row.value(PlanMetric::cost) / *r.budget_usd_per_hour, "budget"});
  if (r.max_devices) worst = std::max(worst, {double(row.devices) / *r.max_devices, "device cap"});
  return fmt::format("{} {:.0f}%", worst.second, 100 * worst.first);
}

}  // namespace

double ServingPlanRow::value(PlanMetric m) const {
  switch (m) {
    case PlanMetric::time: return point.e2e_p_s;
    case PlanMetric::cost: return at_p90 ? usd_per_hour_p90 : usd_per_hour;
    case PlanMetric::co2: return co2_known ? co2e_kg_per_hour * units_share() : std::numeric_limits<double>::infinity();
  }
  return 0;
}

ServingPlanReport serving_plan(const PlanCandidates& candidates, const std::string& scenario_file, const ServingPlanRequest& r,
                               const InferenceOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  if (r.shards < 1 || r.shard < 0 || r.shard >= r.shards) throw InputError({}, fmt::format("--shard {}/{}: give i/N with 0 <= i < N", r.shard, r.shards));
  if (r.top < 0) throw InputError({}, "--top: must not be negative");
  check_pareto(r.pareto);
  const Scenario* first = nullptr;
  for (const PlanHardware& h : candidates.hardware)
    if (h.scenario && !first) first = &*h.scenario;
  ServingPlanReport out{.scenario_file = scenario_file, .request = r, .space = candidates.space,
                        .without_system = candidates.without_system};
  PlanFunnel funnel = PlanFunnel::of_candidates(candidates.dropped, r.shard);
  if (!first) {
    if (r.shard == 0)
      for (const PlanHardware& h : candidates.hardware) funnel.drop(kCandidate, fmt::format("{}: {}", h.system, h.error));
    out.dropped = std::move(funnel.dropped);
    out.last_removed_by = std::move(funnel.last_removed_by);
    out.last_removed_stage = funnel.furthest;
    return out;
  }
  if (!first->inference || !first->workload.is_transformer())
    throw InputError({scenario_file, 0, 0}, "plan: a serving plan needs an LLM [inference] scenario (a vision model has no decode)");
  const Target t = target_of(*first, r);
  out.scenario = first->name, out.workload = first->workload.label();
  out.slo = t.slo, out.rate = t.rate;
  out.input_len = first->inference->input_len, out.output_len = first->inference->output_len;

  const std::vector<Unit> units = units_of(candidates, t, r, out, funnel);
  std::vector<Sized> sized(units.size());
  for_each_item(thread_count(r.threads, units.size()), units.size(), nullptr,
                [&](int, std::uint64_t k) { sized[k] = size_fleet(units[k], t, o); });

  PlanRanking<ServingPlanRow> kept(r.objective, r.top, r.pareto);
  for (std::size_t k = 0; k < units.size(); ++k) {
    const Unit& u = units[k];
    const Sized& z = sized[k];
    if (z.stage >= 0) {
      funnel.drop(z.stage, z.reason);
      continue;
    }
    ++out.simulated;
    if (out.engine.empty()) out.engine = z.engine;
    const PlanHardware& h = candidates.hardware[u.hardware];
    const std::optional<StepSlowness> slowness = r.slowness ? r.slowness(u.replica) : std::nullopt;
    const int replicas_p90 = slowness ? int(std::ceil(z.replicas * std::exp(slowness->p90) - 1e-9)) : 0;
    for (std::size_t pi = 0; pi < h.payments.size(); ++pi) {
      const PlanPayment& p = h.payments[pi];
      const bool rented = p.kind != Payment::purchase;
      const int per_unit = rented ? p.offer->devices : h.devices_per_node;
      const bool joined = rented ? p.offer->network_per_instance_Bps.has_value() : h.scenario->hw.scale_out.has_value();
      const int held = units_holding(z.replicas, u.layout.devices, per_unit, joined);
      if (held == 0) {
        funnel.drop(kOffer, fmt::format("a replica of {} devices spans {}-device {} with no network between them", u.layout.devices, per_unit,
                                        rented ? "instances" : "nodes"));
        continue;
      }
      ServingPlanRow row{.id = plan_row_id(u.index, pi), .system = h.system, .accelerator = h.accelerator, .payment = p.label, .offer = p.cost.offer, .region = p.region.name,
                         .kind = p.kind, .replica = u.layout, .compute = u.compute, .replicas = z.replicas, .units = held,
                         .devices = held * per_unit, .rate_per_replica = z.rate_per_replica, .point = z.point};
      if (r.max_devices && row.devices > *r.max_devices) {
        funnel.drop(kDeviceCap, "more devices than --max-devices");
        continue;
      }
      Scenario x = paid_as(u.replica, p);
      x.hardware.count = row.devices;
      const Consumption use{.devices = row.devices, .activity = device_activity(row), .tokens_per_span = t.rate * out.output_len,
                            .job_s = 3600.0};
      Economics e;
      try {
        e = economics(x, use);
      } catch (const InputError& err) {
        funnel.drop(kPrice, fmt::format("{} {}: {}", h.system, p.label, err.message()));
        continue;
      }
      ++out.priced;
      if (!e.usd) {
        funnel.drop(kPrice, fmt::format("{} {}: no cost known", h.system, p.label));
        continue;
      }
      row.usd_per_hour = *e.usd;
      if (slowness) {
        row.slowness = slowness;
        row.replicas_p90 = std::max(z.replicas, replicas_p90);
        row.units_p90 = units_holding(row.replicas_p90, u.layout.devices, per_unit, joined);
        row.usd_per_hour_p90 = row.usd_per_hour * row.units_p90 / held;
      }
      row.usd_per_million_tokens = e.usd_per_million_tokens.value_or(0);
      row.capex_usd = e.capex_usd.value_or(0);
      row.co2e_kg_per_hour = e.co2e_kg.value_or(0) + e.embodied_kg.value_or(0);
      row.co2_known = e.co2e_kg.has_value();
      row.power_W = e.it_power_W * e.pue.value_or(1);
      if (r.risk_p90 && !slowness) {
        funnel.drop(kBudget, "no empirical band to size at P90 (--risk p90)");
        continue;
      }
      row.at_p90 = r.risk_p90;
      if (r.budget_usd_per_hour && row.value(PlanMetric::cost) > *r.budget_usd_per_hour) {
        funnel.drop(kBudget, r.risk_p90 ? "over the budget per hour at P90" : "over the budget per hour");
        continue;
      }
      row.binds = binding(row, t, r);
      kept.offer(row);
    }
  }
  out.best = kept.best.sorted();
  out.front = kept.front.sorted();
  out.dropped = std::move(funnel.dropped);
  if (kept.offered == 0) out.last_removed_by = std::move(funnel.last_removed_by), out.last_removed_stage = funnel.furthest;
  out.assumptions = {
      fmt::format("each replica sized as perfcast capacity sizes it: the engine ({}) simulated step by step at Poisson arrivals (F-SRV-2), the "
                  "fewest replicas whose share of {:g} requests/s meets the SLOs at p{:g}; replicas share the load evenly",
                  out.engine.empty() ? "vllm (default)" : out.engine, t.rate, t.slo.percentile * 100),
      "replica layouts: TP over 1, 2, 4, ... devices of a node, or TP over a node and PP over 2 or 4 nodes when no node holds the model "
      "(how vLLM and SGLang deploy across nodes); MoE experts also spread over the replica (ep)",
      "precisions: the scenario's own, and each lower one the device computes natively (FP8, FP4) with an FP8 KV cache; the model's "
      "accuracy at a lower precision is not modelled: --dtypes bf16 keeps the scenario's",
      "replicas packed into whole instances (rented) or nodes (bought); the devices no replica uses are paid for and idle",
      "cost per hour: rented device-hours on demand, or for a purchase its share of the 5-year TCO at the allocation assumed (F-COST-3), "
      "with the capex beside it; spot is not offered for serving (a preempted replica drops its requests)",
      "energy: each replica's busy time split into prompt steps (compute-bound) and decode steps (HBM-bound) at F-EN-1's power levels, "
      "idle otherwise; CO2e per hour operational (location-based) plus embodied",
  };
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

Scenario serving_row_scenario(const PlanCandidates& candidates, const ServingPlanReport& report, const ServingPlanRow& row) {
  for (const PlanHardware& h : candidates.hardware) {
    if (h.system != row.system || !h.scenario) continue;
    for (const PlanPayment& p : h.payments)
      if (p.label == row.payment && p.region.name == row.region)
        return paid_as(replica_scenario(*h.scenario, row.replica, row.compute, {report.rate, report.slo}), p);
  }
  throw InputError({}, fmt::format("plan: no candidate {} paid as {} in {}", row.system, row.payment, row.region));
}

}  // namespace perfcast
