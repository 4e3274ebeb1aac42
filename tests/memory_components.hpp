#pragma once
// One component of a memory report by name, for the suites that check the breakdown.
#include <string_view>

#include "engine/predict/memory.hpp"

namespace perfcast::test {

// The bytes of the component of that name, or -1 where the report has none (a Coral has no CUDA context).
inline double component(const MemoryReport& r, std::string_view name) {
  for (const MemoryComponent& c : r.components)
    if (c.name == name) return c.bytes;
  return -1;
}

}  // namespace perfcast::test
