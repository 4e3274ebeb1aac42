// Memory per device for whole scenarios: every shipped preset in training and inference, the
// pipeline stage that binds, the largest batch that fits, and the fixes offered when it does not.
#include <doctest/doctest.h>

#include <cmath>
#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/predict/memory.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/layout/rules.hpp"
#include "tests/memory_components.hpp"
#include "tests/scenario_text.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;

namespace {

using perfcast::test::scenario;
std::string error_of(const std::string& text) { return perfcast::test::scenario_error(text); }

using perfcast::test::component;


}  // namespace

TEST_CASE("memory is reported for every shipped preset, training and inference") {
  for (const std::string& name : preset_names(PERFCAST_DEFAULT_WORKLOADS)) {
    CAPTURE(name);
    Workload w = load_preset(PERFCAST_DEFAULT_WORKLOADS, name);
    std::vector<std::string> texts;
    const std::string head = fmt::format("[model]\npreset = \"{}\"\n[hardware]\nsystem = \"dgx-h100\"\nnodes = 4\n", name);
    texts.push_back(head + "[inference]\ninput_len = 512\noutput_len = 128\n");
    if (w.is_transformer()) texts.push_back(head + "[training]\nseq_len = 2048\nglobal_batch = 64\n[parallelism]\ntp = 8\nzero = 1\n");
    for (const std::string& text : texts) {
      MemoryReport r = memory_for_scenario(scenario(text));
      CHECK(std::isfinite(r.per_device_B));
      CHECK(r.per_device_B > 0);
      CHECK(r.capacity_B > 0);
      CHECK_FALSE(r.verdict.empty());
      double total = 0;
      for (const MemoryComponent& c : r.components) {
        CHECK(std::isfinite(c.bytes));
        CHECK(c.bytes >= 0);
        total += c.bytes;
      }
      CHECK(total == doctest::Approx(r.per_device_B));
      CHECK(r.fits == (r.per_device_B <= r.capacity_B));
    }
  }
}

TEST_CASE("GPT-3 175B on 1024 A100 (Narayanan Table 2 layout): the first stage binds") {
  Scenario s = load_scenario(std::string(PERFCAST_SOURCE_DIR) + "/scenarios/gpt3-175b-a100-training.toml", PERFCAST_DEFAULT_WORKLOADS,
                             shipped_db());
  MemoryReport r = memory_for_scenario(s);
  CHECK(r.stage == "first of 8");
  // 1F1B: 8 micro-batches in flight x 12 layers x 2sbh (full recompute keeps the layer input).
  CHECK(component(r, "activations") == 8.0 * 12 * 2 * 2048 * 12288);
  // 96/8 layers of (12h² + 9h)/8 split by TP + 4h of replicated LayerNorms, the 51,200-token
  // embedding/8 and 2,048 positions; 2 B weights and 12 B master + Adam per parameter.
  const double h = 12288, layer = (12 * h * h + 9 * h) / 8 + 4 * h;
  const double params = 12 * layer + 51200 * h / 8 + 2048 * h;
  CHECK(component(r, "weights") == doctest::Approx(2 * params));
  CHECK(component(r, "optimizer") == doctest::Approx(12 * params));
  CHECK(r.fits);
  REQUIRE(r.max_batch);
  CHECK(*r.max_batch >= 1);
}

