#pragma once
// Typed hardware specs (engine/spec/hardware.hpp) from validated database records.
#include "engine/data/record.hpp"
#include "engine/spec/hardware.hpp"

namespace perfcast {

AcceleratorSpec accelerator_from(const Record& r);
LinkSpec link_from(const Record& r);
SystemSpec system_from(const Record& r);
OfferSpec offer_from(const Record& r);
RegionSpec region_from(const Record& r);

}  // namespace perfcast
