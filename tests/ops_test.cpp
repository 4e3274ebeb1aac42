// Operator accounting against the published counts (MODELS-REFERENCE §6, §18 E4/E20) and the
// roofline against E12.
#include <doctest/doctest.h>

#include <cmath>

#include "engine/data/workload_reader.hpp"
#include "models/flops.hpp"
#include "models/roofline.hpp"
#include "models/transformer_ops.hpp"

using namespace perfcast;
using namespace perfcast::models;

namespace {

TransformerSpec spec(const std::string& name) { return load_preset(PERFCAST_DEFAULT_WORKLOADS, name).transformer(); }

// B200's ceilings (FP8 peak, 7.7 TB/s, no decode kernel rate yet), the default efficiencies without launch
// overhead, and one decode step's attention core of 1 GFLOP over 1 GB (F-ATT-2, F-ATT-4).
struct DecodeAttentionCase {
  Ceilings ceilings;
  Efficiency efficiency;
  Op op;
};
DecodeAttentionCase b200_decode_attention() {
  DecodeAttentionCase d{.efficiency = default_efficiency()};
  d.ceilings.peak_ops_per_s[static_cast<std::size_t>(Precision::fp8)] = 4500e12;
  d.ceilings.memory_Bps = 7.7e12;
  d.efficiency.kernel_overhead_s = 0;
  d.op.kind = OpKind::attention;
  d.op.precision = Precision::fp8;
  d.op.flops = 1e9;
  d.op.bytes_read = 1e9;
  d.op.attention_decode = true;
  return d;
}

// GEMM FLOPs of one pass (the FlashAttention core is an attention op, not a GEMM).
double gemm_flops(const std::vector<OpGroup>& groups, Pass pass) {
  double sum = 0;
  for (const OpGroup& g : groups)
    for (const Op& op : g.ops)
      if (op.pass == pass && op.kind == OpKind::gemm) sum += g.repeats * op.flops;
  return sum;
}

OpContext training(double batch, double seq, AttentionMask mask) {
  OpContext c;
  c.phase = Phase::training;
  c.batch = batch;
  c.seq_len = seq;
  c.mask = mask;
  return c;
}

}  // namespace

TEST_CASE("E4: GPT-3 175B, B = 1536, s = 2048: Narayanan Eq. 3 = 4.511e18 FLOPs per iteration") {
  const double expected = 4'510'970'753'323'106'304.0;
  CHECK(narayanan_iteration_flops(1536, 2048, 96, 12288, 51200) == doctest::Approx(expected).epsilon(1e-12));
  CHECK(narayanan_model_flops(1536, 2048, 96, 12288, 51200) == doctest::Approx(3.3862e18).epsilon(1e-4));

  // The op accounting reproduces it: full recompute, full s x s attention, GEMMs only.
  OpContext c = training(1536, 2048, AttentionMask::full);
  c.kernel = AttentionKernel::materialised;
  c.recompute = Recompute::full;
  auto groups = transformer_ops(spec("gpt3-175b"), c);
  double gemms = 0, model = 0;
  for (const OpGroup& g : groups)
    for (const Op& op : g.ops) {
      if (op.kind == OpKind::gemm) gemms += g.repeats * op.flops;
      model += g.repeats * op.model_flops;
    }
  CHECK(gemms == doctest::Approx(expected).epsilon(1e-12));
  CHECK(model == doctest::Approx(narayanan_model_flops(1536, 2048, 96, 12288, 51200)).epsilon(1e-12));
  CHECK(gemms / model == doctest::Approx(1.3322).epsilon(1e-4));  // E4 ratio
}

TEST_CASE("E4: 140 TFLOP/s per GPU on 1024 GPUs trains 300B tokens in 33.9 days (Eq. 4)") {
  double P = narayanan_parameters(96, 12288, 51200, 2048);
  CHECK(narayanan_training_time_s(300e9, P, 1024, 140e12) / 86400 == doctest::Approx(33.9).epsilon(2e-3));
}

