#include "engine/writers/training_writers.hpp"

#include <cmath>
#include <fmt/format.h>

#include "engine/core/units.hpp"
#include "engine/writers/economics_writers.hpp"
#include "engine/writers/memory_writers.hpp"
#include "engine/writers/text_table.hpp"

namespace perfcast {

std::string training_to_table(const TrainingPrediction& p, bool detail) {
  std::string out = fmt::format("Training {} on {} × {} ({}), {}\nlayout: {} · {} · {} micro-batches per step · {}\n\n", p.workload,
                                p.devices, p.accelerator_display, p.accelerator, p.scenario, p.layout, p.schedule, p.microbatches, p.precision);
  TextTable summary({"quantity", "value"});
  summary.add_row({"step time", duration_text(p.step_time_s)});
  summary.add_row({"tokens/s", fmt::format("{:.4g}", p.tokens_per_s)});
  summary.add_row({"tokens/s per device", fmt::format("{:.4g}", p.tokens_per_s_per_device)});
  summary.add_row({"MFU (op-level model FLOPs)", percent_text(p.mfu)});
  summary.add_row({"HFU (executed FLOPs)", percent_text(p.hfu)});
  for (const FlopConvention& c : p.conventions)
    summary.add_row({c.name, c.per_device_rate ? fmt::format("{:.1f} TFLOP/s", c.value / 1e12) : percent_text(c.value)});
  summary.add_row({"memory per device", fmt::format("{} of {} ({})", units::format_binary_bytes(p.memory.per_device_B, 1),
                                                    units::format_binary_bytes(p.memory.capacity_B, 1), p.memory.fits ? "fits" : "DOES NOT FIT")});
  summary.add_row({"job MTBF", duration_text(p.job_mtbf_s)});
  summary.add_row({"checkpoint every", fmt::format("{} (Daly; write {})", duration_text(p.checkpoint_interval_s), duration_text(p.checkpoint_write_s))});
  summary.add_row({"goodput", percent_text(p.goodput_fraction)});
  if (p.time_to_train_s) {
    summary.add_row({"time to train (failure-free)", fmt::format("{} for {:.4g} tokens", duration_text(*p.time_to_train_s), *p.tokens)});
    summary.add_row({"expected wall time", fmt::format("{} ({:.0f} interruptions expected)", duration_text(*p.expected_wall_s), *p.expected_failures)});
    summary.add_row({"device-hours", fmt::format("{:.4g}", *p.device_hours)});
  }
  out += summary.render();
  out += "\nWhere the step goes (slowest pipeline rank):\n";
  TextTable b({"component", "seconds", "share"});
  for (const BreakdownItem& i : p.breakdown) b.add_row({i.name, fmt::format("{:.6g}", i.seconds), percent_text(i.seconds / p.step_time_s)});
  b.add_row({"step", fmt::format("{:.6g}", p.step_time_s), "100.0%"});
  out += b.render();
  if (!p.communication.empty()) {
    out += "\nCommunication per step by group (slowest rank):\n";
    TextTable c({"group", "time", "hidden", "exposed", "exposed where"});
    for (const GroupExposure& g : p.communication)
      c.add_row({g.group, duration_text(g.time_s), duration_text(g.hidden_s), duration_text(g.exposed_s), std::string(g.where())});
    out += c.render();
  }
  if (p.economics) out += "\n" + economics_to_table(*p.economics);
  out += "\nbottleneck: " + p.bottleneck + "\n";
  if (detail) {
    out += "\nPipeline ranks, per micro-batch:\n";
    TextTable r({"rank", "layers", "forward", "backward (input)", "backward (weight)", "recompute", "exposed comm/step", "optimizer"});
    for (const RankTiming& t : p.ranks)
      r.add_row({fmt::format("{}{}", t.stage, t.stage == p.slowest_rank ? " *" : ""), fmt::format("{:g}", t.layers), duration_text(t.forward_s),
                 duration_text(t.backward_input_s), duration_text(t.backward_weight_s), duration_text(t.recompute_s),
                 duration_text(t.exposed_per_microbatch_s + t.exposed_tail_s), duration_text(t.optimizer_s)});
    out += r.render();
    out += assumptions_text(with_economics(p.assumptions, p.economics));
  }
  return out;
}

nlohmann::json training_to_json(const TrainingPrediction& p) {
  nlohmann::json breakdown = nlohmann::json::object();
  for (const BreakdownItem& i : p.breakdown) breakdown[i.name] = i.seconds;
  nlohmann::json conventions = nlohmann::json::object();
  for (const FlopConvention& c : p.conventions) conventions[c.name] = {{"value", c.value}, {"definition", c.definition}};
  nlohmann::json comm = nlohmann::json::array();
  for (const GroupExposure& g : p.communication)
    comm.push_back({{"group", g.group}, {"time_s", g.time_s}, {"hidden_s", g.hidden_s}, {"exposed_s", g.exposed_s}, {"where", g.where()}});
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankTiming& t : p.ranks)
    ranks.push_back({{"stage", t.stage}, {"layers", t.layers}, {"forward_s", t.forward_s}, {"backward_input_s", t.backward_input_s},
                     {"backward_weight_s", t.backward_weight_s}, {"recompute_s", t.recompute_s}, {"comm_s", t.comm_s},
                     {"exposed_per_microbatch_s", t.exposed_per_microbatch_s}, {"exposed_tail_s", t.exposed_tail_s},
                     {"contention_s", t.contention_s}, {"optimizer_s", t.optimizer_s}});
  nlohmann::json training{{"step_time_s", p.step_time_s},
                          {"tokens_per_s", p.tokens_per_s},
                          {"tokens_per_s_per_device", p.tokens_per_s_per_device},
                          {"mfu", p.mfu},
                          {"hfu", p.hfu},
                          {"flop_conventions", conventions},
                          {"model_flops_per_step", p.model_flops_per_step},
                          {"hardware_flops_per_step", p.hardware_flops_per_step},
                          {"peak_flops_per_device", p.peak_ops_per_s},
                          {"breakdown_s", breakdown},
                          {"bubble_fraction", p.bubble_fraction},
                          {"communication", comm},
                          {"pipeline_ranks", ranks},
                          {"slowest_rank", p.slowest_rank},
                          {"microbatches", p.microbatches},
                          {"tokens_per_step", p.tokens_per_step},
                          {"job_mtbf_s", p.job_mtbf_s},
                          {"checkpoint_write_s", p.checkpoint_write_s},
                          {"checkpoint_interval_s", p.checkpoint_interval_s},
                          {"restart_s", p.restart_s},
                          {"goodput_fraction", p.goodput_fraction}};
  if (p.time_to_train_s) {
    training["tokens"] = *p.tokens;
    training["time_to_train_s"] = *p.time_to_train_s;
    training["expected_wall_s"] = *p.expected_wall_s;
    training["expected_interruptions"] = *p.expected_failures;
    training["device_hours"] = *p.device_hours;
  }
  nlohmann::json memory = memory_to_json(p.memory)["memory"];
  nlohmann::json out{{"scenario", {{"name", p.scenario}, {"workload", p.workload}, {"accelerator", p.accelerator}, {"devices", p.devices},
                                   {"layout", p.layout}, {"schedule", p.schedule}, {"precision", p.precision}}},
                     {"training", training},
                     {"memory", memory},
                     {"bottleneck", p.bottleneck},
                     {"assumptions", with_economics(p.assumptions, p.economics)}};
  if (p.economics) add_economics_json(*p.economics, out);
  return out;
}

