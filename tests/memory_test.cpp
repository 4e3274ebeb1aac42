// The memory models against MODELS-REFERENCE §18 worked examples (E1, E2, E3, E8, E9) and the
// formulas' own cross-checks, exactly or to the last byte.
#include <doctest/doctest.h>

#include "engine/data/workload_reader.hpp"
#include "models/memory.hpp"

using namespace perfcast;
using namespace perfcast::models;

namespace {

TransformerSpec preset(const std::string& name) { return load_preset(PERFCAST_DEFAULT_WORKLOADS, name).transformer(); }

const OptimizerRecipe& recipe(std::string_view name) {
  const OptimizerRecipe* r = find_recipe(name);
  REQUIRE(r != nullptr);
  return *r;
}

}  // namespace

TEST_CASE("recipes: bytes per parameter before sharding (F-MEM-3)") {
  CHECK(recipe("mixed-adam").bytes_per_param() == 16);
  CHECK(recipe("megatron-bf16").bytes_per_param() == 18);
  CHECK(recipe("megatron-fp16").bytes_per_param() == 20);
  CHECK(recipe("fp32-adam").bytes_per_param() == 16);
  CHECK(recipe("fp8-te").bytes_per_param() == 19);
  CHECK(recipe("bf16-moments").bytes_per_param() == 14);
  CHECK(recipe("adam-8bit").bytes_per_param() == 10);
  CHECK(recipe("pure-bf16").bytes_per_param() == 8);
  CHECK(find_recipe("adam") == nullptr);
}

TEST_CASE("E3: ZeRO stages for 7.5B parameters on 64 ranks (ZeRO Fig. 1)") {
  const double psi = 7.5e9;
  const OptimizerRecipe& r = recipe("mixed-adam");
  CHECK(model_states(r, psi, 0, 0, 64, Offload::none).states() == doctest::Approx(120e9).epsilon(1e-12));
  CHECK(model_states(r, psi, 0, 1, 64, Offload::none).states() == doctest::Approx(31.40625e9).epsilon(1e-12));
  CHECK(model_states(r, psi, 0, 2, 64, Offload::none).states() == doctest::Approx(16.640625e9).epsilon(1e-12));
  CHECK(model_states(r, psi, 0, 3, 64, Offload::none).states() == doctest::Approx(1.875e9).epsilon(1e-12));
  // Megatron bf16 + fp32 main grads: 18 B, distributed optimizer 6 + 12/d.
  CHECK(model_states(recipe("megatron-bf16"), psi, 0, 0, 64, Offload::none).states() == doctest::Approx(135e9));
  CHECK(model_states(recipe("megatron-bf16"), psi, 0, 1, 64, Offload::none).states() == doctest::Approx(46.40625e9));
  CHECK(model_states(recipe("megatron-fp16"), psi, 0, 1, 8, Offload::none).states() == doctest::Approx((4 + 16.0 / 8) * psi));
  CHECK(model_states(recipe("fp32-adam"), psi, 0, 1, 8, Offload::none).states() == doctest::Approx((8 + 8.0 / 8) * psi));
}

TEST_CASE("DeepSpeed estimator conventions: ZeRO-2 4 + 16/N, ZeRO-3 18/N + 4 x largest layer, offload") {
  const OptimizerRecipe& r = recipe("deepspeed-estimator");
  const double psi = 2851e6, largest = 32e6;
  CHECK(model_states(r, psi, largest, 2, 8, Offload::none).total() == doctest::Approx((4 + 16.0 / 8) * psi));
  CHECK(model_states(r, psi, largest, 2, 8, Offload::optimizer).total() == doctest::Approx(2 * psi));
  CHECK(model_states(r, psi, largest, 3, 8, Offload::none).total() == doctest::Approx(4 * largest + 18 * psi / 8));
  CHECK(model_states(r, psi, largest, 3, 8, Offload::optimizer).total() == doctest::Approx(4 * largest + 2 * psi / 8));
  CHECK(model_states(r, psi, largest, 3, 8, Offload::optimizer_and_params).total() == doctest::Approx(4 * largest));
  // The gather is a ZeRO-3 transient only.
  CHECK(model_states(r, psi, largest, 2, 8, Offload::none).gather == 0);
}

