// What a PyTorch-native stack and a power-limited board change (torchtitan on Grand Teton H100):
// the sustained clock under a power limit (F-EN-4), the attention kernel each stack runs, and PyTorch's
// op-level selective recomputation, eager modules against torch.compile. Expected figures are hand-computed
// in each case.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>
#include <string>

#include "engine/data/hardware_resolution.hpp"
#include "engine/predict/communication.hpp"
#include "engine/predict/inference.hpp"
#include "engine/predict/roofline.hpp"
#include "engine/predict/training.hpp"
#include "models/eager_kernels.hpp"
#include "models/energy.hpp"
#include "models/transformer_ops.hpp"
#include "tests/scenario_text.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;

namespace {

std::string llama8b(const std::string& hardware, const std::string& training_extra = "", std::string_view recompute = "none") {
  return fmt::format(R"(
[model]
preset = "llama3-8b"
[hardware]
{}
[training]
seq_len = 8192
global_batch = 16
micro_batch = 2
recompute = "{}"
{}
[parallelism]
zero = 3
)", hardware, recompute, training_extra);
}

double flops_of(const std::vector<models::OpGroup>& groups, const std::string& group, models::Pass pass, models::OpKind kind) {
  double sum = 0;
  for (const models::OpGroup& g : groups)
    if (g.name == group)
      for (const models::Op& op : g.ops)
        if (op.pass == pass && op.kind == kind) sum += op.flops;
  return sum;
}

}  // namespace

TEST_CASE("F-EN-4: a power limit below TDP lowers the sustained tensor rate by the measured power law") {
  // (500 - 140) / (700 - 140) = 0.642857; to the power 1/2.232 (the kit's duty runs on an H200): 0.820408.
  CHECK(models::sustained_clock_ratio(500, 700, 140) == doctest::Approx(0.820408).epsilon(1e-5));
  // At the limit the idle floor leaves nothing for tensor work: no rate, not a NaN.
  CHECK(models::sustained_clock_ratio(140, 700, 140) == 0.0);
  CHECK(models::sustained_clock_ratio(700, 700, 140) == 1.0);
  CHECK(models::sustained_clock_ratio(800, 700, 140) == 1.0);
}

TEST_CASE("A power limit scales the tensor peaks, not HBM, and MFU still counts the datasheet peak") {
  const Scenario base = test::scenario(llama8b("system = \"hgx-h100\"\nnodes = 1"));
  const Scenario limited = test::scenario(llama8b("system = \"hgx-h100\"\nnodes = 1\npower_limit = 500"));
  // The limit's clock (F-EN-4) on top of the H100's measured sustained BF16 rate at its TDP (F-EN-5, 0.896).
  CHECK(*base.hw.device.peak(Precision::bf16) == doctest::Approx(989.4e12 * 0.896).epsilon(1e-5));
  CHECK(*limited.hw.device.peak(Precision::bf16) == doctest::Approx(989.4e12 * 0.896 * 0.820408).epsilon(1e-5));
  CHECK(*limited.hw.device.memory_bandwidth_Bps == *base.hw.device.memory_bandwidth_Bps);
  const TrainingPrediction p0 = predict_training(base), p1 = predict_training(limited);
  CHECK(p0.peak_ops_per_s == doctest::Approx(989.4e12));
  CHECK(p1.peak_ops_per_s == doctest::Approx(989.4e12));
  CHECK(p1.step_time_s > p0.step_time_s * 1.15);  // compute is ~90 % of this step; 1/0.8204 = 1.219
  CHECK(p1.step_time_s < p0.step_time_s / 0.820408);
  // Grand Teton's H100 ships limited to 500 W: the same clock without saying so.
  const Scenario teton = test::scenario(llama8b("system = \"grand-teton-h100\"\nnodes = 1"));
  CHECK(teton.hw.power_limit_W == 500.0);
  CHECK(teton.hw.clock_ratio == doctest::Approx(0.820408).epsilon(1e-5));
  // Both a training step and a served model say what the limit takes off the tensor peak.
  const auto says_limit = [](const std::vector<std::string>& lines) {
    return std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
      return l.starts_with("power limit 500 W of 700 W TDP: tensor-core work at 0.820 of the rate held at TDP") &&
             l.find("so the bf16 peak is 0.735 of the datasheet's") != std::string::npos;  // 0.896 x 0.8204
    });
  };
  CHECK(says_limit(p1.assumptions));
  CHECK_FALSE(says_limit(p0.assumptions));
  const Scenario serving = test::scenario(
      "schema_version = 1\n[model]\npreset = \"llama3-8b\"\n[hardware]\nsystem = \"hgx-h100\"\npower_limit = 500\n"
      "[inference]\ninput_len = 512\noutput_len = 128\nbatch = 8\n");
  CHECK(says_limit(predict_inference(serving).assumptions));
}

