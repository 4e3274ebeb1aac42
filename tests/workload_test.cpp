// Workload presets: every shipped preset loads, and the parameter counts computed from each
// architecture match the published totals.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "engine/data/workload_reader.hpp"
#include "models/flops.hpp"
#include "models/transformer.hpp"

using namespace perfcast;

namespace {

Workload preset(const std::string& name) { return load_preset(PERFCAST_DEFAULT_WORKLOADS, name); }

// Within 0.5 % (the bound) or half a unit of the published figure's last digit,
// whichever is wider: "1.7B" only says 1.65B..1.75B.
double tolerance(const Workload& w, double published) {
  return std::max(0.005 * published, w.published_resolution / 2);
}

// Presets whose published figure the architecture does not give, the vendor stating no counting
// convention: a test of their own holds each gap as it is.
const std::set<std::string> kTotalGapHeld = {"kimi-k2"};
const std::set<std::string> kActiveGapHeld = {"deepseek-v3", "kimi-k2"};

}  // namespace

TEST_CASE("every shipped preset loads and matches its published parameter count") {
  auto names = preset_names(PERFCAST_DEFAULT_WORKLOADS);
  CHECK(names.size() >= 27);
  for (const std::string& name : names) {
    CAPTURE(name);
    Workload w = preset(name);
    CHECK(w.name == name);
    CHECK_FALSE(w.source.title.empty());
    if (!w.published_parameters) continue;
    double counted = w.is_transformer() ? models::count_parameters(w.transformer()).total : w.vision().parameters();
    counted += w.published_not_modelled;
    if (!kTotalGapHeld.contains(name)) CHECK(std::fabs(counted - *w.published_parameters) <= tolerance(w, *w.published_parameters));
    if (w.published_active_parameters && !kActiveGapHeld.contains(name)) {
      double active = models::count_parameters(w.transformer()).active;
      CHECK(std::fabs(active - *w.published_active_parameters) <= tolerance(w, *w.published_active_parameters));
    }
  }
}

