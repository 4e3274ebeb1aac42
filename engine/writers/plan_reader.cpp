#include "engine/writers/plan_reader.hpp"

#include <optional>

#include "engine/writers/json_reader.hpp"
#include "engine/writers/plan_columns.hpp"
#include "engine/writers/sweep_columns.hpp"

namespace perfcast {
namespace {

using nlohmann::json;

const SweepLayout& layout_of(const PlanRow& r) { return r.layout; }
const ServeLayout& layout_of(const ServingPlanRow& r) { return r.replica; }

struct Reader : JsonReader {
  std::optional<double> maybe(const json& j, const char* key) const {
    const json& v = at(j, key);
    if (v.is_null()) return std::nullopt;
    return number(j, key);
  }
  PlanMetric metric(const json& v) const {
    try {
      return plan_metric(v.is_string() ? v.get<std::string>() : v.dump(), "metric");
    } catch (const InputError&) {
      fail(fmt::format("unknown metric {}", v.dump()));
    }
  }
  std::vector<PlanMetric> metrics(const json& j, const char* key) const {
    std::vector<PlanMetric> out;
    for (const json& m : at(j, key)) out.push_back(metric(m));
    return out;
  }
  PlanSpace space(const json& j) const {
    PlanSpace s;
    s.accelerators = get<std::vector<std::string>>(j, "accelerators");
    s.regions = get<std::vector<std::string>>(j, "regions");
    s.payments.clear();
    for (const std::string& p : get<std::vector<std::string>>(j, "payments")) {
      const std::optional<Payment> kind = payment_named(p);
      if (!kind) fail(fmt::format("'payments' holds '{}'", p));
      s.payments.push_back(*kind);
    }
    return s;
  }
  // --risk as written: p50 or p90 (p50 in a shard written before plans had --risk).
  bool risk(const json& j) const {
    if (j.is_object() && !j.contains("risk")) return false;
    const std::string r = get<std::string>(j, "risk");
    if (r != "p50" && r != "p90") fail(fmt::format("'risk' is '{}', not p50 or p90", r));
    return r == "p90";
  }
  ReasonCounts dropped(const json& j) const {
    ReasonCounts out;
    for (const json& d : at(j, "dropped")) {
      const json& count = at(d, "count");
      if (!count.is_number_integer() || count.get<std::int64_t>() < 0) fail("a 'dropped' count is not a whole number of 0 or more");
      out.emplace_back(get<std::string>(d, "reason"), count.get<long>());
    }
    return out;
  }
  template <class Row>
  std::vector<Row> rows(const json& j, const char* key, const std::vector<PlanColumn<Row>>& columns) const {
    std::vector<Row> out;
    for (const json& x : at(j, key)) {
      check_figures(x, fmt::format("a row of '{}'", key));
      Row row;
      for (const PlanColumn<Row>& c : columns)
        if (c.set) set(c.set, row, x, c.key);
      if (const std::string fault = layout_fault(layout_of(row)); !fault.empty()) fail(fmt::format("a row of '{}': {}", key, fault));
      out.push_back(std::move(row));
    }
    return out;
  }
  // What both kinds of plan write about the search and the request.
  template <class Report>
  void search(const json& j, Report& r) const {
    r.scenario_file = get<std::string>(j, "scenario_file");
    r.scenario = get<std::string>(j, "scenario");
    r.workload = get<std::string>(j, "workload");
    r.systems = get<std::vector<std::string>>(j, "systems");
    r.without_system = get<std::vector<std::string>>(j, "accelerators_without_system");
    r.space = space(j);
    auto& q = r.request;
    q.objective = metric(at(j, "objective"));
    q.pareto = metrics(j, "pareto");
    q.top = get<int>(j, "top");
    if (q.top < 0) fail("'top' is negative");
    if (const auto m = maybe(j, "max_devices")) q.max_devices = int(*m);
    q.calibration = get<std::string>(j, "calibration");
    q.shard = get<int>(j, "shard"), q.shards = get<int>(j, "shards");
    if (q.shards < 1 || q.shard < 0 || q.shard >= q.shards) fail("shard outside 0..shards-1");
    r.priced = get<std::uint64_t>(j, "priced");
    r.dropped = dropped(j);
    r.last_removed_by = get<std::string>(j, "last_removed_by");
    r.last_removed_stage = get<int>(j, "last_removed_stage");
    r.seconds = number(j, "seconds");
  }
};

PlanReport training_plan(const Reader& in, const json& j) {
  PlanReport r;
  in.search(j, r);
  r.stack = in.get<std::string>(j, "stack");
  r.nodes = in.get<std::vector<int>>(j, "nodes");
  if (r.nodes.empty()) in.fail("'nodes' is empty");
  r.units = in.get<std::uint64_t>(j, "units");
  r.layouts = in.get<std::uint64_t>(j, "layouts");
  r.timed = in.get<std::uint64_t>(j, "timed");
  r.request.deadline_s = in.maybe(j, "deadline_s");
  r.request.budget_usd = in.maybe(j, "budget_usd");
  r.request.risk_p90 = in.risk(j);
  r.best = in.rows(j, "best", training_plan_columns());
  r.front = in.rows(j, "front", training_plan_columns());
  return r;
}

ServingPlanReport serving_plan(const Reader& in, const json& j) {
  ServingPlanReport r;
  in.search(j, r);
  r.engine = in.get<std::string>(j, "engine");
  r.rate = in.number(j, "rate");
  if (!(r.rate > 0)) in.fail(fmt::format("'rate' is {:g}, not a request rate", r.rate));
  r.input_len = in.number(j, "input_len");
  r.output_len = in.number(j, "output_len");
  r.layouts = in.get<std::uint64_t>(j, "layouts");
  r.simulated = in.get<std::uint64_t>(j, "simulated");
  r.assumptions = in.get<std::vector<std::string>>(j, "assumptions");
  const json& slo = in.at(j, "slo");
  r.slo.ttft_s = in.maybe(slo, "ttft_s");
  r.slo.tpot_s = in.maybe(slo, "tpot_s");
  r.slo.percentile = in.number(slo, "percentile") / 100;
  r.request.rate = r.rate;
  r.request.ttft_slo_s = r.slo.ttft_s, r.request.tpot_slo_s = r.slo.tpot_s;
  r.request.percentile = r.slo.percentile * 100;
  r.request.budget_usd_per_hour = in.maybe(j, "budget_usd_per_hour");
  r.request.risk_p90 = in.risk(j);
  for (const std::string& d : in.get<std::vector<std::string>>(j, "dtypes")) {
    const auto p = precision_from(d);
    if (!p) in.fail(fmt::format("'dtypes' holds '{}'", d));
    r.request.weight_dtypes.push_back(*p);
  }
  r.best = in.rows(j, "best", serving_plan_columns());
  r.front = in.rows(j, "front", serving_plan_columns());
  return r;
}

}  // namespace

PlanShard plan_from_json(const json& doc, const std::string& file) {
  const Reader in{{file, "not a perfcast plan shard"}};
  const json& j = in.at(doc, "plan");
  const std::string kind = in.get<std::string>(j, "kind");
  if (kind == "training") return training_plan(in, j);
  if (kind == "serving") return serving_plan(in, j);
  in.fail(fmt::format("'kind' = '{}' is neither training nor serving", kind));
}

}  // namespace perfcast