TEST_CASE("A power limit above TDP, at or below idle, or beside a power mode is refused in one line") {
  CHECK(test::scenario_error(llama8b("system = \"hgx-h100\"\npower_limit = 800")).find("hardware.power_limit: 800 W is above h100-sxm's TDP 700 W") !=
        std::string::npos);
  CHECK(test::scenario_error(llama8b("system = \"hgx-h100\"\npower_limit = 100")).find("is not above h100-sxm's idle power 140 W") !=
        std::string::npos);
  CHECK(test::scenario_error(llama8b("system = \"hgx-h100\"\npower_limit = -5")).find("hardware.power_limit") != std::string::npos);
}

TEST_CASE("The attention kernel is the stack's on Hopper and Blackwell: cuDNN under torchtitan (FlashAttention-2 under its 2024 release's torch), cuDNN under TE stacks") {
  const auto kernel = [](const Scenario& s) {
    const models::OpContext c = training_context(s, s.hw.device);
    for (const models::OpGroup& g : models::transformer_ops(s.workload.transformer(), c))
      for (const models::Op& op : g.ops)
        if (op.kind == models::OpKind::attention) return op.attention_impl;
    return models::AttentionImpl::generic;
  };
  using enum models::AttentionImpl;
  // Today's SDPA picks cuDNN on H100 (the GPU kit's torch._fused_sdp_choice, torch 2.11); December 2024's picked flash.
  CHECK(kernel(test::scenario(llama8b("system = \"hgx-h100\"", "stack = \"torchtitan\""))) == cudnn);
  CHECK(kernel(test::scenario(llama8b("system = \"hgx-h100\"", "stack = \"torchtitan-2024\""))) == fa2);
  CHECK(kernel(test::scenario(llama8b("system = \"dgx-b200\"", "stack = \"torchtitan\""))) == cudnn);
  CHECK(kernel(test::scenario(llama8b("system = \"hgx-h100\"", "stack = \"megatron-lm\""))) == cudnn);
  CHECK(kernel(test::scenario(llama8b("system = \"dgx-b200\"", "stack = \"nemo\""))) == cudnn);
  CHECK(kernel(test::scenario(llama8b("system = \"hgx-h100\"", "stack = \"deepspeed\""))) == generic);
  CHECK(kernel(test::scenario(llama8b("system = \"dgx-a100-80gb\"", "stack = \"torchtitan\""))) == generic);
}

