// Interconnects: scale-up links, switches, host links and scale-out NICs, per direction.
#include <fmt/format.h>

#include "engine/data/record.hpp"
#include "engine/data/schema/kinds.hpp"

namespace perfcast::schema {
namespace {

using namespace units::dim;

constexpr std::string_view kClasses[] = {"scale-up", "switch", "host", "scale-out"};
constexpr std::string_view kScopes[] = {"per-device", "per-port", "per-link"};

constexpr Field kInterconnect[] = {
    choice("class", kClasses, "scale-up link, scale-up switch, host link or scale-out network", true),
    link_bandwidth("bandwidth", "bandwidth at the stated scope"),
    choice("scope", kScopes, "what the bandwidth belongs to: one device over all links, one NIC port, one link"),
    count("links", 1e3, "links (or lanes) per device that make up the bandwidth"),
    link_bandwidth("per_link_bandwidth", "bandwidth of one link"),
    quantity("latency", seconds, 1e-2, "per-hop latency a collective model starts from (calibrate with measurements)"),
    Field{.key = "in_network_reduction", .type = FieldType::flag,
          .help = "the switch reduces in the network (NVLink SHARP / NVLS, InfiniBand SHARP)"},
    Field{.key = "nvls_efficiency", .type = FieldType::ratio,
          .help = "NCCL's efficiency factor for in-switch all-reduce (its tuner input)", .max = 1},
    link_bandwidth("ring_busbw", "NCCL ring busbw measured over this link at the largest sizes (nccl-tests); where given, rings "
                                 "inside a domain run at it instead of the link rate x scale_up_ring_efficiency (F-COLL-7)"),
    count("max_domain", 1e5, "devices one switch domain connects"),
    link_bandwidth("switching_capacity", "total switching bandwidth of one switch unit"),
    text("signalling", "line rate, lanes and encoding"),
};

}  // namespace

std::span<const Field> interconnect_fields() { return kInterconnect; }

void check_interconnect(const Record& r) {
  const Entry* bandwidth = r.find("bandwidth");
  bool is_switch = r.text("class") == "switch";
  if (!bandwidth && !is_switch) throw r.error("missing required key 'bandwidth' (every link needs its bandwidth)");
  if (bandwidth && r.text("scope").empty()) throw r.error(*bandwidth, "say what the bandwidth belongs to with scope = ...");
  const Entry* links = r.find("links");
  const Entry* per_link = r.find("per_link_bandwidth");
  if (bandwidth && links && per_link) {
    double total = links->number * per_link->number;
    if (std::abs(total - bandwidth->number) > 0.02 * bandwidth->number)
      throw r.error(*bandwidth, fmt::format("{} ≠ links × per_link_bandwidth = {} per direction", bandwidth->text,
                                            units::format(total, bytes_per_second)));
  }
  if (const Entry* ring = r.find("ring_busbw"); ring && bandwidth && ring->number > bandwidth->number * (1 + 1e-9))
    throw r.error(*ring, fmt::format("a ring's busbw cannot exceed the link's {} per direction", units::format(bandwidth->number, bytes_per_second)));
  if (r.find("nvls_efficiency") && !r.flag("in_network_reduction"))
    throw r.error(*r.find("nvls_efficiency"), "nvls_efficiency needs in_network_reduction = true");
}

}  // namespace perfcast::schema
