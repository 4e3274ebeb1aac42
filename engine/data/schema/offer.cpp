// Cloud offers: an instance type mapped to a system, with dated prices.
#include <fmt/format.h>

#include "engine/data/record.hpp"
#include "engine/data/schema/kinds.hpp"

namespace perfcast::schema {
namespace {

using namespace units::dim;
constexpr double kMaxRate = 1e4 / 3600;  // $10,000 per hour

constexpr std::string_view kPricePer[] = {"instance", "device"};
constexpr std::string_view kMarkets[] = {"provider", "community"};

constexpr Field kOffer[] = {
    text("provider", "cloud provider", true),
    text("instance", "the provider's instance or SKU name", true),
    reference("system", "system", "the node this instance is", true),
    count("devices", 1e4, "accelerators in one instance", true),
    choice("price_per", kPricePer, "whether the prices are per instance-hour or per device-hour", true),
    quantity("on_demand", usd_per_second, kMaxRate, "on-demand list price", true),
    quantity("spot", usd_per_second, kMaxRate, "spot/preemptible price"),
    Field{.key = "as_of", .type = FieldType::date, .help = "date the prices were observed", .required = true},
    reference("region", "region", "grid region the prices apply to"),
    text("cloud_region", "the provider's region name"),
    link_bandwidth("network_per_instance", "scale-out bandwidth of one instance (e.g. EFA)"),
    choice("market", kMarkets,
           "who hosts the instances: the provider's own data centres (default), or a community marketplace of third-party hosts"),
};

}  // namespace

std::span<const Field> offer_fields() { return kOffer; }

void check_offer(const Record& r) {
  const Entry* on_demand = r.find("on_demand");
  if (const Entry* spot = r.find("spot"); spot && spot->number > on_demand->number)
    throw r.error(*spot, fmt::format("spot {} is above on-demand {}", spot->text, on_demand->text));
}

}  // namespace perfcast::schema