TEST_CASE("torchtitan's selective recomputation redoes every second matmul of a layer and its elementwise ops, not attention") {
  const Scenario s = test::scenario(llama8b("system = \"hgx-h100\"", "stack = \"torchtitan\"", "selective"));
  const auto groups = models::transformer_ops(s.workload.transformer(), training_context(s, s.hw.device));
  // Llama 3 8B layer, matmuls in execution order: wq, wk, wv, wo, w1, w3, w2; the 2nd, 4th and 6th
  // (wk: 1,024 wide, wo: 4,096, w3: 14,336) are redone over K = 4,096 for T = 2 x 8,192 tokens.
  const double T = 2 * 8192.0;
  CHECK(flops_of(groups, "dense layer", models::Pass::recompute, models::OpKind::gemm) ==
        doctest::Approx(2 * T * 4096 * (1024 + 4096 + 14336)));
  CHECK(flops_of(groups, "dense layer", models::Pass::recompute, models::OpKind::attention) == 0);
  double memory_recomputed = 0;
  for (const models::OpGroup& g : groups)
    for (const models::Op& op : g.ops)
      if (g.name == "dense layer" && op.pass == models::Pass::recompute && op.kind == models::OpKind::memory) memory_recomputed += op.bytes();
  CHECK(memory_recomputed > 0);
  // Under a TE stack, selective means Korthikanti's attention-core recomputation: nothing with FlashAttention.
  const Scenario te = test::scenario(llama8b("system = \"hgx-h100\"", "stack = \"megatron-lm\"", "selective"));
  const auto te_groups = models::transformer_ops(te.workload.transformer(), training_context(te, te.hw.device));
  CHECK(flops_of(te_groups, "dense layer", models::Pass::recompute, models::OpKind::gemm) == 0);
}

TEST_CASE("FP8 current scaling reads each GEMM input and output gradient once more for its amax, delayed scaling does not") {
  const auto amax_bytes = [](const Scenario& s, models::Pass pass) {
    double read = 0;
    for (const models::OpGroup& g : models::transformer_ops(s.workload.transformer(), training_context(s, s.hw.device)))
      for (const models::Op& op : g.ops)
        if (g.name == "dense layer" && op.pass == pass && op.name.ends_with("fp8_amax")) {
          CHECK(op.bytes_written == 0);
          read += op.bytes_read;
        }
    return read;
  };
  const Scenario current = test::scenario(llama8b("system = \"hgx-h100\"", "precision = \"fp8\"\nstack = \"nemo\""));
  CHECK(current.training->fp8_scaling == models::Fp8Scaling::current);
  // Llama 3 8B layer, T = 2 x 8,192 tokens in BF16 (2 B): the QKV and gate/up inputs (4,096 wide), the
  // attention output (4,096) and the SwiGLU output (14,336) feeding the projection and down GEMMs.
  const double T = 2 * 8192.0;
  CHECK(amax_bytes(current, models::Pass::forward) == doctest::Approx(T * 2 * (4096 + 4096 + 4096 + 14336)));
  // Backward: the output gradients of QKV (6,144 = 4,096 + 2 x 1,024), projection (4,096), gate/up
  // (2 x 14,336) and down (4,096).
  CHECK(amax_bytes(current, models::Pass::backward) == doctest::Approx(T * 2 * (6144 + 4096 + 28672 + 4096)));
  const Scenario delayed = test::scenario(llama8b("system = \"hgx-h100\"", "precision = \"fp8\"\nstack = \"megatron-lm\""));
  CHECK(delayed.training->fp8_scaling == models::Fp8Scaling::delayed);
  CHECK(amax_bytes(delayed, models::Pass::forward) == 0);
  const Scenario told = test::scenario(llama8b("system = \"hgx-h100\"", "precision = \"fp8\"\nstack = \"nemo\"\nfp8_recipe = \"delayed\""));
  CHECK(amax_bytes(told, models::Pass::backward) == 0);
  CHECK(predict_training(current).step_time_s > predict_training(told).step_time_s);
  CHECK(test::scenario(llama8b("system = \"hgx-h100\"", "precision = \"fp8\"\nstack = \"torchtitan\"")).training->fp8_scaling ==
        models::Fp8Scaling::current);
  CHECK(test::scenario_error(llama8b("system = \"hgx-h100\"", "precision = \"fp8\"\nfp8_recipe = \"hybrid\"")).find("training.fp8_recipe") !=
        std::string::npos);
}

