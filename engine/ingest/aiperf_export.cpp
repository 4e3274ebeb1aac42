#include "engine/ingest/aiperf_export.hpp"

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/core/errors.hpp"
#include "engine/validate/scenario_case.hpp"

namespace perfcast {
namespace {

using nlohmann::json;

class Reader {
 public:
  Reader(const json& j, const std::string& file) : j_(j), file_(file) {}

  [[noreturn]] void fail(const std::string& what) const { throw InputError({file_, 0, 0}, fmt::format("{}: {}", tool(), what)); }
  std::string tool() const { return aiperf() ? "AIPerf export" : "GenAI-Perf export"; }
  bool aiperf() const { return config().contains("loadgen"); }

  const json& config() const {
    static const json none = json::object();
    const auto it = j_.find("input_config");
    return it != j_.end() && it->is_object() ? *it : none;
  }

  // A metric's statistic ("avg", "p50"), a finite non-negative number; nullopt when absent.
  std::optional<double> stat(const char* metric, const char* which, bool required) const {
    const auto m = j_.find(metric);
    if (m == j_.end() || m->is_null()) {
      if (required) fail(fmt::format("no '{}' (is this profile_export_aiperf.json or profile_export_genai_perf.json?)", metric));
      return std::nullopt;
    }
    if (!m->is_object()) fail(fmt::format("'{}' is not an object of statistics", metric));
    const auto v = m->find(which);
    if (v == m->end() || v->is_null()) {
      if (required) fail(fmt::format("'{}' has no '{}'", metric, which));
      return std::nullopt;
    }
    if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < 0)
      fail(fmt::format("'{}.{}' is not a non-negative number", metric, which));
    if (v->get<double>() != 0 && !std::isnormal(v->get<double>()))
      fail(fmt::format("'{}.{}' is {:g}, a subnormal number, not a measurement", metric, which, v->get<double>()));
    return v->get<double>();
  }

  // Seconds per unit of a latency metric's "unit".
  double seconds_per(const char* metric) const {
    const json& m = j_.at(metric);
    const auto u = m.find("unit");
    if (u == m.end() || !u->is_string()) fail(fmt::format("'{}' has no unit", metric));
    const std::string unit = u->get<std::string>();
    if (unit == "ms") return 1e-3;
    if (unit == "s" || unit == "sec") return 1;
    if (unit == "us") return 1e-6;
    if (unit == "ns") return 1e-9;
    fail(fmt::format("'{}' is in '{}', not a time unit (ms, s, us, ns)", metric, unit));
  }

  std::optional<AiperfStat> latency(const char* metric, bool required) const {
    const std::optional<double> mean = stat(metric, "avg", required);
    if (!mean) return std::nullopt;
    const double unit = seconds_per(metric);
    AiperfStat s{*mean * unit, std::nullopt};
    if (auto p50 = stat(metric, "p50", false)) s.p50_s = *p50 * unit;
    return s;
  }

  // The load's settings: AIPerf's input_config.loadgen, GenAI-Perf's input_config itself.
  const json& load_table() const {
    const json& table = aiperf() ? config().at("loadgen") : config();
    if (!table.is_object()) fail("'input_config.loadgen' is not an object");
    return table;
  }

  // A setting of the load, a number; nullopt when absent or null.
  std::optional<double> load(const char* key) const {
    const json& table = load_table();
    const auto v = table.find(key);
    if (v == table.end() || v->is_null()) return std::nullopt;
    if (!v->is_number() || !std::isfinite(v->get<double>())) fail(fmt::format("input_config '{}' is not a number", key));
    return v->get<double>();
  }

  std::string load_text(const char* key) const {
    const json& table = load_table();
    const auto v = table.find(key);
    return v != table.end() && v->is_string() ? v->get<std::string>() : "";
  }

  // A count of clients or requests: a whole number from 1 to 1e6.
  void check_count(const char* label, std::optional<double> n) const {
    if (n && !(*n >= 1 && *n <= 1e6 && *n == std::floor(*n))) fail(fmt::format("{} {:g} is not a whole number from 1 to 1e6", label, *n));
  }

 private:
  const json& j_;
  const std::string& file_;
};

}  // namespace

