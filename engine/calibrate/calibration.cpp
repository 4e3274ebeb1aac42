#include "engine/calibrate/calibration.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <set>

#include <Eigen/Core>
#include <Eigen/LU>
#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>

#include "engine/core/errors.hpp"
#include "engine/core/parallel.hpp"

namespace perfcast {
namespace {

// The fitted cases: one restricted scorer per file, the cases in the order the scorers give them.
struct CaseSet {
  std::vector<CaseScorer> scorers;
  std::vector<CaseScore> baseline;   // with the defaults
  double noise = 1;                  // a case's scatter: its tolerance x this (fit_with_noise)

  double weight(const CaseScore& s) const { return 1 / (s.tolerance * noise); }

  std::vector<CaseScore> score(const ModelParams& p) const {
    std::vector<CaseScore> out;
    for (const CaseScorer& s : scorers)
      for (CaseScore& c : s(p)) out.push_back(std::move(c));
    return out;
  }
};

double log_error(const CaseScore& s) { return std::log(s.predicted / s.measured); }

// What the fit varies: the parameters some case depends on.
struct Active {
  std::vector<const CalibrationParam*> params;
  ModelParams base;                  // every other parameter's value
  ModelParams at(const Eigen::VectorXd& u) const {
    ModelParams m = base;
    for (std::size_t j = 0; j < params.size(); ++j) params[j]->set(m, value_of(*params[j], u(Eigen::Index(j))));
    return m;
  }
  static double value_of(const CalibrationParam& c, double u) { return c.low + (c.high - c.low) / (1 + std::exp(-u)); }
  // Parameter j's prior residual at u: ln(value / default) in prior sds.
  double prior_residual(const Eigen::VectorXd& u, std::size_t j) const {
    const CalibrationParam& c = *params[j];
    return std::log(value_of(c, u(Eigen::Index(j))) / c.default_value()) / c.prior_sd;
  }
  static double u_of(const CalibrationParam& c, double v) {
    // Start a hair inside the bounds: a default on a bound (overlap_window = 1) has no finite u.
    const double span = c.high - c.low;
    const double f = std::clamp((v - c.low) / span, 1e-4, 1 - 1e-4);
    return std::log(f / (1 - f));
  }
};

// The residuals of the fit for Eigen's Levenberg-Marquardt: the cases (all but those `left_out`
// marks), then one prior per fitted parameter.
struct Residuals {
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };

  const CaseSet* set;
  const Active* active;
  const std::vector<bool>* left_out;  // null: every case
  int* evaluations;

  int inputs() const { return int(active->params.size()); }
  int values() const {
    const auto out = left_out ? std::count(left_out->begin(), left_out->end(), true) : 0;
    return int(set->baseline.size() - std::size_t(out) + active->params.size());
  }

