#include "models/traffic.hpp"

#include <algorithm>
#include <cmath>

namespace perfcast::models {
namespace {

constexpr std::string_view kGroups[] = {"tp", "cp", "ep", "pp", "dp", "edp"};
constexpr std::string_view kOverlaps[] = {"nothing", "wgrad GEMMs", "dgrad GEMMs", "attention", "backward pass",
                                          "next forward", "other micro-batches"};

// TP collectives per layer in one forward: after the attention output projection, and after the
// MLP down projection unless the MLP is a routed-expert layer without expert-TP or shared experts
// (then the expert outputs return through the EP combine instead).
double tp_ops_per_forward(const TransformerSpec& m, const TrainingLayout& l) {
  const bool moe_mlp_needs_tp = l.etp > 1 || (m.moe && m.moe->shared_experts > 0);
  return l.dense_layers * 2 + l.moe_layers * (1 + (moe_mlp_needs_tp ? 1 : 0));
}

// `sms`: the SMs of the kernel when it overlaps compute; NCCL's by default.
void add(std::vector<TrafficItem>& out, TrafficGroup g, std::string_view what, Collective op, double bytes, double calls,
         OverlapWith o, double sms = kNcclOverlapSms) {
  if (calls > 0 && bytes > 0) out.push_back({g, what, op, bytes, calls, o, o == OverlapWith::nothing ? 0.0 : sms});
}

}  // namespace

double kv_exchange_width(const TransformerSpec& m, int tp) {
  if (m.mla) return double(m.heads) / tp * (m.mla->qk_head_dim() + m.mla->v_head_dim);
  return 2.0 * std::max(1.0, double(m.kv_heads) / tp) * m.head_dim;
}

// The overlap model (explicit; what the training stack does, models/training_stack):
//  * TP, by the stack's TpOverlap: `exposed` puts every collective on the critical path (Megatron-LM
//    2021-2022); `backward` (Megatron-Core) issues the input-gradient all-reduce (reduce-scatter
//    with SP) asynchronously under the same layer's weight-gradient GEMM and, with SP, the re-gather
//    of the sequence-sharded input under the input-gradient GEMM (F-COMM-SP), the forward ones
//    exposed since the next GEMM needs their result; `pipelined` (TE userbuffers, async TP; needs
//    SP) splits the forward all-gather / reduce-scatter into chunks under the GEMMs they feed and
//    the backward output-gradient gather under the input-gradient GEMM.
//  * CP: each ring step's K/V transfer runs under the attention of the previous block (F-COMM-CP;
//    fully hidden when s/cp is above the block-size bound).
//  * EP all-to-all: exposed (Megatron: 30-40 % of step time without optimisation, §16).
//  * PP: 1F1B sends are blocking; interleaved schedules overlap them with other micro-batches.
//  * DP: gradient buckets reduce during the backward pass (overlap_grad_reduce), or after it where the
//    stack reduces once the backward is done (Megatron-LM 2021-2022); the distributed
//    optimizer's parameter all-gather runs under the next forward (overlap_param_gather); ZeRO-3
//    gathers prefetch under the previous layer's compute, or wait on the critical path where the
//    stack fetches on demand (ShardedGather::prefetched false: DeepSpeed 0.3).
// Recomputation repeats the forward collectives of the recomputed region: all of them with full
// recompute, none with selective (the attention core has no communication).
// Each overlapped item carries the SMs its kernels take from the compute it hides under
// (engine/predict/training_step: SM contention): NCCL's kNcclOverlapSms, or for pipelined TP
// overlap the stack's Transformer Engine userbuffer settings.
std::vector<TrafficItem> training_traffic(const TransformerSpec& m, const TrainingLayout& l) {
  std::vector<TrafficItem> out;
  training_traffic(m, l, out);
  return out;
}

void training_traffic(const TransformerSpec& m, const TrainingLayout& l, std::vector<TrafficItem>& out) {
  out.clear();
  const double mb = l.micro_batches, h = m.hidden;
  const double local_tokens = l.micro_batch * l.seq_len / l.cp;  // tokens of one CP rank
  const double act = local_tokens * h * l.activation_bytes;      // full-width activation of them
  const double layers = l.dense_layers + l.moe_layers;
  const bool full_recompute = l.recompute == Recompute::full;
  using enum TrafficGroup;

  if (l.tp > 1) {
    const double ops = tp_ops_per_forward(m, l) * mb;
    const bool async = l.tp_overlap != TpOverlap::exposed;
    const bool pipelined = l.tp_overlap == TpOverlap::pipelined && l.sequence_parallel;
    const OverlapWith under_wgrad = async ? OverlapWith::wgrad : OverlapWith::nothing;
    const OverlapWith under_dgrad = async ? OverlapWith::dgrad : OverlapWith::nothing;
    const OverlapWith forward = pipelined ? OverlapWith::forward : OverlapWith::nothing;
    if (!l.sequence_parallel) {
      add(out, tp, "forward all-reduce (attention / MLP outputs)", Collective::all_reduce, act, ops, OverlapWith::nothing);
      add(out, tp, "backward all-reduce of input gradients", Collective::all_reduce, act, ops, under_wgrad);
      if (full_recompute)
        add(out, tp, "recomputed forward all-reduce", Collective::all_reduce, act, ops, OverlapWith::nothing);
      if (l.first_stage) add(out, tp, "embedding all-reduce", Collective::all_reduce, act, mb, OverlapWith::nothing);
    } else {
      // Pipelined overlap on userbuffers takes the stack's SMs per collective; otherwise NCCL's.
      const UserbufferSms& u = l.userbuffers;
      auto sms = [&](double ub) { return pipelined && ub > 0 ? ub : kNcclOverlapSms; };
      const double fwd_gather = sms(u.forward_gather), fwd_scatter = sms(l.fp8 ? u.forward_scatter_fp8 : u.forward_scatter_bf16);
      add(out, tp, "forward all-gather (sequence-parallel input)", Collective::all_gather, act, ops, forward, fwd_gather);
      add(out, tp, "forward reduce-scatter (outputs)", Collective::reduce_scatter, act, ops, forward, fwd_scatter);
      add(out, tp, "backward all-gather (output gradients)", Collective::all_gather, act, ops, pipelined ? OverlapWith::dgrad : OverlapWith::nothing,
          sms(u.backward_gather));
      add(out, tp, "backward reduce-scatter of input gradients", Collective::reduce_scatter, act, ops, under_wgrad, sms(u.backward_scatter));
      add(out, tp, "backward re-gather of the input for wgrad", Collective::all_gather, act, ops, under_dgrad, sms(u.backward_regather));
      if (full_recompute) {
        add(out, tp, "recomputed forward all-gather", Collective::all_gather, act, ops, forward, fwd_gather);
        add(out, tp, "recomputed forward reduce-scatter", Collective::reduce_scatter, act, ops, forward, fwd_scatter);
      }
      if (l.first_stage) add(out, tp, "embedding reduce-scatter", Collective::reduce_scatter, act, mb, OverlapWith::nothing);
      if (l.last_stage) add(out, tp, "final-norm all-gather before the LM head", Collective::all_gather, act, mb, OverlapWith::nothing);
    }
    // Vocabulary-parallel cross entropy: max, sum of exponentials and target logit, fp32 per token.
    if (l.last_stage)
      add(out, tp, "cross-entropy reductions", Collective::all_reduce, local_tokens * 4, 3 * mb, OverlapWith::nothing);
  }

  if (l.cp > 1) {
    const double step_bytes = local_tokens * kv_exchange_width(m, l.tp) * l.activation_bytes;
    const double steps = (l.cp - 1) * layers * mb;
    add(out, cp, "forward K/V ring pass", Collective::send_recv, step_bytes, steps, OverlapWith::attention);
    add(out, cp, "backward K/V re-gather and dK/dV ring", Collective::send_recv, step_bytes, 2 * steps, OverlapWith::attention);
    if (full_recompute) add(out, cp, "recomputed forward K/V ring", Collective::send_recv, step_bytes, steps, OverlapWith::attention);
  }

  if (l.ep > 1 && m.moe && l.moe_layers > 0) {
    // Megatron requires sequence parallelism for MoE with TP, so each rank routes s/(cp·tp) tokens.
    const double tokens = local_tokens / l.tp;
    const double routed = tokens * m.moe->top_k * h * l.capacity_factor;
    const double calls = l.moe_layers * mb * (full_recompute ? 2 : 1);
    add(out, ep, "forward dispatch all-to-all", Collective::all_to_all, routed * l.dispatch_bytes, calls, OverlapWith::nothing);
    add(out, ep, "forward combine all-to-all", Collective::all_to_all, routed * l.combine_bytes, calls, OverlapWith::nothing);
    add(out, ep, "backward all-to-alls (combine and dispatch gradients)", Collective::all_to_all,
        routed * l.activation_bytes, 2 * l.moe_layers * mb, OverlapWith::nothing);
  }

  if (l.pp > 1) {
    // Megatron scatters the p2p tensor over the TP ranks (scatter-gather optimisation), so each
    // rank sends 1/tp of the boundary activation.
    const double bytes = act / l.tp;
    const OverlapWith o = l.vp > 1 ? OverlapWith::other_microbatch : OverlapWith::nothing;
    add(out, pp, "forward activations to the next stage", Collective::send_recv, bytes, mb * l.vp, o);
    add(out, pp, "backward gradients to the previous stage", Collective::send_recv, bytes, mb * l.vp, o);
  }

  auto data_parallel = [&](TrafficGroup g, int ranks, double params, std::string_view grads, std::string_view gather,
                           std::string_view rs) {
    if (ranks <= 1 || params <= 0) return;
    const double grad_bytes = params * l.gradient_bytes, param_bytes = params * l.parameter_bytes;
    const OverlapWith reduce = l.grad_reduce_overlapped ? OverlapWith::backward : OverlapWith::nothing;
    if (l.zero == 0) {
      add(out, g, grads, Collective::all_reduce, grad_bytes, 1, reduce);
    } else if (l.zero < 3) {
      add(out, g, rs, Collective::reduce_scatter, grad_bytes, 1, reduce);
      add(out, g, gather, Collective::all_gather, param_bytes, 1, OverlapWith::forward);
    } else {
      // One call per layer (FSDP units) or per bucket of parameters (DeepSpeed), every micro-batch.
      const double units = l.gather.bucket_params > 0 ? std::max(1.0, std::ceil(params / l.gather.bucket_params)) : std::max(1.0, layers);
      // A stack without prefetch waits on each gather before the module that needs it runs.
      const OverlapWith forward = l.gather.prefetched ? OverlapWith::forward : OverlapWith::nothing;
      const OverlapWith backward = l.gather.prefetched ? OverlapWith::backward : OverlapWith::nothing;
      add(out, g, "ZeRO-3 forward parameter all-gather", Collective::all_gather, param_bytes / units, mb * units, forward);
      add(out, g, "ZeRO-3 backward parameter all-gather", Collective::all_gather, param_bytes / units, mb * units, backward);
      add(out, g, rs, Collective::reduce_scatter, grad_bytes / units, mb * units, OverlapWith::backward);
    }
  };
  data_parallel(dp, l.dp, l.dense_parameters, "gradient all-reduce", "updated-parameter all-gather",
                "gradient reduce-scatter");
  data_parallel(edp, l.edp, l.expert_parameters, "expert gradient all-reduce", "expert parameter all-gather",
                "expert gradient reduce-scatter");
}

std::vector<TrafficItem> inference_traffic(const TransformerSpec& m, const InferenceLayout& l) {
  std::vector<TrafficItem> out;
  const double act = l.tokens * m.hidden * l.activation_bytes;
  using enum TrafficGroup;
  // The routed experts' outputs are partial sums over the TP ranks, all-reduced as a dense MLP's
  // are, whether the experts are split over TP (ep = 1, as vLLM and SGLang shard them without EP)
  // or spread over it (EP inside the TP group, tp = ep = 8 serving: every rank sees all tokens).
  // Only EP beyond TP returns the expert outputs through the all-to-all combine instead.
  const bool ep_in_tp = l.ep > 1 && l.tp % l.ep == 0;
  const bool routed_by_all_to_all = l.ep > 1 && !ep_in_tp;
  if (l.tp > 1) {
    const bool moe_mlp_needs_tp = !routed_by_all_to_all || (m.moe && m.moe->shared_experts > 0);
    const double ops = l.dense_layers * 2 + l.moe_layers * (1 + (moe_mlp_needs_tp ? 1 : 0));
    add(out, tp, "all-reduce (attention / MLP outputs)", Collective::all_reduce, act, ops, OverlapWith::nothing);
  }
  if (routed_by_all_to_all && m.moe && l.moe_layers > 0) {
    const double routed = l.tokens * m.moe->top_k * m.hidden;
    add(out, ep, "dispatch all-to-all", Collective::all_to_all, routed * l.dispatch_bytes, l.moe_layers, OverlapWith::nothing);
    add(out, ep, "combine all-to-all", Collective::all_to_all, routed * l.combine_bytes, l.moe_layers, OverlapWith::nothing);
  }
  if (l.pp > 1) add(out, pp, "activations to the next stage", Collective::send_recv, act, 1, OverlapWith::nothing);
  return out;
}

std::string_view name_of(TrafficGroup g) { return kGroups[static_cast<std::size_t>(g)]; }
std::string_view name_of(OverlapWith o) { return kOverlaps[static_cast<std::size_t>(o)]; }

}  // namespace perfcast::models
