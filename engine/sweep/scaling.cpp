#include "engine/sweep/scaling.hpp"

#include <cstdio>

#include <cmath>
#include <fmt/format.h>
#include <sstream>

#include "engine/predict/communication.hpp"
#include "engine/core/errors.hpp"
#include "engine/predict/training.hpp"

namespace perfcast {

std::vector<int> device_counts(int first, int last, double factor) {
  std::vector<int> out;
  for (double n = first; n <= last + 0.5; n *= factor) {
    out.push_back(int(std::lround(n)));
    if (factor <= 1) break;
  }
  return out;
}

std::vector<int> parse_device_counts(const std::string& text, std::string_view option) {
  const auto bad = [&] {
    return InputError({}, fmt::format("{} '{}': give N, FIRST:LAST[:FACTOR] with 1 <= FIRST <= LAST and FACTOR > 1 "
                                      "(e.g. 8:16384:2), or a list such as 64,128,192", option, text));
  };
  std::vector<int> out;
  std::istringstream in(text);
  if (text.find(':') != std::string::npos) {
    int first = 0, last = 0;
    double factor = 2;
    char colon1 = 0, colon2 = 0;
    in >> first >> colon1 >> last;
    if (in && !in.eof() && in.peek() == ':') in >> colon2 >> factor;  // peek at the end would fail the stream
    if (!in || !in.eof() || colon1 != ':' || first < 1 || last < first || !(factor > 1)) throw bad();
    return device_counts(first, last, factor);
  }
  for (std::string item; std::getline(in, item, ',');) {
    std::istringstream one(item);
    int n = 0;
    if (!(one >> n) || !one.eof() || n < 1) throw bad();
    out.push_back(n);
  }
  if (out.empty()) throw bad();
  return out;
}

std::pair<int, int> parse_shard(const std::string& text) {
  int i = -1, n = 0;
  char slash = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%d %c %d %c", &i, &slash, &n, &extra) != 3 || slash != '/' || n < 1 || i < 0 || i >= n)
    throw InputError({}, fmt::format("--shard '{}': give i/N with 0 <= i < N, e.g. 3/16", text));
  return {i, n};
}

ScalingReport scaling_for_scenario(const Scenario& s, const std::vector<int>& counts) {
  if (!s.training) throw InputError({s.file, 0, 0}, "scaling: the scenario needs a [training] table");
  ScalingReport r;
  r.scenario = s.name;
  const ParallelismSettings& par = s.parallelism;
  const int base_dp = data_parallel(par, s.hardware.count);
  const double batch_per_replica = s.training->global_batch / base_dp;
  r.layout = layout_text(par, base_dp);
  const ScalingRow* base = nullptr;
  std::vector<models::ScalingPoint> strong, weak;
  for (int n : counts) {
    ScalingRow row;
    row.devices = n;
    Scenario v = s;
    v.hardware.count = n;
    if (!s.hardware.system.empty() && n > s.hardware.devices_per_node && n % s.hardware.devices_per_node != 0) {
      row.skipped = fmt::format("{} devices do not fill whole nodes of {}", n, s.hardware.devices_per_node);
      r.rows.push_back(row);
      continue;
    }
    v.parallelism.dp.reset();
    row.dp = data_parallel(v.parallelism, n);
    row.weak_global_batch = batch_per_replica * row.dp;
    Scenario w = v;
    w.training->global_batch = row.weak_global_batch;
    try {
      if (auto p = layout_problem(v.workload, v.parallelism, n, v.training)) throw InputError({}, p->key + ": " + p->message);
      if (auto p = layout_problem(w.workload, w.parallelism, n, w.training)) throw InputError({}, p->key + ": " + p->message);
      const TrainingPrediction ps = predict_training(v);
      const TrainingPrediction pw = w.training->global_batch == v.training->global_batch ? ps : predict_training(w);
      row.strong_step_s = ps.step_time_s, row.strong_tokens_per_s = ps.tokens_per_s;
      row.weak_step_s = pw.step_time_s, row.weak_tokens_per_s = pw.tokens_per_s;
      row.fits = ps.memory.fits;
    } catch (const InputError& e) {
      row.skipped = e.message();
    }
    r.rows.push_back(row);
  }
  for (ScalingRow& row : r.rows) {
    if (!row.skipped.empty()) continue;
    if (!base) base = &row;
    const double k = double(row.devices) / base->devices;
    row.strong_efficiency = models::strong_scaling_efficiency(base->devices, base->strong_step_s, row.devices, row.strong_step_s);
    row.weak_efficiency = models::weak_scaling_efficiency(base->devices, base->weak_tokens_per_s, row.devices, row.weak_tokens_per_s);
    strong.push_back({k, base->strong_step_s / row.strong_step_s});
    weak.push_back({k, row.weak_tokens_per_s / base->weak_tokens_per_s});
  }
  r.amdahl = models::fit_amdahl(strong);
  r.gustafson = models::fit_gustafson(weak);
  return r;
}

}  // namespace perfcast
