#include "engine/validate/validation.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/validate/carbon_cases.hpp"
#include "engine/validate/case_features.hpp"
#include "models/attention_kernels.hpp"
#include "engine/validate/collective_cases.hpp"
#include "engine/validate/inference_cases.hpp"
#include "engine/validate/training_cases.hpp"
#include "engine/core/input_file.hpp"
#include "engine/data/hardware_resolution.hpp"
#include "engine/data/workload_reader.hpp"
#include "engine/validate/memory_cases.hpp"
#include "engine/predict/roofline.hpp"
#include "engine/core/toml_section.hpp"
#include "engine/core/units.hpp"

namespace perfcast {
namespace {

constexpr std::string_view kKinds[] = {"gemm", "memory", "host_link", "attention", "peer_link"};
constexpr std::string_view kDtypes[] = {"fp32", "tf32", "bf16", "fp16", "fp8", "fp4", "int8"};
constexpr std::string_view kPasses[] = {"forward", "backward"};

// The attention call's FLOPs as FlashAttention's papers count them: 4 · batch · heads · seq² · head_dim
// forward, halved by a causal mask, the backward 2.5 times the forward.
double attention_case_flops(const MicrobenchCase& c) {
  const double forward = 4 * c.batch * c.heads * c.seq * c.seq * c.head_dim * (c.causal ? 0.5 : 1);
  return c.pass == models::Pass::backward ? 2.5 * forward : forward;
}

// Q, K, V and the output once each (forward), and their gradients beside them (backward), at 2 bytes.
double attention_case_bytes(const MicrobenchCase& c) {
  const double q = c.batch * c.heads * c.seq * c.head_dim * 2, kv = 2 * c.batch * c.kv_heads * c.seq * c.head_dim * 2;
  return (c.pass == models::Pass::backward ? 2 : 1) * (2 * q + kv);
}

}  // namespace

double case_quantity(TomlSection& t, std::string_view key, units::Dimension d, bool required) {
  auto text = t.string(key);
  if (!text) {
    if (required) t.fail_here(fmt::format("missing required key '{}{}'", t.path(), key));
    return 0;
  }
  try {
    auto q = units::parse_quantity(*text);
    if (q.dimension != d) t.fail(key, fmt::format("'{}' is not {}", *text, units::describe(d)));
    // A measurement is positive (an error against 0 is infinite); bytes moved may be 0.
    if (required ? !(q.value > 0) : q.value < 0) t.fail(key, fmt::format("'{}' must be {}", *text, required ? "positive" : "0 or more"));
    if (q.value != 0 && !std::isnormal(q.value)) t.fail(key, fmt::format("'{}' is a subnormal number, not a measurement", *text));
    return q.value;
  } catch (const UnitError& e) {
    t.fail(key, e.what());
  }
}

namespace {

MicrobenchCase read_case(TomlSection& t, const HardwareDb& db) {
  MicrobenchCase c;
  c.id = t.require_string("id");
  c.source = t.require_string("source");
  c.device = t.require_string("device");
  c.accelerator = t.string("accelerator").value_or("");
  if (!c.accelerator.empty()) {
    try {
      c.hardware = resolve_accelerator(db, c.accelerator);
    } catch (const InputError& e) {
      t.fail("accelerator", e.message());
    }
  }
  const std::optional<std::string> named = t.choice("kind", kKinds);
  if (!named) t.fail_here(fmt::format("case '{}': missing required key 'kind' (one of {})", c.id, fmt::join(kKinds, ", ")));
  const std::string kind = *named;
  c.kind = static_cast<MicrobenchKind>(std::find(std::begin(kKinds), std::end(kKinds), kind) - std::begin(kKinds));
  c.m = static_cast<double>(t.integer("m", 1, 1'000'000'000).value_or(0));
  c.n = static_cast<double>(t.integer("n", 1, 1'000'000'000).value_or(0));
  c.k = static_cast<double>(t.integer("k", 1, 1'000'000'000).value_or(0));
  if (auto d = t.choice("dtype", kDtypes)) c.dtype = *precision_from(*d);
  c.out_dtype = c.dtype;
  if (auto d = t.choice("out_dtype", kDtypes)) c.out_dtype = *precision_from(*d);
  c.read_B = case_quantity(t, "read", units::dim::bytes, false);
  c.write_B = case_quantity(t, "write", units::dim::bytes, false);
  if (auto k = t.choice("kernel", models::kAttentionImplKeys))
    c.attention_kernel = static_cast<models::AttentionImpl>(
        std::find(models::kAttentionImplKeys.begin(), models::kAttentionImplKeys.end(), *k) - models::kAttentionImplKeys.begin());
  const std::optional<std::string> pass = t.choice("pass", kPasses);
  if (pass) c.pass = *pass == "backward" ? models::Pass::backward : models::Pass::forward;
  c.batch = static_cast<double>(t.integer("batch", 1, 1'000'000).value_or(0));
  c.heads = static_cast<double>(t.integer("heads", 1, 10'000).value_or(0));
  c.kv_heads = static_cast<double>(t.integer("kv_heads", 1, 10'000).value_or(static_cast<std::int64_t>(c.heads)));
  c.seq = static_cast<double>(t.integer("seq", 1, 100'000'000).value_or(0));
  c.head_dim = static_cast<double>(t.integer("head_dim", 1, 4096).value_or(0));
  c.causal = t.boolean("causal").value_or(true);
  bool flops = c.kind == MicrobenchKind::gemm || c.kind == MicrobenchKind::attention;
  c.measured = case_quantity(t, "measured", flops ? units::dim::ops_per_second : units::dim::bytes_per_second, true);
  read_shared_keys(t, c, 0.10);
  t.finish();
  if (c.skip.empty()) {
    if (c.accelerator.empty()) t.fail_here(fmt::format("case '{}': accelerator is required unless the case is skipped", c.id));
    if (c.kind == MicrobenchKind::gemm && (c.m == 0 || c.n == 0 || c.k == 0))
      t.fail_here(fmt::format("case '{}': a gemm case needs m, n and k", c.id));
    if ((c.kind == MicrobenchKind::memory || c.kind == MicrobenchKind::host_link) && c.read_B + c.write_B <= 0)
      t.fail_here(fmt::format("case '{}': needs read and/or write bytes", c.id));
    if (c.kind == MicrobenchKind::attention) {
      if (c.attention_kernel == models::AttentionImpl::generic)
        t.fail_here(fmt::format("case '{}': an attention case needs kernel = one of {} (generic kernels have no measured "
                                "efficiency; give skip = \"<reason>\")", c.id, fmt::join(std::span(models::kAttentionImplKeys).subspan(1), ", ")));
      if (c.batch == 0 || c.heads == 0 || c.seq == 0 || c.head_dim == 0 || !pass)
        t.fail_here(fmt::format("case '{}': an attention case needs pass, batch, heads, seq and head_dim", c.id));
      if (c.kv_heads > c.heads || std::fmod(c.heads, c.kv_heads) != 0)
        t.fail("kv_heads", fmt::format("{:g} does not divide heads {:g}", c.kv_heads, c.heads));
    }
    if (c.kind == MicrobenchKind::peer_link)
      t.fail("kind", fmt::format("'{}' cases are not predicted by the roofline yet; give skip = \"<reason>\"", kind));
  }
  return c;
}

}  // namespace

std::string_view name_of(MicrobenchKind k) { return kKinds[static_cast<std::size_t>(k)]; }

std::filesystem::path default_validation_dir() {
  if (const char* env = std::getenv("PERFCAST_VALIDATION"); env && *env) return env;
  return shipped_data(PERFCAST_DEFAULT_VALIDATION, "validation");
}

CaseFile open_case_file(const std::filesystem::path& file) {
  static constexpr std::string_view kSuites[] = {"microbenchmark", "memory", "collective", "training", "inference", "carbon"};
  std::shared_ptr<toml::table> doc;
  TomlSection root = TomlSection::parse(read_input_file(file, "validation cases"), file.string(), doc);
  root.integer("schema_version", 1, 1);
  auto suite = root.choice("suite", kSuites);
  return {doc, root, suite};
}

std::vector<MicrobenchCase> load_microbenchmarks(CaseFile& f, const HardwareDb& db) {
  return read_cases(f, [&](TomlSection& t) { return read_case(t, db); });
}

std::vector<MicrobenchCase> load_microbenchmarks(const std::filesystem::path& file, const HardwareDb& db) {
  CaseFile f = open_case_file(file);
  return load_microbenchmarks(f, db);
}

void CaseScore::set_prediction(double value) {
  predicted = value;
  error = predicted / measured - 1;
  scored = true;
  held_out = used_for.empty();
  within_tolerance = std::fabs(error) <= tolerance;
}

// Each case is one kernel on one device, timed by the same roofline `perfcast roofline` uses.
std::vector<CaseScore> score_microbenchmarks(const std::vector<MicrobenchCase>& cases,
                                             const models::Efficiency& e) {
  std::vector<CaseScore> scores;
  for (const MicrobenchCase& c : cases) {
    CaseScore s = score_of(c, std::string(name_of(c.kind)));
    s.subject = c.accelerator.empty() ? c.device : c.accelerator;
    s.accelerator = c.accelerator;
    s.measured = c.measured;
    const bool flops = c.kind == MicrobenchKind::gemm || c.kind == MicrobenchKind::attention;
    s.dimension = flops ? units::dim::ops_per_second : units::dim::bytes_per_second;
    s.features = kernel_features(s.kind, c.hardware.device.vendor, flops ? name_of(c.dtype) : "");
    if (!c.skip.empty()) {
      scores.push_back(s);
      continue;
    }
    const ResolvedHardware& hw = c.hardware;
    const AcceleratorSpec& a = hw.device;
    models::Ceilings ceilings = ceilings_for(a, hw.host_link);
    models::Op op;
    double host = 0, work = 0;
    if (c.kind == MicrobenchKind::gemm) {
      if (!a.peak(c.dtype))
        throw InputError({}, fmt::format("case '{}': {} has no dense {} peak", c.id, a.name, name_of(c.dtype)));
      double in = bytes_per_element(c.dtype);
      op = models::gemm_op(c.id, {c.m, c.n, c.k, 1}, c.dtype, in, in, bytes_per_element(c.out_dtype), false);
      work = op.flops;
    } else if (c.kind == MicrobenchKind::attention) {
      if (!a.peak(c.dtype))
        throw InputError({}, fmt::format("case '{}': {} has no dense {} peak", c.id, a.name, name_of(c.dtype)));
      op = models::memory_op(c.id, attention_case_bytes(c), 0);
      op.kind = models::OpKind::attention;
      op.precision = c.dtype;
      op.pass = c.pass;
      op.flops = op.model_flops = attention_case_flops(c);
      op.attention_impl = c.attention_kernel;
      op.attention_head_dim = c.head_dim;
      op.attention_seq = c.seq;
      op.attention_causal = c.causal;
      work = op.flops;
    } else if (c.kind == MicrobenchKind::memory) {
      op = models::memory_op(c.id, c.read_B, c.write_B);
      work = op.bytes();
    } else {
      op = models::memory_op(c.id, 0, 0);
      host = c.read_B + c.write_B;
      work = host;
    }
    models::OpTiming t = models::time_op(op, ceilings, e, host);
    s.set_prediction(work / t.time_s);
    s.detail = std::string(models::name_of(t.bound)) + "-bound";
    scores.push_back(s);
  }
  return scores;
}

ValidationSummary summarise(const std::vector<CaseScore>& scores) {
  ValidationSummary v;
  std::vector<double> errors;
  for (const CaseScore& s : scores) {
    ++v.cases;
    if (!s.scored) continue;
    ++v.scored;
    if (s.within_tolerance) ++v.within_tolerance;
    if (!s.held_out) continue;
    ++v.held_out;
    errors.push_back(std::fabs(s.error));
  }
  if (errors.empty()) return v;
  std::sort(errors.begin(), errors.end());
  std::size_t n = errors.size();
  v.median_abs_error = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  double sum = 0;
  for (double e : errors) sum += e;
  v.mean_abs_error = sum / double(n);
  v.max_abs_error = errors.back();
  return v;
}

std::vector<std::pair<std::string, ValidationSummary>> summarise_by(const std::vector<CaseScore>& scores, SummaryKey by) {
  std::vector<std::pair<std::string, std::vector<CaseScore>>> groups;
  for (const CaseScore& s : scores) {
    const std::string& key = by == SummaryKey::kind ? s.kind : by == SummaryKey::source ? s.source : by == SummaryKey::engine ? s.engine : s.vendor;
    if (key.empty()) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
    it->second.push_back(s);
  }
  std::vector<std::pair<std::string, ValidationSummary>> out;
  for (const auto& [key, group] : groups) out.emplace_back(key, summarise(group));
  return out;
}

std::vector<std::filesystem::path> validation_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".toml") files.push_back(entry.path());
  if (ec) throw InputError({dir.string(), 0, 0}, "cannot list the validation directory: " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<CaseScore> score_file(const std::filesystem::path& file, const HardwareDb& db, const ModelParams& p, std::string_view kind) {
  return case_scorer(file, db, {}, kind)(p);
}

std::span<const std::string_view> suite_kinds(std::string_view suite) {
  static constexpr std::string_view kMemory[] = {"model_states", "kv_cache"}, kCollective[] = {"collective"},
                                    kTraining[] = {"training"}, kInference[] = {"inference", "serving", "edge", "weights"},
                                    kCarbon[] = {"carbon", "carbon_predicted"};
  if (suite == "microbenchmark") return kKinds;
  if (suite == "memory") return kMemory;
  if (suite == "collective") return kCollective;
  if (suite == "training") return kTraining;
  if (suite == "inference") return kInference;
  if (suite == "carbon") return kCarbon;
  return {};
}

std::vector<std::string_view> case_kinds() {
  std::vector<std::string_view> kinds;
  for (std::string_view suite : {"microbenchmark", "memory", "collective", "training", "inference", "carbon"})
    for (std::string_view k : suite_kinds(suite)) kinds.push_back(k);
  return kinds;
}

CaseScorer case_scorer(const std::filesystem::path& file, const HardwareDb& db, const std::function<bool(std::string_view id)>& keep,
                       std::string_view kind) {
  CaseFile f = open_case_file(file);
  if (!f.suite) f.root.fail_here("missing required key 'suite' (\"microbenchmark\", \"memory\", \"collective\", \"training\", \"inference\" or \"carbon\")");
  const auto kinds = suite_kinds(*f.suite);
  if (!kind.empty() && std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) return [](const ModelParams&) { return std::vector<CaseScore>{}; };
  auto kept = [&](auto cases) {
    if (keep) std::erase_if(cases, [&](const auto& c) { return !keep(c.id); });
    return std::make_shared<const decltype(cases)>(std::move(cases));
  };
  // With a kind, a file whose suite mixes kinds returns that kind's scores only.
  auto only_kind = [kind = std::string(kind)](CaseScorer scorer) -> CaseScorer {
    if (kind.empty()) return scorer;
    return [scorer = std::move(scorer), kind](const ModelParams& p) {
      std::vector<CaseScore> scores = scorer(p);
      std::erase_if(scores, [&](const CaseScore& s) { return s.kind != kind; });
      return scores;
    };
  };
  if (*f.suite == "memory")
    return only_kind([c = kept(load_memory_cases(f, default_workloads_dir()))](const ModelParams&) { return score_memory_cases(*c); });
  if (*f.suite == "collective")
    return [c = kept(load_collective_cases(f, db))](const ModelParams& p) { return score_collective_cases(*c, p); };
  if (*f.suite == "training")
    return [c = kept(load_training_cases(f, db))](const ModelParams& p) { return score_training_cases(*c, p); };
  if (*f.suite == "inference") {
    auto cases = load_inference_cases(f, db);
    // Its cases are told apart before any is predicted: a serving case simulates an engine.
    if (!kind.empty()) std::erase_if(cases, [&](const InferenceCase& c) { return inference_case_kind(c) != kind; });
    return [c = kept(std::move(cases))](const ModelParams& p) { return score_inference_cases(*c, p); };
  }
  if (*f.suite == "carbon") return only_kind([c = kept(load_carbon_cases(f, db))](const ModelParams&) { return score_carbon_cases(*c); });
  return only_kind([c = kept(load_microbenchmarks(f, db))](const ModelParams& p) { return score_microbenchmarks(*c, p.efficiency); });
}

}  // namespace perfcast
