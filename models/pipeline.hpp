#pragma once
// Pipeline schedules and their bubbles (MODELS-REFERENCE §4, F-PIPE-1..3).
// Notation: p stages, m micro-batches per step, v model chunks per pipeline rank; per micro-batch
// and per rank (all of its chunks): F forward, B input-gradient backward, W weight-gradient
// backward (Qi et al.'s T_F, T_B, T_W), so the full backward is B + W.
#include <array>
#include <span>
#include <string_view>

namespace perfcast::models {

enum class Schedule { gpipe, one_f_one_b, zb_h1, zb_h2 };  // interleaving: one_f_one_b with vp > 1
inline constexpr std::array<std::string_view, 4> kScheduleKeys{"gpipe", "1f1b", "zb-h1", "zb-h2"};  // in enum order

std::string_view name_of(Schedule s, int vp);

// Equal-stage bubble as a fraction of the ideal time m·(F + B + W), with T_F = T_B = T_W (E6):
// GPipe/1F1B (p−1)/m [Narayanan §2.2.1], interleaved (p−1)/(v·m) [§2.2.2], ZB-H1 (p−1)/(3m),
// ZB-H2 0 with at least 2p − 1 micro-batches, else ZB-H1's [sail-sg/zero-bubble-pipeline-parallelism README].
double bubble_over_ideal(Schedule s, int pp, int vp, double microbatches);
// The same bubble as a share of the whole step: bubble / (ideal + bubble); GPipe's (p−1)/(m+p−1).
double bubble_share_of_step(Schedule s, int pp, int vp, double microbatches);

// One pipeline rank's time per micro-batch, all of its chunks, exposed per-micro-batch
// communication included (it sits on the same critical path).
struct StageTime {
  double forward_s = 0, backward_input_s = 0, backward_weight_s = 0;
  double total() const { return forward_s + backward_input_s + backward_weight_s; }
};

struct PipelineTime {
  double ideal_s = 0;    // m × the slowest rank's micro-batch time
  double bubble_s = 0;   // idle time on that rank's critical path
  double step_s() const { return ideal_s + bubble_s; }
};

// The pipeline part of a step (no optimizer, no data-parallel tail). The slowest rank sets the
// steady state; each other rank adds its bubble unit once during warm-up and cool-down:
//   GPipe/1F1B   u = F + B + W                 (F-PIPE-1: bubble (p−1)(t_f + t_b))
//   interleaved  u = (F + B + W)/v             (F-PIPE-2)
//   ZB-H1        u = max(0, F + B − W)          (F-PIPE-3: (p−1)(T_F + T_B − T_W))
//   ZB-H2        u = 0                          (with m ≥ 2p − 1; fewer micro-batches: ZB-H1's u)
// step = m·max_i t_i + Σ_i u_i − u_slowest, which is exactly (m + (p−1)·k)·t for equal ranks.
PipelineTime pipeline_time(Schedule s, int vp, double microbatches, std::span<const StageTime> ranks);
// The same over classes of identical ranks: `ranks[i]` stands for `counts[i]` pipeline ranks.
PipelineTime pipeline_time(Schedule s, int vp, double microbatches, std::span<const StageTime> ranks, std::span<const int> counts);

}  // namespace perfcast::models