  int operator()(const Eigen::VectorXd& u, Eigen::VectorXd& r) const {
    ++*evaluations;
    const std::vector<CaseScore> scores = set->score(active->at(u));
    Eigen::Index k = 0;
    for (std::size_t i = 0; i < scores.size(); ++i) {
      if (left_out && (*left_out)[i]) continue;
      const double e = log_error(scores[i]);
      r(k++) = std::isfinite(e) ? e * set->weight(scores[i]) : 1e3;  // a case the model cannot predict pushes away
    }
    for (std::size_t j = 0; j < active->params.size(); ++j) r(k++) = active->prior_residual(u, j);
    return 0;
  }
};

Eigen::VectorXd fit(const CaseSet& set, const Active& active, const std::vector<bool>* left_out, Eigen::VectorXd u, int& evaluations) {
  Residuals f{&set, &active, left_out, &evaluations};
  Eigen::NumericalDiff<Residuals> diff(f);
  Eigen::LevenbergMarquardt<Eigen::NumericalDiff<Residuals>> lm(diff);
  lm.parameters.maxfev = 60 * (int(u.size()) + 1);
  lm.parameters.xtol = 1e-8;
  lm.parameters.ftol = 1e-10;
  lm.minimize(u);
  return u;
}

// d(residual)/d(ln value) by central differences of `h` in ln(value), kept inside the bounds.
Eigen::MatrixXd log_jacobian(const CaseSet& set, const Active& active, const ModelParams& at, double h, int& evaluations) {
  const std::size_t n = set.baseline.size(), p = active.params.size();
  Eigen::MatrixXd j = Eigen::MatrixXd::Zero(Eigen::Index(n + p), Eigen::Index(p));
  for (std::size_t c = 0; c < p; ++c) {
    const CalibrationParam& q = *active.params[c];
    const double v = q.get(at);
    const double up = std::min(v * std::exp(h), q.high), down = std::max(v * std::exp(-h), q.low);
    const double step = std::log(up / down);
    if (step <= 0) continue;
    ModelParams a = at, b = at;
    q.set(a, up), q.set(b, down);
    const std::vector<CaseScore> sa = set.score(a), sb = set.score(b);
    evaluations += 2;
    for (std::size_t i = 0; i < n; ++i) {
      const double d = (log_error(sa[i]) - log_error(sb[i])) / step * set.weight(sa[i]);
      j(Eigen::Index(i), Eigen::Index(c)) = std::isfinite(d) ? d : 0;
    }
    j(Eigen::Index(n + c), Eigen::Index(c)) = 1 / q.prior_sd;
  }
  return j;
}

// The cases' chi^2 in their tolerances.
double chi2_of(const std::vector<CaseScore>& scores) {
  double chi2 = 0;
  for (const CaseScore& s : scores) chi2 += std::pow(log_error(s) / s.tolerance, 2);
  return chi2;
}

// The cases' common scatter: their tolerances x sigma. A case's tolerance is the most it is expected to
// miss by; when the parameters reproduce the cases closer than that, sigma is estimated from the
// residuals, sigma^2 = chi^2 / dof, as any least-squares fit estimates an unknown error variance (and the
// covariance below does), so the priors yield to the data. Kept in [kLeastNoise, 1]: never looser than
// the tolerances, and away from zero for the weights' sake.
constexpr double kLeastNoise = 1e-3;
double noise_of(double chi2, int dof) { return std::clamp(std::sqrt(chi2 / dof), kLeastNoise, 1.0); }

// What the fit minimises over the parameters with sigma at its best for them: the negative log
// posterior chi^2 / (2 sigma^2) + dof ln(sigma) + prior^2 / 2.
double marginal_objective(const CaseSet& set, const Active& active, const Eigen::VectorXd& u, int dof, int& evaluations) {
  const double chi2 = chi2_of(set.score(active.at(u)));
  ++evaluations;
  const double sigma = noise_of(chi2, dof);
  double prior = 0;
  for (std::size_t j = 0; j < active.params.size(); ++j) prior += std::pow(active.prior_residual(u, j), 2);
  return std::isfinite(chi2) ? chi2 / (2 * sigma * sigma) + dof * std::log(sigma) + prior / 2 : HUGE_VAL;
}

// Starts for Levenberg-Marquardt: NCCL's tuner takes the fastest of its algorithms and protocols, so the
// cases are piecewise in the parameters and LM, a local method, stops at the nearest kink. The starts are
// the defaults and the best of kStartsPerParameter x p points of a Halton sequence (radical inverses in
// the first primes; Halton 1960, Numer. Math. 2:84) spread evenly in ln(value) across the bounds, by the
// marginal objective; each is fitted, the lowest marginal objective kept.
constexpr int kStartsPerParameter = 64, kLocalStarts = 16;
double radical_inverse(int i, int base) {
  double f = 1, r = 0;
  for (; i > 0; i /= base) f /= base, r += f * (i % base);
  return r;
}
std::vector<Eigen::VectorXd> starts(const CaseSet& set, const Active& active, const Eigen::VectorXd& u0, int dof, int& evaluations) {
  static constexpr int kPrimes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};
  const std::size_t p = active.params.size();
  std::vector<std::pair<double, Eigen::VectorXd>> scored;
  for (int i = 1; i <= kStartsPerParameter * int(p); ++i) {
    Eigen::VectorXd v = u0;
    for (std::size_t j = 0; j < p && j < std::size(kPrimes); ++j) {
      const CalibrationParam& c = *active.params[j];
      v(Eigen::Index(j)) = Active::u_of(c, c.low * std::pow(c.high / c.low, radical_inverse(i, kPrimes[j])));
    }
    scored.push_back({marginal_objective(set, active, v, dof, evaluations), v});
  }
  std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Eigen::VectorXd> out{u0};
  for (std::size_t k = 0; k < scored.size() && out.size() <= kLocalStarts; ++k) out.push_back(scored[k].second);
  return out;
}

