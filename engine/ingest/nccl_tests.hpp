#pragma once
// nccl-tests output (NVIDIA/nccl-tests: all_reduce_perf, all_gather_perf, reduce_scatter_perf,
// alltoall_perf, sendrecv_perf, broadcast_perf, reduce_perf; single- and multi-node): the run's
// ranks, hosts and device, and every row of its results table, out-of-place and in-place. The
// table's columns are found from its header, so versions with and without the `root` column both
// read. Malformed input is an InputError naming the file and line.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/collective.hpp"

namespace perfcast {

struct NcclTestsResult {
  double time_s = 0, algbw_Bps = 0, busbw_Bps = 0;
  std::optional<long> wrong;   // "N/A" when run without validation (-c 0)
};

struct NcclTestsRow {
  int line = 0;
  double bytes = 0, count = 0;
  std::string type, redop;
  NcclTestsResult out_of_place, in_place;
};

struct NcclTestsRun {
  std::string file;
  models::Collective op = models::Collective::all_reduce;
  int ranks = 0;                  // "#  Rank  N ..." lines: one per GPU
  int hosts = 0;                  // distinct "on <host>" names
  std::string device;             // the first rank's device name, e.g. "NVIDIA H100 80GB HBM3"
  std::vector<NcclTestsRow> rows;
  std::optional<double> average_busbw_Bps;  // "# Avg bus bandwidth" (GB/s = 1e9 B/s)
  // The algorithm NCCL ran, when an NCCL_DEBUG=INFO line says NCCL_ALGO was set to exactly one
  // ("NCCL INFO NCCL_ALGO set by environment to NVLS", or "allreduce:nvls").
  std::optional<models::CollectiveAlgorithm> algorithm;
};

// The collective a file holds: `op` when given, else the binary's name ("all_reduce_perf") in the
// file name or in the text (a pasted command line); InputError when neither says.
NcclTestsRun parse_nccl_tests(std::string_view text, const std::string& file, std::optional<models::Collective> op = std::nullopt);

}  // namespace perfcast
