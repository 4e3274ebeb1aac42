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
#include "engine/layout/partition.hpp"
#include "engine/predict/capacity.hpp"
#include "engine/predict/inference.hpp"
#include "engine/predict/memory.hpp"
#include "engine/predict/training.hpp"
#include "engine/writers/model_writers.hpp"
#include "models/transformer_ops.hpp"
#include "tests/memory_components.hpp"
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
    {"qwen3-next-80b-a3b", 80e9, "Qwen3-Next-80B-A3B model card: 80B in total, 3B activated"},
    {"qwen3.5-397b-a17b", 397e9, "Qwen3.5-397B-A17B model card: 397B total, 17B active (vision encoder included)"},
    {"minimax-m1-80k", 456e9, "MiniMax-M1 report (arXiv:2506.13585) §1: 456B in total, 45.9B activated per token"},
    {"glm-5", 744e9, "GLM-5 model card: 744B parameters (40B active), the MTP layer apart"},
};

// A training and a serving scenario on DGX B200 for each model, with a layout it runs.
struct OnB200 {
  const char* model;
  int nodes;
  const char* training_layout;
  int serving_tp;
  const char* serving_weights = nullptr;  // a weight_dtype for one node, where BF16 weights do not fit
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
    {"qwen3-next-80b-a3b", 1, "tp = 1\nep = 8", 2},
    {"qwen3.5-397b-a17b", 8, "tp = 4\npp = 4\nep = 8", 8},
    {"minimax-m1-80k", 8, "tp = 8\npp = 4\nep = 8", 8},
    {"minimax-m2", 4, "tp = 4\npp = 2\nep = 8", 8},
    {"glm-4.5", 8, "tp = 4\npp = 4\nep = 8", 8},
    {"kimi-k2", 16, "tp = 1\npp = 16\nep = 8", 8},
    {"glm-5", 8, "tp = 1\npp = 8\nep = 8", 8, "fp8"},  // 744B: 1.49 TB in BF16, over 8 x 180 GB
    {"deepseek-v3.2", 8, "tp = 1\npp = 8\nep = 8", 8},
};

std::string training_on_b200(const OnB200& c, const std::string& model_extra = "") {
  return fmt::format("[model]\nhf_config = \"{}/config.json\"\n{}\n[hardware]\nsystem = \"dgx-b200\"\nnodes = {}\n"
                     "[training]\nseq_len = 4096\nglobal_batch = 256\nmicro_batch = 1\nprecision = \"bf16\"\n[parallelism]\nzero = 1\n{}\n",
                     c.model, model_extra, c.nodes, c.training_layout);
}

std::string serving_on_b200(const OnB200& c, int input = 2048, int output = 256, int batch = 16) {
  return fmt::format("[model]\nhf_config = \"{}/config.json\"\n[hardware]\nsystem = \"dgx-b200\"\nnodes = 1\n[inference]\ninput_len = {}\n"
                     "output_len = {}\nbatch = {}\n{}[parallelism]\ntp = {}\n",
                     c.model, input, output, batch,
                     c.serving_weights ? fmt::format("weight_dtype = \"{}\"\n", c.serving_weights) : "", c.serving_tp);
}

// `line` added to the [table] section of `text` (right after its header).
std::string with_line(std::string text, const std::string& table, const std::string& line) {
  const std::size_t at = text.find("[" + table + "]\n");
  REQUIRE(at != std::string::npos);
  return text.insert(at + table.size() + 3, line + "\n");
}

double kv_cache_B(const Scenario& s) { return perfcast::test::component(memory_for_scenario(s), "kv_cache"); }

}  // namespace

TEST_CASE("fifteen config.json files import with parameter counts within 0.5 % of the published ones") {
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
  // gpt-oss quantises only its experts (modules_to_not_convert: self_attn, mlp.router, embed_tokens, lm_head).
  CHECK(imported("gpt-oss-120b").stored_expert_weight_dtype == Precision::fp4);
  CHECK(imported("gpt-oss-120b").stored_fp4_blocks == Fp4Blocks::mxfp4);  // quant_method mxfp4
  CHECK(!imported("gpt-oss-120b").stored_weight_dtype);
  const models::TransformerSpec gemma = imported("gemma-3-27b").transformer();
  CHECK(gemma.sliding_layers == 52);  // 62 layers, every sixth global (sliding_window_pattern 6)
  CHECK(gemma.norms_per_layer == 4);
  CHECK(gemma.tied_embeddings);
  CHECK(imported("mistral-7b-v0.1").transformer().sliding_layers == 32);
  CHECK(imported("qwen2.5-7b").transformer().sliding_layers == 0);  // use_sliding_window false
}

