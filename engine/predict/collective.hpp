#pragma once
// `perfcast collective`: one collective over a range of message sizes on a system, in the shape of
// an nccl-tests log (size, count, time, algbw, busbw) so it can be held next to a real run.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/layout/topology.hpp"
#include "models/collective.hpp"

namespace perfcast {

struct CollectiveRequest {
  models::Collective op = models::Collective::all_reduce;
  ResolvedHardware hardware;                       // the system (resolve_system)
  int gpus = 0;                                    // 0: one node of the system
  std::optional<models::CollectiveAlgorithm> algorithm;  // empty: NCCL-style auto choice
  std::vector<double> sizes_B;
  double oversubscription = 1;
  bool collnet = false;                            // NCCL_COLLNET_ENABLE=1 on a network with SHARP
};

struct CollectiveSweep {
  CollectiveRequest request;
  Topology topology;
  models::Fabric fabric;
  models::CollectiveParams params;
  std::vector<models::CollectiveTime> rows;
};

// nccl-tests' -b/-e/-f form "8:8G:2" (K, M, G are powers of 1024 as in nccl-tests), or one size.
// InputError naming `option` when malformed.
std::vector<double> parse_size_range(std::string_view text, std::string_view option = "--sizes");

CollectiveSweep collective_sweep(const CollectiveRequest& r);

}  // namespace perfcast