TEST_CASE("inference: the largest batch that fits is the edge of fitting") {
  Scenario s = load_scenario(std::string(PERFCAST_SOURCE_DIR) + "/scenarios/llama3-70b-h100-serving.toml", PERFCAST_DEFAULT_WORKLOADS,
                             shipped_db());
  MemoryReport r = memory_for_scenario(s);
  REQUIRE(r.max_batch);
  CHECK(*r.kv_bytes_per_token == 40'960);
  CHECK(component(r, "kv_cache") == 32.0 * 2304 * 40'960);
  s.inference->batch = *r.max_batch;
  CHECK(memory_for_scenario(s).fits);
  s.inference->batch = *r.max_batch + 1;
  MemoryReport over = memory_for_scenario(s);
  CHECK_FALSE(over.fits);
  CHECK(over.binding == "kv_cache");
  REQUIRE_FALSE(over.fixes.empty());
  CHECK(over.fixes.front() == fmt::format("batch={:g}", *r.max_batch));
  CHECK(over.verdict.find("would fit") != std::string::npos);
}

TEST_CASE("the KV cache's share: vLLM's utilisation bounds everything, TensorRT-LLM's takes a share of what is left") {
  // F-KV-3: Llama 3.1 70B FP8 on one H200 at 1000 + 1000 tokens; vLLM's cache is u·C − F, TensorRT-LLM's
  // free_gpu_memory_fraction u·(C − F), with C the device memory and F what does not grow with the batch.
  const std::string text = R"(
[model]
preset = "llama3.1-70b"
[hardware]
accelerator = "h200"
[inference]
input_len = 1000
output_len = 1000
compute_dtype = "fp8"
weight_dtype = "fp8"
kv_dtype = "fp8"
)";
  const MemoryReport vllm = memory_for_scenario(scenario(text + "engine = \"vllm\"\n"));
  const MemoryReport trtllm = memory_for_scenario(scenario(text + "engine = \"trtllm\"\n"));
  REQUIRE(vllm.max_batch);
  REQUIRE(trtllm.max_batch);
  const double C = 143771.0 * 1024 * 1024;  // H200 HBM3e as nvidia-smi reports it (the datasheet's "141 GB" is GiB)
  CHECK(vllm.capacity_B == doctest::Approx(0.9 * C));
  // TensorRT-LLM's capacity is F + 0.9·(C − F): F, read back, is the weights and CUDA context plus less
  // than a gigabyte of one prefill's workspace.
  const double F = (trtllm.capacity_B - 0.9 * C) / 0.1;
  const double weights_and_context = component(trtllm, "weights") + component(trtllm, "cuda_context");
  CHECK(F > weights_and_context);
  CHECK(F < weights_and_context + 1e9);
  // 190 sequences of 2000 tokens at 163,840 B a token in 0.9·140.4 − 68.2 = 58.2 GiB; 212 in 0.9·(140.4 − 68.2) = 65.0 GiB.
  CHECK(*vllm.max_batch == 190);
  CHECK(*trtllm.max_batch == 212);
  CHECK(trtllm.capacity_label.find("free_gpu_memory_fraction") != std::string::npos);
}

TEST_CASE("a layout that does not fit names the binding part and single changes that fit, which do fit") {
  const std::string text =
      "[model]\npreset = \"llama3-8b\"\n[hardware]\nsystem = \"dgx-h100\"\nnodes = 1\n"
      "[training]\nseq_len = 8192\nglobal_batch = 64\nprecision = \"bf16\"\n[parallelism]\ntp = 1\n";
  Scenario s = scenario(text);
  MemoryReport r = memory_for_scenario(s);
  CHECK_FALSE(r.fits);
  CHECK(r.verdict.starts_with("needs "));
  CHECK(r.verdict.find("> 79.6 GiB usable device memory") != std::string::npos);
  REQUIRE_FALSE(r.fixes.empty());
  MESSAGE(r.verdict);
  // ZeRO-1 is offered and really fits.
  bool zero = false;
  for (const std::string& f : r.fixes) zero |= f == "ZeRO-1";
  if (zero) {
    s.parallelism.zero = 1;
    CHECK(memory_for_scenario(s).fits);
  }
}

TEST_CASE("MoE: routed experts are sharded by EP and their states by expert-DP") {
  const std::string text =
      "[model]\npreset = \"mixtral-8x7b\"\n[hardware]\nsystem = \"dgx-h100\"\nnodes = 1\n"
      "[training]\nseq_len = 4096\nglobal_batch = 64\n[parallelism]\ntp = 1\nep = 8\nzero = 1\n";
  MemoryReport ep8 = memory_for_scenario(scenario(text));
  MemoryReport ep1 = memory_for_scenario(scenario(text.substr(0, text.find("ep = 8")) + "zero = 1\n"));
  CHECK(component(ep8, "weights") < component(ep1, "weights") / 3);
  CHECK(expert_tensor_parallel(ParallelismSettings{.tp = 8, .ep = 8}, 1) == 1);  // EP carved out of TP
  CHECK(expert_tensor_parallel(ParallelismSettings{.tp = 2, .ep = 4}, 4) == 2);  // Megatron default: expert-TP = tp
}

TEST_CASE("vision on an Edge TPU is held against its on-chip SRAM") {
  Scenario s = load_scenario(std::string(PERFCAST_SOURCE_DIR) + "/scenarios/mobilenet-v2-coral-usb.toml", PERFCAST_DEFAULT_WORKLOADS,
                             shipped_db());
  MemoryReport r = memory_for_scenario(s);
  CHECK(r.capacity_label == "on-chip SRAM");
  CHECK(component(r, "weights") == 3'504'872);  // int8, one byte per parameter
  CHECK(component(r, "cuda_context") < 0);      // no CUDA on a Coral
}

TEST_CASE("memory-related bad input names the key") {
  const std::string head = "[model]\npreset = \"llama3-8b\"\n[hardware]\nsystem = \"dgx-h100\"\nnodes = 1\n";
  CHECK(error_of(head + "[training]\nseq_len = 2048\nglobal_batch = 64\noptimizer = \"adam8bit\"\n")
            .ends_with("training.optimizer: unknown recipe 'adam8bit' (did you mean 'adam-8bit'?)"));
  CHECK(error_of(head + "[training]\nseq_len = 2048\nglobal_batch = 10\n[parallelism]\ntp = 2\n")
            .ends_with("parallelism.dp: global_batch 10 is not a multiple of dp 4 x micro_batch 1"));
  CHECK(error_of(head + "[training]\nseq_len = 2048\nglobal_batch = 64\n[parallelism]\npp = 2\nvp = 2\nschedule = \"gpipe\"\n")
            .ends_with("parallelism.vp: virtual stages need the 1f1b (interleaved) schedule"));
  CHECK(error_of(head + "[training]\nseq_len = 2048\nglobal_batch = 64\noffload = \"gpu\"\n").find("training.offload") != std::string::npos);
  CHECK(error_of(head + "[inference]\nmemory_utilization = 1.5\n").find("inference.memory_utilization") != std::string::npos);
  CHECK(error_of("[model]\npreset = \"gpt3-175b\"\ndropout = 1.0\n[hardware]\nsystem = \"dgx-h100\"\n[inference]\n")
            .ends_with("model.dropout: 1 is a probability and must be below 1"));
}
