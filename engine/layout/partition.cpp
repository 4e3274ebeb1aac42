#include "engine/layout/partition.hpp"

#include <algorithm>

#include "models/transformer.hpp"

namespace perfcast {

StageLayers stage_layers(const models::TransformerSpec& m, const ParallelismSettings& p, int stage) {
  StageLayers s;
  if (even_split(m, p) && (m.moe_layers() == 0 || m.dense_layers() == 0)) {  // one kind of layer, split evenly
    (m.dense_layers() > 0 ? s.dense : s.moe) = layers_on_stage(m, p, stage);
    return s;
  }
  int first = 0;  // the first layer of the chunk being placed
  for (int j = 0; j < p.vp; ++j) {
    for (int r = 0; r < p.pp; ++r) {
      const int chunk = layers_in_chunk(m, p, r, j);
      if (r == stage)
        for (int l = first; l < first + chunk; ++l) (l < m.dense_layers() ? s.dense : s.moe) += 1;
      first += chunk;
    }
  }
  return s;
}

ShardPlan shard_plan(const Scenario& s) {
  const ParallelismSettings& p = s.parallelism;
  const int dp = data_parallel(p, s.hardware.count);
  return {p.tp, p.pp, p.ep, dp, expert_tensor_parallel(p, dp)};
}

LocalParams local_parameters(const models::TransformerSpec& m, const StageLayers& layers, int stage, const ShardPlan& sp) {
  const double h = m.hidden, tp = sp.tp;
  StageLayers st = layers;
  if (stage == sp.pp - 1) (m.moe_layers() > 0 ? st.moe : st.dense) += m.mtp_layers;
  const double norms = m.norms_per_layer * models::norm_parameters(m, h);
  // The sparse-attention indexer is whole on every tensor-parallel rank (F-ARCH-5).
  const double indexer = models::indexer_parameters(m);
  const double attention = (models::attention_parameters(m) - indexer) / tp + indexer;
  LocalParams p;
  const double dense_linear = attention + models::mlp_parameters(m, m.ffn_hidden) / tp;
  p.linear += st.dense * dense_linear;
  p.other += st.dense * norms;
  if (st.dense > 0) p.largest_unit = dense_linear + norms;
  if (m.moe && st.moe > 0) {
    const models::MoeSpec& e = *m.moe;
    const double experts = double(e.experts) / sp.ep * models::mlp_parameters(m, e.expert_ffn_hidden) / sp.etp;
    const double shared = e.shared_experts * models::mlp_parameters(m, e.shared_ffn_hidden) / tp;
    const double router = models::router_parameters(m);
    p.linear += st.moe * (attention + shared + experts);
    p.expert += st.moe * experts;
    p.expert_biases += st.moe * double(e.experts) / sp.ep * models::mlp_bias_parameters(m, e.expert_ffn_hidden) / sp.etp;
    p.other += st.moe * (router + norms);
    p.largest_unit = std::max(p.largest_unit, attention + shared + experts + router + norms);
  }
  const double vocab = double(m.vocab) * h / tp;
  if (stage == 0) {
    p.other += vocab + double(m.max_positions) * h;
    p.largest_unit = std::max(p.largest_unit, vocab);
  }
  if (stage == sp.pp - 1) {
    const bool head = !m.tied_embeddings || sp.pp > 1;
    p.other += (head ? vocab : 0) + models::norm_parameters(m, h);
    if (head) p.largest_unit = std::max(p.largest_unit, vocab);
    // MTP modules sit after the last layer (Megatron-Core builds them on the last stage): a layer
    // each, split as the layers are (counted above), and the [h; embedding] projection.
    p.linear += m.mtp_layers * 2 * h * h / tp;
    p.other += m.mtp_layers * 3 * models::norm_parameters(m, h);
  }
  return p;
}

}  // namespace perfcast
