#pragma once
// A scenario's communication by parallel group: where each group sits (placement, links, NIC
// sharing), what it sends per training step or inference pass, the time on its fabric, and how
// much of that can hide under compute (models/traffic.hpp's overlap model). The training and
// inference predictions take their communication terms from here.
#include <span>
#include <string>
#include <vector>

#include "engine/spec/scenario.hpp"
#include "engine/layout/topology.hpp"
#include "models/collective.hpp"
#include "models/traffic.hpp"

namespace perfcast {

struct TrafficTiming {
  models::TrafficItem item;
  models::CollectiveTime call;   // one call on the group's fabric (algorithm, protocol, busbw)
  double sent_per_call_B = 0;    // what leaves the device: size x busbw factor
  double time_s = 0;             // calls x one call
};

struct GroupCommunication {
  std::string group;
  double sent_B = 0, time_s = 0;
  double overlappable_s = 0;     // items that can run under some compute
  double exposed_s = 0;          // items on the critical path whatever the compute
};

struct CommunicationPhase {
  std::string name;              // "training step", "prefill pass", "decode step"
  std::vector<TrafficTiming> items;
  std::vector<GroupCommunication> groups;
  double time_s = 0, exposed_s = 0;
};

struct CommunicationReport {
  std::string scenario, layout, order;
  Topology topology;
  int devices = 0;
  std::vector<GroupPlacement> placements;
  std::vector<CommunicationPhase> phases;
};

// Traffic of the first pipeline stage (it holds the embedding; the last stage differs by the LM
// head's small reductions). Training scenarios give one phase, inference scenarios two.
CommunicationReport communication_for_scenario(const Scenario& s,
                                               std::span<const ParallelDim> order,
                                               const models::CollectiveParams& params);

// "tp 8 · pp 8 (vp 3) · dp 4 · SP · ZeRO-1": a layout in one line.
std::string layout_text(const ParallelismSettings& p, int dp);

// Bytes per parameter of a training scenario's data-parallel traffic: the gradient reduction's
// ([training] grad_reduce_dtype, else the optimizer recipe's gradients) and the sharded optimizer's
// parameter all-gather's (FP8 with fp8_param_gather, else the activation width).
struct DataParallelBytes {
  double gradient = 0, parameter = 0;
};
DataParallelBytes data_parallel_bytes(const TrainingSettings& tr);

// The traffic layout of pipeline rank `stage` of a training scenario.
models::TrainingLayout training_layout(const Scenario& s, int stage);

// Times `items` on the groups of `placements` (a group absent there has one rank: no time).
CommunicationPhase time_traffic(std::string name, const std::vector<models::TrafficItem>& items,
                                const std::vector<GroupPlacement>& placements, const models::CollectiveParams& params);

}  // namespace perfcast
