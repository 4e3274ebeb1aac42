// Calibration: the fit recovers parameters a synthetic device was generated with, the priors keep
// a lone wild measurement sane, profiles round-trip and refuse bad input, validation with a
// profile never scores a fitted case as held-out, and --uncertainty's intervals behave.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <iterator>
#include <numeric>
#include <unistd.h>

#include "engine/calibrate/calibration.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/calibrate/uncertainty.hpp"
#include "engine/data/workload_reader.hpp"
#include "engine/ingest/case_writers.hpp"
#include "engine/ingest/nccl_tests.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;

namespace {

// A temporary file removed when the test ends.
struct TempFile {
  std::filesystem::path path;
  TempFile(const std::string& name, const std::string& text)
      : path(std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".toml")) {
    std::ofstream(path) << text;
  }
  ~TempFile() { std::filesystem::remove(path); }
};

struct Shape {
  int m, n, k;
};

// H100 GEMMs and HBM streams "measured" on a device whose true parameters are `truth`: each
// measured value is the roofline's prediction with them, so a fit must find them again.
std::string synthetic_cases(const ModelParams& truth, double tolerance) {
  std::vector<MicrobenchCase> cases;
  // Every shape fills H100's 132 SMs with its tiles, so none splits K (F-ROOF-9), whose fixup would
  // tie a GEMM's time to `memory` too.
  for (Shape s : {Shape{1536, 1536, 1536}, Shape{2048, 2048, 2048}, Shape{4096, 4096, 4096}, Shape{8192, 8192, 8192},
                  Shape{4096, 1024, 8192}, Shape{16384, 8192, 1024}}) {
    MicrobenchCase c;
    c.id = fmt::format("gemm-{}x{}x{}", s.m, s.n, s.k);
    c.accelerator = "h100-sxm";
    c.hardware = resolve_accelerator(shipped_db(), c.accelerator);
    c.kind = MicrobenchKind::gemm;
    c.m = s.m, c.n = s.n, c.k = s.k;
    cases.push_back(c);
  }
  for (double gb : {0.5, 2.0, 8.0}) {
    MicrobenchCase c;
    c.id = fmt::format("copy-{}GB", gb);
    c.accelerator = "h100-sxm";
    c.hardware = resolve_accelerator(shipped_db(), c.accelerator);
    c.kind = MicrobenchKind::memory;
    c.read_B = c.write_B = gb * 1e9;
    cases.push_back(c);
  }
  for (MicrobenchCase& c : cases) c.measured = 1;
  const std::vector<CaseScore> truth_scores = score_microbenchmarks(cases, truth.efficiency);
  std::string text = "schema_version = 1\nsuite = \"microbenchmark\"\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const MicrobenchCase& c = cases[i];
    text += fmt::format("\n[[case]]\nid = \"{}\"\nsource = \"synthetic\"\ndevice = \"NVIDIA H100 80GB HBM3\"\naccelerator = \"h100-sxm\"\ntolerance = {}\n", c.id, tolerance);
    if (c.kind == MicrobenchKind::gemm)
      text += fmt::format("kind = \"gemm\"\nm = {}\nn = {}\nk = {}\ndtype = \"bf16\"\nmeasured = \"{:.9g} TFLOP/s\"\n", c.m, c.n, c.k,
                          truth_scores[i].predicted / 1e12);
    else
      text += fmt::format("kind = \"memory\"\nread = \"{:g} GB\"\nwrite = \"{:g} GB\"\nmeasured = \"{:.9g} GB/s\"\n", c.read_B / 1e9,
                          c.write_B / 1e9, truth_scores[i].predicted / 1e9);
  }
  return text;
}

double param(const CalibrationProfile& p, std::string_view name) {
  for (const ProfileParam& q : p.params)
    if (q.name == name) return q.value;
  FAIL("no parameter ", name);
  return 0;
}

const ProfileParam& entry(const CalibrationProfile& p, std::string_view name) {
  for (const ProfileParam& q : p.params)
    if (q.name == name) return q;
  throw std::logic_error("no parameter");
}