TEST_CASE("F-EAGER-1: the bytes eager PyTorch modules move per element, forward and backward, in BF16") {
  const models::EagerModule norm = models::eager_rmsnorm(2);
  CHECK(norm.forward.read + norm.forward.written == 36);  // 2+4+4+4+2 read, 4+4+4+2+2 written
  CHECK(norm.forward.kernels == 8);
  CHECK(norm.backward.read + norm.backward.written == 92);
  CHECK(norm.backward.kernels == 16);
  const models::EagerModule rope = models::eager_rope(2);
  CHECK(rope.forward.read == 10);
  CHECK(rope.backward.written == 10);
  const models::EagerModule swiglu = models::eager_swiglu(2);
  CHECK(swiglu.forward.read + swiglu.forward.written == 10);
  CHECK(swiglu.backward.read + swiglu.backward.written == 18);
  const models::EagerModule loss = models::eager_cross_entropy(2);
  CHECK(loss.forward.read + loss.forward.written == 22);
  CHECK(loss.backward.read + loss.backward.written == 26);
  CHECK(models::eager_residual_gradient(2).read == 4);
}

namespace {

struct OpBytes {
  double forward = 0, backward = 0, kernels = 0;
};

// An op's bytes in the named group, forward and its backward (`name` + ".bwd").
OpBytes op_bytes(const Scenario& s, const std::string& group, const std::string& name) {
  OpBytes b;
  for (const models::OpGroup& g : models::transformer_ops(s.workload.transformer(), training_context(s, s.hw.device)))
    for (const models::Op& op : g.ops)
      if (g.name == group && op.name == name) b.forward += op.bytes(), b.kernels += op.kernels;
      else if (g.name == group && op.name == name + ".bwd") b.backward += op.bytes();
  return b;
}

}  // namespace

TEST_CASE("Eager torchtitan modules move F-EAGER-1's bytes, torch.compile fuses the blocks, and today's release the loss too") {
  // Llama 3 8B, micro-batch 2 x 8,192 tokens: a norm over T x 4,096, RoPE over T x (32 + 8) x 128, the
  // loss over T x 128,256 logits, all BF16.
  const double T = 2 * 8192.0, E = T * 4096, logits = T * 128256;
  const Scenario eager = test::scenario(llama8b("system = \"grand-teton-h100\"", "stack = \"torchtitan-2024\""));
  CHECK(op_bytes(eager, "dense layer", "attn.norm").forward == doctest::Approx(36 * E));
  CHECK(op_bytes(eager, "dense layer", "attn.norm").kernels == 8);
  CHECK(op_bytes(eager, "dense layer", "attn.norm").backward == doctest::Approx(92 * E));
  CHECK(op_bytes(eager, "dense layer", "attn.rope").forward == doctest::Approx(20 * T * 40 * 128));
  CHECK(op_bytes(eager, "dense layer", "mlp.act").backward == doctest::Approx(18 * T * 14336));
  CHECK(op_bytes(eager, "dense layer", "attn.residual").backward == doctest::Approx(6 * E));
  CHECK(op_bytes(eager, "embedding and LM head", "loss.cross_entropy").forward == doctest::Approx(22 * logits));
  // repeat_kv: K and V (8 heads of 128) read, written once per query head (32); backward the reverse.
  CHECK(op_bytes(eager, "dense layer", "attn.repeat_kv").forward == doctest::Approx(2 * T * 2 * (1024 + 4096)));

  const Scenario compiled = test::scenario(llama8b("system = \"grand-teton-h100\"", "stack = \"torchtitan-2024\"\ncompile = true"));
  CHECK(op_bytes(compiled, "dense layer", "attn.norm").forward == doctest::Approx(4 * E));
  CHECK(op_bytes(compiled, "dense layer", "attn.norm").backward == doctest::Approx(6 * E));
  CHECK(op_bytes(compiled, "dense layer", "attn.residual").backward == 0);
  CHECK(op_bytes(compiled, "dense layer", "attn.repeat_kv").forward == doctest::Approx(2 * T * 2 * (1024 + 4096)));
  CHECK(op_bytes(compiled, "embedding and LM head", "loss.cross_entropy").forward == doctest::Approx(22 * logits));
  CHECK(op_bytes(compiled, "embedding and LM head", "final.norm").forward == doctest::Approx(36 * E));

  // Today's torchtitan: nn.RMSNorm is one fused kernel, GQA goes to SDPA, compile covers the loss.
  const Scenario today = test::scenario(llama8b("system = \"grand-teton-h100\"", "stack = \"torchtitan\""));
  CHECK(op_bytes(today, "dense layer", "attn.norm").forward == doctest::Approx(4 * E));
  CHECK(op_bytes(today, "dense layer", "attn.rope").forward == doctest::Approx(20 * T * 40 * 128));
  CHECK(op_bytes(today, "dense layer", "attn.repeat_kv").forward == 0);
  const Scenario today_compiled = test::scenario(llama8b("system = \"grand-teton-h100\"", "stack = \"torchtitan\"\ncompile = true"));
  CHECK(op_bytes(today_compiled, "embedding and LM head", "loss.cross_entropy").forward == doctest::Approx(4 * logits));

  // Eager is slower by the extra traffic; a TE stack's modules are fused and compile is refused there.
  CHECK(predict_training(eager).step_time_s > predict_training(compiled).step_time_s * 1.10);
  const std::string error = test::scenario_error(llama8b("system = \"grand-teton-h100\"", "stack = \"megatron-lm\"\ncompile = true"));
  CHECK(error.find("training.compile: stack megatron-lm runs fused kernels") != std::string::npos);
}