TEST_CASE("per-layer forward = 24 b s h^2 + 4 b s^2 h for MHA, f = 4h, full attention (§6.1)") {
  TransformerSpec m = spec("megatron-gpt-7.5b");
  OpContext c = training(2, 2048, AttentionMask::full);
  c.phase = Phase::prefill;  // forward only
  auto groups = transformer_ops(m, c);
  const OpGroup& layer = groups.at(1);
  double fwd = 0;
  for (const Op& op : layer.ops) fwd += op.flops;
  const double b = 2, s = 2048, h = 4096;
  CHECK(fwd == doctest::Approx(24 * b * s * h * h + 4 * b * s * s * h).epsilon(1e-12));
}

TEST_CASE("backward executes 2x the forward GEMM FLOPs, FlashAttention's backward 2.5x") {
  OpContext c = training(1, 4096, AttentionMask::causal);
  auto groups = transformer_ops(spec("llama3-8b"), c);
  CHECK(gemm_flops(groups, Pass::backward) == doctest::Approx(2 * gemm_flops(groups, Pass::forward)));
  double fwd_attn = 0, bwd_attn = 0;
  for (const OpGroup& g : groups)
    for (const Op& op : g.ops)
      if (op.kind == OpKind::attention) (op.pass == Pass::forward ? fwd_attn : bwd_attn) += g.repeats * op.flops;
  CHECK(bwd_attn == doctest::Approx(2.5 * fwd_attn));
}

TEST_CASE("PaLM model FLOPs per token: 6N + 12 L H Q T (full attention, no recompute)") {
  TransformerSpec m = spec("llama2-7b");
  const double s = 4096;
  auto groups = transformer_ops(m, training(1, s, AttentionMask::full));
  double per_token = total_model_flops(groups) / s;
  auto p = count_parameters(m);
  // N: the parameters that are GEMM weights (PaLM counts the LM head; the input embedding is a lookup).
  double norms = m.layers * 2.0 * m.hidden + m.hidden;
  double N = p.total - p.embedding - norms;
  CHECK(per_token == doctest::Approx(palm_flops_per_token(N, m.layers, m.heads, m.head_dim, s)).epsilon(1e-12));
}

TEST_CASE("Kaplan's 6N holds within its stated context term while d_model > n_ctx/12") {
  TransformerSpec m = spec("gpt3-175b");
  const double s = 2048;
  auto groups = transformer_ops(m, training(1, s, AttentionMask::causal));
  // Layers only: Kaplan's N excludes embeddings (and so the tied LM head).
  double layers = 0;
  for (const OpGroup& g : groups)
    if (g.name != "embedding and LM head")
      for (const Op& op : g.ops) layers += g.repeats * op.model_flops;
  double per_token = layers / s;
  double N = kaplan_parameters(m.layers, m.hidden);
  double rel = per_token / kaplan_training_flops_per_token(N) - 1;
  CHECK(rel > 0);
  // Kaplan's dropped term 6 n_layer n_ctx d_attn / 6N = n_ctx / (12 d_model) = 1.39 %; the rest is biases.
  CHECK(rel == doctest::Approx(kaplan_context_flops_per_token(m.layers, s, m.hidden) / (6 * N)).epsilon(0.01));
  CHECK(rel < s / (12.0 * m.hidden) + 1e-3);
}

TEST_CASE("MoE: forward GEMM FLOPs per token are 2 x the GEMM parameters one token uses") {
  for (const char* name : {"mixtral-8x7b", "mixtral-8x22b", "deepseek-v3"}) {
    CAPTURE(name);
    TransformerSpec m = spec(name);
    OpContext c = training(4, 4096, AttentionMask::causal);
    c.phase = Phase::prefill;
    c.seq_len = 4096;
    auto groups = transformer_ops(m, c);
    double gemm = 0;
    for (const OpGroup& g : groups)
      for (const Op& op : g.ops)
        if (op.kind == OpKind::gemm && op.name != "lm_head") gemm += g.repeats * op.flops;
    auto p = count_parameters(m);
    double norms = m.layers * 2.0 * m.hidden + m.hidden;
    if (m.mla) norms += m.layers * double(m.mla->q_lora_rank + m.mla->kv_lora_rank);
    double router_bias = m.moe->router_bias ? m.moe_layers() * double(m.moe->experts) : 0;
    double layer_gemm_params = p.active - p.embedding - p.lm_head - norms - router_bias;
    CHECK(gemm / c.tokens() == doctest::Approx(2 * layer_gemm_params).epsilon(1e-9));
  }
}