std::string load_error(const std::string& text) {
  TempFile f("perfcast-profile", text);
  try {
    load_calibration_profile(f.path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("calibrate recovers the GEMM and HBM efficiencies a synthetic H100 was generated with") {
  ModelParams truth;
  truth.efficiency.gemm = 0.62;
  truth.efficiency.memory = 0.71;
  TempFile f("perfcast-synthetic", synthetic_cases(truth, 0.02));
  CalibrationRequest r;
  r.files = {f.path};
  r.threads = 1;
  const CalibrationResult result = calibrate(r, shipped_db());
  // The prior at the defaults (0.80, 0.90) pulls the answer toward them: with 6 GEMMs at a 2 %
  // tolerance against a 0.19 prior, by ln(0.8/0.62) x (1/0.19^2) / (6/0.02^2 + 1/0.19^2) = 0.05 %.
  CHECK(param(result.profile, "gemm") == doctest::Approx(0.62).epsilon(0.005));
  CHECK(param(result.profile, "memory") == doctest::Approx(0.71).epsilon(0.005));
  CHECK(entry(result.profile, "gemm").informed);
  CHECK(entry(result.profile, "gemm").low < 0.62);
  CHECK(entry(result.profile, "gemm").high > 0.62);
  CHECK_FALSE(entry(result.profile, "nic_efficiency").informed);
  CHECK(param(result.profile, "nic_efficiency") == doctest::Approx(entry(result.profile, "nic_efficiency").default_value));
  REQUIRE(result.cases.size() == 9);
  for (const CalibrationCase& c : result.cases) {
    CHECK(std::fabs(c.after.error) < 0.01);
    REQUIRE(c.leave_one_out);
    CHECK(std::fabs(c.loo_error()) < 0.02);  // the other cases pin the same two parameters
    CHECK(std::fabs(c.before.error) > 0.10);   // the defaults were far off: 0.80 / 0.90
  }
  CHECK(result.profile.cases.size() == 9);
  CHECK(result.profile.accelerators == std::vector<std::string>{"h100-sxm"});
}

// The synthetic cases with the source of each chosen by `source_of(id)`.
std::string with_sources(std::string text, const std::function<std::string(const std::string&)>& source_of) {
  std::string out;
  std::size_t at = 0;
  while (true) {
    const std::size_t id = text.find("id = \"", at);
    if (id == std::string::npos) break;
    const std::size_t end = text.find('"', id + 6);
    const std::size_t src = text.find("source = \"synthetic\"", end);
    out += text.substr(at, src - at);
    out += fmt::format("source = \"{}\"", source_of(text.substr(id + 6, end - id - 6)));
    at = src + std::string("source = \"synthetic\"").size();
  }
  return out + text.substr(at);
}

TEST_CASE("leave-one-source-out refits without a whole source: a parameter only that source informs falls back to its prior") {
  ModelParams truth;
  truth.efficiency.gemm = 0.62;
  truth.efficiency.memory = 0.71;
  const std::string cases = synthetic_cases(truth, 0.02);
  CalibrationRequest r;
  r.threads = 1;
  // GEMMs from one source, HBM copies from another: leaving the copies out leaves `memory` at its
  // prior (0.90, the defaults' error), leaving the GEMMs out leaves `gemm` at 0.80.
  TempFile split("perfcast-sources", with_sources(cases, [](const std::string& id) { return id.starts_with("gemm") ? "gemms" : "copies"; }));
  r.files = {split.path};
  const CalibrationResult by_kind = calibrate(r, shipped_db());
  for (const CalibrationCase& c : by_kind.cases) {
    REQUIRE(c.leave_one_source_out);
    CHECK(c.loso_error() == doctest::Approx(c.before.error).epsilon(0.02));
    CHECK(std::fabs(c.loo_error()) < 0.02);  // one case left out: its source's others still pin it
  }
  // Sources that each hold GEMMs and copies predict each other.
  int k = 0;
  TempFile mixed("perfcast-mixed", with_sources(cases, [&k](const std::string&) { return ++k % 2 ? "odd" : "even"; }));
  r.files = {mixed.path};
  for (const CalibrationCase& c : calibrate(r, shipped_db()).cases) {
    REQUIRE(c.leave_one_source_out);
    CHECK(std::fabs(c.loso_error()) < 0.02);
  }
  // One source: nothing to leave out.
  TempFile one("perfcast-one", cases);
  r.files = {one.path};
  for (const CalibrationCase& c : calibrate(r, shipped_db()).cases) CHECK_FALSE(c.leave_one_source_out);
}

TEST_CASE("one wild measurement cannot drag a parameter to an absurd value") {
  // A GEMM "measured" 20x below what the default predicts, with the usual 10 % tolerance.
  const std::string text = R"(schema_version = 1
suite = "microbenchmark"
[[case]]
id = "wild"
source = "test"
device = "NVIDIA H100 80GB HBM3"
accelerator = "h100-sxm"
kind = "gemm"
m = 8192
n = 8192
k = 8192
dtype = "bf16"
measured = "30 TFLOP/s"
)";
  TempFile f("perfcast-wild", text);
  CalibrationRequest r;
  r.files = {f.path};
  const CalibrationResult result = calibrate(r, shipped_db());
  const double gemm = param(result.profile, "gemm");
  CHECK(gemm >= 0.05);
  CHECK(gemm <= 1.0);
  // The case alone implies 0.80 / (1 + default error) of peak; the prior at 0.80 resists, so the
  // fit lands well above that and leaves the case visibly unexplained, with a note saying so.
  const double implied = 0.80 / (1 + result.cases[0].before.error);
  CHECK(implied < 0.04);
  CHECK(gemm > 1.5 * implied);
  CHECK(result.cases[0].after.error > 0.5);
  bool flagged = false;
  for (const std::string& n : result.notes) flagged = flagged || n.find("'wild'") != std::string::npos;
  CHECK(flagged);
  // One case for the GEMM efficiencies it informs leaves no spare degree of freedom: said, not hidden
  // behind an interval that only restates the prior.
  bool few = false;
  for (const std::string& n : result.notes)
    few = few || (n.starts_with("warning: 1 case(s) for ") && n.find("degree(s) of freedom: the intervals rest on the priors") != std::string::npos);
  CHECK(few);
}

TEST_CASE("enough consistent cases: no degrees-of-freedom warning") {
  ModelParams truth;
  truth.efficiency.gemm = 0.7;
  TempFile f("perfcast-many", synthetic_cases(truth, 0.05));
  CalibrationRequest r;
  r.files = {f.path};
  r.leave_one_out = false;
  const CalibrationResult result = calibrate(r, shipped_db());
  for (const std::string& n : result.notes) CHECK(n.find("degree(s) of freedom") == std::string::npos);
}

TEST_CASE("calibrate --select takes every Nth case and reports the rest as not chosen") {
  ModelParams truth;
  truth.efficiency.gemm = 0.7;
  TempFile f("perfcast-select", synthetic_cases(truth, 0.05));
  CalibrationRequest r;
  r.files = {f.path};
  r.select_index = 1;
  r.select_of = 3;
  r.leave_one_out = false;
  const CalibrationResult result = calibrate(r, shipped_db());
  CHECK(result.profile.cases == std::vector<std::string>{"gemm-2048x2048x2048", "gemm-4096x1024x8192", "copy-2GB"});
  for (const CalibrationCase& c : result.cases) CHECK_FALSE(c.leave_one_out);
  r.select_index = 3;
  CHECK_THROWS_AS(calibrate(r, shipped_db()), InputError);
  r.select_index = 0;
  r.kind = "collective";
  CHECK_THROWS_WITH_AS(calibrate(r, shipped_db()), doctest::Contains("no selected case"), InputError);
}

TEST_CASE("a profile round-trips through its TOML and validation never scores its fitted cases") {
  ModelParams truth;
  truth.efficiency.gemm = 0.65;
  TempFile cases("perfcast-roundtrip-cases", synthetic_cases(truth, 0.05));
  CalibrationRequest r;
  r.files = {cases.path};
  r.select_of = 2;
  r.leave_one_out = false;
  const CalibrationResult fit = calibrate(r, shipped_db());
  TempFile profile("perfcast-roundtrip-profile", profile_toml(fit.profile));
  const CalibrationProfile back = load_calibration_profile(profile.path);
  REQUIRE(back.params.size() == fit.profile.params.size());
  for (std::size_t i = 0; i < back.params.size(); ++i) {
    CHECK(back.params[i].value == doctest::Approx(fit.profile.params[i].value).epsilon(1e-12));
    CHECK(back.params[i].sd_log == doctest::Approx(fit.profile.params[i].sd_log).epsilon(1e-12));
    for (std::size_t k = 0; k < back.params.size(); ++k)
      CHECK(back.covariance[i][k] == doctest::Approx(fit.profile.covariance[i][k]).epsilon(1e-12));
  }
  CHECK(back.cases == fit.profile.cases);

  const CalibratedScores s = score_with_profile({cases.path}, shipped_db(), back);
  CHECK(s.fitted == int(fit.profile.cases.size()));
  int held_out = 0;
  for (std::size_t i = 0; i < s.after.size(); ++i) {
    const bool fitted = back.used_for_fit(s.after[i].id);
    CHECK(s.after[i].held_out == !fitted);
    CHECK(s.before[i].held_out == !fitted);
    if (!fitted) ++held_out;
    if (!fitted && std::fabs(s.before[i].error) > 0.01) {
      // The held-out half was generated by the same device: the profile predicts it better.
      CHECK(std::fabs(s.after[i].error) < std::fabs(s.before[i].error));
    }
  }
  CHECK(held_out == 4);
}

TEST_CASE("validation with a profile keeps the defaults for devices it was not fitted on") {
  CalibrationProfile p = prior_profile();
  p.cases = {"not-a-case"};
  p.accelerators = {"b200"};
  p.params[0].value = 0.5;  // gemm
  p.params[1].value = 0.5;  // gemm_8bit
  const std::filesystem::path file = std::filesystem::path(PERFCAST_SOURCE_DIR) / "validation" / "microbenchmarks.toml";
  const CalibratedScores s = score_with_profile({file}, shipped_db(), p);
  int b200 = 0;
  for (std::size_t i = 0; i < s.after.size(); ++i) {
    if (!s.after[i].scored) continue;
    if (s.after[i].accelerator == "b200") {
      ++b200;
      if (s.after[i].kind == "gemm") CHECK(s.after[i].predicted != doctest::Approx(s.before[i].predicted));
    } else {
      CHECK(s.after[i].predicted == s.before[i].predicted);
    }
  }
  CHECK(b200 > 0);
  CHECK(s.other_device > 0);
}

TEST_CASE("a malformed profile is refused with the file and key") {
  const std::string head = "schema_version = 1\n[calibration]\ncases = [\"a\"]\n";
  CHECK(load_error(head + "[parameters.gemm]\nvalue = 0.7\n") == "");
  CHECK(load_error(head + "[parameters.gemmm]\nvalue = 0.7\n").find("gemmm") != std::string::npos);
  CHECK(load_error(head + "[parameters.gemm]\nvalue = 1.5\n").find("parameters.gemm.value") != std::string::npos);
  CHECK(load_error(head + "[parameters.gemm]\nvalue = 0.7\nlow = 0.8\nhigh = 0.9\n").find("does not hold") != std::string::npos);
  CHECK(load_error(head + "[parameters.gemm]\nvalue = 0.7\ncolour = 1\n").find("colour") != std::string::npos);
  CHECK(load_error("schema_version = 1\n[parameters.gemm]\nvalue = 0.7\n").find("[calibration]") != std::string::npos);
  CHECK(load_error(head + "[parameters]\n[covariance]\nnames = [\"gemm\", \"memory\"]\nmatrix = [[0.01, 0.002], [0.001, 0.01]]\n")
            .find("not symmetric") != std::string::npos);
  CHECK(load_error(head + "[parameters]\n[covariance]\nnames = [\"gemm\"]\nmatrix = [[-0.01]]\n").find("positive") != std::string::npos);
  CHECK(load_error(head + "[parameters]\n[covariance]\nnames = [\"gemm\"]\nmatrix = [[0.01, 0.0]]\n").find("row 1") != std::string::npos);
}

TEST_CASE("quantile interpolates between ranks") {
  CHECK(quantile({4, 1, 3, 2, 5}, 0.5) == 3);
  CHECK(quantile({1, 2, 3, 4, 5}, 0.1) == doctest::Approx(1.4));
  CHECK(quantile({1, 2, 3, 4, 5}, 0.9) == doctest::Approx(4.6));
  CHECK(quantile({7}, 0.9) == 7);
}

TEST_CASE("parameter draws are reproducible, within bounds, and spread as the covariance says") {
  const CalibrationProfile p = prior_profile();
  const std::vector<ModelParams> a = sample_params(p, 2000), b = sample_params(p, 2000);
  std::vector<double> logs;
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].efficiency.gemm == b[i].efficiency.gemm);
    CHECK(a[i].efficiency.gemm <= 1.0);
    CHECK(a[i].efficiency.overlap_window <= 1.0);
    logs.push_back(std::log(a[i].efficiency.kernel_overhead_s / 4e-6));  // unclamped: bounds 1e-8..1e-4
  }
  double mean = 0, var = 0;
  for (double x : logs) mean += x / double(logs.size());
  for (double x : logs) var += (x - mean) * (x - mean) / double(logs.size() - 1);
  CHECK(std::fabs(mean) < 0.05);
  CHECK(std::sqrt(var) == doctest::Approx(0.69).epsilon(0.05));  // the prior's sd of ln(overhead)
}