TEST_CASE("MXFP8 and NVFP4 training: block scales in the cast, NVFP4's amax pass, BF16 LM head and attention, Blackwell only") {
  // Bytes the dense layer's casts write and its amax passes read, forward, and the precision of its GEMMs.
  struct Casts {
    double written = 0, amax_read = 0;
    std::set<Precision> gemm_math;
    Precision lm_head = Precision::fp32, attention = Precision::fp32;
  };
  const auto casts = [](const Scenario& s) {
    Casts c;
    for (const models::OpGroup& g : models::transformer_ops(s.workload.transformer(), training_context(s, s.hw.device)))
      for (const models::Op& op : g.ops) {
        if (op.name == "lm_head") c.lm_head = op.precision;
        if (op.kind == models::OpKind::attention && op.pass == models::Pass::forward) c.attention = op.precision;
        if (g.name != "dense layer" || op.pass != models::Pass::forward) continue;
        if (op.name.ends_with(".fp8_cast")) c.written += op.bytes_written;
        if (op.name.ends_with(".fp8_amax")) c.amax_read += op.bytes_read;
        if (op.kind == models::OpKind::gemm) c.gemm_math.insert(op.precision);
      }
    return c;
  };
  // The dense layer's four GEMM inputs, T = 2 x 8,192 tokens: 4,096 (QKV), 4,096 (projection),
  // 4,096 (gate/up) and 14,336 (down) wide; two copies each.
  const double inputs = 2 * 8192.0 * (4096 + 4096 + 4096 + 14336);
  const Scenario mx = test::scenario(llama8b("system = \"dgx-b200\"", "precision = \"fp8\"\nstack = \"nemo\"\nfp8_recipe = \"mxfp8\""));
  const Casts m = casts(mx);
  CHECK(m.written == doctest::Approx(2 * (1 + 1.0 / 32) * inputs));  // E4M3 + an E8M0 scale per 32
  CHECK(m.amax_read == 0);
  const Scenario fp4 = test::scenario(llama8b("system = \"dgx-b200\"", "precision = \"fp4\"\nstack = \"nemo\""));
  const Casts f = casts(fp4);
  CHECK(f.written == doctest::Approx(2 * (0.5 + 1.0 / 16) * inputs));  // E2M1 + an E4M3 scale per 16
  CHECK(f.amax_read == doctest::Approx(2 * inputs));                   // one BF16 read per input
  CHECK(f.gemm_math == std::set<Precision>{Precision::fp4});
  CHECK(f.lm_head == Precision::bf16);
  CHECK(f.attention == Precision::bf16);
  CHECK(predict_training(fp4).step_time_s < predict_training(mx).step_time_s);
  CHECK(test::scenario_error(llama8b("system = \"hgx-h100\"", "precision = \"fp8\"\nfp8_recipe = \"mxfp8\""))
            .find("training.fp8_recipe: mxfp8 block scaling runs on Blackwell GPUs only") != std::string::npos);
  CHECK(test::scenario_error(llama8b("system = \"hgx-h100\"", "precision = \"fp4\"")).find("training.precision: fp4 training") !=
        std::string::npos);
  // An FP8 recipe beside another precision means nothing: refused rather than ignored.
  CHECK(test::scenario_error(llama8b("system = \"dgx-b200\"", "precision = \"fp4\"\nfp8_recipe = \"mxfp8\""))
            .find("training.fp8_recipe: applies to precision = \"fp8\"; this scenario trains in fp4") != std::string::npos);
  CHECK(test::scenario_error(llama8b("system = \"hgx-h100\"", "fp8_recipe = \"delayed\"")).find("the device's default precision") !=
        std::string::npos);
}

