#include "engine/writers/collective_writers.hpp"

#include <fmt/format.h>

#include "engine/core/units.hpp"

namespace perfcast {
namespace {

// nccl-tests counts float elements: size / 4.
double float_count(double bytes) { return bytes / 4; }

std::string fabric_line(const CollectiveSweep& s) {
  const Topology& t = s.topology;
  const models::Fabric& f = s.fabric;
  std::string line = fmt::format("{} ranks on {} ({} scale-up domain{} of up to {}; {} {:.0f} GB/s per direction",
                                 f.ranks, t.name, f.domains, f.domains == 1 ? "" : "s", t.scale_up_domain, t.intra_link,
                                 t.intra_Bps / 1e9);
  if (f.intra_ring_Bps > 0) line += fmt::format(", ring busbw {:.0f} GB/s measured", f.intra_ring_Bps / 1e9);
  const double nvls = models::nvls_algbw(f, s.params);
  if (nvls > 0) line += fmt::format(", NVLS algbw {:.0f} GB/s", nvls / 1e9);
  if (f.domains > 1)
    line += fmt::format("; {} {:.1f} GB/s per rank, {:g} rank(s) per NIC, oversubscription {:g}", t.scale_out,
                        f.inter_Bps / 1e9, t.ranks_per_nic(), t.oversubscription);
  if (f.collnet) line += fmt::format(", SHARP in-network reduction (CollNet)");
  return line + ")";
}

std::string algorithm_label(const CollectiveSweep& s) {
  return s.request.algorithm ? std::string(models::name_of(*s.request.algorithm)) : "auto";
}

}  // namespace

std::string collective_to_table(const CollectiveSweep& s) {
  std::string out = fmt::format("# perfcast collective: {} on {}\n", models::name_of(s.request.op), fabric_line(s));
  out += fmt::format("# model: NCCL tuner form, time = latency + size / algbw (+ one Simple slot of pipeline fill); "
                     "algorithm {}; busbw = algbw x {:.4g}\n#\n",
                     algorithm_label(s), models::bus_factor(s.request.op, s.fabric.ranks));
  out += fmt::format("#{:>13} {:>13} {:>7} {:>6} {:>11} {:>8} {:>8}  {:<15} {}\n", "size", "count", "type", "redop",
                     "time", "algbw", "busbw", "algorithm", "protocol");
  out += fmt::format("#{:>13} {:>13} {:>7} {:>6} {:>11} {:>8} {:>8}\n", "(B)", "(elements)", "", "", "(us)", "(GB/s)",
                     "(GB/s)");
  for (const models::CollectiveTime& r : s.rows)
    out += fmt::format(" {:>13.0f} {:>13.0f} {:>7} {:>6} {:>11.2f} {:>8.2f} {:>8.2f}  {:<15} {}\n", r.bytes,
                       float_count(r.bytes), "float", "sum", r.time_s * 1e6, r.algbw_Bps / 1e9, r.busbw_Bps / 1e9,
                       models::name_of(r.algorithm), models::name_of(r.protocol));
  return out;
}

nlohmann::json collective_to_json(const CollectiveSweep& s) {
  nlohmann::json rows = nlohmann::json::array();
  for (const models::CollectiveTime& r : s.rows)
    rows.push_back({{"size_bytes", r.bytes},
                    {"count", float_count(r.bytes)},
                    {"time_s", r.time_s},
                    {"latency_s", r.latency_s},
                    {"transfer_s", r.transfer_s},
                    {"fill_s", r.fill_s},
                    {"algbw_Bps", r.algbw_Bps},
                    {"busbw_Bps", r.busbw_Bps},
                    {"algorithm", models::name_of(r.algorithm)},
                    {"protocol", models::name_of(r.protocol)}});
  const Topology& t = s.topology;
  return {{"collective",
           {{"op", models::name_of(s.request.op)},
            {"system", t.name},
            {"gpus", s.fabric.ranks},
            {"algorithm", algorithm_label(s)},
            {"bus_factor", models::bus_factor(s.request.op, s.fabric.ranks)},
            {"fabric",
             {{"scale_up_domains", s.fabric.domains},
              {"ranks_per_domain", s.fabric.ranks_per_domain()},
              {"intra_link", t.intra_link},
              {"intra_Bps", s.fabric.intra_Bps},
              {"nvls_algbw_Bps", models::nvls_algbw(s.fabric, s.params)},
              {"ring_busbw_Bps", models::scale_up_ring_rate(s.fabric, s.params)},
              {"scale_out", t.scale_out},
              {"inter_Bps_per_rank", s.fabric.inter_Bps},
              {"ranks_per_nic", t.ranks_per_nic()},
              {"oversubscription", t.oversubscription}}},
            {"rows", rows}}}};
}

std::string collective_to_csv(const CollectiveSweep& s) {
  std::string out = "op,gpus,size_bytes,count,time_us,algbw_GBps,busbw_GBps,algorithm,protocol\n";
  for (const models::CollectiveTime& r : s.rows)
    out += fmt::format("{},{},{:.0f},{:.0f},{:.4f},{:.4f},{:.4f},{},{}\n", models::name_of(s.request.op), s.fabric.ranks,
                       r.bytes, float_count(r.bytes), r.time_s * 1e6, r.algbw_Bps / 1e9, r.busbw_Bps / 1e9,
                       models::name_of(r.algorithm), models::name_of(r.protocol));
  return out;
}

}  // namespace perfcast