TEST_CASE("uncertainty: the intervals are ordered, and collapse to the point with a near-exact profile") {
  const Scenario s = load_scenario(std::filesystem::path(PERFCAST_SOURCE_DIR) / "scenarios" / "llama3-70b-15t-pretrain.toml",
                                   default_workloads_dir(), shipped_db());
  const UncertaintyReport wide = training_uncertainty(s, {}, prior_profile(), 100);
  REQUIRE(wide.figures.size() == 6);  // step, tokens/s, MFU, time to train, usd, CO2e
  for (const FigureInterval& f : wide.figures) {
    CHECK(f.p10 <= f.p50);
    CHECK(f.p50 <= f.p90);
    CHECK(f.p10 < f.p90);
  }
  CalibrationProfile exact = prior_profile();
  for (auto& row : exact.covariance)
    for (double& v : row) v = v > 0 ? 1e-14 : 0;
  const UncertaintyReport narrow = training_uncertainty(s, {}, exact, 20);
  for (const FigureInterval& f : narrow.figures) {
    CHECK(f.p10 == doctest::Approx(f.point).epsilon(1e-5));
    CHECK(f.p90 == doctest::Approx(f.point).epsilon(1e-5));
  }
}

// The shipped stack profile: what `perfcast calibrate` fits today on its cases (so it cannot go
// stale), never scored on them, and what it does to a source it never saw (NeMo 24.07, H100 FP8).
TEST_CASE("the shipped NeMo H100 FP8 profile is calibrate's fit on Megatron-Bridge's tables, scored on NeMo 24.07 only") {
  const std::filesystem::path root = default_validation_dir().parent_path();
  const CalibrationProfile shipped = load_calibration_profile(root / "profiles" / "nemo-h100-fp8.toml");
  CalibrationRequest r;
  r.files = {root / "validation" / "training-megatron-bridge.toml"};
  r.kind = "training";
  r.system = "dgx-h100";
  r.leave_one_out = false;
  r.threads = 1;
  const CalibrationResult again = calibrate(r, shipped_db());
  CHECK(again.profile.cases == shipped.cases);
  CHECK(param(again.profile, "gemm_8bit") == doctest::Approx(param(shipped, "gemm_8bit")).epsilon(1e-3));

  const CalibratedScores scores = score_with_profile(validation_files(default_validation_dir()), shipped_db(), shipped);
  CHECK(scores.fitted == int(shipped.cases.size()));
  std::vector<double> unseen_before, unseen_after;
  for (std::size_t i = 0; i < scores.after.size(); ++i) {
    const CaseScore& a = scores.after[i];
    if (shipped.used_for_fit(a.id)) CHECK_FALSE(a.held_out);
    if (!a.held_out || a.source.find("NeMo 24.07") == std::string::npos) continue;
    unseen_after.push_back(std::fabs(a.error));
    unseen_before.push_back(std::fabs(scores.before[i].error));
  }
  REQUIRE(unseen_after.size() == 8);
  // Measured 2026-11-24: 34.0 % with the defaults, 10.0 % with the profile; after the measured
  // attention kernels (F-ATT-1) the same day, 29.6 % and 9.7 %; after current scaling's amax passes,
  // 29.6 % and 12.0 %: the profile is fitted on Megatron-Bridge's current-scaling runs, whose amax
  // passes its gemm_8bit no longer absorbs (0.559 -> 0.576), and NeMo 24.07 ran delayed scaling
  // (README, Calibration). Its leave-one-source-out median fell 7.4 % -> 6.5 %. With a GEMM's depth
  // on Hopper (F-ROOF-5): 26.8 % and 10.0 % (gemm_8bit 0.576 -> 0.586), leave-one-source-out 6.0 %.
  // With the H100's measured sustained tensor rate at its 700 W limit (F-EN-5): 13.6 % and 8.3 %
  // (gemm_8bit 0.586 -> 0.662), leave-one-source-out 3.1 %.
  CHECK(quantile(unseen_before, 0.5) > 0.13);
  // With the fit's scatter estimated (priors yield as the cases allow, 2026-12-03): 13.6 % and 7.9 %.
  CHECK(quantile(unseen_after, 0.5) <= 0.080);
}