TEST_CASE("the data-parallel bytes follow the published settings: BF16 gradient reduction, FP8 parameter gather") {
  // Megatron's recipes reduce fp32 main grads (4 B) and gather BF16 weights (2 B); --grad-reduce-in-bf16
  // (NeMo's grad_sync_dtype) halves the first, --fp8-param-gather (NeMo's fp8_params) the second.
  const Scenario plain = test::scenario(llama8b("system = \"hgx-h100\"", "precision = \"fp8\"\nstack = \"nemo\""));
  CHECK(training_layout(plain, 0).gradient_bytes == 4);
  CHECK(training_layout(plain, 0).parameter_bytes == 2);
  const Scenario set = test::scenario(
      llama8b("system = \"hgx-h100\"", "precision = \"fp8\"\nstack = \"nemo\"\nfp8_param_gather = true\ngrad_reduce_dtype = \"bf16\""));
  CHECK(training_layout(set, 0).gradient_bytes == 2);
  CHECK(training_layout(set, 0).parameter_bytes == 1);
  CHECK(predict_training(set).step_time_s < predict_training(plain).step_time_s);
  CHECK(test::scenario_error(llama8b("system = \"hgx-h100\"", "fp8_param_gather = true"))
            .find("training.fp8_param_gather: applies to precision = \"fp8\"") != std::string::npos);
  CHECK(test::scenario_error(llama8b("system = \"hgx-h100\"", "grad_reduce_dtype = \"fp8\"")).find("training.grad_reduce_dtype") !=
        std::string::npos);
}

