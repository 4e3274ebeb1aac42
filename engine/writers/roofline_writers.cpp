#include "engine/writers/roofline_writers.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "engine/core/units.hpp"
#include "engine/writers/text_table.hpp"

namespace perfcast {
namespace {

namespace dim = units::dim;

std::string pass_name(models::Pass p) {
  switch (p) {
    case models::Pass::forward: return "fwd";
    case models::Pass::backward: return "bwd";
    case models::Pass::recompute: return "recompute";
  }
  return "";
}

std::string kind_name(models::OpKind k) {
  switch (k) {
    case models::OpKind::gemm: return "gemm";
    case models::OpKind::attention: return "attention";
    case models::OpKind::memory: return "memory";
  }
  return "";
}

std::string time_text(double s) {
  if (s >= 1) return fmt::format("{:.3f} s", s);
  if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.2f} us", s * 1e6);
}

std::string ops_rate_symbol(Precision p) {
  return p == Precision::int8 || p == Precision::int4 ? "OP/s" : "FLOP/s";
}

std::string ops_symbol(Precision p) { return p == Precision::int8 || p == Precision::int4 ? "OP" : "FLOP"; }


}  // namespace

std::string roofline_to_table(const RooflineReport& r) {
  std::string out = fmt::format("Roofline of {} on {} ({}), {} math\n", r.workload, r.accelerator_display, r.accelerator,
                                name_of(r.precision));
  out += fmt::format("  peak {} dense; achievable GEMM {:.0f}% of it\n", units::format(r.peak_ops_per_s, dim::ops_per_second, ops_rate_symbol(r.precision)),
                     100 * r.compute_efficiency);
  if (r.bandwidth_Bps > 0)
    out += fmt::format("  {} {}; ridge point {:.1f} {}/B at peak, {:.1f} {}/B achievable\n", r.bandwidth_level,
                       units::format(r.bandwidth_Bps, dim::bytes_per_second), r.ridge, ops_symbol(r.precision), r.ridge_derated,
                       ops_symbol(r.precision));
  if (r.ceilings.host_link_Bps && r.ceilings.memory_Bps)
    out += fmt::format("  host link {} per direction\n", units::format(*r.ceilings.host_link_Bps, dim::bytes_per_second));
  for (const RooflineSection& s : r.sections) {
    out += fmt::format("\n{}: {} per repeat{}\n", s.title, time_text(s.time_s),
                       s.repeats > 1 ? fmt::format(", {} for all {}", time_text(s.time_s * s.repeats), s.repeats) : "");
    TextTable t({"op", "pass", "kind", ops_symbol(r.precision), "bytes", "intensity", "bound", "time", "share"});
    for (const RooflineRow& row : s.rows) {
      const models::Op& op = row.op;
      t.add_row({op.name, pass_name(op.pass), kind_name(op.kind), op.flops > 0 ? fmt::format("{:.3g}", op.flops) : "-",
                 units::format(op.bytes() + row.host_bytes, dim::bytes),
                 op.flops > 0 ? fmt::format("{:.1f}", op.intensity()) : "-", std::string(models::name_of(row.timing.bound)),
                 time_text(row.timing.time_s), fmt::format("{:.1f}%", 100 * row.share)});
    }
    out += t.render();
  }
  out += "\nAssumptions:\n";
  for (const std::string& a : r.assumptions) out += "  - " + a + "\n";
  return out;
}

