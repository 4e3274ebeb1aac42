// Regions: grid carbon intensity, electricity price and a facility PUE, each with its basis.
#include "engine/data/record.hpp"
#include "engine/data/schema/kinds.hpp"

namespace perfcast::schema {
namespace {

using namespace units::dim;

constexpr std::string_view kBases[] = {"location-based", "market-based"};
constexpr std::string_view kSectors[] = {"industrial", "commercial", "data-centre"};

constexpr Field kRegion[] = {
    text("grid_area", "the grid (or cloud region) the figures describe", true),
    Field{.key = "grid_intensity", .type = FieldType::quantity, .help = "grid carbon intensity (CO2e per kWh)",
          .required = true, .dimension = kg_per_joule, .min = 0, .min_inclusive = true, .max = 2.0 / 3.6e6},
    choice("grid_basis", kBases, "location-based (the grid's average) or market-based (contracts)", true),
    Field{.key = "grid_year", .type = FieldType::date, .help = "year the intensity describes", .required = true},
    quantity("electricity_price", usd_per_joule, 2.0 / 3.6e6, "electricity price per kWh"),
    choice("electricity_sector", kSectors, "which tariff the price is"),
    Field{.key = "pue", .type = FieldType::ratio, .help = "facility PUE assumed for the region (override per scenario)",
          .min = 1, .min_inclusive = true, .max = 3},
    Field{.key = "cloud_regions", .type = FieldType::text_list, .help = "provider region names on this grid"},
};

}  // namespace

std::span<const Field> region_fields() { return kRegion; }

void check_region(const Record& r) {
  if (r.find("electricity_price") && r.text("electricity_sector").empty())
    throw r.error(*r.find("electricity_price"), "say which tariff the price is with electricity_sector = ...");
}

}  // namespace perfcast::schema