std::string training_to_csv(const TrainingPrediction& p) {
  std::string out = "component,seconds,share\n";
  for (const BreakdownItem& i : p.breakdown) out += fmt::format("{},{:.9g},{:.6f}\n", i.name, i.seconds, i.seconds / p.step_time_s);
  out += fmt::format("step,{:.9g},1\n", p.step_time_s);
  return out;
}

std::string scaling_to_table(const ScalingReport& r) {
  std::string out = fmt::format("Scaling of {} ({}); strong: same global batch, weak: same batch per replica\n", r.scenario, r.layout);
  TextTable t({"devices", "dp", "strong step", "strong tokens/s", "strong eff.", "weak batch", "weak tokens/s", "weak eff.", "memory"});
  for (const ScalingRow& row : r.rows) {
    if (!row.skipped.empty()) {
      t.add_row({fmt::format("{}", row.devices), "-", "-", "-", "-", "-", "-", "-", "skipped: " + row.skipped});
      continue;
    }
    t.add_row({fmt::format("{}", row.devices), fmt::format("{}", row.dp), duration_text(row.strong_step_s), fmt::format("{:.4g}", row.strong_tokens_per_s),
               percent_text(row.strong_efficiency), fmt::format("{:g}", row.weak_global_batch), fmt::format("{:.4g}", row.weak_tokens_per_s),
               percent_text(row.weak_efficiency), row.fits ? "fits" : "does not fit"});
  }
  out += t.render();
  out += fmt::format("Amdahl fit of the strong-scaling speedup: parallel fraction f = {:.6f} (serial {:.3g}; limit {:.4g}x), rms error {:.1f}%\n",
                     r.amdahl.value, 1 - r.amdahl.value, r.amdahl.value < 1 ? 1 / (1 - r.amdahl.value) : INFINITY, 100 * r.amdahl.rms_error);
  out += fmt::format("Gustafson fit of the weak-scaling speedup: serial fraction s = {:.6f}, rms error {:.1f}%\n", r.gustafson.value,
                     100 * r.gustafson.rms_error);
  return out;
}

nlohmann::json scaling_to_json(const ScalingReport& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ScalingRow& row : r.rows) {
    if (!row.skipped.empty()) {
      rows.push_back({{"devices", row.devices}, {"skipped", row.skipped}});
      continue;
    }
    rows.push_back({{"devices", row.devices}, {"dp", row.dp}, {"fits", row.fits},
                    {"strong", {{"step_time_s", row.strong_step_s}, {"tokens_per_s", row.strong_tokens_per_s}, {"efficiency", row.strong_efficiency}}},
                    {"weak", {{"global_batch", row.weak_global_batch}, {"step_time_s", row.weak_step_s}, {"tokens_per_s", row.weak_tokens_per_s},
                              {"efficiency", row.weak_efficiency}}}});
  }
  return {{"scenario", r.scenario}, {"layout", r.layout}, {"rows", rows},
          {"amdahl", {{"parallel_fraction", r.amdahl.value}, {"rms_error", r.amdahl.rms_error}}},
          {"gustafson", {{"serial_fraction", r.gustafson.value}, {"rms_error", r.gustafson.rms_error}}}};
}

std::string scaling_to_csv(const ScalingReport& r) {
  std::string out = "devices,dp,strong_step_s,strong_tokens_per_s,strong_efficiency,weak_global_batch,weak_step_s,weak_tokens_per_s,weak_efficiency,skipped\n";
  for (const ScalingRow& row : r.rows)
    out += fmt::format("{},{},{:.9g},{:.9g},{:.6f},{:g},{:.9g},{:.9g},{:.6f},{}\n", row.devices, row.dp, row.strong_step_s, row.strong_tokens_per_s,
                       row.strong_efficiency, row.weak_global_batch, row.weak_step_s, row.weak_tokens_per_s, row.weak_efficiency, csv_field(row.skipped));
  return out;
}

}  // namespace perfcast
