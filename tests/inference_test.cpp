// Inference prediction: the static-batch identities of F-INF-3, speculative decoding (E11), the
// best batch within a TPOT bound, edge frame budgets, and the inference bad-input rules.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/predict/inference.hpp"
#include "engine/predict/roofline.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/validate/validation.hpp"
#include "models/roofline.hpp"
#include "tests/case_files.hpp"
#include "tests/memory_components.hpp"
#include "tests/scenario_text.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;

namespace {

using perfcast::test::scenario;

std::string llama70b(const std::string& inference_extra = "", const std::string& tail = "", int batch = 32) {
  return fmt::format(R"(
[model]
preset = "llama3-70b"
[hardware]
system = "dgx-h100"
nodes = 1
[inference]
input_len = 2048
output_len = 256
batch = {}
{}
[parallelism]
tp = 8
{})", batch, inference_extra, tail);
}

// A vision preset on a Coral USB Accelerator, INT8, batch 1, with a 30 FPS frame budget.
Scenario coral_usb_at_30_fps(const std::string& preset) {
  return scenario(fmt::format(R"(
[model]
preset = "{}"
[hardware]
accelerator = "coral-usb"
[inference]
batch = 1
compute_dtype = "int8"
weight_dtype = "int8"
target_fps = 30
)",
                              preset));
}

std::string error_of(const std::string& text) {
  try {
    predict_inference(scenario(text));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The first op of that name in a report's sections (its first layer group's, for a per-layer op).
models::Op op_named(const RooflineReport& r, std::string_view name) {
  for (const RooflineSection& sec : r.sections)
    for (const RooflineRow& row : sec.rows)
      if (row.op.name == name) return row.op;
  FAIL("no op named " << name);
  return {};
}

}  // namespace

TEST_CASE("a static batch: E2E = TTFT + (n_out - 1) TPOT, throughput = batch x n_out / E2E, the curve rises") {
  const InferencePrediction p = predict_inference(scenario(llama70b()));
  CHECK(p.e2e_s == doctest::Approx(p.ttft_s + 255 * p.tpot_s));
  CHECK(p.output_tokens_per_s == doctest::Approx(32 * 256 / p.e2e_s));
  CHECK(p.output_tokens_per_s_per_device == doctest::Approx(p.output_tokens_per_s / 8));
  CHECK(p.devices == 8);
  CHECK(p.decode_comm_s > 0);  // 160 TP all-reduces per step on NVLink
  CHECK(p.mbu > 0.2);
  CHECK(p.mbu < 1);
  REQUIRE(p.curve.size() > 4);
  for (std::size_t i = 1; i < p.curve.size(); ++i) {
    CHECK(p.curve[i].step_s >= p.curve[i - 1].step_s);
    CHECK(p.curve[i].tokens_per_s > p.curve[i - 1].tokens_per_s * 0.95);
  }
  CHECK(p.curve.back().batch == std::floor(*p.max_batch));
  // E10's form: batch 1 at TP 8 is memory-bound, milliseconds per token.
  CHECK(p.curve.front().step_s > 0.005);
  CHECK(p.curve.front().step_s < 0.02);
}

TEST_CASE("E11: speculative decoding, alpha 0.8, gamma 4, c 0.05") {
  const InferencePrediction p =
      predict_inference(scenario(llama70b("speculative_alpha = 0.8\ndraft_length = 4\ndraft_cost_ratio = 0.05")));
  REQUIRE(p.speculative);
  CHECK(p.speculative->tokens_per_target_step == doctest::Approx(3.3616).epsilon(1e-9));
  CHECK(p.speculative->speedup == doctest::Approx(2.80133).epsilon(1e-5));
  CHECK(p.speculative->tpot_s == doctest::Approx(p.tpot_s / 2.80133).epsilon(1e-5));
}

