#pragma once
// The bounds of the options every front end passes to engine/api: the CLI's validators, the web API
// and the Python module read them here, and each answer in answers.cpp checks its request against
// them, so no front end can ask for what another refuses. Each bound says what it keeps out.
#include <string>

#include "engine/api/answers.hpp"

namespace perfcast::api {

struct Bound {
  double min, max;  // inclusive
};

namespace limits {
// --uncertainty draws, each a full prediction (100,000 take ~7 s on one core; fewer than 10 give no P10).
inline constexpr Bound samples{10, 100'000};
// A request of the web API answers within seconds: 2,000 draws take ~0.15 s.
inline constexpr double web_samples_max = 2'000;
inline constexpr Bound concurrency{1, 100'000};       // closed-loop clients; the simulator keeps one state each
inline constexpr double rate_max = 1e12;               // requests/s (above 0): a million replicas of a million each
inline constexpr double slo_max_s = 1e6;               // TTFT/TPOT SLOs, seconds (above 0)
inline constexpr Bound percentile{1, 99.999};          // an SLO percentile: 100 has no finite quantile
inline constexpr double deadline_max_s = 1e12;         // compare's deadline (above 0): 31,700 years
inline constexpr Bound threads{0, 4'096};              // 0: one per core
inline constexpr Bound top{0, 100'000};                // best rows to return
inline constexpr Bound sweep_devices{1, 10'000'000};  // the scenario reader's own device bound
// A web request's sweep, its device counts summed: its work budget (a serving sweep places every
// device: 0.46 s for a million on 2 cores, 5 s for ten million).
inline constexpr double web_sweep_devices_max = 1'000'000;
}  // namespace limits

// InputError "<option>: ..." when a request's option is outside its bound; `option` is named as the
// CLI names it.
void check_request(const PredictRequest& r);
void check_request(const CapacityRequest& r);
void check_request(const SweepAsk& r);
void check_deadline(std::optional<double> deadline_s);

}  // namespace perfcast::api
