// Systems: a node or rack of accelerators with its scale-up domain, NICs and power.
#include <fmt/format.h>

#include "engine/data/record.hpp"
#include "engine/data/schema/kinds.hpp"

namespace perfcast::schema {
namespace {

using namespace units::dim;

constexpr std::string_view kCpuVendors[] = {"intel", "amd", "arm"};

constexpr Field kSystem[] = {
    reference("accelerator", "accelerator", "the accelerator the system holds", true),
    count("devices_per_node", 1e4, "accelerators per node (per rack for rack-scale systems)", true),
    count("scale_up_domain", 1e5, "accelerators reachable over the scale-up fabric", true),
    reference("scale_up", "interconnect", "scale-up link (absent for PCIe-only boxes)"),
    reference("scale_up_switch", "interconnect", "scale-up switch"),
    reference("scale_out", "interconnect", "scale-out NIC technology"),
    count("nics_per_node", 1e4, "scale-out compute NICs per node (storage NICs excluded)"),
    reference("host_link", "interconnect", "accelerator-to-host link"),
    text("cpu", "host CPUs"),
    choice("cpu_vendor", kCpuVendors, "host CPU vendor: NCCL's tuner takes its multi-node LL cap and network overhead by it "
                                      "(AMD, or Intel for every other)"),
    quantity("node_power", watts, 1e6, "maximum power of the node (rack) as specified"),
    quantity("price", usd, 1e9, "price of one node (rack)"),
};

}  // namespace

std::span<const Field> system_fields() { return kSystem; }

void check_system(const Record& r) {
  const Entry* devices = r.find("devices_per_node");
  const Entry* domain = r.find("scale_up_domain");
  auto d = static_cast<long>(devices->number), s = static_cast<long>(domain->number);
  if (d % s != 0 && s % d != 0)
    throw r.error(*domain, fmt::format("{} neither divides nor is a multiple of devices_per_node {}", s, d));
  if (s > 1 && r.text("scale_up").empty())
    throw r.error(*domain, "a scale-up domain of more than one device needs scale_up = \"<link>\"");
  if (!r.text("scale_out").empty() && !r.find("nics_per_node"))
    throw r.error("nics_per_node is required with scale_out");
}

}  // namespace perfcast::schema
