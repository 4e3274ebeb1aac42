#include "engine/writers/memory_writers.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "engine/core/units.hpp"
#include "engine/writers/text_table.hpp"

namespace perfcast {
namespace {

std::string size(double bytes) { return units::format_binary_bytes(bytes, 2); }

}  // namespace

std::string memory_to_table(const MemoryReport& r, bool detail) {
  std::string out = fmt::format("Memory of {} on {} ({}), {} per device, pipeline stage: {}\n", r.workload, r.accelerator_display,
                                r.accelerator, r.phase, r.stage);
  TextTable t({"component", "bytes", "size", "share", "how"});
  for (const MemoryComponent& c : r.components)
    t.add_row({c.name, fmt::format("{:.0f}", c.bytes), size(c.bytes),
               fmt::format("{:.1f}%", r.per_device_B > 0 ? 100 * c.bytes / r.per_device_B : 0.0), c.note});
  t.add_row({"total", fmt::format("{:.0f}", r.per_device_B), size(r.per_device_B), "", ""});
  t.add_row({"capacity", fmt::format("{:.0f}", r.capacity_B), size(r.capacity_B), "", r.capacity_label});
  out += t.render();
  if (r.batch) out += fmt::format("batch: {:g} concurrent sequences\n", *r.batch);
  if (r.max_batch)
    out += fmt::format("largest {} that fits: {:g}\n", r.phase == "training" ? "micro-batch" : "batch (concurrent sequences)", *r.max_batch);
  else if (r.phase == "training")
    out += "largest micro-batch that fits: none (even micro_batch = 1 does not fit)\n";
  if (r.kv_bytes_per_token) out += fmt::format("KV cache per token per device: {:.0f} B\n", *r.kv_bytes_per_token);
  out += r.verdict + "\n";
  if (detail && !r.layer_tensors.empty()) {
    out += "\nSaved tensors of one layer, one micro-batch (MODELS-REFERENCE F-MEM-5):\n";
    TextTable d({"tensor", "bytes", "size"});
    double total = 0;
    for (const models::SavedTensor& s : r.layer_tensors) {
      d.add_row({std::string(s.name), fmt::format("{:.0f}", s.bytes), size(s.bytes)});
      total += s.bytes;
    }
    d.add_row({"layer total", fmt::format("{:.0f}", total), size(total)});
    out += d.render();
  }
  if (detail) out += assumptions_text(r.assumptions);
  return out;
}

nlohmann::json memory_to_json(const MemoryReport& r) {
  nlohmann::json breakdown = nlohmann::json::object();
  for (const MemoryComponent& c : r.components) breakdown[c.name] = c.bytes;
  nlohmann::json memory{{"per_device_bytes", r.per_device_B}, {"capacity_bytes", r.capacity_B}, {"capacity", r.capacity_label},
                        {"fits", r.fits}, {"breakdown_bytes", breakdown}, {"binding", r.binding}, {"stage", r.stage},
                        {"verdict", r.verdict}};
  if (!r.fixes.empty()) memory["fixes"] = r.fixes;
  if (r.batch) memory["batch"] = *r.batch;
  if (r.max_batch) memory["max_batch"] = *r.max_batch;
  if (r.kv_bytes_per_token) memory["kv_cache_bytes_per_token"] = *r.kv_bytes_per_token;
  if (!r.layer_tensors.empty()) {
    nlohmann::json layer = nlohmann::json::object();
    for (const models::SavedTensor& s : r.layer_tensors) layer[std::string(s.name)] = s.bytes;
    memory["layer_activation_bytes"] = layer;
  }
  return {{"scenario", r.scenario}, {"workload", r.workload}, {"accelerator", r.accelerator}, {"phase", r.phase},
          {"memory", memory}, {"assumptions", r.assumptions}};
}

std::string memory_to_csv(const MemoryReport& r) {
  std::string out = "component,bytes,note\n";
  for (const MemoryComponent& c : r.components) out += fmt::format("{},{:.0f},{}\n", c.name, c.bytes, csv_field(c.note));
  out += fmt::format("total,{:.0f},\ncapacity,{:.0f},{}\n", r.per_device_B, r.capacity_B, csv_field(r.capacity_label));
  return out;
}

// One horizontal bar per device: components stacked left to right, the capacity as a line.
std::string memory_to_svg(const MemoryReport& r) {
  constexpr const char* colors[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  const double width = 760, left = 20, bar_w = 720, bar_y = 60, bar_h = 48;
  const double scale = bar_w / std::max(r.per_device_B, r.capacity_B);
  const double height = bar_y + bar_h + 40 + 18.0 * double(r.components.size());
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{:.0f}\" viewBox=\"0 0 {} {:.0f}\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      width, height, width, height);
  s += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"14\">{}</text>\n", left,
                   xml_escape(fmt::format("Memory per device: {} on {} ({}, stage {})", r.workload, r.accelerator_display, r.phase, r.stage)));
  s += fmt::format("<text x=\"{}\" y=\"42\">{}</text>\n", left, xml_escape(r.verdict));
  double x = left;
  for (std::size_t i = 0; i < r.components.size(); ++i) {
    const MemoryComponent& c = r.components[i];
    const double w = c.bytes * scale;
    const char* color = colors[i % std::size(colors)];
    s += fmt::format("<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"><title>{}</title></rect>\n", x, bar_y, w,
                     bar_h, color, xml_escape(fmt::format("{}: {}", c.name, size(c.bytes))));
    const double ly = bar_y + bar_h + 30 + 18.0 * double(i);
    s += fmt::format("<rect x=\"{}\" y=\"{:.0f}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", left, ly - 10, color);
    s += fmt::format("<text x=\"{}\" y=\"{:.0f}\">{}</text>\n", left + 18, ly,
                     xml_escape(fmt::format("{} {} ({:.1f}%)", c.name, size(c.bytes), 100 * c.bytes / r.per_device_B)));
    x += w;
  }
  const double cap_x = left + r.capacity_B * scale;
  s += fmt::format("<line x1=\"{:.2f}\" y1=\"{}\" x2=\"{:.2f}\" y2=\"{}\" stroke=\"black\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>\n",
                   cap_x, bar_y - 6, cap_x, bar_y + bar_h + 6);
  s += fmt::format("<text x=\"{:.2f}\" y=\"{}\" text-anchor=\"end\" font-size=\"11\">{}</text>\n", cap_x - 4, bar_y + bar_h + 18,
                   xml_escape(fmt::format("{}: {}", r.capacity_label, size(r.capacity_B))));
  s += "</svg>\n";
  return s;
}

}  // namespace perfcast
