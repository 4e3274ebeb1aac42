#pragma once
// What `perfcast plan` searches, names resolved (engine/data/plan_candidates reads it): the
// scenario's workload on each system of the hardware database, and each way of paying for that
// system — a cloud offer renting it, on demand or spot, in the offer's region, or a purchase
// (on-prem TCO) in each region with an electricity price.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/spec/scenario.hpp"

namespace perfcast {

enum class Payment { cloud, spot, purchase };
constexpr std::string_view name_of(Payment p) {
  switch (p) {
    case Payment::cloud: return "cloud";
    case Payment::spot: return "spot";
    case Payment::purchase: return "purchase";
  }
  return "?";
}
// The payment `name_of` names; none for another word.
constexpr std::optional<Payment> payment_named(std::string_view name) {
  for (Payment p : {Payment::cloud, Payment::spot, Payment::purchase})
    if (name == name_of(p)) return p;
  return std::nullopt;
}

// One way of paying for a system, resolved.
struct PlanPayment {
  Payment kind = Payment::cloud;
  std::string label;                 // "aws-p5.48xlarge on-demand", "purchase"
  CostSettings cost;
  RegionSettings region;
  std::optional<OfferSpec> offer, cheapest_offer;
  std::optional<RegionSpec> region_spec;
  std::vector<std::string> misfit;   // per node count of the request: why the offer cannot hold it ("" when it can)
};

// `x` paid for as `p`: its cost, region, offer and the cheapest offer a purchase is set against.
inline Scenario paid_as(Scenario x, const PlanPayment& p) {
  x.cost = p.cost;
  x.region = p.region;
  x.hw.offer = p.offer;
  x.hw.region = p.region_spec;
  x.hw.cheapest_offer = p.cheapest_offer;
  return x;
}

// The workload on one system: the scenario (read at the first node count) and its payments.
struct PlanHardware {
  std::string system, accelerator;
  int devices_per_node = 0;
  std::optional<Scenario> scenario;  // none: the scenario rules refused this system (`error` says why)
  std::string error;
  std::vector<PlanPayment> payments;
};

struct PlanSpace {
  std::vector<std::string> accelerators;   // empty: every accelerator with a system in the database
  std::vector<int> nodes;                  // node counts, ascending
  std::vector<Payment> payments = {Payment::cloud, Payment::spot, Payment::purchase};
  std::vector<std::string> regions;        // empty: every region (purchases) and every offer's region
};

// Candidates dropped, counted by reason in the order the reasons were first met.
using ReasonCounts = std::vector<std::pair<std::string, long>>;
inline void count_reason(ReasonCounts& counts, const std::string& reason, long n = 1) {
  for (auto& [why, count] : counts)
    if (why == reason) {
      count += n;
      return;
    }
  counts.emplace_back(reason, n);
}

struct PlanCandidates {
  PlanSpace space;       // what was asked
  bool serving = false;
  std::vector<std::string> without_system;  // accelerators asked (all: of the database) that no system is built from  // an [inference] scenario: fleets for a rate, not a training job
  std::vector<PlanHardware> hardware;
  // What no candidate could be made of, by reason: "no electricity price (purchase)", "region not asked", ...
  ReasonCounts dropped;
};

}  // namespace perfcast