TEST_CASE("a profile of host-side parameters alone carries to every device, one of device efficiencies does not") {
  CalibrationProfile host = prior_profile();
  host.accelerators = {"h100-sxm"};
  for (ProfileParam& q : host.params)
    if (q.name == "kernel_overhead_s") q.value = 1.2e-5, q.informed = true;
  CHECK(host.fitted_on("h100-sxm"));
  CHECK(host.fitted_on("a100-sxm-80gb"));
  CHECK(host.fitted_on("h200"));
  CalibrationProfile device = host;
  for (ProfileParam& q : device.params)
    if (q.name == "gemm_8bit") q.value = 0.6, q.informed = true;
  CHECK(device.fitted_on("h100-sxm"));
  CHECK_FALSE(device.fitted_on("h200"));
  CHECK_FALSE(prior_profile().fitted_on("h200"));  // nothing fitted: carries nowhere
}

TEST_CASE("calibrate --parameters fits only the parameters named and refuses a name it does not know") {
  const std::filesystem::path root = std::filesystem::path(PERFCAST_SOURCE_DIR);
  CalibrationRequest r;
  r.files = {root / "validation" / "inference-azure-nd-a100.toml"};
  r.leave_one_out = false;
  r.threads = 1;
  const CalibrationResult all = calibrate(r, shipped_db());
  CHECK(param(all.profile, "gemm") != doctest::Approx(0.80));  // FP16 prefills inform the 16-bit GEMMs
  r.parameters = {"kernel_overhead_s"};
  const CalibrationResult one = calibrate(r, shipped_db());
  for (const ProfileParam& q : one.profile.params) CHECK(q.informed == (q.name == "kernel_overhead_s"));
  CHECK(param(one.profile, "gemm") == doctest::Approx(0.80));
  r.parameters = {"kernel_overhead"};
  CHECK_THROWS_WITH_AS(calibrate(r, shipped_db()), doctest::Contains("'kernel_overhead' is not a calibration parameter"), InputError);
  r.parameters = {"nic_efficiency"};  // no case of one node depends on it
  CHECK_THROWS_WITH_AS(calibrate(r, shipped_db()), doctest::Contains("nothing to fit"), InputError);
}

