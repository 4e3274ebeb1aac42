#include "engine/writers/communication_writers.hpp"

#include <fmt/format.h>

#include "engine/core/units.hpp"
#include "engine/writers/text_table.hpp"

namespace perfcast {
namespace {

std::string bytes_text(double b) { return units::format_binary_bytes(b, 1); }
std::string ms_text(double s) { return fmt::format("{:.3f} ms", s * 1e3); }

}  // namespace

std::string communication_to_table(const CommunicationReport& r) {
  std::string out = fmt::format("Communication of {} on {} ({} devices): {}\n", r.scenario, r.topology.name, r.devices, r.layout);
  out += fmt::format("Groups placed {} (innermost first); traffic of the first pipeline stage, per device.\n\n", r.order);
  TextTable placement({"group", "ranks", "stride", "domains", "crosses", "ranks/NIC", "NIC share"});
  for (const GroupPlacement& g : r.placements)
    placement.add_row({g.group, std::to_string(g.ranks), std::to_string(g.stride), std::to_string(g.domains), g.crosses,
                       g.domains > 1 ? fmt::format("{:g}", g.ranks_per_nic) : "-",
                       g.domains > 1 ? fmt::format("{:.1f} GB/s", g.fabric.inter_Bps / 1e9) : "-"});
  out += placement.empty() ? "No parallel groups: a single device has no communication.\n" : placement.render();
  for (const CommunicationPhase& ph : r.phases) {
    out += fmt::format("\nPer {}:\n", ph.name);
    TextTable items({"group", "traffic", "op", "size", "calls", "sent", "algorithm", "busbw", "time", "overlaps with"});
    for (const TrafficTiming& t : ph.items)
      items.add_row({std::string(models::name_of(t.item.group)), std::string(t.item.what), std::string(models::name_of(t.item.op)),
                     bytes_text(t.item.bytes), fmt::format("{:g}", t.item.calls), bytes_text(t.item.calls * t.sent_per_call_B),
                     fmt::format("{}/{}", models::name_of(t.call.algorithm), models::name_of(t.call.protocol)),
                     fmt::format("{:.0f} GB/s", t.call.busbw_Bps / 1e9), ms_text(t.time_s),
                     std::string(models::name_of(t.item.overlap))});
    out += items.empty() ? "  nothing crosses a link.\n" : items.render();
    TextTable groups({"group", "sent", "time", "can overlap", "exposed whatever the compute"});
    for (const GroupCommunication& g : ph.groups)
      groups.add_row({g.group, bytes_text(g.sent_B), ms_text(g.time_s), ms_text(g.overlappable_s), ms_text(g.exposed_s)});
    if (!groups.empty()) {
      out += "\n" + groups.render();
      out += fmt::format("total {} of communication per {}; at least {} exposed, the rest hidden only if the compute it "
                         "overlaps with is long enough.\n", ms_text(ph.time_s), ph.name, ms_text(ph.exposed_s));
    }
  }
  return out;
}

nlohmann::json communication_to_json(const CommunicationReport& r) {
  nlohmann::json placements = nlohmann::json::array();
  for (const GroupPlacement& g : r.placements)
    placements.push_back({{"group", g.group}, {"ranks", g.ranks}, {"stride", g.stride}, {"scale_up_domains", g.domains},
                          {"crosses", g.crosses}, {"ranks_per_nic", g.ranks_per_nic},
                          {"inter_Bps_per_rank", g.fabric.inter_Bps}, {"intra_Bps", g.fabric.intra_Bps}});
  nlohmann::json phases = nlohmann::json::array();
  for (const CommunicationPhase& ph : r.phases) {
    nlohmann::json items = nlohmann::json::array(), groups = nlohmann::json::object();
    for (const TrafficTiming& t : ph.items)
      items.push_back({{"group", models::name_of(t.item.group)}, {"what", t.item.what}, {"op", models::name_of(t.item.op)},
                       {"size_bytes", t.item.bytes}, {"calls", t.item.calls}, {"sent_bytes", t.item.calls * t.sent_per_call_B},
                       {"algorithm", models::name_of(t.call.algorithm)}, {"protocol", models::name_of(t.call.protocol)},
                       {"busbw_Bps", t.call.busbw_Bps}, {"time_per_call_s", t.call.time_s}, {"time_s", t.time_s},
                       {"overlaps_with", models::name_of(t.item.overlap)}});
    for (const GroupCommunication& g : ph.groups)
      groups[g.group] = {{"sent_bytes", g.sent_B}, {"time_s", g.time_s}, {"overlappable_s", g.overlappable_s},
                         {"exposed_s", g.exposed_s}};
    phases.push_back({{"phase", ph.name}, {"time_s", ph.time_s}, {"exposed_s", ph.exposed_s}, {"by_group", groups}, {"items", items}});
  }
  return {{"communication",
           {{"scenario", r.scenario}, {"system", r.topology.name}, {"devices", r.devices}, {"layout", r.layout},
            {"order", r.order}, {"placements", placements}, {"phases", phases}}}};
}

std::string communication_to_csv(const CommunicationReport& r) {
  std::string out = "phase,group,traffic,op,size_bytes,calls,sent_bytes,algorithm,protocol,busbw_GBps,time_s,overlaps_with\n";
  for (const CommunicationPhase& ph : r.phases)
    for (const TrafficTiming& t : ph.items)
      out += fmt::format("{},{},{},{},{:.0f},{:g},{:.0f},{},{},{:.3f},{:.9g},{}\n", csv_field(ph.name),
                         models::name_of(t.item.group), csv_field(std::string(t.item.what)), models::name_of(t.item.op),
                         t.item.bytes, t.item.calls, t.item.calls * t.sent_per_call_B, models::name_of(t.call.algorithm),
                         models::name_of(t.call.protocol), t.call.busbw_Bps / 1e9, t.time_s,
                         csv_field(std::string(models::name_of(t.item.overlap))));
  return out;
}

}  // namespace perfcast
