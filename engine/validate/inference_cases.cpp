#include "engine/validate/inference_cases.hpp"

#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/core/parallel.hpp"
#include "engine/validate/case_features.hpp"
#include "engine/predict/inference.hpp"

namespace perfcast {
namespace {

constexpr std::string_view kMetrics[] = {"output_tokens_per_s",        "output_tokens_per_s_per_device", "ttft_s",
                                         "latency_s",                  "serving_output_tokens_per_s",    "serving_ttft_mean_s",
                                         "serving_tpot_mean_s",        "serving_e2e_mean_s",             "serving_ttft_p50_s",
                                         "serving_tpot_p50_s",         "serving_e2e_p50_s",              "serving_itl_p50_s",
                                         "weights_bytes"};

// What each metric measures, in the terms the bands match on (spec/residuals.hpp), in kMetrics' order.
constexpr std::string_view kFigures[] = {"throughput", "throughput", "ttft", "latency", "throughput", "ttft", "tpot",
                                         "e2e",        "ttft",       "tpot", "e2e",     "tpot",       "weights"};
static_assert(std::size(kFigures) == std::size(kMetrics));

bool is_serving(InferenceMetric m) { return m >= InferenceMetric::serving_tokens_per_s && m <= InferenceMetric::serving_itl_p50; }

// The weights component of the memory model's breakdown (per device).
double weights_bytes(const MemoryReport& r) {
  for (const MemoryComponent& c : r.components)
    if (c.name == "weights") return c.bytes;
  return 0;
}

// The steady state a serving_* metric reads: the closed loop, else the rate's (the two carry the
// same-named figures).
double serving_value(InferenceMetric m, const InferencePrediction& p) {
  auto read = [m](const auto& r) {
    switch (m) {
      case InferenceMetric::serving_tokens_per_s: return r.output_tokens_per_s;
      case InferenceMetric::serving_ttft_mean: return r.ttft_mean_s;
      case InferenceMetric::serving_tpot_mean: return r.tpot_mean_s;
      case InferenceMetric::serving_ttft_p50: return r.ttft_p50_s;
      case InferenceMetric::serving_tpot_p50: return r.tpot_p50_s;
      case InferenceMetric::serving_e2e_p50: return r.e2e_p50_s;
      case InferenceMetric::serving_itl_p50: return r.itl_p50_s;
      default: return r.e2e_mean_s;
    }
  };
  return p.closed_loop ? read(p.closed_loop->result) : read(*p.serving);
}

double predicted_value(InferenceMetric m, const InferencePrediction& p) {
  if (is_serving(m)) return serving_value(m, p);
  switch (m) {
    case InferenceMetric::tokens_per_s: return p.output_tokens_per_s;
    case InferenceMetric::tokens_per_s_per_device: return p.output_tokens_per_s_per_device;
    case InferenceMetric::ttft: return p.ttft_s;
    case InferenceMetric::latency: return p.edge ? p.edge->latency_s / p.batch : p.e2e_s;
    case InferenceMetric::weights_bytes: return weights_bytes(p.memory);
    default: break;
  }
  return 0;
}

}  // namespace

std::vector<InferenceCase> load_inference_cases(CaseFile& f, const HardwareDb& db) {
  return read_cases(f, [&](TomlSection& t) {
    InferenceCase c = read_scenario_case(t, kMetrics, "inference", db);
    if (is_serving(InferenceMetric(c.metric)) && c.scenario && !c.scenario->serving.concurrency && !c.scenario->serving.arrival_rate)
      t.fail("metric", fmt::format("{} is a serving steady state: the case's scenario needs [serving] concurrency or arrival_rate",
                                   kMetrics[c.metric]));
    return c;
  });
}

std::string_view inference_case_kind(const InferenceCase& c) {
  // latency_s is one frame of a vision model: a skipped case without a scenario still counts as edge.
  // serving_* metrics are a replica under load (the engine simulated): kind serving.
  const InferenceMetric m = InferenceMetric(c.metric);
  const bool vision = c.scenario ? !c.scenario->workload.is_transformer() : m == InferenceMetric::latency;
  return vision ? "edge" : is_serving(m) ? "serving" : m == InferenceMetric::weights_bytes ? "weights" : "inference";
}

std::vector<CaseScore> score_inference_cases(const std::vector<InferenceCase>& cases, const ModelParams& mp) {
  // Each case apart, on every core: a serving case simulates its engine (most of validate's time).
  std::vector<CaseScore> scores(cases.size());
  for_each_item(thread_count(0, cases.size()), cases.size(), {}, [&](int, std::uint64_t k) {
    const InferenceCase& c = cases[k];
    const InferenceMetric m = InferenceMetric(c.metric);
    CaseScore s = score_of(c, std::string(inference_case_kind(c)));
    const bool time = m == InferenceMetric::ttft || m == InferenceMetric::latency ||
                      (is_serving(m) && m != InferenceMetric::serving_tokens_per_s);
    s.dimension = time ? units::dim::seconds : m == InferenceMetric::weights_bytes ? units::dim::bytes : units::dim::hertz;
    s.measured = c.measured;
    s.detail = std::string(kMetrics[c.metric]);
    if (c.scenario) {
      s.subject = fmt::format("{} on {} × {}", c.scenario->workload.label(), c.scenario->hardware.count, c.scenario->hardware.accelerator);
      s.accelerator = c.scenario->hardware.accelerator;
      s.features = scenario_features(*c.scenario, s.kind, kFigures[c.metric]);
      // Tuned tables (kind inference) and engines under load (serving) apart, by the engine the case states.
      if (c.scenario->workload.is_transformer() && c.scenario->inference && (s.kind == "inference" || s.kind == "serving")) {
        const auto& engine = c.scenario->inference->engine;
        s.engine = fmt::format("{} · {}", s.kind, engine ? models::kServingEngineKeys[static_cast<std::size_t>(*engine)] : "unstated");
        s.vendor = c.scenario->hw.device.vendor;
      }
      if (c.skip.empty()) {
        const InferenceOptions o = with_params(InferenceOptions{.require_fit = false}, mp);
        const InferencePrediction p = predict_inference(*c.scenario, o);
        s.set_prediction(predicted_value(InferenceMetric(c.metric), p));
        s.detail += fmt::format(" · {} · batch {:g}{}", p.layout, p.batch, p.memory.fits ? "" : " · does not fit in the memory model");
      }
    }
    scores[k] = std::move(s);
  });
  return scores;
}

std::span<const std::string_view> inference_metric_names() { return kMetrics; }

}  // namespace perfcast