TEST_CASE("torchao's Float8 (F-LP-2): six casts per linear layer, eager kernels without torch.compile, fused with it") {
  // Bytes the dense layer's casts and layout copies move, by pass, and the cast kernels launched.
  struct Moved {
    double cast_read = 0, cast_written = 0, amax_read = 0, layout = 0, kernels = 0;
  };
  const auto moved = [](const Scenario& s, models::Pass pass) {
    Moved m;
    for (const models::OpGroup& g : models::transformer_ops(s.workload.transformer(), training_context(s, s.hw.device)))
      for (const models::Op& op : g.ops) {
        if (g.name != "dense layer" || op.pass != pass) continue;
        if (op.name.ends_with(".fp8_cast")) m.cast_read += op.bytes_read, m.cast_written += op.bytes_written, m.kernels += op.kernels;
        if (op.name.ends_with(".fp8_amax")) m.amax_read += op.bytes_read;
        if (op.name.ends_with(".fp8_layout_copies")) m.layout += op.bytes_read;
      }
    return m;
  };
  // Llama 3 8B's dense layer at T = 2 x 8,192 tokens: GEMM inputs 4,096 (QKV), 4,096 (projection),
  // 4,096 (gate/up), 14,336 (down) wide; output gradients 6,144, 4,096, 28,672, 4,096 wide; weights.
  const double T = 2 * 8192.0;
  const double inputs = T * (3 * 4096 + 14336), grads = T * (6144 + 4096 + 28672 + 4096);
  const double weights = 4096.0 * (6144 + 4096 + 28672) + 14336.0 * 4096;
  const std::string fp8 = "precision = \"fp8\"\nstack = \"torchtitan\"\n";
  const Scenario eager = test::scenario(llama8b("system = \"hgx-h100\"", fp8));
  // Eager, per BF16 element: abs (2 -> 2), max (2), to float32 (2 -> 4), * scale, clamp (4 -> 4 each),
  // to float8 (4 -> 1): 18 B read, 15 written, ten kernels (four on the one-value amax).
  const Moved ef = moved(eager, models::Pass::forward);
  CHECK(ef.cast_read == doctest::Approx(18 * (inputs + weights)));
  CHECK(ef.cast_written == doctest::Approx(15 * (inputs + weights)));
  CHECK(ef.kernels == doctest::Approx(10 * 2 * 4));  // input and weight of four GEMMs
  CHECK(ef.amax_read == 0);
  // Backward: the output gradient twice, the weight and the input again; the three layout copies.
  const Moved eb = moved(eager, models::Pass::backward);
  CHECK(eb.cast_read == doctest::Approx(18 * (2 * grads + weights + inputs)));
  CHECK(eb.layout == doctest::Approx(grads + weights + inputs));
  // Compiled: an amax read and one fused cast pass writing one FP8 byte per element, no copies.
  const Scenario compiled = test::scenario(llama8b("system = \"hgx-h100\"", fp8 + "compile = true"));
  const Moved cf = moved(compiled, models::Pass::forward), cb = moved(compiled, models::Pass::backward);
  CHECK(cf.amax_read == doctest::Approx(2 * (inputs + weights)));
  CHECK(cf.cast_written == doctest::Approx(inputs + weights));
  CHECK(cb.amax_read == doctest::Approx(2 * (2 * grads + weights + inputs)));
  CHECK(cb.layout == 0);
  // Transformer Engine (nemo) keeps F-LP-1: the input cast into two copies, no weight cast counted.
  const Moved te = moved(test::scenario(llama8b("system = \"hgx-h100\"", "precision = \"fp8\"\nstack = \"nemo\"")), models::Pass::forward);
  CHECK(te.cast_written == doctest::Approx(2 * inputs));
  // As the GPU kit measured on one H100 (validation/training-h100-kit.toml): eager FP8 is slower than
  // eager BF16, compiled FP8 faster than compiled BF16.
  const auto step = [](const std::string& extra) {
    return predict_training(test::scenario(llama8b("system = \"hgx-h100\"", "stack = \"torchtitan\"\n" + extra))).step_time_s;
  };
  CHECK(step("precision = \"fp8\"") > step("precision = \"bf16\""));
  CHECK(step("precision = \"fp8\"\ncompile = true") < step("precision = \"bf16\"\ncompile = true"));
}

