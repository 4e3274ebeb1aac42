// Workload presets: every shipped preset loads, and the parameter counts computed from each
// architecture match the published totals.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

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
    CHECK(std::fabs(counted - *w.published_parameters) <= tolerance(w, *w.published_parameters));
    if (w.published_active_parameters && name != "deepseek-v3") {
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
