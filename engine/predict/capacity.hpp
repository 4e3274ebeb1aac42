#pragma once
// `perfcast capacity`: how much load one replica of a serving scenario takes within its SLOs, and
// how many replicas (devices) a target rate needs — the continuous-batching queueing model of
// models/serving.hpp on the replica's own prefill and decode-step times.
#include <optional>
#include <string>
#include <vector>

#include "engine/predict/inference.hpp"
#include "engine/spec/scenario.hpp"
#include "models/serving.hpp"

namespace perfcast {

struct CapacityRequest {
  std::optional<double> rate;                   // requests/s in total; default [serving] arrival_rate
  std::optional<double> ttft_slo_s, tpot_slo_s; // default [serving] ttft_slo_s / tpot_slo_s
  std::optional<double> percentile;             // default [serving] slo_percentile (99)
  std::optional<double> concurrency;            // a closed loop of this many clients instead of a rate
  bool disaggregated = false;                   // size separate prefill and decode pools as well
};

// Disaggregated prefill and decode (Splitwise, DistServe): replicas of the scenario's layout that
// only prefill (and hand the KV cache over), and replicas that only decode.
struct DisaggregatedPlan {
  double kv_bytes_per_device = 0;               // one prompt's KV cache, this device's share
  double kv_transfer_s = 0;                     // over this device's share of the node's NICs
  double nic_share_Bps = 0;
  std::optional<double> prefill_slo_rate, decode_slo_rate;  // per replica; nullopt: none meets its SLO
  std::optional<int> prefill_replicas, decode_replicas, devices;
  std::optional<models::ServingPoint> prefill_point, decode_point;  // each replica's share of the target
  std::string verdict;                          // when a pool cannot meet its SLO
};

struct LoadPoint {
  models::ServingPoint point;
  bool meets_slo = false;
};

struct CapacityReport {
  std::string scenario, workload, accelerator, layout;
  int devices_per_replica = 1;
  double input_len = 0, output_len = 0;
  models::ReplicaTimes replica;
  double saturation_rate = 0;                   // requests/s one replica sustains at all
  models::Slo slo;
  std::optional<double> slo_rate;               // the largest rate per replica meeting the SLO
  std::string slo_verdict;                      // why not, when no rate meets it
  std::optional<double> target_rate;
  std::optional<int> replicas;                  // for the target rate
  std::optional<int> devices;
  std::optional<models::ServingPoint> at_target;  // one replica's share of the target rate
  std::vector<LoadPoint> curve;                 // latency against load, 10% .. 95% of saturation
  std::optional<EngineSteadyState> closed_loop; // --concurrency: the engine's steady state, no rate or curve
  std::optional<bool> closed_loop_meets_slo;    // when an SLO is given
  std::optional<DisaggregatedPlan> disaggregated;  // --disaggregated
  std::vector<std::string> assumptions;
};

// The SLO asked, or the scenario's [serving] one, at the percentile as a fraction.
models::Slo slo_for(const Scenario& s, const CapacityRequest& request);

// Throws InputError without an SLO (unless a concurrency is given), for a vision scenario, or when
// no sequence fits.
CapacityReport capacity_for_scenario(const Scenario& s, const CapacityRequest& request);

}  // namespace perfcast
