#pragma once
// Typed hardware specs (engine/spec/hardware.hpp) from validated database records.
#include "engine/data/record.hpp"
#include "engine/spec/hardware.hpp"

namespace perfcast {

// The record's own figures; a held rate taken from other parts (sustained_dense.from) and the
// datapath classes are filled in after the whole database is read (HardwareDb::load).
AcceleratorSpec accelerator_from(const Record& r);
// F-EN-5: a tensor precision without its own held rate takes its datapath class's, measured at the same
// power limit: TF32 and FP16 BF16's, the narrower formats (FP6, FP4, INT8, INT4) FP8's.
void fill_sustained_classes(AcceleratorSpec& a);
LinkSpec link_from(const Record& r);
SystemSpec system_from(const Record& r);
OfferSpec offer_from(const Record& r);
RegionSpec region_from(const Record& r);

}  // namespace perfcast