// One local fit: LM at the scatter of its start, the scatter re-estimated and LM again until it settles.
Eigen::VectorXd fit_from(CaseSet& set, const Active& active, Eigen::VectorXd u, int dof, int& evaluations) {
  set.noise = noise_of(chi2_of(set.score(active.at(u))), dof);
  for (int round = 0; round < 8; ++round) {
    u = fit(set, active, nullptr, u, evaluations);
    const double noise = noise_of(chi2_of(set.score(active.at(u))), dof);
    ++evaluations;
    if (std::fabs(std::log(noise / set.noise)) < 0.05) break;
    set.noise = noise;
  }
  return u;
}

// The fit: from each start, the lowest marginal objective; `set.noise` its scatter.
Eigen::VectorXd fit_with_noise(CaseSet& set, const Active& active, const Eigen::VectorXd& u0, int dof, int& evaluations) {
  Eigen::VectorXd best;
  double best_objective = HUGE_VAL, best_noise = 1;
  for (const Eigen::VectorXd& start : starts(set, active, u0, dof, evaluations)) {
    const Eigen::VectorXd u = fit_from(set, active, start, dof, evaluations);
    const double o = marginal_objective(set, active, u, dof, evaluations);
    if (best.size() == 0 || o < best_objective) best = u, best_objective = o, best_noise = set.noise;
  }
  // Once more from the best with the priors all but silent (the cases at 1 % of their tolerances weigh the
  // priors down 10^4-fold), then the scatter re-estimated: a fit the priors held in a compromise escapes it
  // when the data can be met much closer (2 of the 18 synthetic curves of calibration_test need it).
  set.noise = 0.01;
  Eigen::VectorXd loose = fit(set, active, nullptr, best, evaluations);
  loose = fit_from(set, active, loose, dof, evaluations);
  if (marginal_objective(set, active, loose, dof, evaluations) < best_objective) return loose;
  set.noise = best_noise;
  return best;
}

// For each of `groups` groups (group_of[i]: case i's), refits without its cases from `u` and hands
// each of them its prediction by that fit (in parallel over the groups).
void refit_without_groups(const CaseSet& set, const Active& active, const Eigen::VectorXd& u, const std::vector<std::size_t>& group_of,
                          std::size_t groups, int threads, int& total_evaluations,
                          const std::function<void(std::size_t, double)>& predicted) {
  std::vector<int> evaluations(std::size_t(thread_count(threads, groups)), 0);
  for_each_item(int(evaluations.size()), groups, {}, [&](int thread, std::uint64_t g) {
    std::vector<bool> left_out(group_of.size());
    for (std::size_t i = 0; i < group_of.size(); ++i) left_out[i] = group_of[i] == g;
    const Eigen::VectorXd ug = fit(set, active, &left_out, u, evaluations[std::size_t(thread)]);
    const std::vector<CaseScore> scores = set.score(active.at(ug));
    ++evaluations[std::size_t(thread)];
    for (std::size_t i = 0; i < group_of.size(); ++i)
      if (left_out[i]) predicted(i, scores[i].predicted);
  });
  for (int e : evaluations) total_evaluations += e;
}

// How a profile scores a case: it was fitted on it (scored with it, never held out), the case ran on a
// device the profile does not carry to (scored with the defaults), or the profile applies.
enum class ProfileUse { fitted, other_device, applies };
ProfileUse profile_use(const CalibrationProfile& p, const CaseScore& s) {
  if (p.used_for_fit(s.id)) return ProfileUse::fitted;
  if (s.scored && !s.accelerator.empty() && !p.fitted_on(s.accelerator)) return ProfileUse::other_device;
  return ProfileUse::applies;
}

void mark_fitted(CaseScore& s) { s.used_for = "calibration", s.held_out = false; }

bool selected(const CaseScore& s, const CalibrationRequest& r, const std::optional<std::string>& accelerator) {
  if (!s.scored || !(s.measured > 0) || !(s.tolerance > 0)) return false;
  if (!r.kind.empty() && s.kind != r.kind) return false;
  if (!r.source.empty() && s.source.find(r.source) == std::string::npos) return false;
  return !accelerator || s.accelerator == *accelerator;
}

}  // namespace

