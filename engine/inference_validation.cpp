#include "engine/inference_validation.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "engine/errors.hpp"
#include "engine/inference_report.hpp"
#include "engine/workload.hpp"

namespace perfcast {
namespace {

constexpr std::string_view kMetrics[] = {"output_tokens_per_s", "output_tokens_per_s_per_device", "ttft_s", "latency_s"};

InferenceCase read_case(TomlSection& t, const HardwareDb& db) {
  InferenceCase c;
  c.id = t.require_string("id");
  c.source = t.require_string("source");
  auto metric = t.choice("metric", kMetrics);
  if (!metric) t.fail_here(fmt::format("missing required key '{}metric'", t.path()));
  c.metric = InferenceMetric(std::find(std::begin(kMetrics), std::end(kMetrics), std::string_view(*metric)) - std::begin(kMetrics));
  c.measured = t.require_number("measured", 0, false, 1e12);
  c.tolerance = t.number("tolerance", 0, false, 10).value_or(0.15);
  c.used_for = t.string("used_for").value_or("");
  c.skip = t.string("skip").value_or("");
  c.notes = t.string("notes").value_or("");
  if (auto sc = t.table("scenario")) c.scenario = read_scenario(*sc, t.file(), default_workloads_dir(), db);
  else if (c.skip.empty()) t.fail_here(fmt::format("case '{}' needs a [case.scenario] table (or a skip reason)", c.id));
  t.finish();
  if (c.scenario && !c.scenario->inference) t.fail("scenario", "an inference case needs an [inference] table in its scenario");
  return c;
}

double predicted_value(InferenceMetric m, const InferencePrediction& p) {
  switch (m) {
    case InferenceMetric::tokens_per_s: return p.output_tokens_per_s;
    case InferenceMetric::tokens_per_s_per_device: return p.output_tokens_per_s_per_device;
    case InferenceMetric::ttft: return p.ttft_s;
    case InferenceMetric::latency: return p.edge ? p.edge->latency_s / p.batch : p.e2e_s;
  }
  return 0;
}

}  // namespace

std::vector<InferenceCase> load_inference_cases(CaseFile& f, const HardwareDb& db) {
  return read_cases(f, [&](TomlSection& t) { return read_case(t, db); });
}

std::vector<CaseScore> score_inference_cases(const std::vector<InferenceCase>& cases, const HardwareDb& db) {
  std::vector<CaseScore> scores;
  for (const InferenceCase& c : cases) {
    const bool vision = c.scenario && !c.scenario->workload.is_transformer();
    CaseScore s = score_of(c, vision ? "edge" : "inference");
    const bool time = c.metric == InferenceMetric::ttft || c.metric == InferenceMetric::latency;
    s.dimension = time ? units::dim::seconds : units::dim::hertz;
    s.measured = c.measured;
    s.detail = std::string(kMetrics[int(c.metric)]);
    if (c.scenario) {
      s.subject = fmt::format("{} on {} × {}", c.scenario->workload.name, c.scenario->hardware.count, c.scenario->hardware.accelerator);
      if (c.skip.empty()) {
        InferenceOptions o;
        o.require_fit = false;
        const InferencePrediction p = predict_inference(*c.scenario, db, o);
        s.set_prediction(predicted_value(c.metric, p));
        s.detail += fmt::format(" · {} · batch {:g}{}", p.layout, p.batch, p.memory.fits ? "" : " · does not fit in the memory model");
      }
    }
    scores.push_back(s);
  }
  return scores;
}

}  // namespace perfcast
