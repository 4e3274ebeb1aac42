#pragma once
// The design space `perfcast sweep` searches (DESIGN.md "Speed"): every training layout of a
// scenario's model on its hardware — device count, tp, cp, pp, ep, micro-batch (the outer "unit"
// of the enumeration), then recomputation, sequence parallelism, ZeRO stage and pipeline schedule
// with its virtual stages (the inner loops, which reuse the unit's op timings and placements). Every
// layout has a fixed id (its position in the enumeration), so that shards and threads agree on
// order and ties.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/spec/scenario.hpp"

namespace perfcast {

struct SweepLayout {
  int devices = 1, tp = 1, cp = 1, pp = 1, ep = 1, vp = 1, zero = 0;
  double micro_batch = 1;
  models::Recompute recompute = models::Recompute::none;
  bool sequence_parallel = false;
  models::Schedule schedule = models::Schedule::one_f_one_b;
};

// Writes `l` into a scenario's [hardware] count, [parallelism] and [training] micro_batch,
// recompute (dp follows from the count; an uneven split is dropped).
void apply_layout(Scenario& s, const SweepLayout& l);
SweepLayout layout_of(const Scenario& s);
// "tp 8 · pp 8 (vp 3) · dp 4 · SP · ZeRO-1 · mb 1 · selective · 1F1B" (on 512 devices)
std::string layout_label(const SweepLayout& l);

// A pipeline schedule with its virtual stages (interleaving is 1F1B with vp > 1).
struct PipelineChoice {
  models::Schedule schedule = models::Schedule::one_f_one_b;
  int vp = 1;
  bool operator==(const PipelineChoice&) const = default;
};

// One digit of a space's mixed-radix id: the option among `options` that `id` points at; `id`
// moves on to the next digit.
template <class T>
T take_option(const std::vector<T>& options, std::uint64_t& id) {
  const std::uint64_t n = options.size();
  const T v = options[id % n];
  id /= n;
  return v;
}

struct SweepSpace {
  std::vector<int> devices, tp, cp, pp, ep;
  std::vector<double> micro_batch;
  std::vector<models::Recompute> recompute;
  std::vector<bool> sequence_parallel;
  std::vector<int> zero;
  std::vector<PipelineChoice> pipeline;   // the first is plain 1F1B: the only one without pp

  std::uint64_t units() const;        // devices x tp x cp x pp x ep x micro_batch
  std::uint64_t unit_size() const;    // recompute x sp x zero x pipeline
  std::uint64_t size() const { return units() * unit_size(); }
  // The layout at `id` (unit-major: id = unit · unit_size + inner).
  SweepLayout layout(std::uint64_t id) const;
};

// The space for a training scenario on each count in `devices` (empty: the scenario's own):
//   tp, cp: powers of two up to 64 and 16 (Megatron-LM's practice; the rules drop what does not
//           divide heads, FFN width, sequence or devices);
//   pp: every divisor of the layer count; ep: powers of two dividing the experts (MoE only);
//   micro-batch: every divisor of the global batch up to 16;
//   recompute none/selective/full, sequence parallelism off/on, ZeRO 0–3, and the schedules
//           1F1B, GPipe, ZB-H1, ZB-H2 and interleaved 1F1B with every vp from 2 to 8 dividing
//           the layer count (the rules drop those that do not divide a stage).
SweepSpace training_space(const Scenario& s, const std::vector<int>& devices);

}  // namespace perfcast