TEST_CASE("E20: DeepSeek-V3 training FLOPs per token at s = 4096") {
  TransformerSpec m = spec("deepseek-v3");
  const double s = 4096;
  auto full = transformer_ops(m, training(1, s, AttentionMask::full));
  CHECK(total_model_flops(full) / s / 1e9 == doctest::Approx(281.152).epsilon(1e-5));
  auto causal = transformer_ops(m, training(1, s, AttentionMask::causal));
  // E20 halves the attention term (s/2); (s+1)/2 adds 0.0075 GFLOP.
  CHECK(total_model_flops(causal) / s / 1e9 == doctest::Approx(250.450).epsilon(1e-4));
}

TEST_CASE("decode with top-8 of 256 experts reads only the experts a token is routed to") {
  TransformerSpec m = spec("deepseek-v3");
  OpContext c;
  c.phase = Phase::decode;
  c.batch = 1;
  c.context_len = 4096;
  auto groups = transformer_ops(m, c);
  const OpGroup& moe = groups.back();
  for (const Op& op : moe.ops)
    if (op.name == "moe.expert.down") {
      CHECK(op.gemm.count == doctest::Approx(8));  // 256 x (1 - (1 - 8/256)^1)
      CHECK(op.gemm.m == doctest::Approx(1));
    }
}

TEST_CASE("E12: roofline checks on H100 BF16") {
  Ceilings h100;
  h100.peak_ops_per_s[static_cast<std::size_t>(Precision::bf16)] = 989e12;
  h100.memory_Bps = 3.35e12;
  Efficiency e = default_efficiency();
  e.kernel_overhead_s = 0;
  e.wave_quantisation = false;
  CHECK(ridge_point(989e12, 3.35e12) == doctest::Approx(295.224).epsilon(1e-5));
  CHECK(ridge_point(0.8 * 989e12, 0.9 * 3.35e12) == doctest::Approx(262.421).epsilon(1e-5));
  Op big = gemm_op("gemm", {8192, 8192, 8192, 1}, Precision::bf16, 2, 2, 2, true);
  CHECK(big.intensity() == doctest::Approx(2730.67).epsilon(1e-5));
  OpTiming t = time_op(big, h100, e);
  CHECK(t.bound == Bound::compute);
  CHECK(t.time_s == doctest::Approx(1.38968e-3).epsilon(1e-5));
  Op gemv = gemm_op("gemv", {1, 8192, 8192, 1}, Precision::bf16, 2, 2, 2, true);
  CHECK(gemv.intensity() == doctest::Approx(0.99976).epsilon(1e-5));
  t = time_op(gemv, h100, e);
  CHECK(t.bound == Bound::memory);
  CHECK(t.time_s == doctest::Approx(44.528e-6).epsilon(1e-4));
}

TEST_CASE("wave quantisation: a GEMM one tile short of a full wave loses that wave's share") {
  // 132 SMs: 128 tiles of 128x128 fill 128/132 of one wave; 136 tiles need two waves (136/264).
  CHECK(gemm_shape_efficiency({128 * 16, 128 * 8, 4096, 1}, 132) == doctest::Approx(128.0 / 132));
  CHECK(gemm_shape_efficiency({128 * 17, 128 * 8, 4096, 1}, 132) == doctest::Approx(136.0 / 264));
  // Tile padding: M = 1000 on 128-row tiles uses 1000/1024 of the rows.
  CHECK(gemm_shape_efficiency({1000, 1024, 1024, 1}, 0) == doctest::Approx(1000.0 / 1024));
  // F-ROOF-6: 150 tokens pad to 152 on swap-AB token tiles, to 256 on 128-row ones (8 x 2 tiles of
  // 128x128 for 150 x 1024); 300 tokens split in two tiles of 152.
  CHECK(gemm_shape_efficiency({150, 1024, 4096, 1}, 0, true) == doctest::Approx(150.0 / 152));
  CHECK(gemm_shape_efficiency({150, 1024, 4096, 1}, 0, false) == doctest::Approx(150.0 * 1024 / (16 * 128 * 128)));
  CHECK(gemm_shape_efficiency({300, 1024, 4096, 1}, 0, true) == doctest::Approx(300.0 / 304));
  // Training-sized GEMMs keep the classic tiles.
  CHECK(gemm_shape_efficiency({2000, 1024, 4096, 1}, 0, true) == gemm_shape_efficiency({2000, 1024, 4096, 1}, 0, false));
  // Launch overhead dominates a tiny kernel.
  Ceilings c;
  c.peak_ops_per_s[static_cast<std::size_t>(Precision::bf16)] = 989e12;
  c.memory_Bps = 3.35e12;
  OpTiming t = time_op(gemm_op("tiny", {64, 64, 64, 1}, Precision::bf16, 2, 2, 2, true), c, default_efficiency());
  CHECK(t.bound == Bound::launch);
}