TEST_CASE("the best batch within a TPOT bound is the edge of the bound") {
  const InferencePrediction p = predict_inference(scenario(llama70b("", "[serving]\ntpot_slo_s = 0.03\n")));
  REQUIRE(p.best_within_tpot);
  const double b = p.best_within_tpot->batch;
  CHECK(p.best_within_tpot->step_s <= 0.03);
  CHECK(decode_step_seconds(scenario(llama70b()), b + 1, 2048 + 128) > 0.03);
}

TEST_CASE("edge: latency, FPS, energy and the frame-budget verdict") {
  const Scenario s = coral_usb_at_30_fps("mobilenet-v2");
  const InferencePrediction p = predict_inference(s);
  REQUIRE(p.edge);
  CHECK(p.edge->fps == doctest::Approx(1 / p.edge->latency_s));
  CHECK(p.edge->energy_per_inference_J == doctest::Approx(p.edge->power_W * p.edge->latency_s));
  CHECK(p.edge->verdict.find("33.3 ms budget at 30 FPS: fits with") == 0);
}

TEST_CASE("E18: parameters beyond the Edge TPU's SRAM stream every inference, a real cliff") {
  // The reference's arithmetic: 20 MB of INT8 weights, 8 MB cached, 12 MB over USB 3 at 350 MB/s.
  models::Ceilings c;
  c.peak_ops_per_s[static_cast<std::size_t>(Precision::int8)] = 4e12;
  c.host_link_Bps = 350e6;
  models::Efficiency e = models::default_efficiency();
  e.host_link = 1;
  const models::Op weights = models::memory_op("stream", 20e6, 0);
  const double streamed_s = models::time_op(weights, c, e, 12e6).host_s;
  CHECK(streamed_s == doctest::Approx(0.0342857).epsilon(1e-5));
  CHECK(streamed_s > 1.0 / 30);  // misses the 33.3 ms frame budget at 30 FPS

  // VGG16 (138.4 M INT8 parameters) on a Coral USB: all but the 8 MB of SRAM stream, and the
  // pass is host-link-bound, within reach of Coral's measured 296 ms.
  const Scenario s = coral_usb_at_30_fps("vgg16");
  InferenceOptions o;
  o.require_fit = false;
  const InferencePrediction p = predict_inference(s, o);
  REQUIRE(p.edge);
  const double weights_B = s.workload.vision().parameters();  // one byte each (INT8)
  CHECK(p.edge->streamed_B == doctest::Approx(weights_B - 8e6).epsilon(0.01));
  CHECK(p.edge->latency_s > p.edge->streamed_B / 500e6);  // USB 3 Gen 1 payload
  CHECK(p.edge->verdict.find("misses") != std::string::npos);
  CHECK(p.bottleneck.find("stream over the host link") != std::string::npos);
}

TEST_CASE("engine dla: one DLA core's INT8 rate runs the model, and bad engines are named") {
  const std::string orin = R"(
[model]
preset = "resnet-50"
[hardware]
accelerator = "jetson-orin-nx-16gb"
power_mode = "15W"
engine = "{}"
[inference]
batch = 1
compute_dtype = "{}"
weight_dtype = "int8"
)";
  const Scenario dla = scenario(fmt::format(fmt::runtime(orin), "dla", "int8"));
  const AcceleratorSpec a = dla.hw.device;
  CHECK(*a.peak(Precision::int8) == doctest::Approx(10e12));  // 20 TOP/s dense over 2 cores
  CHECK_FALSE(a.peak(Precision::fp16));
  const InferencePrediction p = predict_inference(dla);
  REQUIRE(p.edge);
  CHECK(p.edge->latency_s >= 2 * 4.09e9 / 10e12);  // ResNet-50's 4.09 G multiply-adds at peak
  const InferencePrediction gpu = predict_inference(scenario(fmt::format(fmt::runtime(orin), "gpu", "int8")));
  CHECK(gpu.edge->latency_s != doctest::Approx(p.edge->latency_s));
  CHECK(error_of(fmt::format(fmt::runtime(orin), "dla", "fp16")).find("compute_dtype: jetson-orin-nx-16gb's DLA has no fp16 math (it has: int8)") !=
        std::string::npos);
  CHECK(error_of(fmt::format(fmt::runtime(orin), "npu", "int8")).find("engine: 'npu' is not one of: gpu, dla") != std::string::npos);
  CHECK(error_of(R"(
[model]
preset = "resnet-50"
[hardware]
accelerator = "coral-usb"
engine = "dla"
[inference]
batch = 1
compute_dtype = "int8"
)").find("engine: coral-usb has no DLA in the database") != std::string::npos);
}

