#pragma once
// Where a layout puts the parameters (Megatron-LM partitioning): the layers each pipeline rank
// holds and the parameters one device keeps. Shared by the memory and communication reports.
#include "engine/layout/rules.hpp"
#include "models/transformer.hpp"

namespace perfcast {

struct StageLayers {
  double dense = 0, moe = 0;
  double total() const { return dense + moe; }
};

// Pipeline rank `stage` holds vp chunks of layers_in_chunk() consecutive layers each: model
// chunk j of every rank precedes chunk j + 1 (Megatron-LM's interleaved assignment; vp = 1 is the
// plain split, uneven first/last stages included). Dense layers come first.
StageLayers stage_layers(const models::TransformerSpec& m, const ParallelismSettings& p, int stage);

struct LocalParams {
  double linear = 0;        // transformer-block projections (what weight quantisation applies to)
  double other = 0;         // norms, routers, embeddings, LM head
  double expert = 0;        // routed-expert share of `linear` (ZeRO shards it over expert-DP)
  double expert_biases = 0; // the routed experts' biases within `expert`, which weight quantisation leaves 16-bit
  double largest_unit = 0;  // the largest layer on this device (ZeRO-3 gathers one at a time)
  double total() const { return linear + other; }
};

struct ShardPlan {
  int tp = 1, pp = 1, ep = 1, dp = 1, etp = 1;
};

ShardPlan shard_plan(const Scenario& s);

// Megatron-LM partitioning: column/row-parallel projections ÷ tp, norms and routers replicated,
// routed experts E/ep per rank each split by expert-TP, vocabulary-parallel embedding and LM head
// on the first and last stage (a tied embedding keeps a copy on the last stage when pp > 1).
LocalParams local_parameters(const models::TransformerSpec& m, const StageLayers& st, int stage, const ShardPlan& sp);

}  // namespace perfcast