TEST_CASE("F-ROOF-5: a shallow GEMM on Hopper pays its tiles' fixed cost, relative to the default's depth") {
  CHECK(gemm_depth_efficiency(1024, 160) == doctest::Approx(1024.0 / 1184));
  CHECK(gemm_depth_efficiency(1024, 0) == 1);
  Ceilings h100;
  h100.peak_ops_per_s[static_cast<std::size_t>(Precision::bf16)] = 989e12;
  h100.peak_ops_per_s[static_cast<std::size_t>(Precision::fp8)] = 1979e12;
  h100.memory_Bps = 3.35e12;
  h100.gemm_tile_fixed_cost = true;
  Efficiency e = default_efficiency();
  e.kernel_overhead_s = 0;
  e.wave_quantisation = false;
  auto efficiency = [&](double k, Precision p) {
    return time_op(gemm_op("g", {8192, 8192, k, 1}, p, 2, 2, 2, true), h100, e).compute_efficiency;
  };
  // K0 = 0.542 x 989 / 3.35 = 160.0 K-steps in BF16: at the MAMF shape's depth, 13312, the default
  // holds; at K = 1024, (1024 / 1184.0) / (13312 / 13472.0) = 0.87525 of it.
  CHECK(efficiency(13312, Precision::bf16) == doctest::Approx(0.80));
  CHECK(efficiency(1024, Precision::bf16) == doctest::Approx(0.80 * 0.875250).epsilon(1e-5));
  // FP8 runs the K loop twice as fast, so the same fixed time is 320.2 K-steps; its default's depth is 14336.
  CHECK(efficiency(1024, Precision::fp8) == doctest::Approx(0.709 * 0.778812).epsilon(1e-5));
  // Architectures without the measured term keep the flat large-GEMM efficiency.
  h100.gemm_tile_fixed_cost = false;
  CHECK(efficiency(1024, Precision::bf16) == doctest::Approx(0.80));
}

TEST_CASE("F-ATT-2: decode attention streams its cache at the device's measured kernel rate where one is known") {
  auto [b200, e, decode] = b200_decode_attention();
  // Without a measurement: the streaming default, 0.90 of 7.7 TB/s.
  CHECK(time_op(decode, b200, e).time_s == doctest::Approx(1e9 / (0.9 * 7.7e12)));
  b200.decode_attention_Bps = 6.11e12;
  CHECK(time_op(decode, b200, e).time_s == doctest::Approx(1e9 / 6.11e12));
  // A prefill's attention and other memory-bound ops keep the default.
  Op prefill = decode;
  prefill.attention_decode = false;
  CHECK(time_op(prefill, b200, e).memory_s == doctest::Approx(1e9 / (0.9 * 7.7e12)));
  CHECK(time_op(memory_op("norm", 1e9, 0), b200, e).time_s == doctest::Approx(1e9 / (0.9 * 7.7e12)));
}