CalibrationResult calibrate(const CalibrationRequest& r, const HardwareDb& db) {
  if (r.files.empty()) throw InputError({}, "calibrate: give at least one file of measured cases");
  if (r.select_of < 1 || r.select_index < 0 || r.select_index >= r.select_of)
    throw InputError({}, fmt::format("--select {}/{}: want i/N with 0 <= i < N", r.select_index, r.select_of));
  // Whether --parameters leaves `name` to the fit (all when none are named).
  auto asked = [&r](std::string_view name) {
    return r.parameters.empty() || std::find(r.parameters.begin(), r.parameters.end(), name) != r.parameters.end();
  };
  for (const std::string& name : r.parameters)
    if (!find_calibration_param(name)) {
      std::string known;
      for (const CalibrationParam& c : calibration_params()) known += (known.empty() ? "" : ", ") + std::string(c.name);
      throw InputError({}, fmt::format("calibrate --parameters: '{}' is not a calibration parameter (one of: {})", name, known));
    }
  std::optional<std::string> accelerator;
  if (r.system) accelerator = db.system(*r.system).accelerator;

  CalibrationResult out;
  // Choose the cases by what the defaults score, then load each file again restricted to them.
  CaseSet set;
  std::vector<std::set<std::string>> chosen(r.files.size());
  int position = 0, excluded_device = 0;
  for (std::size_t f = 0; f < r.files.size(); ++f)
    for (const CaseScore& s : score_file(r.files[f], db)) {
      if (accelerator && s.scored && s.accelerator != *accelerator) ++excluded_device;
      if (!selected(s, r, accelerator)) continue;
      if (position++ % r.select_of == r.select_index) chosen[f].insert(s.id);
    }
  if (excluded_device)
    out.notes.push_back(fmt::format("{} case(s) ran on another device than {}'s {}: left out", excluded_device, *r.system, *accelerator));
  // One scorer per file restricted to its chosen cases, and their scores with the defaults.
  auto load_chosen = [&] {
    set.scorers.clear();
    out.profile.case_files.clear();
    for (std::size_t f = 0; f < r.files.size(); ++f) {
      if (chosen[f].empty()) continue;
      set.scorers.push_back(case_scorer(r.files[f], db, [&ids = chosen[f]](std::string_view id) { return ids.count(std::string(id)) > 0; }));
      out.profile.case_files.push_back(r.files[f].string());
    }
    set.baseline = set.score(ModelParams{});
  };
  load_chosen();

  // Which parameters the cases depend on: a step of 5 % in each, at the defaults; a parameter no case
  // feels at 5 % (a floor below every latency, which binds only when raised) is probed again a factor
  // of 10 either way.
  Active all{{}, ModelParams{}};
  for (const CalibrationParam& c : calibration_params()) all.params.push_back(&c);
  Eigen::MatrixXd sense = log_jacobian(set, all, all.base, std::log(1.05), out.evaluations);
  {
    const auto rows = Eigen::Index(set.baseline.size());
    Active numb{{}, ModelParams{}};
    std::vector<Eigen::Index> columns;
    for (std::size_t j = 0; rows > 0 && j < all.params.size(); ++j)
      if (sense.col(Eigen::Index(j)).head(rows).cwiseAbs().maxCoeff() <= 1e-9)
        numb.params.push_back(all.params[j]), columns.push_back(Eigen::Index(j));
    const Eigen::MatrixXd far = log_jacobian(set, numb, numb.base, std::log(10.0), out.evaluations);
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (far.col(Eigen::Index(c)).head(rows).cwiseAbs().maxCoeff() <= 1e-9) continue;
      sense.col(columns[c]).head(rows) = far.col(Eigen::Index(c)).head(rows);
    }
  }
  std::vector<std::size_t> keep_cases;
  for (std::size_t i = 0; i < set.baseline.size(); ++i) {
    if (sense.row(Eigen::Index(i)).cwiseAbs().maxCoeff() > 1e-9) {
      keep_cases.push_back(i);
    } else {
      out.notes.push_back(fmt::format("case '{}' ({}) depends on no calibration parameter: left out", set.baseline[i].id, set.baseline[i].kind));
    }
  }
  if (keep_cases.empty()) throw InputError({}, "calibrate: no selected case depends on a calibration parameter (nothing to fit)");
  if (keep_cases.size() < set.baseline.size()) {
    std::set<std::string> ids;
    for (std::size_t i : keep_cases) ids.insert(set.baseline[i].id);
    for (auto& c : chosen) std::erase_if(c, [&](const std::string& id) { return !ids.count(id); });
    load_chosen();
  }
  Active active{{}, ModelParams{}};
  for (std::size_t j = 0; j < all.params.size(); ++j) {
    bool informs = false;
    for (std::size_t i : keep_cases) informs = informs || std::fabs(sense(Eigen::Index(i), Eigen::Index(j))) > 1e-9;
    if (informs && asked(all.params[j]->name)) active.params.push_back(all.params[j]);
    if (informs && !asked(all.params[j]->name)) out.notes.push_back(fmt::format("'{}' is not among --parameters: kept at its default", all.params[j]->name));
  }
  if (active.params.empty())
    throw InputError({}, "calibrate --parameters: no selected case depends on any of the parameters asked (nothing to fit)");

  const std::size_t n = set.baseline.size(), p = active.params.size();
  const int dof = std::max<int>(1, int(n) - int(p));
  Eigen::VectorXd u0(static_cast<Eigen::Index>(p));
  for (std::size_t j = 0; j < p; ++j) u0(Eigen::Index(j)) = Active::u_of(*active.params[j], active.params[j]->default_value());
  const Eigen::VectorXd u = fit_with_noise(set, active, u0, dof, out.evaluations);
  const ModelParams fitted = active.at(u);
  const std::vector<CaseScore> after = set.score(fitted);

  // Covariance of ln(value) over the fitted parameters, the cases weighed at the fit's scatter.
  const double chi2 = chi2_of(after);
  const double scale2 = std::max(1.0, chi2 / (set.noise * set.noise) / dof);
  const Eigen::MatrixXd j = log_jacobian(set, active, fitted, 1e-3, out.evaluations);
  const Eigen::MatrixXd cov = scale2 * (j.transpose() * j).inverse();
  const double t = boost::math::quantile(boost::math::students_t(dof), (1 + r.confidence) / 2);

  CalibrationProfile& prof = out.profile;
  prof.system = r.system;
  prof.confidence = r.confidence;
  prof.degrees_of_freedom = dof;
  prof.residual_scale = std::sqrt(chi2 / double(n));
  const CalibrationProfile prior = prior_profile();
  prof.params = prior.params;
  prof.covariance = prior.covariance;
  for (std::size_t a = 0; a < p; ++a) {
    const CalibrationParam& c = *active.params[a];
    const std::size_t i = std::size_t(&c - calibration_params().data());
    ProfileParam& q = prof.params[i];
    q.value = c.get(fitted);
    q.sd_log = std::sqrt(cov(Eigen::Index(a), Eigen::Index(a)));
    q.low = std::max(c.low, q.value * std::exp(-t * q.sd_log));
    q.high = std::min(c.high, q.value * std::exp(t * q.sd_log));
    q.informed = true;
    for (std::size_t b = 0; b < p; ++b)
      prof.covariance[i][std::size_t(active.params[b] - calibration_params().data())] = cov(Eigen::Index(a), Eigen::Index(b));
  }
  if (set.noise < 1)
    out.notes.push_back(fmt::format("the fitted cases scatter at {:.2g} of their tolerances: the fit weighs them at that scatter, so the "
                                    "priors yield to them",
                                    set.noise));
  for (const ProfileParam& q : prof.params)
    if (!q.informed && asked(q.name))
      out.notes.push_back(fmt::format("no fitted case depends on '{}': kept at its default {:g}", q.name, q.value));
  // What the cases cannot tell: too few of them for the parameters, or an interval no narrower than
  // the prior's (the prior, not the data, sets it).
  const int spare = int(n) - int(p);
  if (spare <= 2)
    out.notes.push_back(fmt::format("warning: {} case(s) for {} fitted parameter(s) leave {} degree(s) of freedom: the intervals rest on "
                                    "the priors and a residual the cases cannot estimate; add cases before trusting them",
                                    n, p, std::max(0, spare)));
  for (std::size_t a = 0; a < p; ++a) {
    const CalibrationParam& c = *active.params[a];
    const ProfileParam& q = prof.params[std::size_t(&c - calibration_params().data())];
    if (q.sd_log >= 0.8 * c.prior_sd)
      out.notes.push_back(fmt::format("warning: the cases barely inform '{}': its interval is {:.0f}% as wide as its prior's "
                                      "(prior-dominated)", q.name, 100 * q.sd_log / c.prior_sd));
  }

  for (const CaseScore& s : after)
    if (std::fabs(log_error(s)) > 3 * s.tolerance)
      out.notes.push_back(fmt::format("case '{}' is still {:+.0f}% off after the fit, more than 3x its tolerance: check the "
                                      "measurement and its scenario, or a model gap the parameters cannot absorb",
                                      s.id, 100 * s.error));
  std::set<std::string> devices;
  for (std::size_t i = 0; i < n; ++i) {
    prof.cases.push_back(set.baseline[i].id);
    if (!set.baseline[i].accelerator.empty()) devices.insert(set.baseline[i].accelerator);
    out.cases.push_back({set.baseline[i], after[i], std::nullopt, std::nullopt});
  }
  prof.accelerators.assign(devices.begin(), devices.end());

  if (!r.leave_one_out) return out;
  // Leave-one-out: each case its own group. Leave-one-source-out (two or more sources): each
  // source's cases together, since one publication's cases share its setup.
  std::vector<std::size_t> each(n), by_source(n);
  std::vector<std::string> sources;
  for (std::size_t i = 0; i < n; ++i) {
    each[i] = i;
    const auto at = std::find(sources.begin(), sources.end(), set.baseline[i].source);
    by_source[i] = std::size_t(at - sources.begin());
    if (at == sources.end()) sources.push_back(set.baseline[i].source);
  }
  if (n > 1) refit_without_groups(set, active, u, each, n, r.threads, out.evaluations, [&](std::size_t i, double v) {
    out.cases[i].leave_one_out = v;
  });
  if (sources.size() > 1)
    refit_without_groups(set, active, u, by_source, sources.size(), r.threads, out.evaluations, [&](std::size_t i, double v) {
      out.cases[i].leave_one_source_out = v;
    });
  return out;
}

