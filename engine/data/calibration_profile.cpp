#include "engine/data/calibration_profile.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <numbers>
#include <random>
#include <sstream>
#include <toml++/toml.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "engine/core/errors.hpp"
#include "engine/core/input_file.hpp"
#include "engine/core/toml_section.hpp"

namespace perfcast {
namespace {

using models::CollectiveParams;
using models::Efficiency;

// Prior spreads (sd of ln(value)) before any calibration:
//  - efficiency fractions: dense large-scale training MFU spans 38-56 % across published runs
//    (MODELS-REFERENCE §16: Llama 3 405B 38-43 %, PaLM 46.2 %, Megatron 1T 52 %, MegaScale 55.2 %,
//    Korthikanti 530B 56 %); half its log range, ln(56/38)/2 = 0.19, is taken as how far any one
//    achieved fraction of a datasheet rate may be from its default on a system not yet measured.
//  - kernel overhead: 'about 4-6 us' per launch, and CUDA graphs remove most of it (susun-blog.com,
//    'pegainfer (3): From Launch Overhead to CUDA Graph'): a factor of 2 either way, ln 2 = 0.69. The GPU
//    kit's H200 run of 2026-11-29 spans the same: 2.0 us a streaming kernel in a CUDA graph, 6.5 us an
//    eager PyTorch launch, around the 4 us default (validation/bench/gpu/runs/2026-11-29-h200).
constexpr double kFractionSpread = 0.19;
constexpr double kOverheadSpread = 0.69;
constexpr std::string_view kFractionSource =
    "half the log range of dense training MFU across published runs, ln(56/38)/2 (MODELS-REFERENCE §16)";
constexpr std::string_view kOverheadSource =
    "launch 'about 4-6 us', CUDA graphs remove most of it: a factor of 2 either way (susun-blog.com, pegainfer (3))";

constexpr std::string_view kLatencySource =
    "NCCL's tuner latencies are its model inputs, not measurements: a factor of 2 either way, as the launch overhead";

// A floor's default is a lower bound (one launch), measured floors reach tens of µs (Azure ND H100 v5's
// all_reduce_perf: 42 µs up to 1 MiB, validation/collectives.toml): a factor of 10 either way.
constexpr double kFloorSpread = std::numbers::ln10;
constexpr std::string_view kFloorSource =
    "one kernel launch (4 us) is the least a collective takes; measured floors reach tens of us: a factor of 10 either way";

constexpr std::string_view kSlotSource =
    "NCCL_BUFFSIZE / NCCL_STEPS with 16 channels assumed: channel counts vary by system, a factor of 2 either way";

// Bounds: a fraction of a datasheet rate lies in (0, 1]; the lower bounds only keep the fit away
// from a degenerate zero. The overhead is bounded by 0.1 ms, far above any launch path measured;
// the latency scale by 10 either way, beyond which the tuner's form itself is wrong; the slot from one
// page to 16 MiB, NCCL_BUFFSIZE's whole default buffer x 4; the floor from 1 us to 1 ms.
constexpr CalibrationParam kParams[] = {
    {"gemm", &Efficiency::gemm, nullptr, 0.05, 1.0, kFractionSpread, "large 16-bit GEMM, fraction of dense peak", kFractionSource},
    {"gemm_8bit", &Efficiency::gemm_8bit, nullptr, 0.05, 1.0, kFractionSpread, "large 8-bit GEMM, fraction of dense peak", kFractionSource},
    {"gemm_4bit", &Efficiency::gemm_4bit, nullptr, 0.05, 1.0, kFractionSpread, "large 4-bit GEMM, fraction of dense peak", kFractionSource},
    {"attention", &Efficiency::attention, nullptr, 0.05, 1.0, kFractionSpread, "fused attention, fraction of dense peak", kFractionSource},
    {"memory", &Efficiency::memory, nullptr, 0.05, 1.0, kFractionSpread, "streaming kernels, fraction of memory bandwidth", kFractionSource},
    {"host_link", &Efficiency::host_link, nullptr, 0.05, 1.0, kFractionSpread, "bulk transfers, fraction of the host link's rate",
     kFractionSource},
    {"kernel_overhead_s", &Efficiency::kernel_overhead_s, nullptr, 1e-8, 1e-4, kOverheadSpread, "fixed cost per kernel, seconds",
     kOverheadSource, true},
    {"overlap_window", &Efficiency::overlap_window, nullptr, 0.01, 1.0, kFractionSpread,
     "share of a compute window that hides communication", kFractionSource},
    {"scale_up_ring_efficiency", nullptr, &CollectiveParams::scale_up_ring_efficiency, 0.05, 1.0, kFractionSpread,
     "ring busbw / scale-up link rate", kFractionSource},
    {"p2p_efficiency", nullptr, &CollectiveParams::p2p_efficiency, 0.05, 1.0, kFractionSpread, "point-to-point / scale-up link rate",
     kFractionSource},
    {"nic_efficiency", nullptr, &CollectiveParams::nic_efficiency, 0.05, 1.0, kFractionSpread, "per-NIC busbw / line rate", kFractionSource},
    {"nvls_algbw_fraction", nullptr, &CollectiveParams::nvls_algbw_fraction, 0.05, 1.0, kFractionSpread,
     "NVLS all-reduce algbw / link rate", kFractionSource},
    {"collective_latency_scale", nullptr, &CollectiveParams::latency_scale, 0.1, 10.0, kOverheadSpread,
     "every NCCL tuner latency x this", kLatencySource},
    {"collective_slot_bytes", nullptr, &CollectiveParams::slot_bytes, 4096.0, 16.0 * 1024 * 1024, kOverheadSpread,
     "Simple protocol's pipeline unit per channel, bytes (one is exposed as fill)", kSlotSource},
    {"collective_latency_floor_s", nullptr, &CollectiveParams::latency_floor_s, 1e-6, 1e-3, kFloorSpread,
     "no collective's latency is below this, seconds", kFloorSource},
};

// The draws' generator: a fixed seed so that two runs print the same interval.
constexpr std::uint64_t kSampleSeed = 20261123;

}  // namespace

double CalibrationParam::get(const ModelParams& p) const { return efficiency ? p.efficiency.*efficiency : p.collective.*collective; }

void CalibrationParam::set(ModelParams& p, double v) const {
  if (efficiency)
    p.efficiency.*efficiency = v;
  else
    p.collective.*collective = v;
}

double CalibrationParam::default_value() const { return get(ModelParams{}); }

std::span<const CalibrationParam> calibration_params() { return kParams; }

const CalibrationParam* find_calibration_param(std::string_view name) {
  for (const CalibrationParam& p : kParams)
    if (p.name == name) return &p;
  return nullptr;
}

ModelParams CalibrationProfile::model_params() const {
  ModelParams m;
  for (const ProfileParam& p : params) find_calibration_param(p.name)->set(m, p.value);
  return m;
}

bool CalibrationProfile::used_for_fit(std::string_view case_id) const {
  return std::find(cases.begin(), cases.end(), case_id) != cases.end();
}

bool CalibrationProfile::fitted_on(std::string_view accelerator) const {
  if (std::find(accelerators.begin(), accelerators.end(), accelerator) != accelerators.end()) return true;
  bool fitted_any = false;
  for (const ProfileParam& p : params) {
    if (!p.informed) continue;
    const CalibrationParam* c = find_calibration_param(p.name);
    if (!c || !c->host_side) return false;
    fitted_any = true;
  }
  return fitted_any;
}

CalibrationProfile prior_profile() {
  CalibrationProfile out;
  const std::size_t n = std::size(kParams);
  out.covariance.assign(n, std::vector<double>(n, 0));
  for (std::size_t i = 0; i < n; ++i) {
    const CalibrationParam& c = kParams[i];
    const double v = c.default_value();
    out.params.push_back({std::string(c.name), v, v, c.prior_sd, v, v, false});
    out.covariance[i][i] = c.prior_sd * c.prior_sd;
  }
  return out;
}

CalibrationProfile load_calibration_profile(const std::filesystem::path& file) {
  std::shared_ptr<toml::table> doc;
  TomlSection root = TomlSection::parse(read_input_file(file, "calibration profile"), file.string(), doc);
  root.integer("schema_version", 1, 1);
  CalibrationProfile out;
  out.file = file.string();
  std::optional<TomlSection> calibration = root.table("calibration");
  if (!calibration) root.fail_here("missing required table [calibration]");
  TomlSection& cal = *calibration;
  out.system = cal.string("system");
  out.accelerators = cal.strings("accelerators").value_or(std::vector<std::string>{});
  out.cases = cal.strings("cases").value_or(std::vector<std::string>{});
  out.case_files = cal.strings("case_files").value_or(std::vector<std::string>{});
  out.confidence = cal.number("confidence", 0, false, 1).value_or(0.9);
  out.degrees_of_freedom = int(cal.integer("degrees_of_freedom", 0, 1000000).value_or(0));
  out.residual_scale = cal.number("residual_scale", 0, true, 1e6).value_or(1);
  cal.finish();

  CalibrationProfile prior = prior_profile();
  out.params = prior.params;
  out.covariance = prior.covariance;
  std::optional<TomlSection> params = root.table("parameters");
  if (!params) root.fail_here("missing required table [parameters]");
  for (const auto& [key, node] : *doc->get_as<toml::table>("parameters")) {
    const CalibrationParam* c = find_calibration_param(key.str());
    if (!c) params->fail(key.str(), "not a calibration parameter (see `perfcast calibrate --help` for the list)");
    std::optional<TomlSection> t = params->table(key.str());
    const std::size_t i = std::size_t(c - kParams);
    ProfileParam& p = out.params[i];
    p.value = t->require_number("value", c->low, true, c->high);
    // The default and the interval lie within the parameter's own bounds, as calibrate writes them
    // (a slot's prior interval reaches 16 MiB).
    p.default_value = t->number("default", 0, true, c->high).value_or(c->default_value());
    p.sd_log = t->number("sd_log", 0, true, 100).value_or(c->prior_sd);
    p.low = t->number("low", 0, true, c->high).value_or(p.value);
    p.high = t->number("high", 0, true, c->high).value_or(p.value);
    p.informed = t->boolean("informed").value_or(false);
    if (p.low > p.value || p.high < p.value) t->fail("low", fmt::format("the interval [{:g}, {:g}] does not hold the value {:g}", p.low, p.high, p.value));
    t->finish();
    out.covariance[i] = std::vector<double>(out.params.size(), 0);
    for (auto& row : out.covariance) row[i] = 0;
    out.covariance[i][i] = p.sd_log * p.sd_log;
  }
  params->finish();

  if (std::optional<TomlSection> cov = root.table("covariance")) {
    const std::vector<std::string> names = cov->strings("names").value_or(std::vector<std::string>{});
    std::vector<std::size_t> index;
    for (const std::string& n : names) {
      const CalibrationParam* c = find_calibration_param(n);
      if (!c) cov->fail("names", fmt::format("'{}' is not a calibration parameter", n));
      index.push_back(std::size_t(c - kParams));
    }
    const toml::array* rows = doc->get_as<toml::table>("covariance")->get_as<toml::array>("matrix");
    if (!rows || rows->size() != names.size()) cov->fail("matrix", fmt::format("expected {} rows, one per name", names.size()));
    for (std::size_t r = 0; r < names.size(); ++r) {
      const toml::array* row = (*rows)[r].as_array();
      if (!row || row->size() != names.size()) cov->fail("matrix", fmt::format("row {} must hold {} numbers", r + 1, names.size()));
      for (std::size_t k = 0; k < names.size(); ++k) {
        const toml::node& e = (*row)[k];
        const double v = e.is_integer() ? double(e.as_integer()->get()) : e.is_floating_point() ? e.as_floating_point()->get() : NAN;
        if (!std::isfinite(v)) cov->fail("matrix", fmt::format("row {}, column {} is not a finite number", r + 1, k + 1));
        out.covariance[index[r]][index[k]] = v;
      }
    }
    cov->skip("matrix");
    cov->finish();
    for (std::size_t r = 0; r < names.size(); ++r) {
      if (out.covariance[index[r]][index[r]] <= 0) cov->fail("matrix", fmt::format("the variance of '{}' must be positive", names[r]));
      for (std::size_t k = 0; k < r; ++k)
        if (std::fabs(out.covariance[index[r]][index[k]] - out.covariance[index[k]][index[r]]) >
            1e-9 * std::max(1e-300, std::fabs(out.covariance[index[r]][index[r]])))
          cov->fail("matrix", fmt::format("not symmetric at '{}' x '{}'", names[r], names[k]));
    }
  }
  root.finish();
  return out;
}

ModelParams profile_params(const std::string& file) {
  return file.empty() ? ModelParams{} : load_calibration_profile(file).model_params();
}

std::string profile_toml(const CalibrationProfile& p) {
  toml::table root;
  root.insert("schema_version", 1);
  toml::table cal;
  if (p.system) cal.insert("system", *p.system);
  auto strings = [](const std::vector<std::string>& v) {
    toml::array a;
    for (const std::string& s : v) a.push_back(s);
    return a;
  };
  cal.insert("accelerators", strings(p.accelerators));
  cal.insert("cases", strings(p.cases));
  cal.insert("case_files", strings(p.case_files));
  cal.insert("confidence", p.confidence);
  cal.insert("degrees_of_freedom", p.degrees_of_freedom);
  cal.insert("residual_scale", p.residual_scale);
  root.insert("calibration", std::move(cal));
  toml::table params;
  for (const ProfileParam& q : p.params) {
    toml::table t;
    t.insert("value", q.value);
    t.insert("default", q.default_value);
    t.insert("sd_log", q.sd_log);
    t.insert("low", q.low);
    t.insert("high", q.high);
    t.insert("informed", q.informed);
    params.insert(q.name, std::move(t));
  }
  root.insert("parameters", std::move(params));
  toml::table cov;
  toml::array names, matrix;
  for (const ProfileParam& q : p.params) names.push_back(q.name);
  for (const auto& row : p.covariance) {
    toml::array r;
    for (double v : row) r.push_back(v);
    matrix.push_back(std::move(r));
  }
  cov.insert("names", std::move(names));
  cov.insert("matrix", std::move(matrix));
  root.insert("covariance", std::move(cov));
  std::ostringstream out;
  out << "# perfcast calibration profile: each parameter's fitted value, its default, the sd of ln(value)\n"
         "# and the confidence interval; [covariance] is over ln(value). Written by `perfcast calibrate`.\n"
      << root << "\n";
  return out.str();
}

std::vector<ModelParams> sample_params(const CalibrationProfile& p, int n) {
  const Eigen::Index k = Eigen::Index(p.params.size());
  Eigen::MatrixXd cov(k, k);
  for (Eigen::Index r = 0; r < k; ++r)
    for (Eigen::Index c = 0; c < k; ++c) cov(r, c) = p.covariance[std::size_t(r)][std::size_t(c)];
  // LDLT tolerates the semi-definite covariance of parameters the fit pinned together.
  Eigen::LDLT<Eigen::MatrixXd> ldlt(cov);
  Eigen::MatrixXd l = ldlt.matrixL();
  Eigen::VectorXd d = ldlt.vectorD().cwiseMax(0.0).cwiseSqrt();
  Eigen::MatrixXd root = ldlt.transpositionsP().transpose() * (l * d.asDiagonal());
  std::mt19937_64 gen(kSampleSeed);
  std::normal_distribution<double> normal;
  std::vector<ModelParams> out;
  for (int s = 0; s < n; ++s) {
    Eigen::VectorXd z(k);
    for (Eigen::Index i = 0; i < k; ++i) z(i) = normal(gen);
    const Eigen::VectorXd dx = root * z;
    ModelParams m;
    for (Eigen::Index i = 0; i < k; ++i) {
      const CalibrationParam& c = kParams[i];
      c.set(m, std::clamp(p.params[std::size_t(i)].value * std::exp(dx(i)), c.low, c.high));
    }
    out.push_back(m);
  }
  return out;
}

}  // namespace perfcast
