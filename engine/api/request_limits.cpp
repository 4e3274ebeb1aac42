#include "engine/api/request_limits.hpp"

#include <cmath>
#include <fmt/format.h>

#include "engine/core/errors.hpp"

namespace perfcast::api {
namespace {

void in_bound(const char* option, double v, Bound b, const char* what) {
  if (!std::isfinite(v) || v < b.min || v > b.max)
    throw InputError({}, fmt::format("{} {}: give {} from {} to {}", option, v, what, b.min, b.max));
}

void positive(const char* option, std::optional<double> v, double max, const char* what) {
  if (v && (!std::isfinite(*v) || *v <= 0 || *v > max))
    throw InputError({}, fmt::format("{} {}: give {} above 0 and at most {}", option, *v, what, max));
}

}  // namespace

void check_request(const PredictRequest& r) {
  if (r.uncertainty) in_bound("--samples", r.samples, limits::samples, "a whole number of draws");
}

void check_request(const CapacityRequest& r) {
  if (r.rate && r.concurrency)
    throw InputError({}, "--rate and --concurrency: give one (an open loop at a rate, or a closed loop of clients)");
  positive("--rate", r.rate, limits::rate_max, "requests/s");
  if (r.concurrency) in_bound("--concurrency", *r.concurrency, limits::concurrency, "a number of clients");
  if (r.concurrency && std::floor(*r.concurrency) != *r.concurrency)
    throw InputError({}, fmt::format("--concurrency {}: give a whole number of clients", *r.concurrency));
  positive("--ttft-slo", r.ttft_slo_s, limits::slo_max_s, "seconds");
  positive("--tpot-slo", r.tpot_slo_s, limits::slo_max_s, "seconds");
  if (r.percentile) in_bound("--percentile", *r.percentile, limits::percentile, "a percentile");
}

void check_request(const SweepAsk& r) {
  for (int d : r.devices) in_bound("--devices", d, limits::sweep_devices, "a device count");
  in_bound("--top", r.top, limits::top, "a number of rows");
  in_bound("--threads", r.threads, limits::threads, "a number of threads (0: one per core)");
}

void check_deadline(std::optional<double> deadline_s) { positive("--deadline", deadline_s, limits::deadline_max_s, "seconds"); }

}  // namespace perfcast::api
