#include "models/pipeline.hpp"

#include <algorithm>

namespace perfcast::models {

std::string_view name_of(Schedule s, int vp) {
  switch (s) {
    case Schedule::gpipe: return "GPipe";
    case Schedule::one_f_one_b: return vp > 1 ? "interleaved 1F1B" : "1F1B";
    case Schedule::zb_h1: return "ZB-H1";
    case Schedule::zb_h2: return "ZB-H2";
  }
  return "1F1B";
}

namespace {

// ZB-H2 reaches zero bubble only with about 2p − 1 micro-batches in flight (MODELS-REFERENCE
// F-PIPE-3, sail-sg/zero-bubble README); with fewer it is taken as ZB-H1.
Schedule effective(Schedule s, int pp, double microbatches) {
  return s == Schedule::zb_h2 && microbatches < 2.0 * pp - 1 ? Schedule::zb_h1 : s;
}

}  // namespace

double bubble_over_ideal(Schedule s, int pp, int vp, double microbatches) {
  const double p = pp, m = microbatches;
  s = effective(s, pp, microbatches);
  switch (s) {
    case Schedule::gpipe: return (p - 1) / m;
    case Schedule::one_f_one_b: return (p - 1) / (vp * m);
    case Schedule::zb_h1: return (p - 1) / (3 * m);
    case Schedule::zb_h2: return 0;
  }
  return (p - 1) / m;
}

double bubble_share_of_step(Schedule s, int pp, int vp, double microbatches) {
  const double r = bubble_over_ideal(s, pp, vp, microbatches);
  return r / (1 + r);
}

namespace {

double bubble_unit(Schedule s, int vp, const StageTime& t) {
  switch (s) {
    case Schedule::gpipe: return t.total();
    case Schedule::one_f_one_b: return t.total() / vp;
    case Schedule::zb_h1: return std::max(0.0, t.forward_s + t.backward_input_s - t.backward_weight_s);
    case Schedule::zb_h2: return 0;
  }
  return t.total();
}

}  // namespace

PipelineTime pipeline_time(Schedule s, int vp, double microbatches, std::span<const StageTime> ranks) {
  PipelineTime r;
  if (ranks.empty()) return r;
  s = effective(s, int(ranks.size()), microbatches);
  auto slowest = std::max_element(ranks.begin(), ranks.end(), [](const StageTime& a, const StageTime& b) { return a.total() < b.total(); });
  r.ideal_s = microbatches * slowest->total();
  for (const StageTime& t : ranks) r.bubble_s += bubble_unit(s, vp, t);
  r.bubble_s -= bubble_unit(s, vp, *slowest);
  return r;
}

PipelineTime pipeline_time(Schedule s, int vp, double microbatches, std::span<const StageTime> ranks, std::span<const int> counts) {
  PipelineTime r;
  if (ranks.empty()) return r;
  int pp = 0;
  for (int c : counts) pp += c;
  s = effective(s, pp, microbatches);
  auto slowest = std::max_element(ranks.begin(), ranks.end(), [](const StageTime& a, const StageTime& b) { return a.total() < b.total(); });
  r.ideal_s = microbatches * slowest->total();
  for (std::size_t i = 0; i < ranks.size(); ++i) r.bubble_s += counts[i] * bubble_unit(s, vp, ranks[i]);
  r.bubble_s -= bubble_unit(s, vp, *slowest);
  return r;
}

}  // namespace perfcast::models