// Azure's LLM harness (TensorRT-LLM's Python GenerationSession, no CUDA graphs) on three pages: the shipped profile is
// calibrate's fit of the launch cost on the ND H100 v5 rows alone, and validate scores the H200 and A100 pages, which
// it never saw, with it because their cases name it.
TEST_CASE("the shipped TensorRT-LLM Python-session profile is fitted on ND H100 v5 and carries to ND H200 v5 and ND A100 v4") {
  const std::filesystem::path root = std::filesystem::path(PERFCAST_SOURCE_DIR);
  const CalibrationProfile shipped = load_calibration_profile(root / "profiles" / "trtllm-python-session.toml");
  CalibrationRequest r;
  r.files = {root / "validation" / "inference.toml"};
  r.source = "ND_H100_v5";
  r.parameters = {"kernel_overhead_s"};
  r.leave_one_out = false;
  r.threads = 1;
  const CalibrationResult again = calibrate(r, shipped_db());
  CHECK(again.profile.cases == shipped.cases);
  REQUIRE(shipped.cases.size() == 6);
  CHECK(param(again.profile, "kernel_overhead_s") == doctest::Approx(param(shipped, "kernel_overhead_s")).epsilon(1e-3));
  // Measured 2026-12-03: 13.7 us, three times the eager launch's 4 us default.
  CHECK(param(shipped, "kernel_overhead_s") > 8e-6);
  CHECK(param(shipped, "kernel_overhead_s") < 2e-5);

  for (const char* page : {"inference-azure-nd-h200.toml", "inference-azure-nd-a100.toml"}) {
    CAPTURE(page);
    const std::filesystem::path file = root / "validation" / page;
    const std::vector<CaseScore> defaults = score_file(file, shipped_db());
    const std::vector<CaseScore> named = score_file_with_case_profiles(file, shipped_db());
    REQUIRE(named.size() == defaults.size());
    std::vector<double> before, after;
    for (std::size_t i = 0; i < named.size(); ++i) {
      CAPTURE(named[i].id);
      CHECK(named[i].held_out);
      CHECK(named[i].detail.find("with trtllm-python-session.toml") != std::string::npos);
      CHECK(named[i].predicted < defaults[i].predicted);  // the launches cost more: fewer tokens/s
      before.push_back(std::fabs(defaults[i].error));
      after.push_back(std::fabs(named[i].error));
    }
    // Measured 2026-12-01 (decode GEMMs split over K, F-ROOF-9): H200 7.7 %, A100 0.9 % (median |error|).
    CHECK(quantile(after, 0.5) < quantile(before, 0.5));
    CHECK(quantile(after, 0.5) <= 0.08);
  }
  for (const CaseScore& s : score_file_with_case_profiles(root / "validation" / "inference.toml", shipped_db())) {
    if (!shipped.used_for_fit(s.id)) continue;
    CHECK_FALSE(s.held_out);
    CHECK(s.used_for == "calibration");
  }
}

