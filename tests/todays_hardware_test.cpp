// Today's hardware (GB300, HGX B300, MI355X, H20, RTX PRO 6000, Trainium2, TPU7x): the figures that
// are easy to get wrong, each against its record's source, and predictions on each system.
#include <doctest/doctest.h>

#include <cmath>
#include <fmt/format.h>

#include "engine/data/scenario_reader.hpp"
#include "engine/predict/inference.hpp"
#include "engine/predict/training.hpp"
#include "models/roofline.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;

namespace {

Scenario scenario_text(const std::string& body) {
  return parse_scenario("schema_version = 1\n" + body, "test.toml", PERFCAST_DEFAULT_WORKLOADS, shipped_db());
}

}  // namespace

TEST_CASE("Blackwell Ultra: dense FP4 is given, not half the sparse figure, INT8 collapses") {
  const AcceleratorSpec& gb300 = shipped_db().accelerator("gb300");
  CHECK(gb300.peak(Precision::fp4) == doctest::Approx(15e15));  // 20 PF sparse | 15 PF dense
  CHECK(gb300.peak(Precision::fp8) == doctest::Approx(5e15));   // rack 360 PF / 72
  CHECK(gb300.peak(Precision::int8) == doctest::Approx(165e12));
  CHECK(gb300.memory_capacity_marketing_B == doctest::Approx(279e9));
  CHECK(gb300.tdp_W == doctest::Approx(1400));
  CHECK(shipped_db().system("gb300-nvl72").scale_up_domain == 72);
}

TEST_CASE("GB200 enables 152 SMs where B200 enables 148: 150 output tiles are one wave on GB200, two on B200") {
  const AcceleratorSpec& gb200 = shipped_db().accelerator("gb200");
  const AcceleratorSpec& b200 = shipped_db().accelerator("b200");
  REQUIRE(gb200.compute_units.has_value());
  REQUIRE(b200.compute_units.has_value());
  CHECK(*gb200.compute_units == 152);  // VeOmni PR #986
  CHECK(*b200.compute_units == 148);   // Chips and Cheese, measured
  // 1,280 x 1,920: 10 x 15 = 150 tiles of 128 x 128 (80 of 128 x 256, 75 of 256 x 128).
  models::GemmShape s;
  s.m = 1280;
  s.n = 1920;
  s.k = 4096;
  const double useful = 1280.0 * 1920.0;
  CHECK(models::gemm_shape_efficiency(s, *gb200.compute_units) == doctest::Approx(useful / (152 * 128.0 * 128.0)));  // 150/152
  CHECK(models::gemm_shape_efficiency(s, *b200.compute_units) == doctest::Approx(useful / (2 * 148 * 128.0 * 128.0)));
}

TEST_CASE("MI355X: FP8 is 8,192 FLOP per clock per CU x 256 CUs x 2.4 GHz, FP4 twice that") {
  const AcceleratorSpec& mi355x = shipped_db().accelerator("mi355x");
  const double fp8 = 8192.0 * 256 * 2.4e9;
  CHECK(mi355x.peak(Precision::fp8) == doctest::Approx(fp8).epsilon(1e-4));
  CHECK(mi355x.peak(Precision::bf16) == doctest::Approx(fp8 / 2).epsilon(1e-4));
  CHECK(mi355x.peak(Precision::fp4) == doctest::Approx(2 * fp8).epsilon(1e-4));
  CHECK(mi355x.compute_units == 256);
  // Seven links of 153.6 GB/s both ways: 537.6 GB/s per direction.
  CHECK(mi355x.scale_up_bandwidth_per_direction_Bps == doctest::Approx(537.6e9));
}

TEST_CASE("H20 keeps H100's memory and NVLink at 15 % of its compute, Trainium2 and TPU7x in GiB") {
  const AcceleratorSpec& h20 = shipped_db().accelerator("h20");
  CHECK(h20.peak(Precision::bf16).value() / shipped_db().accelerator("h100-sxm").peak(Precision::bf16).value() ==
        doctest::Approx(0.15).epsilon(0.01));
  CHECK(h20.memory_bandwidth_Bps == doctest::Approx(4e12));
  CHECK(h20.scale_up_bandwidth_per_direction_Bps == doctest::Approx(450e9));
  const AcceleratorSpec& trn2 = shipped_db().accelerator("trainium2");
  CHECK(trn2.memory_capacity_marketing_B == doctest::Approx(96.0 * (1ull << 30)));
  CHECK(trn2.peak(Precision::fp8) == doctest::Approx(1299e12));
  const AcceleratorSpec& tpu7 = shipped_db().accelerator("tpu-v7");
  CHECK(tpu7.memory_capacity_marketing_B == doctest::Approx(192.0 * (1ull << 30)));
  CHECK(tpu7.peak(Precision::fp8) == doctest::Approx(2 * tpu7.peak(Precision::bf16).value()));
  // The RTX PRO 6000 is sm_120: no NVLink, and not the sm_100 kernels' architecture.
  const AcceleratorSpec& rtx = shipped_db().accelerator("rtx-pro-6000");
  CHECK(rtx.scale_up_link.empty());
  CHECK(rtx.architecture == GpuArchitecture::other);
  CHECK(rtx.peak(Precision::fp4) == doctest::Approx(2e15));
}

TEST_CASE("every system states its node power") {
  for (const Record* r : shipped_db().records_of(schema::Kind::system)) {
    CAPTURE(r->name);
    CHECK(shipped_db().system(r->name).node_power_W.value_or(0) > 0);
  }
}

TEST_CASE("the new systems and accelerators predict training and serving") {
  struct Case {
    const char* hardware;
    int tp;
  };
  for (const Case& c : {Case{"system = \"gb300-nvl72\"", 8}, Case{"system = \"hgx-b300\"", 8},
                        Case{"accelerator = \"mi355x\"\ncount = 8\nscale_up = \"infinity-fabric-mi355\"", 8},
                        Case{"accelerator = \"h20\"\ncount = 8\nscale_up = \"nvlink4\"", 8},
                        Case{"accelerator = \"tpu-v7\"\ncount = 8\nscale_up = \"tpu-ici-v7\"", 8},
                        Case{"accelerator = \"trainium2\"\ncount = 16\ngpus_per_node = 16\nscale_up = \"neuronlink-v3\"", 8}}) {
    const std::string hardware = c.hardware;
    CAPTURE(hardware);
    const TrainingPrediction t = predict_training(scenario_text(fmt::format(
        "[model]\npreset = \"llama3-70b\"\n[hardware]\n{}\n[training]\nseq_len = 4096\nglobal_batch = 144\nmicro_batch = 1\n"
        "precision = \"bf16\"\n[parallelism]\ntp = {}\npp = 1\nzero = 1\n",
        c.hardware, c.tp)));
    CHECK(std::isfinite(t.step_time_s));
    CHECK(t.step_time_s > 0);
    CHECK(t.mfu > 0.05);
    CHECK(t.mfu < 0.9);
    const InferencePrediction i = predict_inference(scenario_text(fmt::format(
        "[model]\npreset = \"llama3-70b\"\n[hardware]\n{}\n[inference]\ninput_len = 2048\noutput_len = 256\nbatch = 16\n[parallelism]\ntp = {}\n",
        c.hardware, c.tp)));
    CHECK(i.tpot_s > 0);
    CHECK(std::isfinite(i.ttft_s));
  }
}