CalibratedScores score_with_profile(const std::vector<std::filesystem::path>& files, const HardwareDb& db, const CalibrationProfile& p) {
  CalibratedScores out;
  const ModelParams calibrated = p.model_params();
  for (const auto& file : files) {
    const CaseScorer scorer = case_scorer(file, db);
    std::vector<CaseScore> before = scorer(ModelParams{}), after = scorer(calibrated);
    for (std::size_t i = 0; i < before.size(); ++i) {
      CaseScore& a = after[i];
      const ProfileUse use = profile_use(p, a);
      if (use == ProfileUse::fitted) {
        ++out.fitted;
        mark_fitted(a), mark_fitted(before[i]);
      } else if (use == ProfileUse::other_device) {
        ++out.other_device;
        a = before[i];
      }
      out.on_other_device.push_back(use == ProfileUse::other_device);
    }
    for (CaseScore& s : before) out.before.push_back(std::move(s));
    for (CaseScore& s : after) out.after.push_back(std::move(s));
  }
  return out;
}

std::vector<CaseScore> score_file_with_case_profiles(const std::filesystem::path& file, const HardwareDb& db, std::string_view kind) {
  std::vector<CaseScore> scores = score_file(file, db, {}, kind);
  std::map<std::string, std::set<std::string>> ids_by_profile;
  for (const CaseScore& s : scores)
    if (s.scored && !s.calibration.empty()) ids_by_profile[s.calibration].insert(s.id);
  for (const auto& entry : ids_by_profile) {
    const std::set<std::string>& ids = entry.second;
    const CalibrationProfile p = load_calibration_profile(entry.first);
    const std::string name = std::filesystem::path(entry.first).filename().string();
    const CaseScorer scorer = case_scorer(file, db, [&ids](std::string_view id) { return ids.count(std::string(id)) > 0; }, kind);
    for (CaseScore& with : scorer(p.model_params())) {
      const auto at = std::find_if(scores.begin(), scores.end(), [&](const CaseScore& s) { return s.id == with.id; });
      const ProfileUse use = profile_use(p, with);
      if (use == ProfileUse::other_device) {
        at->detail += " · " + name + " not fitted on this device: defaults";
        continue;
      }
      if (use == ProfileUse::fitted) mark_fitted(with);
      with.detail += (use == ProfileUse::fitted ? " · fitted by " : " · with ") + name;
      with.profile_used = name;
      *at = std::move(with);
    }
  }
  return scores;
}

CalibratedScores keep_cases(const CalibratedScores& s, const std::function<bool(const CaseScore&)>& wanted) {
  CalibratedScores out;
  for (std::size_t i = 0; i < s.after.size(); ++i) {
    if (!wanted(s.after[i])) continue;
    out.before.push_back(s.before[i]);
    out.after.push_back(s.after[i]);
    out.on_other_device.push_back(s.on_other_device[i]);
    out.fitted += s.after[i].used_for == "calibration";
    out.other_device += s.on_other_device[i];
  }
  return out;
}

}  // namespace perfcast