TEST_CASE("Llama-3-70B has 70,553,706,496 parameters (MODELS-REFERENCE E10, published 70.6B)") {
  auto c = models::count_parameters(preset("llama3-70b").transformer());
  CHECK(c.total == 70'553'706'496.0);
  CHECK(c.dense_layer == 855'654'400.0);  // 2*8192^2 + 2*8192*1024 + 3*8192*28672 + 2*8192
  CHECK(std::fabs(c.total - 70.6e9) / 70.6e9 < 0.005);
}

TEST_CASE("DeepSeek-V3: 671B total within 0.5 %, active as counted from config_671B.json") {
  auto w = preset("deepseek-v3");
  auto c = models::count_parameters(w.transformer());
  CHECK(std::fabs(c.total - 671e9) / 671e9 < 0.005);  // 671,026,419,200
  // Active, hand-computed from the config: MLA 187,107,328 per layer (q 1536-rank, kv 512-rank,
  // out 16384x7168, two latent norms), 3 dense MLPs of 3*7168*18432, 58 MoE layers with 8 routed
  // + 1 shared expert of 3*7168*2048 and a 256x7168 router (+256 bias), 2*7168 norms per layer,
  // embeddings and LM head 129280*7168 each, final norm 7168.
  CHECK(c.active == 37'552'297'472.0);
  // Published: "37B activated" (technical report) and "36.7B" (README_WEIGHTS.md). The architecture
  // gives 37.55B: +1.5 % and +2.3 %. DeepSeek does not publish its counting convention, so this is
  // reported, not tuned away: the check holds the gap to what it is.
  CHECK(std::fabs(c.active - 37e9) / 37e9 < 0.02);
}

TEST_CASE("Kimi K2: counted from config.json, 1.3 % under the report's 1.04T total and 0.8 % over its 32.6B active") {
  auto w = preset("kimi-k2");
  auto c = models::count_parameters(w.transformer());
  // Hand count from config.json. MLA per layer: q_a 7168x1536 + q_a norm 1536 + q_b 1536x64x192
  // + kv_a 7168x576 + kv_a norm 512 + kv_b 512x64x256 + o 8192x7168 = 101,124,096; two norms of
  // 7168 per layer. One dense MLP 3x7168x18432 = 396,361,728. 60 MoE layers of 384 routed + 1
  // shared expert of 3x7168x2048 = 44,040,192 and a 384x7168 router with a 384 bias. Embedding and
  // LM head 163840x7168 each, final norm 7168.
  const double attention = 61 * (101'124'096.0 + 2 * 7168);
  const double moe_router = 60 * (384 * 7168.0 + 384);
  const double embeddings = 2 * 163840 * 7168.0 + 7168;
  CHECK(c.total == attention + 396'361'728.0 + 60 * 385 * 44'040'192.0 + moe_router + embeddings);
  CHECK(c.active == attention + 396'361'728.0 + 60 * 9 * 44'040'192.0 + moe_router + embeddings);
  CHECK(c.total == 1'026'408'232'448.0);
  CHECK(c.active == 32'861'500'928.0);
  // The technical report's Table 2 says 1.04T and 32.6B, the model card 1T and 32B; neither states
  // a counting convention, and no choice of what to leave out (embeddings, head, routers) gives
  // both. Reported, not tuned away: the checks hold the gaps to what they are.
  CHECK(std::fabs(c.total / *w.published_parameters - 1) < 0.014);
  CHECK(std::fabs(c.active / *w.published_active_parameters - 1) < 0.009);
}

TEST_CASE("Llama 4 Scout and Maverick: the text model plus the vision encoder is the published total") {
  for (const char* name : {"llama4-scout", "llama4-maverick"}) {
    CAPTURE(name);
    auto w = preset(name);
    CHECK(w.published_not_modelled == 871'932'416.0);  // hand count in the presets' notes
  }
  // Scout by hand: per layer q and o 5120x5120, k and v 5120x1024, 17 SwiGLU experts (16 routed +
  // shared) of 3x5120x8192, a 16x5120 router, two norms; embedding and head 202048x5120; final norm.
  const double layer = 2 * 5120 * 5120.0 + 2 * 5120 * 1024.0 + 17 * 3 * 5120 * 8192.0 + 16 * 5120.0 + 2 * 5120.0;
  auto scout = models::count_parameters(preset("llama4-scout").transformer());
  CHECK(scout.total == 48 * layer + 2 * 202048 * 5120.0 + 5120);
  CHECK(std::fabs(scout.total + 871'932'416.0 - 109e9) / 109e9 < 0.005);  // 108.64B against "109B"
  CHECK(std::fabs(scout.total - 109e9) / 109e9 > 0.01);  // the text model alone would not match
}

TEST_CASE("Mixtral active parameters: 2 of 8 experts plus everything dense") {
  auto c = models::count_parameters(preset("mixtral-8x7b").transformer());
  CHECK(c.total == 46'702'792'704.0);
  CHECK(c.active == 12'879'925'248.0);
}

TEST_CASE("GPT-3 175B counted layer by layer equals Narayanan Eq. 2 plus the final LayerNorm") {
  auto c = models::count_parameters(preset("gpt3-175b").transformer());
  double eq2 = models::narayanan_parameters(96, 12288, 51200, 2048);
  CHECK(eq2 == doctest::Approx(174'615'822'336.0));
  CHECK(c.total - eq2 == doctest::Approx(2 * 12288.0));  // Eq. 2 leaves out the final LayerNorm
}

TEST_CASE("Llama 3.1 presets reuse the Llama 3 architecture") {
  CHECK(models::count_parameters(preset("llama3.1-70b").transformer()).total == 70'553'706'496.0);
  CHECK(preset("llama3.1-8b").transformer().layers == 32);
}

TEST_CASE("vision op lists: parameters and multiply-accumulates") {
  auto r50 = preset("resnet-50").vision();
  CHECK(r50.parameters() == 25'557'032.0);             // torchvision num_params, batch-norm scale/shift included
  CHECK(std::fabs(r50.macs() - 4.09e9) / 4.09e9 < 0.005);  // torchvision "GFLOPS 4.09" (multiply-adds)
  auto mb = preset("mobilenet-v2").vision();
  CHECK(mb.parameters() == 3'504'872.0);
  CHECK(std::fabs(mb.macs() - 300e6) / 300e6 < 0.01);  // paper: 300M multiply-adds (rounded)
  auto yolo = preset("yolov3-tiny").vision();
  CHECK(std::fabs(2 * yolo.macs() - 5.56e9) / 5.56e9 < 0.005);  // pjreddie.com: 5.56 Bn FLOPS
}