nlohmann::json roofline_to_json(const RooflineReport& r) {
  nlohmann::json j;
  j["accelerator"] = r.accelerator;
  j["workload"] = r.workload;
  j["precision"] = name_of(r.precision);
  j["peak_ops_per_s"] = r.peak_ops_per_s;
  if (r.ceilings.memory_Bps) j["memory_bandwidth_Bps"] = *r.ceilings.memory_Bps;
  if (r.ceilings.host_link_Bps) j["host_link_Bps"] = *r.ceilings.host_link_Bps;
  if (r.bandwidth_Bps > 0) {
    j["ridge_flop_per_byte"] = r.ridge;
    j["ridge_achievable_flop_per_byte"] = r.ridge_derated;
    j["ridge_level"] = r.bandwidth_level;
  }
  nlohmann::json eff;
  eff["gemm"] = r.efficiency.gemm;
  eff["gemm_8bit"] = r.efficiency.gemm_8bit;
  eff["gemm_4bit"] = r.efficiency.gemm_4bit;
  eff["attention"] = r.efficiency.attention;
  eff["memory"] = r.efficiency.memory;
  eff["host_link"] = r.efficiency.host_link;
  eff["kernel_overhead_s"] = r.efficiency.kernel_overhead_s;
  j["efficiency"] = eff;
  j["sections"] = nlohmann::json::array();
  for (const RooflineSection& s : r.sections) {
    nlohmann::json js;
    js["title"] = s.title;
    js["repeats"] = s.repeats;
    js["time_s"] = s.time_s;
    js["ops"] = nlohmann::json::array();
    for (const RooflineRow& row : s.rows) {
      const models::Op& op = row.op;
      nlohmann::json o;
      o["name"] = op.name;
      o["pass"] = pass_name(op.pass);
      o["kind"] = kind_name(op.kind);
      o["precision"] = name_of(op.precision);
      o["flops"] = op.flops;
      o["model_flops"] = op.model_flops;
      o["bytes_read"] = op.bytes_read;
      o["bytes_written"] = op.bytes_written;
      if (row.host_bytes > 0) o["host_bytes"] = row.host_bytes;
      if (op.flops > 0) o["intensity_flop_per_byte"] = op.intensity();
      if (op.kind == models::OpKind::gemm) o["gemm"] = {{"m", op.gemm.m}, {"n", op.gemm.n}, {"k", op.gemm.k}, {"count", op.gemm.count}};
      o["bound"] = models::name_of(row.timing.bound);
      o["time_s"] = row.timing.time_s;
      o["compute_s"] = row.timing.compute_s;
      o["memory_s"] = row.timing.memory_s;
      if (row.timing.host_s > 0) o["host_s"] = row.timing.host_s;
      o["overhead_s"] = row.timing.overhead_s;
      if (op.flops > 0) {
        o["achieved_ops_per_s"] = row.timing.achieved_ops_per_s();
        o["compute_efficiency"] = row.timing.compute_efficiency;
      }
      o["share"] = row.share;
      js["ops"].push_back(o);
    }
    j["sections"].push_back(js);
  }
  j["assumptions"] = r.assumptions;
  return j;
}

std::string roofline_to_csv(const RooflineReport& r) {
  std::string out = "section,op,pass,kind,precision,flops,bytes_read,bytes_written,host_bytes,intensity_flop_per_byte,bound,time_s,share\n";
  for (const RooflineSection& s : r.sections)
    for (const RooflineRow& row : s.rows) {
      const models::Op& op = row.op;
      out += fmt::format("{},{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{:.6g},{:.6g}\n", csv_field(s.title), csv_field(op.name),
                         pass_name(op.pass), kind_name(op.kind), name_of(op.precision), op.flops, op.bytes_read, op.bytes_written,
                         row.host_bytes, op.intensity(), models::name_of(row.timing.bound), row.timing.time_s, row.share);
    }
  return out;
}