TEST_CASE("GLM-4.5: counted from its config, 0.6 % under the report's 355B, 32B active leaves out embedding and head") {
  // Per layer: Q 5,120 x 12,288 and K, V 5,120 x 1,024 with biases, O 12,288 x 5,120, q/k norms 2 x 128, two norms of
  // 5,120 = 136,339,712. Three dense MLPs of 3 x 5,120 x 12,288; 89 MoE layers of 160 routed + 1 shared expert of
  // 3 x 5,120 x 1,536 and a 160 x 5,120 router with a 160 bias (noaux_tc). Embedding and head 151,552 x 5,120 each.
  const Workload glm = imported("glm-4.5");
  const models::ParameterCount c = models::count_parameters(glm.transformer());
  const double moe_layer = 161 * 3 * 5120 * 1536.0 + 160 * 5120.0 + 160;
  CHECK(c.total == 92 * 136'339'712.0 + 3 * 3 * 5120 * 12288.0 + 89 * moe_layer + 2 * 151552 * 5120.0 + 5120);
  CHECK(c.total == 352'797'829'024.0);
  // GLM-4.5 report (arXiv:2508.06471) Table 1 and the model card: 355B total, 32B activated. The card does not say
  // how it counts; the active figure matches without the embedding and head (+0.25 %), the total is 0.62 % under
  // (0.50 % over with the 3.99B MTP layer). Held here as they are, not tuned away.
  CHECK(std::abs(c.total / 355e9 - 1) < 0.007);
  CHECK(std::abs((c.active - c.embedding - c.lm_head) / 32e9 - 1) < 0.005);
  CHECK(glm.transformer().mtp_layers == 1);
  CHECK(glm.transformer().qkv_bias);
  CHECK(glm.transformer().qk_norm);
}

TEST_CASE("Kimi K2's config (DeepseekV3ForCausalLM, model_type kimi_k2) counts what its preset does") {
  const Workload kimi = imported("kimi-k2");
  const models::ParameterCount c = models::count_parameters(kimi.transformer());
  const models::ParameterCount preset = models::count_parameters(load_preset(PERFCAST_DEFAULT_WORKLOADS, "kimi-k2").transformer());
  CHECK(c.total == preset.total);  // 1,026,408,232,448: tests/workload_test.cpp counts it by hand
  CHECK(c.active == preset.active);
  CHECK(kimi.transformer().mtp_layers == 0);  // num_nextn_predict_layers 0
  CHECK(kimi.stored_weight_dtype == Precision::fp8);
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
  // A disaggregated prefill hands over what the cache holds: the window, not the 32k prompt.
  const Scenario slo = hf_scenario(serving_on_b200(mistral, 32512, 256, 1) + "[serving]\nttft_slo_s = 5\ntpot_slo_s = 0.05\n");
  const CapacityReport handover = capacity_for_scenario(slo, {.rate = 1, .disaggregated = true});
  REQUIRE(handover.disaggregated);
  CHECK(handover.disaggregated->kv_bytes_per_device == doctest::Approx(4096.0 * 32 * 2 * 8 * 128 * 2));
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

TEST_CASE("linear-attention layers: hand counts, a state in place of a KV cache, FLOPs linear in the context (F-ARCH-4)") {
  // Qwen3-Next-80B-A3B, per layer: Gated DeltaNet 2,048 x (4,096 + 8,192 + 64) + 8,192 x 4 (conv) + 64 + 128 + 4,096 x 2,048
  // = 33,718,464; gated attention 2,048 x (8,192 + 1,024) + 4,096 x 2,048 + 2 x 256 = 27,263,488; MoE 512 x 3,145,728 + shared
  // 3,145,728 + router 1,048,576 + shared-expert gate 2,048; norms 4,096. 36 DeltaNet + 12 attention layers, embedding and head
  // 2 x 311,164,928, final norm. An independent count of the same shape (Qwen3-Coder-Next) gives 79,674,391,296.
  const models::ParameterCount next = models::count_parameters(imported("qwen3-next-80b-a3b").transformer());
  CHECK(next.linear_attention == 33'718'464.0);
  CHECK(next.softmax_attention == 27'263'488.0);
  CHECK(next.total == 79'674'391'296.0);
  // MiniMax-M1: 70 lightning layers of 6,144 x (3 x 8,192 + 8,192) + 8,192 x 6,144 + 8,192, 10 GQA layers of 113,246,208; 32
  // experts of 169,869,312 and a router of 6,144 x 32 per layer; 456.09B. Its 45.9B activated leaves out the embedding and head.
  const models::ParameterCount m1 = models::count_parameters(imported("minimax-m1-80k").transformer());
  CHECK(m1.linear_attention == 251'666'432.0);
  CHECK(m1.total == doctest::Approx(456'089'655'296.0).epsilon(1e-12));
  CHECK(std::abs((m1.active - m1.embedding - m1.lm_head) / 45.9e9 - 1) < 0.005);
  // MiniMax-M2 (softmax only, q/k norms across heads): 62 x (44,040,192 + 6,144 + 1,024 + 256 x 14,155,776 + 786,688 + 6,144)
  // + 2 x 614,596,608 + 3,072 = 228.69B; its card's "230B total" is that rounded (0.57 %).
  const models::ParameterCount m2 = models::count_parameters(imported("minimax-m2").transformer());
  CHECK(m2.total == 62.0 * (44'040'192 + 6'144 + 1'024 + 256.0 * 14'155'776 + 786'688 + 6'144) + 2 * 614'596'608.0 + 3'072);
  CHECK(std::abs(m2.total / 230e9 - 1) < 0.006);

  // Qwen3.5-397B-A17B keeps keys and values on its 15 gated-attention layers only: 15 x 2 x 2 x 256 x 2 B = 30,720 B a token
  // (30 KiB, as Raschka's architecture gallery lists it), and per sequence 45 FP32 states of 64 x 128 x 128 plus the
  // convolution's last 3 inputs of 12,288 channels in BF16.
  const models::TransformerSpec q35 = imported("qwen3.5-397b-a17b").transformer();
  const models::QuantFormat bf16 = models::kv_format(Precision::bf16);
  CHECK(models::kv_bytes_per_token(q35, bf16, 1, q35.layers) == 30'720.0);
  const double state = 45 * (64.0 * 128 * 128 * 4 + 3 * 12'288 * 2);
  CHECK(models::linear_state_bytes(q35, 1, q35.layers) == state);
  CHECK(models::kv_cache_bytes(q35, bf16, 1, q35.layers, 100'000) == 30'720.0 * 100'000 + state);
  CHECK(q35.mtp_layers == 1);

  // The linear core's FLOPs per token do not grow with the sequence; the softmax core's do.
  auto core_per_token = [&](const std::string& name, double seq) {
    models::OpContext ctx;
    ctx.seq_len = seq;
    for (const models::OpGroup& g : models::transformer_ops(q35, ctx))
      for (const models::Op& op : g.ops)
        if (op.name == name && op.pass == models::Pass::forward) return op.model_flops / seq;
    return 0.0;
  };
  // Gated DeltaNet, chunks of 64: 2 x 64 x (3 x 128 + 2 x 128) + 6 x 128 x 128 per token and value head, 64 heads, 45/60 of layers.
  CHECK(core_per_token("linear_attn.core", 4096) == doctest::Approx(0.75 * 64 * (2.0 * 64 * 640 + 6 * 128 * 128)));
  CHECK(core_per_token("linear_attn.core", 32768) == doctest::Approx(core_per_token("linear_attn.core", 4096)));
  CHECK(core_per_token("attn.core", 32768) > 7 * core_per_token("attn.core", 4096));

  // Training saves, for the mean Qwen3-Next layer at 4,096 tokens in BF16, three quarters of a DeltaNet layer's projections
  // (12,352 wide), convolution output (8,192), core output and out_proj input (4,096 each), a quarter of the attention's.
  models::ActivationContext act;
  act.seq_len = 4096;
  const models::TransformerSpec next_spec = imported("qwen3-next-80b-a3b").transformer();
  double linear_saved = 0, qkv_saved = 0;
  for (const models::SavedTensor& t : models::layer_activations(next_spec, act, true)) {
    if (std::string_view(t.name).starts_with("linear_attn.")) linear_saved += t.bytes;
    if (t.name == "attn.q k v") qkv_saved = t.bytes;
  }
  CHECK(linear_saved == doctest::Approx(0.75 * 2 * 4096 * (12'352 + 8'192 + 4'096 + 4'096)));
  CHECK(qkv_saved == doctest::Approx(0.25 * 2 * 4096 * (16 + 2 * 2) * 256));

  // Serving: a 32k context costs the state and a quarter of the layers' keys; a decode step reads the state.
  const OnB200 next80 = kOnB200[11];
  const double kv_4k = kv_cache_B(hf_scenario(serving_on_b200(next80, 3840, 256, 1)));
  const double kv_32k = kv_cache_B(hf_scenario(serving_on_b200(next80, 32512, 256, 1)));
  CHECK(kv_32k - kv_4k == doctest::Approx(28'672 * models::kv_bytes_per_token(imported("qwen3-next-80b-a3b").transformer(), bf16, 2, 48)));
  const InferencePrediction decode = predict_inference(hf_scenario(serving_on_b200(next80)));
  CHECK(decode.tpot_s > 0);
}

TEST_CASE("sparse attention: GLM-5 and DeepSeek-V3.2's indexer, a core of top_k keys, an FP8 key cache (F-ARCH-5)") {
  // GLM-5 per layer: MLA 6,144 x 2,048 + 2,048 (norm) + 2,048 x 64 x 256 + 6,144 x 576 + 512 (norm) + 512 x 64 x 448
  // + 64 x 256 x 6,144 = 165,022,208; indexer 2,048 x 32 x 128 + 6,144 x 128 + 2 x 128 (LayerNorm) + 6,144 x 32
  // = 9,371,904; two norms of 6,144. Three dense MLPs of 3 x 6,144 x 12,288; 75 MoE layers of 257 experts of
  // 3 x 6,144 x 2,048 and a 256 x 6,144 router with its bias. Embedding and head 154,880 x 6,144 each.
  const models::TransformerSpec glm5 = imported("glm-5").transformer();
  const models::ParameterCount c = models::count_parameters(glm5);
  CHECK(models::indexer_parameters(glm5) == 9'371'904.0);
  const double layer = 165'022'208.0 + 9'371'904 + 2 * 6144;
  const double moe_layer = 257 * 3 * 6144 * 2048.0 + 256 * 6144.0 + 256;
  CHECK(c.total == 78 * layer + 3 * 3 * 6144 * 12288.0 + 75 * moe_layer + 2 * 154880 * 6144.0 + 6144);
  // GLM-5 model card: 744B parameters, 40B active; the active figure leaves out the embedding and head, as GLM-4.5's does.
  CHECK(std::abs(c.total / 744e9 - 1) < 0.005);
  CHECK(std::abs((c.active - c.embedding - c.lm_head) / 40e9 - 1) < 0.005);
  CHECK(glm5.mtp_layers == 1);

  // DeepSeek-V3.2 is V3 with an indexer of 64 heads of 128 on each of its 61 layers.
  const models::TransformerSpec v32 = imported("deepseek-v3.2").transformer();
  const models::TransformerSpec v3 = imported("deepseek-v3").transformer();
  const double indexer = 1536 * 64 * 128.0 + 7168 * 128.0 + 2 * 128 + 7168 * 64.0;
  CHECK(models::indexer_parameters(v32) == indexer);
  CHECK(models::count_parameters(v32).total == models::count_parameters(v3).total + 61 * indexer);
  // At tp 8 every rank holds a whole indexer beside its eighth of the MLA projections (one dense layer, MTP apart).
  models::TransformerSpec v32_main = v32, v3_main = v3;
  v32_main.mtp_layers = v3_main.mtp_layers = 0;
  const StageLayers one_dense{1, 0};
  const ShardPlan tp8{8, 1, 1, 1, 1};
  const double v32_rank = local_parameters(v32_main, one_dense, 0, tp8).linear;
  const double v3_rank = local_parameters(v3_main, one_dense, 0, tp8).linear;
  CHECK(v32_rank - v3_rank == doctest::Approx(indexer));

  // The cache keeps the whole latent (any key may be chosen) plus the indexer's FP8 key with its scale: 61 x (576 x 2 + 132) B.
  const models::QuantFormat bf16 = models::kv_format(Precision::bf16);
  CHECK(models::kv_bytes_per_token(v32, bf16, 1, v32.layers) == 61 * (576 * 2.0 + 128 * models::kIndexKeyBytes));
  CHECK(models::kv_cache_bytes(v32, bf16, 1, v32.layers, 100'000) == 100'000 * models::kv_bytes_per_token(v32, bf16, 1, v32.layers));

  // Decoding at a long context, the core reads top_k = 2,048 keys whatever the context; the indexer scores them all.
  auto decode_op = [](const models::TransformerSpec& m, const std::string& name, double context) {
    models::OpContext ctx;
    ctx.phase = models::Phase::decode;
    ctx.batch = 1;
    ctx.context_len = context;
    for (const models::OpGroup& g : models::transformer_ops(m, ctx))
      for (const models::Op& op : g.ops)
        if (op.name == name) return op.model_flops;
    return -1.0;
  };
  CHECK(decode_op(v32, "attn.core.sparse", 16'384) == doctest::Approx(decode_op(v32, "attn.core.sparse", 131'072)));
  CHECK(decode_op(v32, "attn.core.sparse", 16'384) == doctest::Approx(2 * 2048 * 128 * (576 + 512.0)));  // absorbed MLA, 128 heads
  CHECK(decode_op(v32, "dsa.index_scores", 131'072) == doctest::Approx(2 * 131'073 * 64 * 128.0));
  CHECK(decode_op(v32, "attn.core", 16'384) == -1.0);  // no dense core beside the sparse one
  // A short context attends to every key, as V3 does.
  CHECK(decode_op(v32, "attn.core.sparse", 1000) == doctest::Approx(decode_op(v3, "attn.core", 1000)));
}

TEST_CASE("MTP modules train on the last stage, expert imbalance slows the step, not the model FLOPs") {
  const OnB200 v3 = kOnB200[7];
  const TrainingPrediction with_mtp = predict_training(hf_scenario(training_on_b200(v3)));
  const TrainingPrediction without = predict_training(hf_scenario(training_on_b200(v3, "mtp_layers = 0")));
  CHECK(with_mtp.step_time_s > without.step_time_s);
  CHECK(with_mtp.ranks.back().layers == without.ranks.back().layers);  // the MTP module is not a pipeline layer
  // Its activations sit on the last stage beside the loss: its inputs, one MoE layer's tensors and its own loss.
  const Scenario mtp_on = hf_scenario(training_on_b200(v3)), mtp_off = hf_scenario(training_on_b200(v3, "mtp_layers = 0"));
  const ActivationFootprint f = activation_footprint(mtp_on.workload.transformer(), activation_context(mtp_on));
  CHECK(f.mtp_module_B > f.moe_layer_B + f.output_B);
  auto last_stage_io = [](const Scenario& s) {
    const ActivationFootprint fs = activation_footprint(s.workload.transformer(), activation_context(s));
    return training_stage_memory(s, s.hw.datasheet, s.parallelism.pp - 1, fs, {}).io;
  };
  CHECK(last_stage_io(mtp_on) - last_stage_io(mtp_off) == doctest::Approx(f.mtp_module_B));

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
    CHECK(back.transformer().linear_share() == w.transformer().linear_share());
  }
}

TEST_CASE("bad config.json files get one line naming the file and the field") {
  CHECK(hf_error("{") == "config.json: not valid JSON at byte 2");
  CHECK(hf_error(R"({"rms_norm_eps": 1e40960})") == "config.json: not valid JSON: a number beyond the range of a double");
  CHECK(hf_error("[]") == "config.json: config: expected a JSON object");
  CHECK(hf_error("{}") == "config.json: architectures: missing; perfcast reads the model class from it (e.g. [\"LlamaForCausalLM\"])");
  CHECK(hf_error(R"({"architectures": ["LlamaForCausalLm"]})").starts_with(
      "config.json: architectures: 'LlamaForCausalLm' is not a model class perfcast reads (did you mean 'LlamaForCausalLM'?)"));
  CHECK(hf_error(R"({"architectures": ["DeepseekV4ForCausalLM"]})").starts_with(
      "config.json: architectures: DeepseekV4ForCausalLM: its compressed attention"));
  // DeepSeek Sparse Attention needs its indexer's widths, and the query latent they read.
  const std::string v32 = R"({"architectures": ["DeepseekV32ForCausalLM"], "hidden_size": 7168, "num_attention_heads": 128,
      "vocab_size": 129280, "intermediate_size": 18432, "num_hidden_layers": 61, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
      "qk_rope_head_dim": 64, "v_head_dim": 128, "n_routed_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 2048, )";
  CHECK(hf_error(v32 + R"("q_lora_rank": 1536, "index_n_heads": 64, "index_head_dim": 128})") ==
        "config.json: index_topk: missing; DeepseekV32ForCausalLM needs it");
  CHECK(hf_error(v32 + R"("index_n_heads": 64, "index_head_dim": 128, "index_topk": 2048})").starts_with("config.json: q_lora_rank: "));
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
  const std::string next = R"({"architectures": ["Qwen3NextForCausalLM"], "hidden_size": 2048, "num_attention_heads": 16, "vocab_size": 1000, )"
                           R"("intermediate_size": 5120, "num_hidden_layers": 4, "head_dim": 256, "linear_num_key_heads": 16, )"
                           R"("linear_num_value_heads": 32, "linear_key_head_dim": 128, "linear_value_head_dim": 128, )"
                           R"("num_experts": 512, "num_experts_per_tok": 10, "moe_intermediate_size": 512, )";
  CHECK(hf_error(next + R"("linear_conv_kernel_dim": 4})") == "(no error)");
  CHECK(hf_error(next + R"("linear_conv_kernel_dim": 4, "layer_types": ["linear_attention"]})") ==
        "config.json: layer_types: expected a list of 4 layer kinds (num_hidden_layers)");
  CHECK(hf_error(next + R"("linear_conv_kernel_dim": 4, "layer_types": ["linear_attention", "mamba", "x", "y"]})") ==
        "config.json: layer_types: 'mamba' is neither linear_attention nor full_attention");
  CHECK(hf_error(next + R"("layer_types": ["linear_attention", "full_attention", "full_attention", "full_attention"]})") ==
        "config.json: linear_conv_kernel_dim: missing; Qwen3NextForCausalLM needs it");
  CHECK(hf_error(next + R"("linear_conv_kernel_dim": 4, "linear_num_value_heads": 24})") ==
        "config.json: linear_num_value_heads: 24 is not a multiple of linear_num_key_heads 16");
  const std::string minimax = R"({"architectures": ["MiniMaxM1ForCausalLM"], "hidden_size": 6144, "num_attention_heads": 64, )"
                              R"("vocab_size": 1000, "intermediate_size": 9216, "num_hidden_layers": 2, "head_dim": 128, )"
                              R"("num_local_experts": 32, "num_experts_per_tok": 2, )";
  CHECK(hf_error(minimax + R"("attn_type_list": [0, 1]})") == "(no error)");
  CHECK(hf_error(minimax + R"("num_key_value_heads": 8})") ==
        "config.json: attn_type_list: missing; MiniMax configs list each layer's attention (0 lightning, 1 softmax)");
  CHECK(hf_error(minimax + R"("attn_type_list": [0, 2]})") ==
        "config.json: attn_type_list: expected 0 (lightning attention) or 1 (softmax attention) per layer");
  CHECK(hf_error(minimax + R"("attn_type_list": [0, 1], "shared_intermediate_size": [512]})") ==
        "config.json: shared_intermediate_size: only 0 (no shared expert) is read");
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
  CHECK(error("hf_config = \"qwen3-next-80b-a3b/config.json\"\n[model.linear_attention]\nlayers = 60").ends_with(
      "model.linear_attention: layers 60 exceeds the model's 48 layers"));
  CHECK(error("hf_config = \"qwen3-next-80b-a3b/config.json\"\nsliding_window = 4096").ends_with(
      "model.sliding_layers: sliding windows beside linear-attention layers are not modelled"));
  CHECK(error("hf_config = \"minimax-m1-80k/config.json\"\n[model.linear_attention]\nvalue_heads = 128").ends_with(
      "model.linear_attention.kind: lightning attention has as many value heads as key heads, of the same width"));
  CHECK(error("hf_config = \"qwen3-8b/config.json\"\nqk_norm = false\nqk_norm_across_heads = true").ends_with(
      "model.qk_norm_across_heads: needs qk_norm = true"));
  CHECK(error("hf_config = \"qwen3-8b/config.json\"\n[model.linear_attention]\nlayers = 4").ends_with(
      "missing required key 'model.linear_attention.key_heads'"));
  CHECK(error("hf_config = \"qwen3-8b/config.json\"\n[model.sparse_attention]\nindex_heads = 8\nindex_head_dim = 64\ntop_k = 512")
            .ends_with("model.sparse_attention: needs [model.mla] with q_lora_rank: the indexer's queries come from the query latent"));
  CHECK(error("hf_config = \"glm-5/config.json\"\n[model.sparse_attention]\ntop_k = 0").ends_with("model.sparse_attention.top_k: 0 is out of range [1, 1000000000]"));
  CHECK(error("hf_config = \"glm-5/config.json\"\n[model.sparse_attention]\ntop_k = 1024") == "(no error)");
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
