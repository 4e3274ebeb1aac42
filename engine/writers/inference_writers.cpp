#include "engine/writers/inference_writers.hpp"

#include <fmt/format.h>

#include "engine/core/units.hpp"
#include "engine/writers/capacity_writers.hpp"
#include "engine/writers/memory_writers.hpp"
#include "engine/writers/economics_writers.hpp"
#include "engine/writers/text_table.hpp"

namespace perfcast {
namespace {

std::string memory_line(const MemoryReport& m) {
  return fmt::format("{} of {} ({})", units::format_binary_bytes(m.per_device_B, 1), units::format_binary_bytes(m.capacity_B, 1),
                     m.fits ? "fits" : "does not fit");
}

std::string edge_table(const InferencePrediction& p) {
  const EdgeResult& e = *p.edge;
  TextTable t({"quantity", "value"});
  t.add_row({"latency per inference", duration_text(e.latency_s / p.batch)});
  t.add_row({"frames/s", fmt::format("{:.1f}", e.fps)});
  if (e.power_W > 0) {
    t.add_row({"power", fmt::format("{:g} W ({})", e.power_W, e.power_source)});
    t.add_row({"energy per inference", fmt::format("{:.3g} mJ", e.energy_per_inference_J * 1e3)});
    t.add_row({"achieved TOPS/W", fmt::format("{:.3g}", e.achieved_tops_per_W)});
  }
  if (e.streamed_B > 0) t.add_row({"parameters streamed per inference", units::format_binary_bytes(e.streamed_B, 2)});
  t.add_row({"memory", memory_line(p.memory)});
  std::string out = t.render();
  if (!e.verdict.empty()) out += "\nframe budget: " + e.verdict + "\n";
  return out;
}

}  // namespace

std::string inference_to_table(const InferencePrediction& p, bool detail) {
  std::string out = fmt::format("Inference of {} on {} × {}, {}\nlayout: {} · batch {:g} · {} math\n\n", p.workload, p.devices, p.accelerator,
                                p.scenario, p.layout, p.batch, p.precision);
  if (p.edge) {
    out += edge_table(p);
  } else {
    out += fmt::format("input {:g} tokens, output {:g} tokens per sequence\n", p.input_len, p.output_len);
    TextTable t({"quantity", "value"});
    if (p.engine) {
      t.add_row({"TTFT (mean, engine steady state)", duration_text(p.ttft_s)});
      t.add_row({"TPOT (mean, engine steady state)", duration_text(p.tpot_s)});
    } else {
      t.add_row({"TTFT (prefill of the batch)", fmt::format("{} (of which TP/EP communication {})", duration_text(p.ttft_s),
                                                            duration_text(p.prefill_comm_s))});
      t.add_row({"TPOT (decode step)", fmt::format("{} (of which TP/EP communication {})", duration_text(p.tpot_s),
                                                   duration_text(p.decode_comm_s))});
    }
    t.add_row({"end-to-end latency", duration_text(p.e2e_s)});
    t.add_row({"output tokens/s (replica)", fmt::format("{:.4g}", p.output_tokens_per_s)});
    t.add_row({"output tokens/s per device", fmt::format("{:.4g}", p.output_tokens_per_s_per_device)});
    t.add_row({"steady decode tokens/s", fmt::format("{:.4g}", p.decode_tokens_per_s)});
    t.add_row({"requests/s (replica)", fmt::format("{:.4g}", p.requests_per_s)});
    t.add_row({"prefill MFU", percent_text(p.prefill_mfu)});
    t.add_row({"decode MBU", percent_text(p.mbu)});
    t.add_row({"memory per device", memory_line(p.memory)});
    if (p.max_batch) t.add_row({"largest batch that fits", fmt::format("{:g}", std::floor(*p.max_batch))});
    if (p.speculative)
      t.add_row({"speculative decoding", fmt::format("α {:g}, γ {}, c {:g}: {:.2f} tokens per target step, {:.2f}× → TPOT {}", p.speculative->alpha,
                                                     p.speculative->draft_length, p.speculative->draft_cost_ratio,
                                                     p.speculative->tokens_per_target_step, p.speculative->speedup,
                                                     duration_text(p.speculative->tpot_s))});
    out += t.render();
    if (p.engine) out += "\nEngine steady state (batch = \"max\"):\n" + engine_steady_state_table(*p.engine);
    if (p.closed_loop) out += "\nServing a closed loop ([serving] concurrency), one replica:\n" + engine_steady_state_table(*p.closed_loop);
    out += "\nThroughput against batch (decode at the mean context):\n";
    TextTable c({"batch", "step", "tokens/s", "tokens/s per device"});
    for (const BatchPoint& b : p.curve)
      c.add_row({fmt::format("{:g}", b.batch), duration_text(b.step_s), fmt::format("{:.4g}", b.tokens_per_s),
                 fmt::format("{:.4g}", b.tokens_per_s / p.devices)});
    out += c.render();
    if (p.tpot_bound_s)
      out += p.best_within_tpot
                 ? fmt::format("best within TPOT ≤ {}: batch {:g}, {:.4g} tokens/s ({})\n", duration_text(*p.tpot_bound_s),
                               p.best_within_tpot->batch, p.best_within_tpot->tokens_per_s, duration_text(p.best_within_tpot->step_s))
                 : fmt::format("no batch meets TPOT ≤ {}: batch 1 already takes {}\n", duration_text(*p.tpot_bound_s),
                               duration_text(p.curve.empty() ? 0 : p.curve.front().step_s));
    if (p.serving) {
      out += fmt::format("\nServing at {:.4g} requests/s per replica (the engine simulated; saturation {:.4g} requests/s{}):\n",
                         p.serving->rate, *p.serving_saturation_rate,
                         p.serving->load >= 1 ? "; OVERLOADED: a growing queue, not a steady state" : "");
      out += serving_point_table(*p.serving);
    }
  }
  if (p.economics) out += "\n" + economics_to_table(*p.economics);
  out += "\nbottleneck: " + p.bottleneck + "\n";
  if (detail) out += assumptions_text(with_economics(p.assumptions, p.economics));
  return out;
}

nlohmann::json inference_to_json(const InferencePrediction& p) {
  nlohmann::json inference{{"batch", p.batch}, {"latency_s", p.e2e_s}};
  if (p.edge) {
    const EdgeResult& e = *p.edge;
    inference["fps"] = e.fps;
    inference["latency_s"] = e.latency_s / p.batch;
    if (e.power_W > 0) {
      inference["power_w"] = e.power_W;
      inference["energy_per_inference_j"] = e.energy_per_inference_J;
      inference["achieved_tops_per_w"] = e.achieved_tops_per_W;
    }
    inference["streamed_bytes"] = e.streamed_B;
    if (e.target_fps) {
      inference["target_fps"] = *e.target_fps;
      inference["frame_budget"] = e.verdict;
    }
  } else {
    nlohmann::json curve = nlohmann::json::array();
    for (const BatchPoint& b : p.curve) curve.push_back({{"batch", b.batch}, {"step_s", b.step_s}, {"tokens_per_s", b.tokens_per_s}});
    inference.update({{"ttft_s", p.ttft_s}, {"tpot_s", p.tpot_s}, {"tokens_per_s", p.output_tokens_per_s},
                      {"tokens_per_s_per_device", p.output_tokens_per_s_per_device}, {"decode_tokens_per_s", p.decode_tokens_per_s},
                      {"requests_per_s", p.requests_per_s}, {"prefill_s", p.prefill_s}, {"prefill_comm_s", p.prefill_comm_s},
                      {"decode_step_s", p.decode_step_s}, {"decode_comm_s", p.decode_comm_s}, {"prefill_mfu", p.prefill_mfu},
                      {"mbu", p.mbu}, {"bytes_per_decode_step", p.bytes_per_step}, {"throughput_curve", curve}});
    if (p.max_batch) inference["max_batch"] = std::floor(*p.max_batch);
    if (p.best_within_tpot)
      inference["best_within_tpot"] = {{"tpot_slo_s", *p.tpot_bound_s}, {"batch", p.best_within_tpot->batch},
                                       {"tokens_per_s", p.best_within_tpot->tokens_per_s}, {"step_s", p.best_within_tpot->step_s}};
    if (p.engine) inference["engine"] = engine_steady_state_to_json(*p.engine);
    if (p.closed_loop) inference["closed_loop"] = engine_steady_state_to_json(*p.closed_loop);
    if (p.serving) {
      inference["serving"] = serving_point_to_json(*p.serving);
      inference["serving"]["saturation_rate_per_s"] = *p.serving_saturation_rate;
    }
    if (p.speculative)
      inference["speculative"] = {{"alpha", p.speculative->alpha}, {"draft_length", p.speculative->draft_length},
                                  {"draft_cost_ratio", p.speculative->draft_cost_ratio},
                                  {"tokens_per_target_step", p.speculative->tokens_per_target_step},
                                  {"speedup", p.speculative->speedup}, {"tpot_s", p.speculative->tpot_s}};
  }
  nlohmann::json out{{"scenario", {{"name", p.scenario}, {"workload", p.workload}, {"accelerator", p.accelerator}, {"devices", p.devices},
                                   {"layout", p.layout}, {"precision", p.precision}, {"input_len", p.input_len}, {"output_len", p.output_len}}},
                     {"inference", inference},
                     {"memory", memory_to_json(p.memory)["memory"]},
                     {"bottleneck", p.bottleneck},
                     {"assumptions", with_economics(p.assumptions, p.economics)}};
  if (p.economics) add_economics_json(*p.economics, out);
  return out;
}

std::string inference_to_csv(const InferencePrediction& p) {
  std::string out = "batch,step_s,tokens_per_s,tokens_per_s_per_device\n";
  for (const BatchPoint& b : p.curve)
    out += fmt::format("{:g},{:.9g},{:.9g},{:.9g}\n", b.batch, b.step_s, b.tokens_per_s, b.tokens_per_s / p.devices);
  return out;
}

}  // namespace perfcast
