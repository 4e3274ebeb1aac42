#pragma once
// `perfcast sweep` on an [inference] scenario: every serving layout of the model on the devices —
// tp, pp, ep (MoE), the static batch, and the weight and KV-cache dtypes asked for — each through
// `predict_inference` itself (the same numbers as `predict`), rejected by the layout rules first,
// then by memory, then ranked under constraints (TTFT, TPOT, ...). Serving spaces hold thousands
// of layouts, not millions, so there is no fast path and no sharding.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/predict/inference.hpp"
#include "engine/spec/scenario.hpp"
#include "engine/sweep/training_sweep.hpp"

namespace perfcast {

struct ServeLayout {
  int devices = 1, tp = 1, pp = 1, ep = 1;
  double batch = 1;
  Precision weights = Precision::bf16, kv = Precision::bf16;
};
// Writes `l` into a scenario's [hardware] count, [parallelism] and [inference] batch and dtypes.
void apply_layout(Scenario& s, const ServeLayout& l);
std::string layout_label(const ServeLayout& l);

enum class ServeMetric { ttft, tpot, e2e, tokens_per_s, tokens_per_s_per_device, usd_per_mtok, co2_per_mtok, memory };
constexpr int kServeMetrics = int(ServeMetric::memory) + 1;
std::string_view name_of(ServeMetric m);
bool higher_is_better(ServeMetric m);

// Per layout on all its devices (dp replicas of tp x pp): output tokens/s of static batches one
// after another, $ and kg CO2e per million output tokens (0 unless the search needs them).
struct ServeFigures {
  double ttft_s = 0, tpot_s = 0, e2e_s = 0, tokens_per_s = 0, tokens_per_s_per_device = 0;
  double usd_per_mtok = 0, co2_per_mtok = 0, memory_B = 0;
  double value(ServeMetric m) const;
};
ServeFigures serve_figures(const InferencePrediction& p, int replicas);

struct ServeRow {
  std::uint64_t id = 0;
  ServeLayout layout;
  ServeFigures figures;
};
double rank_key(const ServeRow& r, ServeMetric m);

using ServeConstraint = MetricBound<ServeMetric>;

struct ServeSpace {
  std::vector<int> devices, tp, pp, ep;
  std::vector<double> batch;
  std::vector<Precision> weights, kv;
  std::uint64_t size() const;
  ServeLayout layout(std::uint64_t id) const;  // the KV dtype varies fastest
};

struct ServeRequest {
  std::vector<int> devices;            // empty: the scenario's count
  std::string objective = "time";      // time (tokens_per_s), cost (usd_per_mtok), co2 (co2_per_mtok) or a metric
  std::vector<std::string> constraints, pareto;
  std::vector<std::string> weight_dtypes, kv_dtypes;  // empty: the scenario's own
  int top = 20, threads = 0;
  std::function<void(std::uint64_t, std::uint64_t)> progress;
};

struct ServeResult {
  std::string scenario, workload, accelerator;
  ServeSpace space;
  ServeMetric objective = ServeMetric::tokens_per_s;
  std::vector<ServeConstraint> constraints;
  std::vector<ServeMetric> pareto;
  int top = 20;
  bool economics = false;              // usd_per_mtok and co2_per_mtok were computed
  double capacity_B = 0;
  SweepCounts counts;                  // no repeats: every combination is a layout
  std::vector<ServeRow> best, front;
  ServeRow baseline;                   // the scenario's own layout
  bool baseline_fits = true;
  double seconds = 0;
  int threads = 1;
};

// `o` gives the model parameters (a calibration profile's); its require_fit and extras are ignored.
ServeResult inference_sweep(const Scenario& s, const ServeRequest& r, const InferenceOptions& o = {});
// The full predictions of `rows` (predict_inference on each layout, extras included).
std::vector<InferencePrediction> predict_rows(const Scenario& s, const std::vector<ServeRow>& rows,
                                              const InferenceOptions& o = {});

}  // namespace perfcast
