#include "engine/writers/sweep_columns.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <fmt/format.h>
#include <stdexcept>

#include "engine/core/quantity_text.hpp"
#include "engine/core/units.hpp"
#include "engine/writers/text_table.hpp"

namespace perfcast {
namespace {

using nlohmann::json;

template <std::size_t N>
int index_of(const std::array<std::string_view, N>& names, const json& v) {
  const std::string name = v.get<std::string>();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) throw std::out_of_range(fmt::format("'{}' is unknown", name));
  return int(it - names.begin());
}

std::string number_text(double v) { return fmt::format("{:.4g}", v); }
std::string bytes_text(double v) { return units::format_binary_bytes(v, 1); }
std::string energy_text(double joules) { return fmt::format("{:.4g} MWh", joules / 3.6e9); }
std::string usd_per_mtok_text(double v) { return fmt::format("${:.4g}", v); }

#define PERFCAST_INT_COLUMN(Layout, field) \
  [](const Layout& l) { return json(l.field); }, [](Layout& l, const json& v) { l.field = v.get<int>(); }

constexpr FigureColumn<SweepFigures> kTrainingFigures[] = {
    {"step_time_s", "s", "Time of one optimizer step", &SweepFigures::step_s, Known::always, "step", duration_text},
    {"tokens_per_s", "tokens/s", "Training tokens per second, all devices", &SweepFigures::tokens_per_s, Known::always, "tokens/s", number_text},
    {"mfu", "fraction", "Model FLOPs utilisation (op-level model FLOPs over peak)", &SweepFigures::mfu, Known::always, "MFU", percent_text},
    {"memory_B", "B", "Memory per device of the busiest rank", &SweepFigures::memory_B, Known::always, "memory", bytes_text},
    {"time_to_train_s", "s", "Failure-free time to train the scenario's tokens (null without [training] tokens)",
     &SweepFigures::time_to_train_s, Known::job, "time to train", duration_text},
    {"usd", "USD", "Cost of the job, or of one step without a token budget (null without [cost])", &SweepFigures::usd, Known::economics,
     "cost", usd_text},
    {"co2e_kg", "kg CO2e", "Operational emissions of the same span (null without [cost])", &SweepFigures::co2e_kg, Known::economics, "CO2e",
     mass_text},
    {"energy_J", "J", "Facility energy of the same span (null without [cost])", &SweepFigures::energy_J, Known::economics, "energy",
     energy_text},
    {"tokens_per_usd", "tokens/USD", "Tokens trained per dollar (null without [cost])", &SweepFigures::tokens_per_usd, Known::economics},
};

const LayoutColumn<SweepLayout> kTrainingLayout[] = {
    {"label", "layout", "", "The layout in words", [](const SweepLayout& l) { return json(layout_label(l)); }},
    {"devices", "", "devices", "Devices in all", PERFCAST_INT_COLUMN(SweepLayout, devices)},
    {"tp", "", "devices", "Tensor parallel", PERFCAST_INT_COLUMN(SweepLayout, tp)},
    {"cp", "", "devices", "Context parallel", PERFCAST_INT_COLUMN(SweepLayout, cp)},
    {"pp", "", "stages", "Pipeline parallel", PERFCAST_INT_COLUMN(SweepLayout, pp)},
    {"vp", "", "chunks", "Virtual pipeline chunks per rank", PERFCAST_INT_COLUMN(SweepLayout, vp)},
    {"ep", "", "devices", "Expert parallel", PERFCAST_INT_COLUMN(SweepLayout, ep)},
    {"dp", "", "replicas", "Data parallel: devices / (tp·cp·pp)",
     [](const SweepLayout& l) { return json(l.devices / (l.tp * l.cp * l.pp)); }},
    {"zero", "", "", "ZeRO stage", PERFCAST_INT_COLUMN(SweepLayout, zero)},
    {"sequence_parallel", "", "", "Megatron sequence parallelism", [](const SweepLayout& l) { return json(l.sequence_parallel); },
     [](SweepLayout& l, const json& v) { l.sequence_parallel = v.get<bool>(); }},
    {"micro_batch", "", "sequences", "Sequences per micro-batch", [](const SweepLayout& l) { return json(l.micro_batch); },
     [](SweepLayout& l, const json& v) { l.micro_batch = v.is_null() ? 0 : v.get<double>(); }},
    {"recompute", "", "", "Activation recomputation: none, selective or full",
     [](const SweepLayout& l) { return json(models::kRecomputeKeys[std::size_t(l.recompute)]); },
     [](SweepLayout& l, const json& v) { l.recompute = models::Recompute(index_of(models::kRecomputeKeys, v)); }},
    {"schedule", "", "", "Pipeline schedule: gpipe, 1f1b, zb-h1 or zb-h2",
     [](const SweepLayout& l) { return json(models::kScheduleKeys[std::size_t(l.schedule)]); },
     [](SweepLayout& l, const json& v) { l.schedule = models::Schedule(index_of(models::kScheduleKeys, v)); }},
};

constexpr FigureColumn<ServeFigures> kServingFigures[] = {
    {"ttft_s", "s", "Time to first token of a request", &ServeFigures::ttft_s, Known::always, "TTFT", duration_text},
    {"tpot_s", "s", "Time per output token", &ServeFigures::tpot_s, Known::always, "TPOT", duration_text},
    {"e2e_s", "s", "End-to-end time of a request", &ServeFigures::e2e_s, Known::always},
    {"tokens_per_s", "tokens/s", "Output tokens per second, all replicas", &ServeFigures::tokens_per_s, Known::always, "tokens/s", number_text},
    {"tokens_per_s_per_device", "tokens/s", "Output tokens per second per device", &ServeFigures::tokens_per_s_per_device, Known::always,
     "tokens/s/device", number_text},
    {"memory_B", "B", "Memory per device", &ServeFigures::memory_B, Known::always, "memory", bytes_text},
    {"usd_per_mtok", "USD/Mtoken", "Dollars per million output tokens (null without [cost])", &ServeFigures::usd_per_mtok,
     Known::economics, "$/M tokens", usd_per_mtok_text},
    {"co2e_kg_per_mtok", "kg CO2e/Mtoken", "Operational emissions per million output tokens (null without [cost])",
     &ServeFigures::co2_per_mtok, Known::economics, "kg CO2e/M tokens", number_text},
};

const LayoutColumn<ServeLayout> kServingLayout[] = {
    {"label", "layout", "", "The layout in words", [](const ServeLayout& l) { return json(layout_label(l)); }},
    {"devices", "", "devices", "Devices in all", PERFCAST_INT_COLUMN(ServeLayout, devices)},
    {"tp", "", "devices", "Tensor parallel", PERFCAST_INT_COLUMN(ServeLayout, tp)},
    {"pp", "", "stages", "Pipeline parallel", PERFCAST_INT_COLUMN(ServeLayout, pp)},
    {"ep", "", "devices", "Expert parallel", PERFCAST_INT_COLUMN(ServeLayout, ep)},
    {"replicas", "", "replicas", "Model replicas: devices / (tp·pp)", [](const ServeLayout& l) { return json(l.devices / (l.tp * l.pp)); }},
    {"batch", "", "sequences", "Concurrent sequences per replica", [](const ServeLayout& l) { return json(l.batch); },
     [](ServeLayout& l, const json& v) { l.batch = v.get<double>(); }},
    {"weight_dtype", "", "", "Weight storage format", [](const ServeLayout& l) { return json(name_of(l.weights)); },
     [](ServeLayout& l, const json& v) { l.weights = precision_named(v); }},
    {"kv_dtype", "", "", "KV cache element format", [](const ServeLayout& l) { return json(name_of(l.kv)); },
     [](ServeLayout& l, const json& v) { l.kv = precision_named(v); }},
};

#undef PERFCAST_INT_COLUMN

}  // namespace

