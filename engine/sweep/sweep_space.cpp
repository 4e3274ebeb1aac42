#include "engine/sweep/sweep_space.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "engine/predict/communication.hpp"
#include "engine/core/errors.hpp"

namespace perfcast {
namespace {

// Megatron-LM practice: tp within a scale-up domain (≤ 8 on HGX, 72 on NVL72) and cp at most a
// few ranks; 64 and 16 leave room beyond both without enumerating what nobody runs.
constexpr int kMaxTp = 64, kMaxCp = 16;
constexpr int kMaxVp = 8;                // virtual stages per rank (Megatron-LM runs 2–6 in practice)
constexpr double kMaxMicroBatch = 16;    // sequences per micro-batch

std::vector<int> powers_of_two(int limit) {
  std::vector<int> out;
  for (int x = 1; x <= limit; x *= 2) out.push_back(x);
  return out;
}

std::vector<int> divisors(int n, int limit) {
  std::vector<int> out;
  for (int d = 1; d <= n && d <= limit; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

template <class T>
std::uint64_t count(const std::vector<T>& v) { return v.size(); }

}  // namespace

void apply_layout(Scenario& s, const SweepLayout& l) {
  s.hardware.count = l.devices;
  ParallelismSettings& p = s.parallelism;
  p.tp = l.tp, p.cp = l.cp, p.pp = l.pp, p.ep = l.ep, p.vp = l.vp, p.zero = l.zero;
  p.dp.reset();
  p.first_stage_layers.reset(), p.last_stage_layers.reset();
  p.sequence_parallel = l.sequence_parallel;
  p.schedule = l.schedule;
  s.training->micro_batch = l.micro_batch;
  s.training->recompute = l.recompute;
}

SweepLayout layout_of(const Scenario& s) {
  const ParallelismSettings& p = s.parallelism;
  return {.devices = s.hardware.count, .tp = p.tp, .cp = p.cp, .pp = p.pp, .ep = p.ep, .vp = p.vp, .zero = p.zero,
          .micro_batch = s.training->micro_batch, .recompute = s.training->recompute, .sequence_parallel = p.sequence_parallel,
          .schedule = p.schedule};
}

std::string layout_label(const SweepLayout& l) {
  ParallelismSettings p;
  p.tp = l.tp, p.cp = l.cp, p.pp = l.pp, p.ep = l.ep, p.vp = l.vp, p.zero = l.zero, p.sequence_parallel = l.sequence_parallel;
  const char* recompute = l.recompute == models::Recompute::full ? "full recompute" : l.recompute == models::Recompute::selective ? "selective" : "no recompute";
  return fmt::format("{} · mb {:g} · {} · {}", layout_text(p, l.devices / (l.tp * l.pp * l.cp)), l.micro_batch, recompute,
                     models::name_of(l.schedule, l.vp));
}

std::uint64_t SweepSpace::units() const {
  return count(devices) * count(tp) * count(cp) * count(pp) * count(ep) * count(micro_batch);
}

std::uint64_t SweepSpace::unit_size() const {
  return count(recompute) * count(sequence_parallel) * count(zero) * count(pipeline);
}

SweepLayout SweepSpace::layout(std::uint64_t id) const {
  SweepLayout l;
  auto take = [&id](const auto& options) { return take_option(options, id); };
  // Innermost first (the reverse of the nesting: the schedule varies fastest).
  const PipelineChoice pc = take(pipeline);
  l.schedule = pc.schedule, l.vp = pc.vp;
  l.zero = take(zero);
  l.sequence_parallel = take(sequence_parallel);
  l.recompute = take(recompute);
  l.micro_batch = take(micro_batch);
  l.ep = take(ep);
  l.pp = take(pp);
  l.cp = take(cp);
  l.tp = take(tp);
  l.devices = take(devices);
  return l;
}

SweepSpace training_space(const Scenario& s, const std::vector<int>& devices) {
  if (!s.training) throw InputError({s.file, 0, 0}, "sweep: searches training layouts; this scenario has [inference]");
  if (!s.workload.is_transformer()) throw InputError({s.file, 0, 0}, "sweep: needs a transformer workload");
  const models::TransformerSpec& m = s.workload.transformer();
  const TrainingSettings& t = *s.training;
  SweepSpace sp;
  sp.devices = devices.empty() ? std::vector<int>{s.hardware.count} : devices;
  sp.tp = powers_of_two(kMaxTp);
  sp.cp = powers_of_two(kMaxCp);
  // Every divisor of the layers, and the powers of two that split them unevenly (F-PIPE-4) while
  // each stage keeps two layers or more (Megatron-Bridge runs Llama 3.1 405B's 126 at pp 8 and 16).
  sp.pp = divisors(m.layers, m.layers);
  for (int p : powers_of_two(m.layers / 2))
    if (m.layers % p != 0) sp.pp.push_back(p);
  std::sort(sp.pp.begin(), sp.pp.end());
  sp.ep = m.moe ? std::vector<int>{} : std::vector<int>{1};
  if (m.moe)
    for (int e : powers_of_two(m.moe->experts))
      if (m.moe->experts % e == 0) sp.ep.push_back(e);
  const double batch = t.global_batch;
  for (int b = 1; b <= kMaxMicroBatch; ++b)
    if (std::fmod(batch, b) == 0) sp.micro_batch.push_back(b);
  sp.recompute = {models::Recompute::none, models::Recompute::selective, models::Recompute::full};
  sp.sequence_parallel = {false, true};
  sp.zero = {0, 1, 2, 3};
  using models::Schedule;
  sp.pipeline = {{Schedule::one_f_one_b, 1}, {Schedule::gpipe, 1}, {Schedule::zb_h1, 1}, {Schedule::zb_h2, 1}};
  for (int vp : divisors(m.layers, kMaxVp))
    if (vp > 1) sp.pipeline.push_back({Schedule::one_f_one_b, vp});
  return sp;
}

}  // namespace perfcast
