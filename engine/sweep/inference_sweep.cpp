#include "engine/sweep/inference_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <memory>

#include "engine/predict/communication.hpp"
#include "engine/core/errors.hpp"
#include "engine/predict/memory.hpp"
#include "engine/core/parallel.hpp"
#include "engine/sweep/ranking.hpp"
#include "engine/sweep/training_sweep.hpp"

namespace perfcast {
namespace {

constexpr std::array<MetricInfo, kServeMetrics> kMetrics = {{
    {"ttft", units::dim::seconds, false},
    {"tpot", units::dim::seconds, false},
    {"e2e", units::dim::seconds, false},
    {"tokens_per_s", units::dim::none, true},
    {"tokens_per_s_per_device", units::dim::none, true},
    {"usd_per_mtok", units::dim::usd, false},
    {"co2_per_mtok", units::dim::kg, false},
    {"memory", units::dim::bytes, false},
}};

const MetricInfo& info(ServeMetric m) { return kMetrics.at(static_cast<std::size_t>(m)); }

constexpr int kMaxTp = 64;               // as the training space (sweep_space.cpp)
constexpr double kMaxBatch = 4096;       // sequences per replica; memory drops what does not fit

bool needs_money(ServeMetric m) { return m == ServeMetric::usd_per_mtok || m == ServeMetric::co2_per_mtok; }

ServeMetric serve_metric(std::string_view word, const Scenario& s, std::string_view option) {
  ServeMetric m;
  if (word == "time") m = ServeMetric::tokens_per_s;
  else if (word == "cost") m = ServeMetric::usd_per_mtok;
  else if (word == "co2") m = ServeMetric::co2_per_mtok;
  else m = ServeMetric(metric_index(kMetrics, word, option, "time, cost, co2", "an inference metric"));
  if (m == ServeMetric::usd_per_mtok && !s.cost.any())
    throw InputError({s.file, 0, 0}, fmt::format("{}: usd_per_mtok needs a [cost] table (offer = \"...\" or purchase = true)", option));
  if (m == ServeMetric::co2_per_mtok && s.region.name.empty() && s.cost.offer.empty())
    throw InputError({s.file, 0, 0}, fmt::format("{}: co2_per_mtok needs a [region] (or a cloud offer, whose region it takes)", option));
  return m;
}

ServeConstraint parse_serve_constraint(const std::string& text, const Scenario& s) {
  const BoundText b = split_bound(text);
  ServeConstraint c;
  c.text = text;
  c.at_most = b.at_most;
  c.metric = serve_metric(b.name, s, fmt::format("--constraint '{}'", text));
  c.bound = bound_value(text, b.value, info(c.metric).dimension, name_of(c.metric));
  return c;
}

std::vector<Precision> dtypes(const std::vector<std::string>& names, Precision own, const char* option) {
  if (names.empty()) return {own};
  std::vector<Precision> out;
  for (const std::string& n : names) {
    const auto p = precision_from(n);
    if (!p || bytes_per_element(*p) > 2)
      throw InputError({}, fmt::format("{} '{}': not a storage dtype (bf16, fp16, fp8, int8, fp6, int4, fp4)", option, n));
    out.push_back(*p);
  }
  return out;
}

ServeSpace space_of(const Scenario& s, const ServeRequest& r) {
  if (!s.workload.is_transformer()) throw InputError({s.file, 0, 0}, "sweep: an inference sweep needs an LLM; a vision model has no layout to search");
  const models::TransformerSpec& m = s.workload.transformer();
  const InferenceSettings& in = *s.inference;
  ServeSpace sp;
  sp.devices = r.devices.empty() ? std::vector<int>{s.hardware.count} : r.devices;
  const int most = *std::max_element(sp.devices.begin(), sp.devices.end());
  for (int t = 1; t <= std::min(kMaxTp, most); t *= 2) sp.tp.push_back(t);
  for (int p = 1; p <= std::min(m.layers, most); ++p)
    if (m.layers % p == 0) sp.pp.push_back(p);
  sp.ep = {1};
  if (m.moe)
    for (int e = 2; e <= std::min(m.moe->experts, most); e *= 2)
      if (m.moe->experts % e == 0) sp.ep.push_back(e);
  for (double b = 1; b <= kMaxBatch; b *= 2) sp.batch.push_back(b);
  const Precision compute = in.compute_dtype.value_or(Precision::bf16);
  sp.weights = dtypes(r.weight_dtypes, in.weight_dtype.value_or(compute), "--weight-dtypes");
  sp.kv = dtypes(r.kv_dtypes, in.kv_dtype.value_or(compute), "--kv-dtypes");
  return sp;
}

// What ranks a layout: the headline figures, also for a batch the memory model says does not fit.
InferenceOptions ranking_options(InferenceOptions o) {
  o.require_fit = false;
  o.extras = false;
  return o;
}

}  // namespace

void apply_layout(Scenario& s, const ServeLayout& l) {
  s.hardware.count = l.devices;
  ParallelismSettings& p = s.parallelism;
  p.tp = l.tp, p.pp = l.pp, p.ep = l.ep, p.cp = 1, p.vp = 1;
  p.dp.reset();
  p.first_stage_layers.reset(), p.last_stage_layers.reset();
  s.inference->batch = l.batch;
  s.inference->max_throughput = false;  // each row times its own static batch
  s.inference->weight_dtype = l.weights;
  s.inference->kv_dtype = l.kv;
}

std::string layout_label(const ServeLayout& l) {
  std::string s = fmt::format("tp {} · pp {}", l.tp, l.pp);
  if (l.ep > 1) s += fmt::format(" · ep {}", l.ep);
  const int replicas = l.devices / (l.tp * l.pp);
  return s + fmt::format(" · {} replica{} · batch {:g} · weights {} · KV {}", replicas, replicas == 1 ? "" : "s", l.batch, name_of(l.weights),
                         name_of(l.kv));
}

std::string_view name_of(ServeMetric m) { return info(m).name; }
bool higher_is_better(ServeMetric m) { return info(m).higher_better; }

double ServeFigures::value(ServeMetric m) const {
  switch (m) {
    case ServeMetric::ttft: return ttft_s;
    case ServeMetric::tpot: return tpot_s;
    case ServeMetric::e2e: return e2e_s;
    case ServeMetric::tokens_per_s: return tokens_per_s;
    case ServeMetric::tokens_per_s_per_device: return tokens_per_s_per_device;
    case ServeMetric::usd_per_mtok: return usd_per_mtok;
    case ServeMetric::co2_per_mtok: return co2_per_mtok;
    case ServeMetric::memory: return memory_B;
  }
  return 0;
}

ServeFigures serve_figures(const InferencePrediction& p, int replicas) {
  ServeFigures f;
  f.ttft_s = p.ttft_s, f.tpot_s = p.tpot_s, f.e2e_s = p.e2e_s;
  f.tokens_per_s = p.output_tokens_per_s * replicas;
  f.tokens_per_s_per_device = p.output_tokens_per_s_per_device;
  f.memory_B = p.memory.per_device_B;
  if (p.economics) {
    f.usd_per_mtok = p.economics->usd_per_million_tokens.value_or(0);
    f.co2_per_mtok = p.economics->co2e_kg_per_million_tokens.value_or(0);
  }
  return f;
}

double rank_key(const ServeRow& r, ServeMetric m) {
  const double v = r.figures.value(m);
  return higher_is_better(m) ? -v : v;
}

std::uint64_t ServeSpace::size() const {
  return std::uint64_t(devices.size()) * tp.size() * pp.size() * ep.size() * batch.size() * weights.size() * kv.size();
}

ServeLayout ServeSpace::layout(std::uint64_t id) const {
  auto take = [&id](const auto& options) { return take_option(options, id); };
  ServeLayout l;
  l.kv = take(kv);
  l.weights = take(weights);
  l.batch = take(batch);
  l.ep = take(ep);
  l.pp = take(pp);
  l.tp = take(tp);
  l.devices = take(devices);
  return l;
}

ServeResult inference_sweep(const Scenario& s, const ServeRequest& r, const InferenceOptions& options) {
  const InferenceOptions rank_options = ranking_options(options);
  const auto start = std::chrono::steady_clock::now();
  if (!s.inference) throw InputError({s.file, 0, 0}, "sweep: not an [inference] scenario");
  if (r.top < 0) throw InputError({}, "--top: must not be negative");
  ServeResult out;
  out.scenario = s.name;
  out.workload = s.workload.label();
  out.accelerator = s.hardware.accelerator;
  out.space = space_of(s, r);
  out.objective = serve_metric(r.objective, s, "--objective");
  for (const std::string& c : r.constraints) out.constraints.push_back(parse_serve_constraint(c, s));
  if (r.pareto.size() == 1) throw InputError({}, "--pareto: give two or more metrics, e.g. tokens_per_s,ttft");
  for (const std::string& p : r.pareto) out.pareto.push_back(serve_metric(p, s, "--pareto"));
  out.top = r.top;
  out.economics = needs_money(out.objective);
  for (const ServeConstraint& c : out.constraints) out.economics |= needs_money(c.metric);
  for (ServeMetric m : out.pareto) out.economics |= needs_money(m);

  const InferencePrediction own = predict_inference(s, rank_options);
  out.baseline = {0, {s.hardware.count, s.parallelism.tp, s.parallelism.pp, s.parallelism.ep, own.batch,
                      s.inference->weight_dtype.value_or(s.inference->compute_dtype.value_or(Precision::bf16)),
                      s.inference->kv_dtype.value_or(s.inference->compute_dtype.value_or(Precision::bf16))},
                  serve_figures(own, data_parallel(s.parallelism, s.hardware.count))};
  out.baseline_fits = own.memory.fits;
  out.capacity_B = own.memory.capacity_B;
  const double baseline_key = rank_key(out.baseline, out.objective);

  struct Worker {
    Ranking<ServeRow, ServeMetric> ranking;
    std::unique_ptr<Scenario> scenario;  // the thread's copy, each layout written into it
  };
  const std::uint64_t size = out.space.size();
  constexpr std::uint64_t kChunk = 64;  // ids a thread takes at a time
  const std::uint64_t chunks = (size + kChunk - 1) / kChunk;
  const int threads = thread_count(r.threads, chunks);
  out.threads = threads;
  const Ranking<ServeRow, ServeMetric> empty(r.top, out.objective, out.pareto, out.constraints.size(), baseline_key);
  std::vector<Worker> workers;
  for (int t = 0; t < threads; ++t) workers.push_back({empty, nullptr});
  for_each_item(threads, chunks, r.progress, [&](int t, std::uint64_t chunk) {
    Worker& w = workers[std::size_t(t)];
    SweepCounts& counts = w.ranking.counts;
    if (!w.scenario) w.scenario = std::make_unique<Scenario>(s);
    Scenario& x = *w.scenario;
    for (std::uint64_t id = chunk * kChunk; id < std::min(size, (chunk + 1) * kChunk); ++id) {
      ++counts.combinations;
      const ServeLayout l = out.space.layout(id);
      apply_layout(x, l);
      if (const auto rule = broken_layout_rule(x.workload, x.parallelism, l.devices, std::nullopt)) {
        ++counts.rule[std::size_t(*rule)];
        continue;
      }
      if (!memory_for_scenario(x).fits) {
        ++counts.memory;
        continue;
      }
      ++counts.timed;
      const ServeRow row{id, l, serve_figures(predict_inference(x, rank_options), data_parallel(x.parallelism, l.devices))};
      if (meets(out.constraints, row.figures, counts)) w.ranking.keep(row);
    }
  });
  Ranking<ServeRow, ServeMetric> all = empty;
  for (const Worker& w : workers) all.merge(w.ranking);
  out.counts = all.counts;
  out.best = all.best();
  out.front = all.front();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

std::vector<InferencePrediction> predict_rows(const Scenario& s, const std::vector<ServeRow>& rows,
                                              const InferenceOptions& o) {
  return predict_layouts(s, rows, [&](const Scenario& x) { return predict_inference(x, o); });
}

}  // namespace perfcast