TEST_CASE("a power mode caps the peaks: Orin NX 16GB at 10 W runs 612 of 918 MHz on 2 of 4 TPCs") {
  auto orin = [](const std::string& mode) {
    return scenario(fmt::format(R"(
[model]
preset = "resnet-50"
[hardware]
accelerator = "jetson-orin-nx-16gb"
{}
[inference]
batch = 1
compute_dtype = "int8"
)", mode));
  };
  const AcceleratorSpec full = shipped_db().accelerator("jetson-orin-nx-16gb");
  const AcceleratorSpec ten = orin("power_mode = \"10W\"").hw.device;
  CHECK(*ten.peak(Precision::int8) == doctest::Approx(*full.peak(Precision::int8) * 612.0 / 918 * 2 / 4));
  CHECK(*ten.memory_bandwidth_Bps == doctest::Approx(68.3e9));
  CHECK(predict_inference(orin("power_mode = \"10W\"")).edge->power_W == 10);
  CHECK(predict_inference(orin("power_mode = \"10W\"")).edge->latency_s >
        predict_inference(orin("power_mode = \"25W\"")).edge->latency_s);
}

TEST_CASE("inference bad input: dtype the device lacks, context too long, batch too large, unknown power mode") {
  CHECK(error_of(R"(
[model]
preset = "mobilenet-v2"
[hardware]
accelerator = "coral-usb"
[inference]
compute_dtype = "fp16"
)").find("test.toml:7:1: inference.compute_dtype: coral-usb has no fp16 math (it has: int8)") == 0);
  CHECK(error_of(R"(
[model]
preset = "llama3-8b"
[hardware]
accelerator = "h100-sxm"
[inference]
input_len = 8000
output_len = 500
)").find("inference.output_len: input_len + output_len = 8500 tokens is longer than llama3-8b's maximum context of 8192") !=
        std::string::npos);
  CHECK(error_of(llama70b("", "", 5000)).find("inference.batch: 5000 sequences of 2048 + 256 tokens do not fit in NVIDIA H100 SXM5 "
                                              "80GB: 622 sequences fit") != std::string::npos);
  CHECK(error_of(R"(
[model]
preset = "resnet-50"
[hardware]
accelerator = "jetson-orin-nx-16gb"
power_mode = "7W"
[inference]
batch = 1
)").find("hardware.power_mode: '7W' is not a power mode of jetson-orin-nx-16gb (it has: 10W, 15W, 25W)") != std::string::npos);
  CHECK(error_of(llama70b("speculative_alpha = 0.8")).find("inference.draft_length: speculative decoding needs") != std::string::npos);
}

TEST_CASE("every shipped inference scenario predicts finite figures") {
  int n = 0;
  for (const auto& f : std::filesystem::directory_iterator(std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios")) {
    if (f.path().extension() != ".toml") continue;
    const Scenario s = load_scenario(f.path(), PERFCAST_DEFAULT_WORKLOADS, shipped_db());
    if (!s.inference) continue;
    CAPTURE(f.path().string());
    const InferencePrediction p = predict_inference(s);
    CHECK(std::isfinite(p.e2e_s));
    CHECK(p.e2e_s > 0);
    ++n;
  }
  CHECK(n >= 10);
}

TEST_CASE("a bad inference case names the key and the problem") {
  auto error_of = [](const std::string& body) {
    return case_text_error("schema_version = 1\nsuite = \"inference\"\n[[case]]\nid = \"x\"\nsource = \"s\"\n" + body, "perfcast-bad-inference");
  };
  CHECK(error_of("metric = \"ttft_s\"\nmeasured = 0.1\n").find("case 'x' needs a [case.scenario] table (or a skip reason)") !=
        std::string::npos);
  CHECK(error_of("metric = \"tokens\"\nmeasured = 0.1\n").find("metric") != std::string::npos);
  CHECK(error_of("metric = \"ttft_s\"\nmeasured = 0.1\n[case.scenario.model]\npreset = \"llama3-8b\"\n[case.scenario.hardware]\n"
                 "accelerator = \"h100-sxm\"\n[case.scenario.training]\nseq_len = 2048\nglobal_batch = 8\n")
            .find("an inference case needs an [inference] table in its scenario") != std::string::npos);
}

TEST_CASE("a 4-bit model on B200: NVFP4 weights read with their scales, attention in FP8, 4-bit GEMM efficiency") {
  const Scenario s = scenario(R"(
[model]
preset = "llama3.1-70b"
[hardware]
accelerator = "b200"
[inference]
input_len = 1000
output_len = 1000
batch = 64
compute_dtype = "fp4"
weight_dtype = "fp4"
kv_dtype = "fp8"
)");
  const RooflineReport r = roofline_for_pass(s, models::Phase::decode, 64, 1500, models::default_efficiency());
  const models::TransformerSpec& m = s.workload.transformer();
  // Llama 3.1 70B's down projection: ffn x hidden weights, 0.5 B each + one E4M3 byte per 16.
  const models::Op down = op_named(r, "mlp.down");
  CHECK(down.weight_bytes == doctest::Approx(double(m.ffn_hidden) * m.hidden * (0.5 + 1.0 / 16)));
  CHECK(down.precision == Precision::fp4);
  CHECK(op_named(r, "attn.core").precision == Precision::fp8);  // no engine computes attention in 4 bits
  // The 4-bit GEMM default is its own measured best shape (B200 NVFP4 0.611), not the 8-bit one.
  models::Efficiency e = models::default_efficiency();
  CHECK(models::gemm_efficiency(Precision::fp4, e) == doctest::Approx(0.611));
  CHECK(models::gemm_efficiency(Precision::fp8, e) == doctest::Approx(0.709));
  e.gemm_4bit = 0.3;
  CHECK(models::gemm_efficiency(Precision::int4, e) == doctest::Approx(0.3));
}

TEST_CASE("F-INF-6: a quantised checkpoint's output layer is read and multiplied in 16 bits, the projections as stored") {
  const auto lm_head_of = [](const std::string& hardware, const std::string& dtypes) {
    const Scenario s = scenario("[model]\npreset = \"llama3.1-8b\"\n[hardware]\n" + hardware +
                                "\n[inference]\ninput_len = 128\noutput_len = 128\nbatch = 1\n" + dtypes + "\n");
    return op_named(roofline_for_pass(s, models::Phase::decode, 1, 192, models::default_efficiency()), "lm_head");
  };
  // Each case: its head's math, and 2 B for each of Llama 3.1 8B's vocab x hidden weights.
  const auto check_head = [](const models::Op& head, Precision math) {
    CHECK(head.precision == math);
    CHECK(head.weight_bytes == doctest::Approx(2 * 128256.0 * 4096));
  };
  check_head(lm_head_of("accelerator = \"h100-sxm\"", "compute_dtype = \"fp8\"\nweight_dtype = \"fp8\""), Precision::bf16);
  // Weight-only INT4 with FP16 math: the head in the 16-bit compute format.
  check_head(lm_head_of("accelerator = \"a100-sxm-80gb\"", "compute_dtype = \"fp16\"\nweight_dtype = \"int4\""), Precision::fp16);
  // A 16-bit checkpoint is unchanged; an INT8 model on Orin runs its head in BF16, which its Ampere GPU has.
  check_head(lm_head_of("accelerator = \"h100-sxm\"", "compute_dtype = \"bf16\""), Precision::bf16);
  check_head(lm_head_of("accelerator = \"jetson-agx-orin-64gb\"", "compute_dtype = \"int8\"\nweight_dtype = \"int8\""), Precision::bf16);
}

TEST_CASE("expert_weight_dtype: a checkpoint that quantises only its routed experts (gpt-oss) reads them so, the rest as weight_dtype") {
  const std::string text = R"(
[model]
preset = "gpt-oss-20b"
[hardware]
accelerator = "b200"
[inference]
input_len = 1024
output_len = 128
batch = 1
compute_dtype = "bf16"
weight_dtype = "bf16"
expert_weight_dtype = "fp4"
)";
  const Scenario s = scenario(text);
  const RooflineReport r = roofline_for_pass(s, models::Phase::decode, 1, 1088, models::default_efficiency());
  const models::TransformerSpec& m = s.workload.transformer();
  // One touched expert's down projection per GEMM count: expert_ffn_hidden x hidden NVFP4 weights, 0.5 + 1/16 B each.
  const models::Op down = op_named(r, "moe.expert.down");
  CHECK(down.weight_bytes / down.gemm.count == doctest::Approx(double(m.moe->expert_ffn_hidden) * m.hidden * (0.5 + 1.0 / 16)));
  CHECK(op_named(r, "attn.out").weight_bytes == doctest::Approx(2.0 * m.hidden * m.q_width()));  // BF16 attention
  CHECK(op_named(r, "moe.router").weight_bytes == doctest::Approx(2.0 * m.hidden * m.moe->experts));  // BF16 router, as weight_dtype
  // The memory model counts the same split: against every projection in NVFP4, the attention projections
  // (the layers' only non-expert ones) cost 2 - 0.5625 B more each.
  const auto weights_of = [](const Scenario& sc) { return test::component(memory_for_scenario(sc), "weights"); };
  std::string all_fp4 = text;
  const std::string split = "weight_dtype = \"bf16\"\nexpert_weight_dtype = \"fp4\"\n";
  all_fp4.replace(all_fp4.find(split), split.size(), "weight_dtype = \"fp4\"\n");
  const double attention = double(m.layers) * models::attention_parameters(m);
  CHECK(weights_of(s) - weights_of(scenario(all_fp4)) == doctest::Approx(attention * (2 - 0.5625)));
  CHECK(error_of("[model]\npreset = \"llama3-8b\"\n[hardware]\naccelerator = \"h100-sxm\"\n[inference]\nexpert_weight_dtype = \"fp4\"\n")
            .find("inference.expert_weight_dtype: Llama 3 8B has no routed experts") != std::string::npos);
}

TEST_CASE("mxfp4: gpt-oss's experts as its checkpoint stores them, an E8M0 scale per 32 values, fp4 and nvfp4 are NVFP4") {
  const auto oss = [](const std::string& preset, const std::string& experts) {
    return scenario("[model]\npreset = \"" + preset + "\"\n[hardware]\naccelerator = \"b200\"\n[inference]\ninput_len = 1\n"
                    "output_len = 1\nbatch = 1\nexpert_weight_dtype = \"" + experts + "\"\n");
  };
  const auto weights_of = [](const Scenario& sc) { return test::component(memory_for_scenario(sc), "weights"); };
  const Scenario mx = oss("gpt-oss-20b", "mxfp4");
  CHECK(mx.inference->expert_weight_dtype == Precision::fp4);
  CHECK(mx.inference->fp4_blocks == Fp4Blocks::mxfp4);
  const models::TransformerSpec& m = mx.workload.transformer();
  const double experts = double(m.layers) * m.moe->experts * 3.0 * m.hidden * m.moe->expert_ffn_hidden;
  // The scales' share: 1/16 B a weight under NVFP4, 1/32 under MXFP4.
  CHECK(weights_of(oss("gpt-oss-20b", "fp4")) - weights_of(mx) == doctest::Approx(experts / 32));
  CHECK(weights_of(oss("gpt-oss-20b", "nvfp4")) == weights_of(oss("gpt-oss-20b", "fp4")));
  // The model card's checkpoint sizes (arXiv:2508.10925 Table 1): 12.8 and 60.8 GiB, within half a unit of the last digit.
  CHECK(std::abs(weights_of(mx) / double(1 << 30) - 12.8) < 0.05);
  CHECK(std::abs(weights_of(oss("gpt-oss-120b", "mxfp4")) / double(1 << 30) - 60.8) < 0.1);
  // The decode step reads the same bytes.
  const RooflineReport r = roofline_for_pass(mx, models::Phase::decode, 1, 1, models::default_efficiency());
  const models::Op down = op_named(r, "moe.expert.down");
  CHECK(down.weight_bytes / down.gemm.count == doctest::Approx(double(m.moe->expert_ffn_hidden) * m.hidden * (0.5 + 1.0 / 32)));
  // One checkpoint, one block scaling.
  CHECK(error_of("[model]\npreset = \"gpt-oss-20b\"\n[hardware]\naccelerator = \"b200\"\n[inference]\nweight_dtype = \"nvfp4\"\n"
                 "expert_weight_dtype = \"mxfp4\"\n")
            .find("inference.expert_weight_dtype: weight_dtype and expert_weight_dtype name both nvfp4 and mxfp4") != std::string::npos);
}

TEST_CASE("a frame budget below one frame per 100 s is refused, not printed as an infinite budget") {
  const std::string coral = "[model]\npreset = \"mobilenet-v2\"\n[hardware]\naccelerator = \"coral-usb\"\n[inference]\nbatch = 1\n"
                            "compute_dtype = \"int8\"\nweight_dtype = \"int8\"\n";
  CHECK(perfcast::test::scenario_error(coral + "target_fps = 1e-300\n") == "test.toml:9:1: inference.target_fps: 1e-300 must be >= 0.01");
  CHECK(perfcast::test::scenario_error(coral + "target_fps = 4.9e-324\n") ==
        "test.toml:9:1: inference.target_fps: 5e-324 is a subnormal number, not a usable figure");
  CHECK(perfcast::test::scenario_error(coral + "target_fps = 30\n").empty());
}

TEST_CASE("a one-expert MoE at tp 8, ep 1 pays its MLP all-reduce: never faster than its dense twin") {
  // The expert is split over the TP ranks as the dense MLP is, so its output is a partial sum the
  // ranks all-reduce; the router only adds to it.
  const auto twin = [](const std::string& moe, int tp) {
    return scenario(fmt::format("[model]\npreset = \"llama3.1-8b\"\n{}\n[hardware]\nsystem = \"dgx-h100\"\nnodes = 1\n"
                                "[inference]\ninput_len = 2048\noutput_len = 128\nbatch = 8\n[parallelism]\ntp = {}\n",
                                moe, tp));
  };
  const std::string one_expert = "[model.moe]\nexperts = 1\ntop_k = 1\nexpert_ffn_hidden = 14336\n";
  for (int tp : {2, 8}) {
    CAPTURE(tp);
    const InferencePrediction dense = predict_inference(twin("", tp)), moe = predict_inference(twin(one_expert, tp));
    CHECK(moe.ttft_s >= dense.ttft_s);
    CHECK(moe.tpot_s >= dense.tpot_s);
  }
}

TEST_CASE("Jetson Orin runs BF16 on its Ampere tensor cores at the FP16 rate") {
  for (const char* name : {"jetson-agx-orin-64gb", "jetson-agx-orin-32gb", "jetson-orin-nx-16gb", "jetson-orin-nx-8gb", "jetson-orin-nano-8gb"}) {
    CAPTURE(name);
    const AcceleratorSpec& a = shipped_db().accelerator(name);
    REQUIRE(a.peak(Precision::bf16));
    CHECK(*a.peak(Precision::bf16) == *a.peak(Precision::fp16));
  }
  CHECK(perfcast::test::scenario_error("[model]\npreset = \"llama3.1-8b\"\n[hardware]\naccelerator = \"jetson-agx-orin-64gb\"\n"
                                       "[inference]\ninput_len = 128\noutput_len = 128\nbatch = 1\ncompute_dtype = \"bf16\"\n")
            .empty());
}