TEST_CASE("F-ATT-4: the measured decode kernel streams an 8-bit per-head cache at its share of the 16-bit rate") {
  auto [b200, e, decode] = b200_decode_attention();
  b200.decode_attention_Bps = 6.11e12;
  b200.decode_attention_fp8_kv_share = 0.926;
  decode.attention_kv_bytes = 1;
  // docs/models.md F-ATT-4: 1 GB of FP8 cache at 0.926 x 6.11 = 5.658 TB/s, 176.7 us (not 163.7).
  CHECK(time_op(decode, b200, e).time_s == doctest::Approx(1e9 / (0.926 * 6.11e12)));
  CHECK(time_op(decode, b200, e).time_s == doctest::Approx(176.74e-6).epsilon(1e-4));
  // A 16-bit cache, a latent (MLA) cache (kv bytes 0) and a device without the share keep the kernel's rate.
  for (double kv : {2.0, 0.0}) {
    decode.attention_kv_bytes = kv;
    CHECK(time_op(decode, b200, e).time_s == doctest::Approx(1e9 / 6.11e12));
  }
  decode.attention_kv_bytes = 1;
  b200.decode_attention_fp8_kv_share = 1;
  CHECK(time_op(decode, b200, e).time_s == doctest::Approx(1e9 / 6.11e12));
  // No measured kernel: the streaming default, whatever the cache.
  b200.decode_attention_Bps.reset();
  b200.decode_attention_fp8_kv_share = 0.926;
  CHECK(time_op(decode, b200, e).time_s == doctest::Approx(1e9 / (0.9 * 7.7e12)));
}

TEST_CASE("F-ATT-4: the decode core carries its per-head cache's element bytes, a latent MLA cache carries none") {
  auto decode_core_kv_bytes = [](const std::string& name) {
    OpContext c;
    c.phase = Phase::decode;
    c.batch = 8;
    c.seq_len = 1;
    c.context_len = 1000;
    c.math = Precision::fp8;
    c.kv_bytes = 1;
    for (const OpGroup& g : transformer_ops(spec(name), c))
      for (const Op& op : g.ops)
        if (op.kind == OpKind::attention) return op.attention_kv_bytes;
    return -1.0;
  };
  CHECK(decode_core_kv_bytes("llama3-8b") == 1);
  CHECK(decode_core_kv_bytes("deepseek-v3") == 0);
}

TEST_CASE("F-ATT-3: a decode kernel per query head reads each KV head's cache once per query head (16.1 GB -> 128.8 GB)") {
  // docs/models.md F-ATT-3's example: Llama 2 70B in FP8 on tp 2, batch 64 at a 3,072-token context.
  const TransformerSpec m = spec("llama2-70b");
  OpContext c;
  c.phase = Phase::decode;
  c.batch = 64;
  c.context_len = 3071;  // keys = context + 1
  c.tp = 2;
  c.math = Precision::fp8;
  c.kv_bytes = 1;
  // Bytes the attention cores of one pass read, per rank.
  auto attention_read = [&](const TransformerSpec& model, Phase phase, DecodeKvReads reads) {
    c.phase = phase;
    c.seq_len = phase == Phase::decode ? 2048 : 3072;
    c.decode_kv = reads;
    double bytes = 0;
    for (const OpGroup& g : transformer_ops(model, c))
      for (const Op& op : g.ops)
        if (op.kind == OpKind::attention) bytes += g.repeats * op.bytes_read;
    return bytes;
  };
  auto kv_read = [&](Phase phase, DecodeKvReads reads) { return attention_read(m, phase, reads); };
  const double queries = 80 * 64 * (64 / 2) * 128 * 1.0;  // the query tokens' own reads (2-byte activations)
  const double shared = kv_read(Phase::decode, DecodeKvReads::shared) - 2 * queries;
  const double per_head = kv_read(Phase::decode, DecodeKvReads::per_query_head) - 2 * queries;
  CHECK(shared == doctest::Approx(64.0 * 3072 * 80 * 2 * 4 * 128));  // 16.1 GB per rank and step
  CHECK(per_head == doctest::Approx(8 * shared));
  // Prefill and MHA models do not change.
  CHECK(kv_read(Phase::prefill, DecodeKvReads::per_query_head) == kv_read(Phase::prefill, DecodeKvReads::shared));
  const TransformerSpec mha = spec("llama2-7b");
  CHECK(attention_read(mha, Phase::decode, DecodeKvReads::per_query_head) == attention_read(mha, Phase::decode, DecodeKvReads::shared));
}

