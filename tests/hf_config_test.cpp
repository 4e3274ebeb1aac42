// Hugging Face config.json import (F-ARCH-1..3, F-KV-5, F-PIPE-4): parameter counts against the
// published ones, predictions on B200, the new architecture features, and bad input.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "engine/core/errors.hpp"
#include "engine/data/hf_config.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/data/workload_reader.hpp"
#include "engine/predict/inference.hpp"
#include "engine/predict/memory.hpp"
#include "engine/predict/training.hpp"
#include "engine/writers/model_writers.hpp"
#include "models/transformer_ops.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;

namespace {

const std::filesystem::path kHf = std::filesystem::path(PERFCAST_TEST_DATA) / "hf";

Workload imported(const std::string& model) { return read_hf_config(kHf / model / "config.json"); }

std::string hf_error(const std::string& json) {
  try {
    parse_hf_config(json, "config.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// A scenario next to the configs, so that hf_config's path is the model's folder.
Scenario hf_scenario(const std::string& body) {
  return parse_scenario("schema_version = 1\n" + body, (kHf / "test.toml").string(), PERFCAST_DEFAULT_WORKLOADS, shipped_db());
}

struct Published {
  const char* model;
  double total;
  const char* source;
};

// Totals as the model cards and reports publish them (the MTP module apart).
const Published kPublished[] = {
    {"llama-3.1-8b", 8.03e9, "Llama 3.1 model card: 8.03B (safetensors 8,030,261,248)"},
    {"llama-3.1-405b", 405e9, "Llama 3.1 model card: 405B"},
    {"mistral-7b-v0.1", 7.24e9, "Mistral 7B (arXiv:2310.06825) and its model card: 7.24B"},
    {"mixtral-8x7b-v0.1", 46.7e9, "Mixtral of Experts (arXiv:2401.04088) §2: 47B total, 13B active; model card 46.7B"},
    {"qwen2.5-7b", 7.61e9, "Qwen2.5-7B model card: 7.61B (6.53B without embeddings)"},
    {"qwen3-8b", 8.2e9, "Qwen3-8B model card: 8.2B (6.95B without embeddings)"},
    {"qwen3-235b-a22b", 235e9, "Qwen3-235B-A22B model card: 235B total, 22B activated"},
    {"deepseek-v3", 671e9, "DeepSeek-V3 technical report (arXiv:2412.19437): 671B, the 14B MTP module apart"},
    {"gpt-oss-120b", 116.83e9, "gpt-oss model card (OpenAI, 2025-08) Table 1: 116.83B total"},
    {"gpt-oss-20b", 20.91e9, "gpt-oss model card Table 1: 20.91B total"},
    {"gemma-3-27b", 27.016e9, "Gemma 3 technical report Table 1: 1,416M embedding + 25,600M non-embedding (vision encoder apart)"},
};

// A training and a serving scenario on DGX B200 for each model, with a layout it runs.
struct OnB200 {
  const char* model;
  int nodes;
  const char* training_layout;
  int serving_tp;
};
const OnB200 kOnB200[] = {
    {"llama-3.1-8b", 1, "tp = 1", 1},
    {"llama-3.1-405b", 16, "tp = 8\npp = 16", 8},
    {"mistral-7b-v0.1", 1, "tp = 1", 1},
    {"mixtral-8x7b-v0.1", 1, "tp = 1\nep = 8", 2},
    {"qwen2.5-7b", 1, "tp = 1", 1},
    {"qwen3-8b", 1, "tp = 1", 1},
    {"qwen3-235b-a22b", 8, "tp = 4\npp = 4\nep = 8", 8},
    {"deepseek-v3", 8, "tp = 1\npp = 8\nep = 8", 8},
    {"gpt-oss-120b", 1, "tp = 1\nep = 8", 1},
    {"gpt-oss-20b", 1, "tp = 1\nep = 8", 1},
    {"gemma-3-27b", 1, "tp = 2", 1},
};

std::string training_on_b200(const OnB200& c, const std::string& model_extra = "") {
  return fmt::format("[model]\nhf_config = \"{}/config.json\"\n{}\n[hardware]\nsystem = \"dgx-b200\"\nnodes = {}\n"
                     "[training]\nseq_len = 4096\nglobal_batch = 256\nmicro_batch = 1\nprecision = \"bf16\"\n[parallelism]\nzero = 1\n{}\n",
                     c.model, model_extra, c.nodes, c.training_layout);
}

std::string serving_on_b200(const OnB200& c, int input = 2048, int output = 256, int batch = 16) {
  return fmt::format("[model]\nhf_config = \"{}/config.json\"\n[hardware]\nsystem = \"dgx-b200\"\nnodes = 1\n[inference]\ninput_len = {}\n"
                     "output_len = {}\nbatch = {}\n[parallelism]\ntp = {}\n",
                     c.model, input, output, batch, c.serving_tp);
}

// `line` added to the [table] section of `text` (right after its header).
std::string with_line(std::string text, const std::string& table, const std::string& line) {
  const std::size_t at = text.find("[" + table + "]\n");
  REQUIRE(at != std::string::npos);
  return text.insert(at + table.size() + 3, line + "\n");
}

double kv_cache_B(const Scenario& s) {
  for (const MemoryComponent& c : memory_for_scenario(s).components)
    if (c.name == "kv_cache") return c.bytes;
  return 0;
}

}  // namespace

TEST_CASE("eleven config.json files import with parameter counts within 0.5 % of the published ones") {
  for (const Published& p : kPublished) {
    const Workload w = imported(p.model);
    CHECK(w.name == p.model);
    const double total = models::count_parameters(w.transformer()).total;
    CHECK_MESSAGE(std::abs(total / p.total - 1) <= 0.005, p.model, ": ", total, " against ", p.total, " (", p.source, ")");
  }
}

TEST_CASE("hand-counted architectures: Qwen3-8B (F-ARCH-1), GPT-OSS-120B's sinks and biases, DeepSeek-V3's MTP") {
  const models::ParameterCount qwen = models::count_parameters(imported("qwen3-8b").transformer());
  CHECK(qwen.total == 8'190'735'360.0);  // docs/models.md F-ARCH-1 example
  const models::ParameterCount oss = models::count_parameters(imported("gpt-oss-120b").transformer());
  // 36 x (attention 26,550,080 + 64 sinks + 128 experts x 24,891,840 + router 368,768 + 2 norms) + 2 x 579,133,440 + 2,880
  CHECK(oss.total == 36.0 * (26'550'080 + 64 + 128.0 * 24'891'840 + 368'768 + 2 * 2880) + 2 * 579'133'440.0 + 2880);
  // OpenAI's 5.13B active excludes the input embedding.
  CHECK(std::abs((oss.active - oss.embedding) / 5.13e9 - 1) < 0.005);
  const Workload v3 = imported("deepseek-v3");
  CHECK(v3.transformer().mtp_layers == 1);
  // One MoE layer (11,507,286,272) + the 14,336 x 7,168 projection + three norms of 7,168.
  CHECK(models::count_parameters(v3.transformer()).mtp == 11'507'286'272.0 + 14336.0 * 7168 + 3 * 7168);
  CHECK(v3.stored_weight_dtype == Precision::fp8);
  CHECK(imported("gpt-oss-120b").stored_weight_dtype == Precision::fp4);
  const models::TransformerSpec gemma = imported("gemma-3-27b").transformer();
  CHECK(gemma.sliding_layers == 52);  // 62 layers, every sixth global (sliding_window_pattern 6)
  CHECK(gemma.norms_per_layer == 4);
  CHECK(gemma.tied_embeddings);
  CHECK(imported("mistral-7b-v0.1").transformer().sliding_layers == 32);
  CHECK(imported("qwen2.5-7b").transformer().sliding_layers == 0);  // use_sliding_window false
}

TEST_CASE("every imported model predicts training and inference on B200, under its own name") {
  for (const OnB200& c : kOnB200) {
    const Scenario train = hf_scenario(training_on_b200(c));
    CHECK(train.workload.name == c.model);
    const TrainingPrediction t = predict_training(train);
    CHECK_MESSAGE(std::isfinite(t.step_time_s), c.model);
    CHECK_MESSAGE(t.step_time_s > 0, c.model);
    CHECK_MESSAGE(t.mfu > 0.05, c.model);
    CHECK_MESSAGE(t.mfu < 0.9, c.model);
    const InferencePrediction i = predict_inference(hf_scenario(serving_on_b200(c)));
    CHECK_MESSAGE(i.ttft_s > 0, c.model);
    CHECK_MESSAGE(i.tpot_s > 0, c.model);
    CHECK_MESSAGE(std::isfinite(i.tpot_s), c.model);
  }
}

TEST_CASE("the checkpoint's quantization_config is inference's weight dtype unless the scenario says") {
  const OnB200 v3 = kOnB200[7];
  CHECK(hf_scenario(serving_on_b200(v3)).inference->weight_dtype == Precision::fp8);
  const Scenario bf16 = hf_scenario(with_line(serving_on_b200(v3), "inference", "weight_dtype = \"bf16\""));
  CHECK(bf16.inference->weight_dtype == Precision::bf16);
  CHECK(memory_for_scenario(bf16).per_device_B > memory_for_scenario(hf_scenario(serving_on_b200(v3))).per_device_B);
}

TEST_CASE("sliding windows bound attention and the KV cache (F-ARCH-2, F-KV-5)") {
  // Mistral 7B: every layer has a 4,096-token window. At a 32k context the KV cache holds 4,096
  // tokens a layer, and a decode step reads no more than at 4k.
  const OnB200 mistral = kOnB200[2];
  const double at_4k = kv_cache_B(hf_scenario(serving_on_b200(mistral, 3840, 256, 1)));
  const double at_32k = kv_cache_B(hf_scenario(serving_on_b200(mistral, 32512, 256, 1)));
  CHECK(at_4k > 0);
  CHECK(at_32k == doctest::Approx(at_4k));
  const double tpot_4k = predict_inference(hf_scenario(serving_on_b200(mistral, 3840, 256, 1))).tpot_s;
  const double tpot_32k = predict_inference(hf_scenario(serving_on_b200(mistral, 32512, 256, 1))).tpot_s;
  CHECK(tpot_32k == doctest::Approx(tpot_4k).epsilon(0.02));
  // Without the window the same 32k context costs eight times the KV cache.
  const Scenario full = hf_scenario(with_line(serving_on_b200(mistral, 32512, 256, 1), "model", "sliding_layers = 0"));
  CHECK(kv_cache_B(full) == doctest::Approx(8 * at_32k));

  // GPT-OSS-120B at 8,192 tokens, BF16 KV: 2,048 B per layer and token; 18 full layers keep 8,192
  // tokens, 18 windowed 128 (docs/models.md F-KV-5 example: 306.7 MB).
  const models::TransformerSpec oss = imported("gpt-oss-120b").transformer();
  CHECK(models::kv_cache_bytes(oss, models::kv_format(Precision::bf16), 1, 36, 8192) == 2048.0 * (18 * 8192 + 18 * 128));

  // The attention core at S = 8,192: the windowed half attends to 128 - 128 x 127 / 16,384 keys.
  models::OpContext ctx;
  ctx.seq_len = 8192;
  double full_core = 0, window_core = 0;
  for (const models::OpGroup& g : models::transformer_ops(oss, ctx))
    for (const models::Op& op : g.ops) {
      if (op.name == "attn.core") full_core = op.model_flops;
      if (op.name == "attn.core.sliding") window_core = op.model_flops;
    }
  const double per_key = 2.0 * 8192 * 64 * (64 + 64);  // 2 b q heads (qk + v) per attended key
  CHECK(full_core == doctest::Approx(0.5 * per_key * 4096.5));
  CHECK(window_core == doctest::Approx(0.5 * per_key * (128 - 128.0 * 127 / 16384)));
}

TEST_CASE("MTP modules train on the last stage; expert imbalance slows the step, not the model FLOPs") {
  const OnB200 v3 = kOnB200[7];
  const TrainingPrediction with_mtp = predict_training(hf_scenario(training_on_b200(v3)));
  const TrainingPrediction without = predict_training(hf_scenario(training_on_b200(v3, "mtp_layers = 0")));
  CHECK(with_mtp.step_time_s > without.step_time_s);
  CHECK(with_mtp.ranks.back().layers == without.ranks.back().layers);  // the MTP module is not a pipeline layer

  const OnB200 oss = kOnB200[9];
  const TrainingPrediction balanced = predict_training(hf_scenario(training_on_b200(oss)));
  const TrainingPrediction skewed = predict_training(hf_scenario(training_on_b200(oss, "[model.moe]\nload_imbalance = 1.5")));
  CHECK(skewed.step_time_s > balanced.step_time_s);
  CHECK(skewed.mfu < balanced.mfu);
  CHECK(skewed.model_flops_per_step == doctest::Approx(balanced.model_flops_per_step));
}

TEST_CASE("model import writes a preset that loads back with the same architecture") {
  for (const Published& p : kPublished) {
    const Workload w = imported(p.model);
    const Workload back = parse_workload(model_preset_toml(w), std::string(p.model) + ".toml", PERFCAST_DEFAULT_WORKLOADS);
    CHECK_MESSAGE(models::count_parameters(back.transformer()).total == models::count_parameters(w.transformer()).total, p.model);
    CHECK(back.transformer().sliding_layers == w.transformer().sliding_layers);
    CHECK(back.transformer().mtp_layers == w.transformer().mtp_layers);
  }
}

TEST_CASE("bad config.json files get one line naming the file and the field") {
  CHECK(hf_error("{") == "config.json: not valid JSON at byte 2");
  CHECK(hf_error(R"({"rms_norm_eps": 1e40960})") == "config.json: not valid JSON: a number beyond the range of a double");
  CHECK(hf_error("[]") == "config.json: config: expected a JSON object");
  CHECK(hf_error("{}") == "config.json: architectures: missing; perfcast reads the model class from it (e.g. [\"LlamaForCausalLM\"])");
  CHECK(hf_error(R"({"architectures": ["LlamaForCausalLm"]})").starts_with(
      "config.json: architectures: 'LlamaForCausalLm' is not a model class perfcast reads (did you mean 'LlamaForCausalLM'?)"));
  CHECK(hf_error(R"({"architectures": ["Qwen3NextForCausalLM"]})").starts_with(
      "config.json: architectures: Qwen3NextForCausalLM: its Gated DeltaNet linear-attention layers"));
  const std::string llama = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32, "vocab_size": 32000, )";
  CHECK(hf_error(llama + R"("intermediate_size": 11008})") == "config.json: num_hidden_layers: missing; LlamaForCausalLM needs it");
  CHECK(hf_error(llama + R"("intermediate_size": 11008, "num_hidden_layers": -3})") ==
        "config.json: num_hidden_layers: -3 is outside 1 to 10000000");
  CHECK(hf_error(llama + R"("intermediate_size": 11008, "num_hidden_layers": 1e300})") ==
        "config.json: num_hidden_layers: expected a whole number, found 1e+300");
  CHECK(hf_error(llama + R"("intermediate_size": "big", "num_hidden_layers": 32})") ==
        "config.json: intermediate_size: expected a whole number, found \"big\"");
  CHECK(hf_error(llama + R"("intermediate_size": 11008, "num_hidden_layers": 32, "num_key_value_heads": 5})") ==
        "config.json: num_key_value_heads: 5 does not divide num_attention_heads 32");
  CHECK(hf_error(llama + R"("intermediate_size": 11008, "num_hidden_layers": 32, "quantization_config": {"quant_method": "hqq"}})") ==
        "config.json: quantization_config.quant_method: 'hqq' is not read (fp8, mxfp4, modelopt, awq, gptq)");
  CHECK(hf_error(llama + R"("intermediate_size": 11008, "num_hidden_layers": 32})") == "(no error)");
}

TEST_CASE("a scenario's hf_config: a path from its folder, not beside a preset, its errors at the key") {
  auto error = [](const std::string& model) {
    try {
      hf_scenario("[model]\n" + model + "\n[hardware]\nsystem = \"dgx-b200\"\n[inference]\ninput_len = 128\n");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(error("hf_config = \"qwen3-8b/config.json\"") == "(no error)");
  CHECK(error("hf_config = \"qwen3-8b/config.json\"\npreset = \"llama3-8b\"").ends_with("model.hf_config: give preset or hf_config, not both"));
  CHECK(error("hf_config = \"nowhere/config.json\"").find("nowhere/config.json") != std::string::npos);
  CHECK(error("hf_config = \"qwen3-8b/config.json\"\nsliding_layers = 40").ends_with("model.sliding_layers: 40 exceeds the model's 36 layers"));
  CHECK(error("hf_config = \"qwen3-8b/config.json\"\nsliding_layers = 4").ends_with(
      "model.sliding_layers: needs sliding_window, the tokens those layers attend to"));
  CHECK(error("hf_config = \"qwen3-8b/config.json\"\nnorms_per_layer = 3").ends_with(
      "model.norms_per_layer: 3 is neither 2 (pre-norm) nor 4 (pre- and post-norm)"));
  CHECK(error("hf_config = \"gpt-oss-20b/config.json\"\n[model.moe]\nload_imbalance = 9").ends_with(
      "model.moe: load_imbalance 9 exceeds experts / top_k = 8 (every token on the busiest expert)"));
}

TEST_CASE("a preset or config whose parameters the scenario changes is labelled modified, or by display_name") {
  const std::string base = "[model]\npreset = \"gpt3-175b\"\n{}\n[hardware]\nsystem = \"dgx-a100-80gb\"\nnodes = 1\n"
                           "[training]\nseq_len = 2048\nglobal_batch = 8\nmicro_batch = 1\n[parallelism]\ntp = 8\n";
  const auto label = [&](const std::string& model_keys) { return hf_scenario(fmt::format(fmt::runtime(base), model_keys)).workload.label(); };
  CHECK(label("") == "GPT-3 175B");
  CHECK(label("dropout = 0.0") == "GPT-3 175B");  // same parameters: still GPT-3 175B
  // Korthikanti et al. Table 3, 22B: 48 x 12 x 6144^2 = 21.74B in the layers + 0.33B embeddings and positions.
  const std::string narrow = "layers = 48\nhidden = 6144\nheads = 64\nffn_hidden = 24576";
  CHECK(label(narrow) == "GPT-3 175B modified (22.1B parameters)");
  CHECK(label(narrow + "\ndisplay_name = \"Megatron GPT 22B\"") == "Megatron GPT 22B");
  CHECK(predict_training(hf_scenario(fmt::format(fmt::runtime(base), narrow))).workload == "GPT-3 175B modified (22.1B parameters)");
  // A config.json with a layer count changed is no longer that checkpoint either.
  const std::string hf = "[model]\nhf_config = \"qwen3-8b/config.json\"\nlayers = 18\n[hardware]\nsystem = \"dgx-b200\"\n"
                         "[inference]\ninput_len = 512\noutput_len = 64\nbatch = 1\n";
  CHECK(hf_scenario(hf).workload.label().starts_with("qwen3-8b modified ("));
}