TEST_CASE("A scenario's tensor peaks are the sustained rate where the database measured one, a microbenchmark's are not (F-EN-5)") {
  const Scenario h100 = test::scenario(llama8b("system = \"hgx-h100\"\nnodes = 1"));
  CHECK(h100.hw.datasheet.sustained_ratio(Precision::bf16) == doctest::Approx(0.896));
  CHECK(h100.hw.datasheet.sustained_ratio(Precision::fp8) == doctest::Approx(0.876));
  CHECK(*h100.hw.device.peak(Precision::fp8) == doctest::Approx(*h100.hw.datasheet.peak(Precision::fp8) * 0.876));
  CHECK(h100.hw.sustained);  // applied once, in the device's peaks
  // A device resolved alone (a microbenchmark case, roofline --hw) keeps the burst rate.
  const ResolvedHardware alone = resolve_accelerator(shipped_db(), "h100-sxm");
  CHECK_FALSE(alone.sustained);
  CHECK(*alone.device.peak(Precision::bf16) == doctest::Approx(989.4e12));
  CHECK(*alone.rated_peak(Precision::bf16) == doctest::Approx(989.4e12));
  CHECK(*h100.hw.rated_peak(Precision::bf16) == doctest::Approx(989.4e12));
  const TrainingPrediction p = predict_training(h100);
  CHECK(std::any_of(p.assumptions.begin(), p.assumptions.end(), [](const std::string& a) { return a.find("F-EN-5") != std::string::npos; }));
  // No measurement and no stated transfer, no factor: the A100's peaks are its datasheet's.
  const Scenario a100 = test::scenario(llama8b("system = \"dgx-a100-80gb\"\nnodes = 1"));
  CHECK(*a100.hw.device.peak(Precision::bf16) == *a100.hw.datasheet.peak(Precision::bf16));
  CHECK(a100.hw.datasheet.sustained_ratio(Precision::fp16) == 1.0);
}

TEST_CASE("F-EN-5: a precision without its own held rate takes its datapath class's, Blackwell takes the measured Hopper parts' mean") {
  const AcceleratorSpec& h100 = shipped_db().accelerator("h100-sxm");
  // FP16 and TF32 run BF16's datapath, FP6/FP4/INT8/INT4 FP8's; FP32 and FP64 keep their burst rate.
  CHECK(h100.sustained_ratio(Precision::fp16) == h100.sustained_ratio(Precision::bf16));
  CHECK(h100.sustained_ratio(Precision::tf32) == h100.sustained_ratio(Precision::bf16));
  CHECK(h100.sustained_ratio(Precision::int8) == h100.sustained_ratio(Precision::fp8));
  CHECK(h100.sustained_ratio(Precision::fp32) == 1.0);
  CHECK(h100.sustained_ratio(Precision::fp64_tensor) == 1.0);
  // B200, B300, GB200, GB300: the mean of the H100 SXM's and the H200's measured ratios, per class,
  // except B200's BF16 class, which its record measured (FA4 back to back, flashinfer #2899: 0.853).
  const AcceleratorSpec& h200 = shipped_db().accelerator("h200");
  for (const char* name : {"b200", "b300", "gb200", "gb300"}) {
    CAPTURE(name);
    const AcceleratorSpec& b = shipped_db().accelerator(name);
    for (Precision p : {Precision::bf16, Precision::fp16, Precision::fp8, Precision::fp4}) {
      CAPTURE(name_of(p));
      const bool own = std::string_view(name) == "b200" && bytes_per_element(p) == 2;
      CHECK(b.sustained_ratio(p) ==
            doctest::Approx(own ? 0.853 : (h100.sustained_ratio(p) + h200.sustained_ratio(p)) / 2).epsilon(0.001));
    }
    // The record says it was not measured there, and the assumption line carries it.
    CHECK(b.sustained_basis(Precision::fp4).find("not measured on this device") != std::string::npos);
  }
  const Scenario b200 = test::scenario(llama8b("system = \"dgx-b200\"\nnodes = 1", "precision = \"fp8\""));
  CHECK(*b200.hw.device.peak(Precision::fp4) == doctest::Approx(*b200.hw.datasheet.peak(Precision::fp4) * 0.861));
  const TrainingPrediction p = predict_training(b200);
  CHECK(std::any_of(p.assumptions.begin(), p.assumptions.end(),
                    [](const std::string& a) { return a.find("not measured on this device") != std::string::npos; }));
}