TEST_CASE("E8: Korthikanti et al. activations of a GPT-3 175B layer, s = 2048, b = 1, t = 8") {
  TransformerSpec m = preset("gpt3-175b");
  REQUIRE(m.dropout > 0);
  ActivationContext c;
  c.seq_len = 2048;
  c.kernel = AttentionKernel::materialised;
  const double sbh = 2048.0 * 12288;
  // No parallelism: sbh(34 + 5as/h), exactly.
  CHECK(layer_activation_bytes(m, c, false) == sbh * (34 + 5.0 * 96 * 2048 / 12288));
  CHECK(layer_activation_bytes(m, c, false) == 2'868'903'936.0);
  c.tp = 8;
  CHECK(layer_activation_bytes(m, c, false) == 578'813'952.0);  // sbh(10 + 24/t + 5as/(ht))
  c.sequence_parallel = true;
  CHECK(layer_activation_bytes(m, c, false) == 358'612'992.0);  // sbh/t (34 + 5as/h)
  c.recompute = Recompute::selective;
  CHECK(layer_activation_bytes(m, c, false) == 106'954'752.0);  // 34 sbh/t
  c.sequence_parallel = false;
  CHECK(layer_activation_bytes(m, c, false) == sbh * (10 + 24.0 / 8));
  c.recompute = Recompute::full;
  CHECK(layer_activation_bytes(m, c, false) == 50'331'648.0);  // 2sbh
}

TEST_CASE("the Korthikanti form holds for other GPT shapes, micro-batches and TP degrees") {
  TransformerSpec m = preset("megatron-gpt-18.4b");  // h 6144, a 48
  ActivationContext c;
  c.kernel = AttentionKernel::materialised;
  c.seq_len = 2048;
  c.micro_batch = 4;
  c.tp = 4;
  const double s = 2048, b = 4, h = 6144, a = 48, t = 4;
  CHECK(layer_activation_bytes(m, c, false) == doctest::Approx(s * b * h * (10 + 24 / t + 5 * a * s / (h * t))).epsilon(1e-15));
}

TEST_CASE("E9: generalised activations of a Llama-3-70B layer, s = 8192, FlashAttention, no dropout") {
  TransformerSpec m = preset("llama3-70b");
  ActivationContext c;
  c.seq_len = 8192;
  CHECK(layer_activation_bytes(m, c, false) == 2'250'244'096.0);
  c.tp = 8;
  c.sequence_parallel = true;
  CHECK(layer_activation_bytes(m, c, false) == 281'280'512.0);
  // Context parallelism divides every term by cp.
  c.cp = 2;
  CHECK(layer_activation_bytes(m, c, false) == 281'280'512.0 / 2);
}

TEST_CASE("MoE and MLA layers save their own tensors") {
  TransformerSpec v3 = preset("deepseek-v3");
  ActivationContext c;
  c.seq_len = 4096;
  auto tensors = layer_activations(v3, c, true);
  double experts = 0, router = 0, latent = 0;
  for (const SavedTensor& t : tensors) {
    if (t.name == "moe.expert activation input") experts = t.bytes;
    if (t.name == "moe.router logits (fp32)") router = t.bytes;
    if (t.name == "mla.kv latent + rope key") latent = t.bytes;
  }
  // Routed: C·k·T rows of the gated expert width (2 of 3 f_e-wide tensors), fp32 router logits T·E·4.
  CHECK(experts == 2.0 * 2 * 8 * 4096 * 2048);
  CHECK(router == 4.0 * 4096 * 256);
  CHECK(latent == 2.0 * 4096 * (512 + 64));
  // Expert tensor parallelism divides the expert width.
  c.etp = 2;
  double split = 0;
  for (const SavedTensor& t : layer_activations(v3, c, true))
    if (t.name == "moe.expert activation input") split = t.bytes;
  CHECK(split == experts / 2);
}

TEST_CASE("E6 / F-MEM-6: micro-batches in flight per pipeline schedule, p = 8, m = 32") {
  CHECK(in_flight_chunks(Schedule::one_f_one_b, 8, 1, 32, 0) == 8);
  CHECK(in_flight_chunks(Schedule::one_f_one_b, 8, 1, 32, 7) == 1);
  CHECK(in_flight_chunks(Schedule::one_f_one_b, 8, 1, 4, 0) == 4);  // fewer micro-batches than stages
  CHECK(in_flight_chunks(Schedule::gpipe, 8, 1, 32, 3) == 32);
  CHECK(in_flight_chunks(Schedule::zb_h1, 8, 1, 32, 0) == 8);
  CHECK(in_flight_chunks(Schedule::zb_h2, 8, 1, 32, 0) == 15);
  // Interleaved, v = 4: chunks of L/32 layers; Megatron's first-stage factor L·(1 + (p−1)/(p·v)).
  const double chunks = in_flight_chunks(Schedule::one_f_one_b, 8, 4, 32, 0);
  CHECK(chunks / 32 == doctest::Approx(1 + 7.0 / 32));
}

TEST_CASE("E1/E2: KV cache per token, TP sharding and replication, quantised formats") {
  TransformerSpec l70 = preset("llama3-70b");
  const QuantFormat bf16 = kv_format(Precision::bf16);
  CHECK(kv_bytes_per_token(l70, bf16, 1, 80) == 327'680);
  CHECK(8192 * kv_bytes_per_token(l70, bf16, 1, 80) == 2'684'354'560.0);
  CHECK(kv_bytes_per_token(l70, bf16, 8, 80) == 40'960);
  CHECK(kv_bytes_per_token(l70, bf16, 16, 80) == 40'960);  // 8 KV heads: replicated beyond tp = 8
  CHECK(8192 * kv_bytes_per_token(l70, kv_format(Precision::fp8), 1, 80) == 1'342'177'280.0);  // 1.25 GiB
  CHECK(kv_format(Precision::int4).bytes_per_element() == 0.625);  // KIVI groups of 32: fp16 scale + zero
  TransformerSpec v3 = preset("deepseek-v3");
  CHECK(kv_bytes_per_token(v3, bf16, 1, 61) == 70'272);
  CHECK(kv_bytes_per_token(v3, bf16, 8, 61) == 70'272);  // the latent is not sharded by TP
  CHECK(8192 * kv_bytes_per_token(v3, bf16, 1, 61) == 575'668'224.0);
  CHECK(kv_bytes_per_token(preset("llama3.1-405b"), bf16, 1, 126) == 516'096);
}

TEST_CASE("F-KV-3: paged allocation rounds each sequence up to whole blocks") {
  CHECK(paged_tokens(1000, 16) == 1008);  // 63 blocks, 8 slots wasted
  CHECK(paged_tokens(8190, 16) == 8192);
  CHECK(paged_tokens(100, 16) == 112);    // 12 wasted (10.7 %)
  CHECK(paged_tokens(4096, 16) == 4096);
}

TEST_CASE("weight formats carry their scales") {
  CHECK(weight_format(Precision::bf16, 8192).bytes_per_element() == 2);
  CHECK(weight_format(Precision::int4, 8192).bytes_per_element() == 0.5 + 2.5 / 128);
  CHECK(weight_format(Precision::fp4, 8192).bytes_per_element() == 0.5 + 1.0 / 16);  // NVFP4: an E4M3 scale per 16
  CHECK(weight_format(Precision::fp4, 8192, Fp4Blocks::mxfp4).bytes_per_element() == 0.5 + 1.0 / 32);  // MXFP4: E8M0 per 32
  CHECK(weight_format(Precision::fp8, 8192, Fp4Blocks::mxfp4).bytes_per_element() == 1 + 4.0 / 16384);  // only 4-bit floats
  CHECK(weight_format(Precision::int8, 8192).bytes_per_element() == 1 + 2.0 / 8192);
  CHECK(weight_format(Precision::fp8, 8192).bytes_per_element() == 1 + 4.0 / 16384);
}