std::string roofline_to_svg(const RooflineReport& r) {
  // Plot area and log axes: intensity 10^-2..10^5 FLOP/B, performance spanning the ops and peak.
  const double W = 960, H = 640, left = 90, right = 250, top = 60, bottom = 70;
  const double pw = W - left - right, ph = H - top - bottom;
  const double x_lo = -2, x_hi = 5;
  double y_hi = std::ceil(std::log10(r.peak_ops_per_s) + 0.3);
  double y_lo = y_hi - 7;
  auto X = [&](double intensity) { return left + (std::log10(intensity) - x_lo) / (x_hi - x_lo) * pw; };
  auto Y = [&](double perf) { return top + ph - (std::log10(perf) - y_lo) / (y_hi - y_lo) * ph; };
  auto clamp_y = [&](double perf) { return std::clamp(perf, std::pow(10.0, y_lo), std::pow(10.0, y_hi)); };
  const std::string sym = ops_symbol(r.precision);

  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      W, H, W, H);
  s += fmt::format("<text x=\"{}\" y=\"28\" font-size=\"16\" font-weight=\"bold\">{}</text>\n", left,
                   xml_escape(fmt::format("Roofline: {} on {} ({} math)", r.workload, r.accelerator_display, name_of(r.precision))));
  // Grid and axes.
  for (int e = int(x_lo); e <= int(x_hi); ++e) {
    double x = X(std::pow(10.0, e));
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#e5e5e5\"/>\n", x, top, x, top + ph);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">1e{}</text>\n", x, top + ph + 18, e);
  }
  for (int e = int(y_lo); e <= int(y_hi); ++e) {
    double y = Y(std::pow(10.0, e));
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#e5e5e5\"/>\n", left, y, left + pw, y);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">1e{}</text>\n", left - 6, y + 4, e);
  }
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", left, top, pw, ph);
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">arithmetic intensity ({}/byte)</text>\n", left + pw / 2, H - 25, sym);
  s += fmt::format("<text transform=\"translate(22,{}) rotate(-90)\" text-anchor=\"middle\">performance ({}/s)</text>\n", top + ph / 2, sym);

  // Ceilings: a bandwidth slope up to the ridge, then the flat compute roof.
  auto roof = [&](double peak, double bw, const std::string& color, const std::string& dash, const std::string& label,
                  double label_dy) {
    double ridge = peak / bw;
    double x0 = std::pow(10.0, x_lo);
    double y0 = clamp_y(bw * x0);
    double xs = y0 / bw;
    s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" {} points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\"/>\n", color, dash,
                     X(xs), Y(y0), X(ridge), Y(peak), X(std::pow(10.0, x_hi)), Y(peak));
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\" text-anchor=\"end\">{}</text>\n", X(std::pow(10.0, x_hi)) - 4,
                     Y(peak) + label_dy, color, xml_escape(label));
    s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/>\n", X(ridge), Y(peak), color);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\" font-size=\"11\">ridge {:.0f}</text>\n", X(ridge) + 6, Y(peak) + 16, color, ridge);
  };
  if (r.bandwidth_Bps > 0) {
    const double c_eff = r.compute_efficiency, b_eff = r.bandwidth_efficiency;
    roof(r.peak_ops_per_s, r.bandwidth_Bps, "#1f4e9c", "",
         fmt::format("peak {} / {}", units::format(r.peak_ops_per_s, dim::ops_per_second, ops_rate_symbol(r.precision)),
                     units::format(r.bandwidth_Bps, dim::bytes_per_second)),
         -6);
    roof(c_eff * r.peak_ops_per_s, b_eff * r.bandwidth_Bps, "#c0392b", "stroke-dasharray=\"6,4\"",
         fmt::format("achievable ({:.0f}% / {:.0f}%)", 100 * c_eff, 100 * b_eff), 16);
    if (r.ceilings.memory_Bps && r.ceilings.host_link_Bps) {
      double bw = *r.ceilings.host_link_Bps;
      double x0 = std::pow(10.0, x_lo), x1 = r.peak_ops_per_s / bw;
      s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#7f8c8d\" stroke-dasharray=\"2,3\"/>\n", X(x0),
                       Y(clamp_y(bw * x0)), X(std::min(x1, std::pow(10.0, x_hi))), Y(clamp_y(bw * std::min(x1, std::pow(10.0, x_hi)))));
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#7f8c8d\" font-size=\"11\">host link {}</text>\n", X(x0) + 4,
                       Y(clamp_y(bw * x0)) - 6, xml_escape(units::format(bw, dim::bytes_per_second)));
    }
  }
  // Ops: one dot each at (intensity, achieved), labelled; ops without FLOPs are listed at the side.
  const char* colors[] = {"#27ae60", "#8e44ad", "#d35400", "#16a085", "#2c3e50", "#c2185b", "#7f6000", "#0277bd"};
  std::size_t section = 0;
  std::vector<std::string> side;
  for (const RooflineSection& sec : r.sections) {
    const char* color = colors[section++ % std::size(colors)];
    for (const RooflineRow& row : sec.rows) {
      const models::Op& op = row.op;
      if (op.flops <= 0 || row.timing.time_s <= 0 || op.bytes() <= 0) {
        side.push_back(fmt::format("[{}] {}: {}", section, op.name, time_text(row.timing.time_s)));
        continue;
      }
      double x = X(std::clamp(op.intensity(), std::pow(10.0, x_lo), std::pow(10.0, x_hi)));
      double y = Y(clamp_y(row.timing.achieved_ops_per_s()));
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\" fill-opacity=\"0.8\"><title>{}</title></circle>\n", x, y, color,
                       xml_escape(fmt::format("{} ({}): {:.3g} {}, {:.1f} {}/B, {}", op.name, sec.title, op.flops, sym, op.intensity(), sym,
                                              time_text(row.timing.time_s))));
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" fill=\"{}\">{}</text>\n", x + 5, y - 4, color, xml_escape(op.name));
    }
  }
  // Legend of sections and the memory-only ops.
  double ly = top + 10;
  section = 0;
  for (const RooflineSection& sec : r.sections) {
    const char* color = colors[section++ % std::size(colors)];
    s += fmt::format("<circle cx=\"{}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/><text x=\"{}\" y=\"{:.1f}\" font-size=\"11\">[{}] {}</text>\n",
                     left + pw + 15, ly, color, left + pw + 24, ly + 4, section, xml_escape(sec.title.substr(0, 34)));
    ly += 16;
  }
  if (!side.empty()) {
    ly += 10;
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" font-weight=\"bold\">memory-only ops (no FLOPs)</text>\n", left + pw + 15, ly);
    for (std::size_t i = 0; i < side.size() && ly < H - 20; ++i) {
      ly += 14;
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" font-size=\"10\">{}</text>\n", left + pw + 15, ly, xml_escape(side[i].substr(0, 40)));
    }
  }
  s += "</svg>\n";
  return s;
}

}  // namespace perfcast