TEST_CASE("F-DROP-1: Korthikanti's 22B layer trains with dropout: 671.1 MB each way over the probabilities, a mask at each residual") {
  TransformerSpec m = spec("gpt3-175b");
  m.layers = 48, m.hidden = 6144, m.heads = 64, m.kv_heads = 64, m.head_dim = 96, m.ffn_hidden = 24576;
  m.dropout = 0.1;
  OpContext c = training(4, 2048, AttentionMask::causal);
  c.tp = 8;
  c.kernel = AttentionKernel::materialised;
  auto layer = [&](const OpContext& ctx, const TransformerSpec& spec_) {
    const std::vector<OpGroup> g = transformer_ops(spec_, ctx);
    return g.at(1).ops;  // the dense layer
  };
  auto find = [](const std::vector<Op>& ops, std::string_view name) -> const Op* {
    for (const Op& op : ops)
      if (op.name == name) return &op;
    return nullptr;
  };
  const std::vector<Op> ops = layer(c, m);
  const double probs = 4.0 * 8 * 2048 * 2048;  // 134.2 M per rank
  const Op* drop = find(ops, "attn.dropout");
  REQUIRE(drop);
  CHECK(drop->bytes_read + drop->bytes_written == doctest::Approx(5 * probs));
  CHECK(5 * probs == doctest::Approx(671.089e6).epsilon(1e-6));
  const Op* back = find(ops, "attn.dropout.bwd");
  REQUIRE(back);
  CHECK(back->bytes_read + back->bytes_written == doctest::Approx(5 * probs));
  const double e = 4.0 * 2048 * 6144;  // the residual's elements (no sequence parallelism)
  const Op* residual = find(ops, "attn.residual");
  REQUIRE(residual);
  CHECK(residual->bytes_written == doctest::Approx(3 * e));  // output (2 B) and mask (1 B)
  const Op* residual_back = find(ops, "attn.residual.bwd");
  REQUIRE(residual_back);
  CHECK(residual_back->bytes_read == doctest::Approx(3 * e));
  CHECK(residual_back->bytes_written == doctest::Approx(2 * e));
  // Selective recomputation redoes it with the attention core.
  OpContext selective = c;
  selective.recompute = Recompute::selective;
  CHECK(find(layer(selective, m), "attn.dropout.recompute"));
  // A FlashAttention kernel drops inside itself; without dropout there is nothing at all.
  OpContext flash = c;
  flash.kernel = AttentionKernel::flash;
  CHECK_FALSE(find(layer(flash, m), "attn.dropout"));
  TransformerSpec dry = m;
  dry.dropout = 0;
  const std::vector<Op> none = layer(c, dry);
  CHECK_FALSE(find(none, "attn.dropout"));
  CHECK_FALSE(find(none, "attn.residual.bwd"));
  CHECK(find(none, "attn.residual")->bytes_written == doctest::Approx(2 * e));
}

TEST_CASE("F-GRAD-1: weight gradients added apart move (b + g) + g bytes per weight, 530B on tp 8 in FP16: 3.77 GB a layer") {
  TransformerSpec m = spec("gpt3-175b");
  m.layers = 105, m.hidden = 20480, m.heads = 128, m.kv_heads = 128, m.head_dim = 160, m.ffn_hidden = 81920;
  OpContext c = training(1, 2048, AttentionMask::causal);
  c.tp = 8;
  c.separate_grad_accumulation = true;
  c.grad_bytes = 2;
  double moved = 0, wgrad_written = 0;
  const std::vector<OpGroup> separate = transformer_ops(m, c);
  for (const Op& op : separate.at(1).ops) {
    if (op.name.ends_with(".grad_accumulate")) moved += op.bytes_read + op.bytes_written;
    if (op.name.ends_with(".wgrad")) wgrad_written += op.bytes_written;
  }
  const double weights = 12.0 * 20480 * 20480 / 8;  // 629.1 M per rank
  CHECK(moved == doctest::Approx(6 * weights));
  CHECK(moved == doctest::Approx(3.775e9).epsilon(1e-3));
  CHECK(wgrad_written == doctest::Approx(2 * weights));  // the GEMMs write a 16-bit gradient
  c.separate_grad_accumulation = false;
  c.grad_bytes = 4;
  wgrad_written = 0;
  const std::vector<OpGroup> fused = transformer_ops(m, c);
  for (const Op& op : fused.at(1).ops) {
    CHECK_FALSE(op.name.ends_with(".grad_accumulate"));
    if (op.name.ends_with(".wgrad")) wgrad_written += op.bytes_written;
  }
  CHECK(wgrad_written == doctest::Approx(4 * weights));  // fused: accumulated into the FP32 main gradient
}