std::span<const FigureColumn<SweepFigures>> training_figure_columns() { return kTrainingFigures; }
std::span<const LayoutColumn<SweepLayout>> training_layout_columns() { return kTrainingLayout; }
std::span<const FigureColumn<ServeFigures>> serving_figure_columns() { return kServingFigures; }
std::span<const LayoutColumn<ServeLayout>> serving_layout_columns() { return kServingLayout; }

namespace {

constexpr int kMostDevices = 1 << 30;

std::string degrees_fault(int devices, std::initializer_list<std::pair<const char*, int>> degrees) {
  if (devices < 1 || devices > kMostDevices) return fmt::format("devices = {} is outside 1..{}", devices, kMostDevices);
  for (const auto& [key, v] : degrees)
    if (v < 1 || v > devices) return fmt::format("{} = {} is outside 1..devices ({})", key, v, devices);
  return "";
}

}  // namespace

std::string layout_fault(const SweepLayout& l) {
  std::string fault = degrees_fault(l.devices, {{"tp", l.tp}, {"cp", l.cp}, {"pp", l.pp}, {"ep", l.ep}});
  if (!fault.empty()) return fault;
  if (l.vp < 1 || l.vp > 1024) return fmt::format("vp = {} is outside 1..1024", l.vp);
  if (l.devices % (std::int64_t(l.tp) * l.cp * l.pp) != 0) return fmt::format("tp·cp·pp = {}·{}·{} does not divide {} devices", l.tp, l.cp, l.pp, l.devices);
  if (l.zero < 0 || l.zero > 3) return fmt::format("zero = {} is not a ZeRO stage (0–3)", l.zero);
  if (!std::isfinite(l.micro_batch) || l.micro_batch < 0) return fmt::format("micro_batch = {} is not a batch", l.micro_batch);
  return "";
}

std::string layout_fault(const ServeLayout& l) {
  std::string fault = degrees_fault(l.devices, {{"tp", l.tp}, {"pp", l.pp}, {"ep", l.ep}});
  if (!fault.empty()) return fault;
  if (l.devices % (std::int64_t(l.tp) * l.pp) != 0) return fmt::format("tp·pp = {}·{} does not divide {} devices", l.tp, l.pp, l.devices);
  if (!std::isfinite(l.batch) || l.batch < 0) return fmt::format("batch = {} is not a batch", l.batch);
  return "";
}

Precision precision_named(const nlohmann::json& v) {
  const std::string name = v.get<std::string>();
  if (const auto p = precision_from(name)) return *p;
  throw std::out_of_range(fmt::format("'{}' is unknown", name));
}

std::string csv_cell(const nlohmann::json& v) {
  if (v.is_string()) return csv_field(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  if (v.is_number()) return v.dump();
  return "";
}

}  // namespace perfcast
