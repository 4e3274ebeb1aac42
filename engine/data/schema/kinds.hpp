#pragma once
// The schema table and cross-field check of each hardware_db kind (one file each).
#include <span>

#include "engine/data/schema/field.hpp"

namespace perfcast::schema {

std::span<const Field> accelerator_fields();
void check_accelerator(const Record& r);
std::span<const Field> interconnect_fields();
void check_interconnect(const Record& r);
std::span<const Field> system_fields();
void check_system(const Record& r);
std::span<const Field> offer_fields();
void check_offer(const Record& r);
std::span<const Field> region_fields();
void check_region(const Record& r);

}  // namespace perfcast::schema