TEST_CASE("a case naming a profile file that is not there is refused with the file and key") {
  const std::string text = R"(schema_version = 1
suite = "inference"
[[case]]
id = "x"
source = "test"
metric = "output_tokens_per_s"
measured = 100.0
calibration = "no-such-profile.toml"
[case.scenario.model]
preset = "llama3-8b"
[case.scenario.hardware]
accelerator = "h100-sxm"
[case.scenario.inference]
batch = 8
)";
  TempFile f("perfcast-case-profile", text);
  CHECK_THROWS_WITH_AS(score_file(f.path, shipped_db()), doctest::Contains("calibration: 'no-such-profile.toml' is not a profile file"),
                       InputError);
}

// An 8-point all_reduce_perf curve on 8 ranks that is exactly latency + size / algbw, 64 KiB to 1 GiB by 4.
NcclTestsRun alpha_beta_curve(double latency_s, double algbw_Bps) {
  NcclTestsRun run{.file = "synthetic", .op = models::Collective::all_reduce, .ranks = 8, .hosts = 1, .device = "NVIDIA H100 80GB HBM3"};
  double bytes = 65536;
  for (int i = 0; i < 8; ++i, bytes *= 4) {
    const double t = latency_s + bytes / algbw_Bps;
    const NcclTestsResult r{.time_s = t, .algbw_Bps = bytes / t, .busbw_Bps = bytes / t * 1.75, .wrong = 0};
    run.rows.push_back({.line = i + 1, .bytes = bytes, .count = bytes / 4, .type = "float", .redop = "sum", .out_of_place = r, .in_place = r});
  }
  return run;
}

