#pragma once
// Measured runs written as validation cases that `perfcast validate --cases` scores (and that
// calibration will fit): nccl-tests rows as collective cases.
#include <string>

#include "engine/ingest/nccl_tests.hpp"

namespace perfcast {

// One collective case per row of `run` on `system`: the out-of-place busbw (size / time × bus
// factor) as measured_busbw, the
// tolerance of validation/collectives.toml (0.15 from 64 MiB up, 1.0 below, where the time is
// latency-bound), the run's GPUs, hosts and device in the notes.
std::string collective_cases_toml(const NcclTestsRun& run, const std::string& system, const std::string& source);

}  // namespace perfcast
