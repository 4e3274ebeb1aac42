#include "web/api.hpp"

#include <cmath>
#include <numeric>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <optional>
#include <vector>

#include "engine/api/answers.hpp"
#include "engine/api/request_limits.hpp"
#include "engine/core/edit_distance.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/scenario_json.hpp"
#include "engine/data/scenario_variants.hpp"

namespace perfcast::web {
namespace {

namespace limits = api::limits;

// What a request refuses: becomes a 400 with its one line.
struct BadRequest {
  std::string message;
};

// The label a request's scenario gets where a file name would stand in messages.
constexpr const char* kLabel = "<request>";

// A request body's options, read strictly: each key its type and range; a key never read is refused.
class Options {
 public:
  Options(const nlohmann::json& body, std::vector<std::string> keys) : body_(body), keys_(std::move(keys)) {
    for (const auto& [k, v] : body.items())
      if (std::find(keys_.begin(), keys_.end(), k) == keys_.end())
        throw BadRequest{fmt::format("unknown key '{}'{}; this endpoint reads {}", k, did_you_mean(k, keys_), fmt::join(keys_, ", "))};
  }

  const nlohmann::json& scenario() const {
    const auto it = body_.find("scenario");
    if (it == body_.end()) throw BadRequest{"scenario: missing (the scenario file's tables as a JSON object)"};
    return *it;
  }
  std::optional<double> number(const std::string& key, double above, double at_most) const {
    const nlohmann::json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() <= above || v->get<double>() > at_most)
      throw BadRequest{fmt::format("{}: give a number above {} and at most {}", key, above, at_most)};
    return v->get<double>();
  }
  std::optional<int> integer(const std::string& key, int min, int max) const {
    const nlohmann::json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_number_integer() || v->get<std::int64_t>() < min || v->get<std::int64_t>() > max)
      throw BadRequest{fmt::format("{}: give a whole number from {} to {}", key, min, max)};
    return int(v->get<std::int64_t>());
  }
  bool flag(const std::string& key) const {
    const nlohmann::json* v = find(key);
    if (!v) return false;
    if (!v->is_boolean()) throw BadRequest{fmt::format("{}: give true or false", key)};
    return v->get<bool>();
  }
  std::string text(const std::string& key, std::string fallback = "") const {
    const nlohmann::json* v = find(key);
    if (!v) return fallback;
    if (!v->is_string() || v->get<std::string>().size() > 200) throw BadRequest{fmt::format("{}: give a string (at most 200 characters)", key)};
    return v->get<std::string>();
  }
  std::vector<std::string> texts(const std::string& key) const {
    std::vector<std::string> out;
    const nlohmann::json* v = find(key);
    if (!v) return out;
    if (!v->is_array() || v->size() > 32) throw BadRequest{fmt::format("{}: give a list of at most 32 strings", key)};
    for (const nlohmann::json& e : *v) {
      if (!e.is_string() || e.get<std::string>().size() > 200) throw BadRequest{fmt::format("{}: give a list of strings (each at most 200 characters)", key)};
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  std::vector<int> integers(const std::string& key, int min, int max) const {
    std::vector<int> out;
    const nlohmann::json* v = find(key);
    if (!v) return out;
    if (!v->is_array() || v->size() > 64) throw BadRequest{fmt::format("{}: give a list of at most 64 whole numbers", key)};
    for (const nlohmann::json& e : *v) {
      if (!e.is_number_integer() || e.get<std::int64_t>() < min || e.get<std::int64_t>() > max)
        throw BadRequest{fmt::format("{}: give whole numbers from {} to {}", key, min, max)};
      out.push_back(int(e.get<std::int64_t>()));
    }
    return out;
  }

 private:
  const nlohmann::json* find(const std::string& key) const {
    const auto it = body_.find(key);
    return it == body_.end() ? nullptr : &*it;
  }
  const nlohmann::json& body_;
  std::vector<std::string> keys_;
};

Scenario scenario_of(const Site& site, const Options& o) {
  return scenario_from_json(o.scenario(), kLabel, site.db(), FilePaths::refused);
}

nlohmann::json predict(const Site& site, const nlohmann::json& body) {
  const Options o(body, {"scenario", "order", "uncertainty", "samples", "ignore_memory"});
  const api::PredictRequest r{.order = o.text("order"), .uncertainty = o.flag("uncertainty"),
                              .samples = o.integer("samples", int(limits::samples.min), int(limits::web_samples_max)).value_or(200),
                              .ignore_memory = o.flag("ignore_memory")};
  return api::to_json(api::predict(scenario_of(site, o), r));
}

nlohmann::json capacity(const Site& site, const nlohmann::json& body) {
  const Options o(body, {"scenario", "rate", "concurrency", "ttft_slo", "tpot_slo", "percentile", "disaggregated"});
  CapacityRequest r;
  r.rate = o.number("rate", 0, limits::rate_max);
  if (auto c = o.integer("concurrency", int(limits::concurrency.min), int(limits::concurrency.max))) r.concurrency = *c;
  r.ttft_slo_s = o.number("ttft_slo", 0, limits::slo_max_s);
  r.tpot_slo_s = o.number("tpot_slo", 0, limits::slo_max_s);
  r.percentile = o.number("percentile", 0, limits::percentile.max);
  r.disaggregated = o.flag("disaggregated");
  return api::capacity(scenario_of(site, o), r);
}

nlohmann::json sweep(const Site& site, const nlohmann::json& body) {
  const Options o(body, {"scenario", "devices", "objective", "top", "pareto", "constraints"});
  const api::SweepAsk a{.devices = o.integers("devices", int(limits::sweep_devices.min), int(limits::web_sweep_devices_max)), .objective = o.text("objective", "time"),
                        .top = o.integer("top", 0, 1000).value_or(20), .pareto = o.texts("pareto"), .constraints = o.texts("constraints")};
  // The work budget of one request: a sweep's time grows with the devices it places, so they are bounded summed.
  if (std::accumulate(a.devices.begin(), a.devices.end(), 0.0) > limits::web_sweep_devices_max)
    throw BadRequest{fmt::format("devices: at most {:.0f} summed over the counts of one request", limits::web_sweep_devices_max)};
  return api::sweep(scenario_of(site, o), a);
}

nlohmann::json compare(const Site& site, const nlohmann::json& body) {
  const Options o(body, {"scenario", "hardware", "cost", "region", "deadline_s"});
  CompareRequest r{.hardware = o.texts("hardware"), .cost = o.texts("cost"), .region = o.texts("region"), .paths = FilePaths::refused};
  r.deadline_s = o.number("deadline_s", 0, limits::deadline_max_s);
  const toml::table base = scenario_table_from_json(o.scenario(), kLabel, FilePaths::refused);
  if (r.hardware.size() * std::max<std::size_t>(1, r.cost.size()) * std::max<std::size_t>(1, r.region.size()) > 256)
    throw BadRequest{"hardware × cost × region: at most 256 variants in one request"};
  return api::compare(scenario_variants(base, kLabel, r, site.db()), kLabel, r.deadline_s);
}

std::string query_value(const std::multimap<std::string, std::string>& query, const std::string& key) {
  const auto it = query.find(key);
  return it == query.end() ? "" : it->second;
}

Reply json_reply(const nlohmann::json& j) { return {200, j.dump()}; }
Reply refusal(int status, std::string_view message) { return {status, error_body(message)}; }

Reply route(const Site& site, std::string_view method, std::string_view path, const std::multimap<std::string, std::string>& query,
            std::string_view body) {
  const std::string_view takes = endpoint_method(path);
  const bool is_post = takes == "POST", is_get = takes == "GET";
  if (takes.empty()) return refusal(404, fmt::format("no endpoint {} (see GET /api/site and the README)", path));
  if (is_post != (method == "POST")) return refusal(405, fmt::format("{} takes {}", path, is_post ? "POST with a JSON body" : "GET"));
  if (is_get) {
    if (path == "/api/site") return {200, site.site_json()};
    if (path == "/api/validate") return {200, site.validation_json(query_value(query, "kind"))};
    if (path == "/api/hw") return json_reply(api::hw_list(api::hw_records(site.db(), query_value(query, "kind"))));
    return json_reply(api::hw_show(site.db(), std::string(path.substr(std::string_view("/api/hw/").size()))));
  }
  if (body.size() > kMaxRequestBytes) return refusal(413, fmt::format("request body of {} bytes; at most {}", body.size(), kMaxRequestBytes));
  const nlohmann::json request = nlohmann::json::parse(body, nullptr, false);
  if (request.is_discarded()) return refusal(400, "request body: not valid JSON");
  if (!request.is_object()) return refusal(400, "request body: give a JSON object {\"scenario\": {...}, ...options}");
  if (path == "/api/predict") return json_reply(predict(site, request));
  if (path == "/api/capacity") return json_reply(capacity(site, request));
  if (path == "/api/sweep") return json_reply(sweep(site, request));
  if (path == "/api/compare") return json_reply(compare(site, request));
  const Options o(request, {"scenario"});
  if (path == "/api/memory") return json_reply(api::memory(scenario_of(site, o)));
  return json_reply(api::roofline(scenario_of(site, o)));
}

}  // namespace

std::string_view endpoint_method(std::string_view path) {
  static const std::vector<std::string_view> posts{"/api/predict", "/api/memory", "/api/capacity", "/api/roofline", "/api/sweep", "/api/compare"};
  if (std::find(posts.begin(), posts.end(), path) != posts.end()) return "POST";
  if (path == "/api/site" || path == "/api/hw" || path.starts_with("/api/hw/") || path == "/api/validate") return "GET";
  return "";
}

std::string error_body(std::string_view message) {
  // One line: a message never carries a newline into the reply.
  std::string line(message);
  std::replace(line.begin(), line.end(), '\n', ' ');
  return nlohmann::json{{"error", line}}.dump();
}

Reply answer(const Site& site, std::string_view method, std::string_view path, const std::multimap<std::string, std::string>& query,
             std::string_view body) {
  try {
    return route(site, method, path, query, body);
  } catch (const BadRequest& e) {
    return refusal(400, e.message);
  } catch (const InputError& e) {
    return refusal(400, e.what());
  } catch (const std::exception& e) {
    return refusal(500, fmt::format("internal error: {}", e.what()));
  }
}

}  // namespace perfcast::web