TEST_CASE("a clean latency + size / bandwidth curve calibrates to within 2 percent: the priors yield to the data") {
  // Issue 72's bar: e.g. 25 us + size / 189 GB/s on 8x H100, written by ingest with and without --algo.
  // The model's form expresses such a line through the latency floor (every protocol's latency held at
  // the curve's) and a ring or NVLS rate; measured 2026-12-03: 0.0-1.6 % median over these nine curves.
  for (double latency : {10e-6, 25e-6, 50e-6})
    for (double algbw : {150e9, 189e9, 230e9})
      for (std::optional<models::CollectiveAlgorithm> algo : {std::optional<models::CollectiveAlgorithm>{}, std::optional(models::CollectiveAlgorithm::ring)}) {
        CAPTURE(latency);
        CAPTURE(algbw);
        CAPTURE(algo.has_value());
        TempFile f("perfcast-alpha-beta", collective_cases_toml(alpha_beta_curve(latency, algbw), "dgx-h100", "", algo));
        CalibrationRequest r;
        r.files = {f.path};
        r.leave_one_out = false;
        r.threads = 1;
        const CalibrationResult result = calibrate(r, shipped_db());
        REQUIRE(result.cases.size() == 8);
        std::vector<double> after;
        for (const CalibrationCase& c : result.cases) after.push_back(std::abs(c.after.error));
        std::sort(after.begin(), after.end());
        CHECK((after[3] + after[4]) / 2 <= 0.02);
      }
}

