#pragma once
// Serving capacity (perfcast capacity) and one serving steady state as a terminal table, JSON and
// CSV (the latency-against-load curve).
#include <nlohmann/json.hpp>
#include <string>

#include "engine/predict/capacity.hpp"
#include "models/serving.hpp"

namespace perfcast {

// One steady state: rate, load, occupancy, waits, TTFT/TPOT/E2E mean, p50 and the SLO percentile
// ("ttft_p99_s" at 99).
std::string serving_point_table(const models::ServingPoint& p);
nlohmann::json serving_point_to_json(const models::ServingPoint& p);

// An engine's simulated steady state (batch = "max", capacity --concurrency): the same keys as a
// serving point where the quantity is the same, plus the engine, its limits and the load.
std::string engine_steady_state_table(const EngineSteadyState& e);
nlohmann::json engine_steady_state_to_json(const EngineSteadyState& e);

std::string capacity_to_table(const CapacityReport& c, bool detail);
nlohmann::json capacity_to_json(const CapacityReport& c);
std::string capacity_to_csv(const CapacityReport& c);

}  // namespace perfcast