AiperfRun parse_aiperf_export(std::string_view text, const std::string& file) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse errors, and numbers beyond a double (out_of_range)
    throw InputError({file, 0, 0}, fmt::format("AIPerf / GenAI-Perf export: not JSON ({})", e.what()));
  }
  if (!j.is_object()) throw InputError({file, 0, 0}, "AIPerf / GenAI-Perf export: expected the JSON object profile_export_*.json holds");
  const Reader r(j, file);
  AiperfRun run;
  run.file = file;
  run.tool = r.aiperf() ? "AIPerf" : "GenAI-Perf";
  if (const auto c = j.find("was_cancelled"); c != j.end() && c->is_boolean() && c->get<bool>())
    r.fail("'was_cancelled' is true: the run was stopped before it completed");
  if (const auto e = r.stat("error_request_count", "avg", false); e && *e > 0)
    r.fail(fmt::format("{:g} requests failed ('error_request_count'): a run with failed requests is not a measurement of the server", *e));
  // The model served: AIPerf's endpoint.model_names, GenAI-Perf's model (a list of names).
  const json& config = r.config();
  const json* names = config.contains("endpoint") && config["endpoint"].is_object() && config["endpoint"].contains("model_names")
                          ? &config["endpoint"]["model_names"]
                      : config.contains("model") ? &config["model"]
                                                 : nullptr;
  if (names && names->is_array() && !names->empty() && (*names)[0].is_string()) run.model = (*names)[0].get<std::string>();
  else if (names && names->is_string()) run.model = names->get<std::string>();

  // The load: clients in a closed loop, or arrivals at a rate; AIPerf's rate with a concurrency cap is neither.
  run.concurrency = r.load("concurrency");
  run.request_rate = r.load("request_rate");
  r.check_count("concurrency", run.concurrency);
  if (run.request_rate && !(*run.request_rate > 0 && *run.request_rate <= 1e6))
    r.fail(fmt::format("request_rate {:g} is not a positive rate up to 1e6 requests/s", *run.request_rate));
  if (run.concurrency && run.request_rate)
    r.fail("the run sent requests at a rate capped by a concurrency; perfcast models a closed loop or a rate, not both");
  if (!run.concurrency && !run.request_rate) r.fail("input_config gives neither a concurrency nor a request_rate");
  // AIPerf's RequestRateMode (aiperf/common/enums/timing_enums.py); perfcast models constant and Poisson arrivals.
  const std::string mode = r.load_text("request_rate_mode");
  if (!mode.empty() && mode != "constant" && mode != "poisson" && mode != "concurrency_burst")
    r.fail(fmt::format("request_rate_mode '{}': not one perfcast models (constant, poisson, concurrency_burst)", mode));
  run.constant_rate = mode == "constant";

  // Requests measured: AIPerf's summary request_count; GenAI-Perf's --request-count when one was given.
  if (auto n = r.stat("request_count", "avg", false)) run.requests = *n;
  else if (auto asked = r.load("request_count"); asked && *asked > 0) run.requests = *asked;
  r.check_count("request_count", run.requests);

  run.input_tokens = *r.stat("input_sequence_length", "avg", true);
  run.output_tokens = *r.stat("output_sequence_length", "avg", true);
  run.output_tokens_std = r.stat("output_sequence_length", "std", false);
  run.output_tokens_per_s = *r.stat("output_token_throughput", "avg", true);
  if (run.input_tokens < 1 || run.output_tokens < 1 || run.input_tokens > 1e7 || run.output_tokens > 1e7)
    r.fail("input_sequence_length and output_sequence_length must average 1 to 1e7 tokens");
  if (run.output_tokens_per_s <= 0) r.fail("'output_token_throughput.avg' must be positive");
  if (run.output_tokens_per_s > kMaxMeasured)
    r.fail(fmt::format("'output_token_throughput.avg' {:g} tokens/s is beyond any measurement (at most {:g})", run.output_tokens_per_s, kMaxMeasured));
  run.latency = *r.latency("request_latency", true);
  run.ttft = r.latency("time_to_first_token", false);
  run.itl = r.latency("inter_token_latency", false);
  if (run.latency.mean_s <= 0 || (run.ttft && run.ttft->mean_s <= 0))
    r.fail("request_latency and time_to_first_token must be positive");
  if (run.ttft && run.ttft->mean_s > run.latency.mean_s)
    r.fail(fmt::format("time_to_first_token.avg ({:g} s) is longer than request_latency.avg ({:g} s): a first token cannot come after "
                       "the request's end", run.ttft->mean_s, run.latency.mean_s));
  return run;
}

}  // namespace perfcast