TEST_CASE("calibrating on an 8-point nccl-tests curve fits the latency and bandwidth of the algorithm it ran") {
  // Azure ND H100 v5's published all_reduce_perf table (validation/collectives.toml), 64 KiB .. 1 GiB
  // by 4, written as an nccl-tests log; NVLS ran (busbw above NVLink's 450 GB/s). ingest --algo nvls
  // writes the algorithm into every case, so the fit moves NVLS's latency and bandwidth terms.
  const std::string log = std::string(PERFCAST_SOURCE_DIR) + "/tests/data/ingest/all_reduce_perf_azure_h100.txt";
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const NcclTestsRun run = parse_nccl_tests(text, log);
  REQUIRE(run.rows.size() == 8);
  TempFile f("perfcast-nccl-curve", collective_cases_toml(run, "dgx-h100", "", models::CollectiveAlgorithm::nvls));
  CalibrationRequest r;
  r.files = {f.path};
  const CalibrationResult result = calibrate(r, shipped_db());
  REQUIRE(result.cases.size() == 8);
  std::vector<double> before, after;
  for (const CalibrationCase& c : result.cases) {
    before.push_back(std::abs(c.before.error));
    after.push_back(std::abs(c.after.error));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return (v[3] + v[4]) / 2;
  };
  CHECK(median(before) > 0.07);  // the tuner's 25 us NVLS latency against the measured ~42 us floor
  // Every size weighed alike (ingest's one tolerance), measured 2026-12-03: median 6.6 %, mean 7.0 %,
  // worst 16 % (4 MiB). While sizes below 64 MiB had a tolerance of 1.0 the median was 3.8 % but the
  // 64 and 256 KiB points stayed 29 and 24 % off (mean 9.7 %): the priors outvoted them. The rest is the
  // model's form: the curve is flat at 42 us to 1 MiB, then its rate grows with size faster than one
  // Simple slot of fill allows (NCCL's NVLS channel count changes with size, not modelled).
  const double mean_after = std::accumulate(after.begin(), after.end(), 0.0) / double(after.size());
  CHECK(median(after) <= 0.07);
  CHECK(mean_after <= 0.075);
  CHECK(*std::max_element(after.begin(), after.end()) <= 0.17);
  auto fitted = [&](std::string_view name) {
    for (const ProfileParam& p : result.profile.params)
      if (p.name == name) return p;
    FAIL("no parameter " << name);
    return ProfileParam{};
  };
  // The latency term rises (the floor is above the tuner's), the NVLS bandwidth stays near its source.
  CHECK(fitted("collective_latency_scale").informed);
  CHECK(fitted("collective_latency_scale").value > 1.1);
  CHECK(fitted("nvls_algbw_fraction").informed);
  CHECK(fitted("nvls_algbw_fraction").value == doctest::Approx(275.0 / 450).epsilon(0.1));
  // Ring parameters are not what this curve exercises.
  CHECK_FALSE(fitted("scale_up_ring_efficiency").informed);
}
