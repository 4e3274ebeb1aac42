#include "engine/writers/capacity_writers.hpp"

#include <fmt/format.h>

#include "engine/core/units.hpp"

#include "engine/writers/text_table.hpp"

namespace perfcast {
namespace {

std::string percentile_name(double p) { return fmt::format("p{:g}", p * 100); }

std::string slo_text(const models::Slo& s) {
  std::string out;
  if (s.ttft_s) out += fmt::format("{} TTFT ≤ {}", percentile_name(s.percentile), duration_text(*s.ttft_s));
  if (s.tpot_s) out += fmt::format("{}{} TPOT ≤ {}", out.empty() ? "" : ", ", percentile_name(s.percentile), duration_text(*s.tpot_s));
  return out;
}

std::string rate_text(double requests_per_s, double output_len) {
  return fmt::format("{:.4g} requests/s ({:.4g} output tokens/s)", requests_per_s, requests_per_s * output_len);
}

// The latencies a serving point and an engine's steady state share (their fields are named alike): mean,
// median and the SLO percentile of TTFT, TPOT, ITL (when simulated) and the end-to-end time.
template <class R>
void add_latency_rows(TextTable& t, const R& r, const std::string& q) {
  auto row = [&](const std::string& what, double mean, double p50, double p) {
    t.add_row({what + " mean / p50 / " + q, fmt::format("{} / {} / {}", duration_text(mean), duration_text(p50), duration_text(p))});
  };
  row("TTFT", r.ttft_mean_s, r.ttft_p50_s, r.ttft_p_s);
  row("TPOT", r.tpot_mean_s, r.tpot_p50_s, r.tpot_p_s);
  if (r.chunk_gaps) row("ITL (streamed chunks)", r.itl_mean_s, r.itl_p50_s, r.itl_p_s);
  row("end-to-end", r.e2e_mean_s, r.e2e_p50_s, r.e2e_p_s);
}

template <class R>
void add_latency_keys(nlohmann::json& j, const R& r, const std::string& q) {
  auto keys = [&](const std::string& what, double mean, double p50, double p) {
    j[what + "_mean_s"] = mean, j[what + "_p50_s"] = p50, j[what + "_" + q + "_s"] = p;
  };
  keys("ttft", r.ttft_mean_s, r.ttft_p50_s, r.ttft_p_s);
  keys("tpot", r.tpot_mean_s, r.tpot_p50_s, r.tpot_p_s);
  if (r.chunk_gaps) keys("itl", r.itl_mean_s, r.itl_p50_s, r.itl_p_s);
  keys("e2e", r.e2e_mean_s, r.e2e_p50_s, r.e2e_p_s);
}

std::string kv_admission_text(const models::KvPool& kv) {
  switch (kv.admission) {
    case models::KvAdmission::whole_request: return "whole requests reserved at admission, never preempted";
    case models::KvAdmission::on_demand:
      return fmt::format("blocks of {:g} tokens taken as requests run, from a pool of {:.4g} tokens; the newest preempted when they run out",
                         kv.block_tokens, kv.tokens);
    case models::KvAdmission::reserved_estimate:
      return fmt::format("admitted against an estimate of the running outputs, from a pool of {:.4g} tokens; retracted when it runs out",
                         kv.tokens);
  }
  return "";
}

}  // namespace

std::string serving_point_table(const models::ServingPoint& p) {
  const std::string q = percentile_name(p.percentile);
  TextTable t({"quantity", "value"});
  t.add_row({"arrival rate", fmt::format("{:.4g} requests/s ({} of saturation)", p.rate, percent_text(p.load))});
  t.add_row({"sequences decoding (mean)", fmt::format("{:.1f} ({} of the slots)", p.occupancy, percent_text(p.slot_utilisation))});
  t.add_row({"time in prefill", percent_text(p.prefill_share)});
  t.add_row({"requests in the replica (Little)", fmt::format("{:.1f}", p.concurrency)});
  t.add_row({"not admitted at the first step", fmt::format("{} of requests (no slot or no token budget left)",
                                                           percent_text(p.admission_wait_probability))});
  t.add_row({"arrival to its first step (mean)", duration_text(p.admission_wait_s)});
  t.add_row({"first step to first token (mean)", duration_text(p.prefill_wait_s)});
  add_latency_rows(t, p, q);
  t.add_row({"output tokens/s", fmt::format("{:.4g}", p.output_tokens_per_s)});
  return t.render();
}

nlohmann::json serving_point_to_json(const models::ServingPoint& p) {
  const std::string q = percentile_name(p.percentile);
  nlohmann::json j{{"rate_per_s", p.rate},
                   {"load", p.load},
                   {"occupancy", p.occupancy},
                   {"slot_utilisation", p.slot_utilisation},
                   {"prefill_share", p.prefill_share},
                   {"decode_step_s", p.step_s},
                   {"output_tokens_per_s", p.output_tokens_per_s},
                   {"concurrency", p.concurrency},
                   {"admission_wait_probability", p.admission_wait_probability},
                   {"admission_wait_s", p.admission_wait_s},
                   {"prefill_wait_s", p.prefill_wait_s}};
  add_latency_keys(j, p, q);
  return j;
}

std::string engine_steady_state_table(const EngineSteadyState& e) {
  const models::SimulatedServing& r = e.result;
  const std::string q = percentile_name(r.percentile);
  const models::SchedulerLimits& l = e.limits.limits;
  TextTable t({"quantity", "value"});
  t.add_row({"engine", fmt::format("{}{}", models::kServingEngineKeys[static_cast<std::size_t>(e.engine)], e.engine_given ? "" : " (default)")});
  t.add_row({"load", e.load});
  const std::string graphs =
      l.graph_batch_sizes.empty() ? "" : fmt::format(", decode-only steps padded to {} CUDA-graph sizes up to {:g}", l.graph_batch_sizes.size(),
                                                     l.graph_batch_sizes.back());
  const std::string rounds = l.decode_round_steps > 1 ? fmt::format(", decode rounds of {} steps", l.decode_round_steps) : "";
  t.add_row({"scheduler limits", fmt::format("{:g} running requests, {:g} tokens per step{}{}{}{}{}", l.max_sequences, l.max_step_tokens,
                                             l.chunked_prefill ? ", chunked prefill" : "",
                                             l.mixed_prefill ? "" : ", prompt and decode steps apart",
                                             l.overlap_scheduling ? ", overlap scheduling" : "", rounds, graphs)});
  t.add_row({"KV cache admission", kv_admission_text(l.kv)});
  if (l.kv.admission != models::KvAdmission::whole_request)
    t.add_row({"preempted per request", fmt::format("{:.3g} (cache freed, recomputed later)", r.preemptions_per_request)});
  t.add_row({"sequences decoding (mean)", fmt::format("{:.1f}", r.decoding_mean)});
  t.add_row({"prompt tokens per step (mean)", fmt::format("{:.0f}", r.prompt_tokens_per_step)});
  t.add_row({"engine step (mean)", duration_text(r.step_mean_s)});
  add_latency_rows(t, r, q);
  t.add_row({"requests/s", fmt::format("{:.4g}", r.requests_per_s)});
  t.add_row({"output tokens/s", fmt::format("{:.4g}", r.output_tokens_per_s)});
  return t.render();
}

nlohmann::json engine_steady_state_to_json(const EngineSteadyState& e) {
  const models::SimulatedServing& r = e.result;
  const std::string q = percentile_name(r.percentile);
  const models::SchedulerLimits& l = e.limits.limits;
  nlohmann::json j{{"engine", models::kServingEngineKeys[static_cast<std::size_t>(e.engine)]},
                   {"engine_default", !e.engine_given},
                   {"load_kind", e.concurrency > 0 && e.mode == models::EngineMode::server ? "closed_loop" : "max_throughput"},
                   {"concurrency", e.concurrency},
                   {"max_sequences", l.max_sequences},
                   {"max_step_tokens", l.max_step_tokens},
                   {"chunked_prefill", l.chunked_prefill},
                   {"mixed_prefill", l.mixed_prefill},
                   {"overlap_scheduling", l.overlap_scheduling},
                   {"cuda_graph_batch_sizes", l.graph_batch_sizes},
                   {"decode_round_steps", l.decode_round_steps},
                   {"kv_admission", models::kKvAdmissionKeys[static_cast<std::size_t>(l.kv.admission)]},
                   {"kv_pool_tokens", l.kv.admission == models::KvAdmission::whole_request ? nlohmann::json() : nlohmann::json(l.kv.tokens)},
                   {"preemptions_per_request", r.preemptions_per_request},
                   {"rate_per_s", r.requests_per_s},
                   {"output_tokens_per_s", r.output_tokens_per_s},
                   {"occupancy", r.decoding_mean},
                   {"prompt_tokens_per_step", r.prompt_tokens_per_step},
                   {"decode_step_s", r.step_mean_s},
                   {"requests_measured", r.requests}};
  add_latency_keys(j, r, q);
  return j;
}

std::string capacity_to_table(const CapacityReport& c, bool detail) {
  if (c.closed_loop) {
    std::string out = fmt::format("Serving at a fixed concurrency: {} on {} × {} per replica ({}), {}\n{:g} input, {:g} output tokens per request\n\n",
                                  c.workload, c.devices_per_replica, c.accelerator, c.layout, c.scenario, c.input_len, c.output_len);
    out += engine_steady_state_table(*c.closed_loop);
    if (c.closed_loop_meets_slo) out += fmt::format("\nSLO {}: {}\n", slo_text(c.slo), *c.closed_loop_meets_slo ? "met" : "missed");
    if (detail) out += assumptions_text(c.assumptions);
    return out;
  }
  const models::ReplicaTimes& r = c.replica;
  std::string out = fmt::format("Serving capacity: {} on {} × {} per replica ({}), {}\n{:g} input, {:g} output tokens per request; SLO {}\n\n",
                                c.workload, c.devices_per_replica, c.accelerator, c.layout, c.scenario, c.input_len, c.output_len,
                                slo_text(c.slo));
  TextTable t({"one replica", "value"});
  t.add_row({"prefill of one prompt", duration_text(r.prefill_s)});
  t.add_row({"decode step", fmt::format("{} at batch 1, {} at {:g}", duration_text(r.decode.front().step_s),
                                        duration_text(r.decode.back().step_s), r.decode.back().batch)});
  t.add_row({"sequences at most", fmt::format("{:g}", r.max_concurrency)});
  t.add_row({"saturation", rate_text(c.saturation_rate, c.output_len)});
  t.add_row({"within the SLO", c.slo_rate ? fmt::format("{} = {} of saturation", rate_text(*c.slo_rate, c.output_len),
                                                        percent_text(*c.slo_rate / c.saturation_rate))
                                          : std::string("none")});
  out += t.render();
  if (!c.slo_rate) out += "\n" + c.slo_verdict + "\n";
  if (c.target_rate && c.replicas) {
    out += fmt::format("\nFor {:.4g} requests/s: {} replica{} = {} × {}\n", *c.target_rate, *c.replicas, *c.replicas == 1 ? "" : "s",
                       *c.devices, c.accelerator);
    out += fmt::format("each replica at {:.4g} requests/s:\n", c.at_target->rate);
    out += serving_point_table(*c.at_target);
  } else if (c.target_rate) {
    out += fmt::format("\nFor {:.4g} requests/s: no number of replicas of this layout meets the SLO\n", *c.target_rate);
  }
  if (c.disaggregated) {
    const DisaggregatedPlan& d = *c.disaggregated;
    out += fmt::format("\nDisaggregated prefill and decode (KV hand-over {} per device at {:.1f} GB/s: {}):\n",
                       units::format_binary_bytes(d.kv_bytes_per_device, 1), d.nic_share_Bps / 1e9, duration_text(d.kv_transfer_s));
    const std::string q = percentile_name(c.slo.percentile);
    TextTable p({"pool", "per replica within its SLO", "replicas", "each replica at", "TTFT p50 / " + q, "TPOT p50 / " + q});
    // The prefill pool's figure is TTFT (with the hand-over), the decode pool's TPOT.
    auto row = [&](const char* name, const std::optional<double>& rate, const std::optional<int>& n,
                   const std::optional<models::ServingPoint>& at, bool prefill) {
      const std::string ttft = at && prefill ? fmt::format("{} / {}", duration_text(at->ttft_p50_s + d.kv_transfer_s),
                                                           duration_text(at->ttft_p_s + d.kv_transfer_s))
                                             : "-";
      const std::string tpot = at && !prefill ? fmt::format("{} / {}", duration_text(at->tpot_p50_s), duration_text(at->tpot_p_s)) : "-";
      p.add_row({name, rate ? fmt::format("{:.4g} requests/s", *rate) : "none", n ? fmt::format("{}", *n) : "-",
                 at ? fmt::format("{:.4g} requests/s", at->rate) : "-", ttft, tpot});
    };
    row("prefill", d.prefill_slo_rate, d.prefill_replicas, d.prefill_point, true);
    row("decode", d.decode_slo_rate, d.decode_replicas, d.decode_point, false);
    out += p.render();
    out += d.devices ? fmt::format("{} × {} in all{}\n", *d.devices, c.accelerator,
                                   c.devices ? fmt::format(" (colocated: {})", *c.devices) : std::string())
                     : d.verdict + "\n";
  }
  const std::string q = percentile_name(c.slo.percentile);
  out += "\nLatency against load (one replica):\n";
  TextTable curve({"load", "requests/s", "TTFT p50", "TTFT " + q, "TPOT p50", "TPOT " + q, "meets SLO"});
  for (const LoadPoint& l : c.curve) {
    const models::ServingPoint& p = l.point;
    curve.add_row({percent_text(p.load), fmt::format("{:.4g}", p.rate), duration_text(p.ttft_p50_s), duration_text(p.ttft_p_s),
                   duration_text(p.tpot_p50_s), duration_text(p.tpot_p_s), l.meets_slo ? "yes" : "no"});
  }
  out += curve.render();
  if (detail) out += assumptions_text(c.assumptions);
  return out;
}

nlohmann::json capacity_to_json(const CapacityReport& c) {
  const models::ReplicaTimes& r = c.replica;
  nlohmann::json slo{{"percentile", c.slo.percentile * 100}};
  if (c.slo.ttft_s) slo["ttft_s"] = *c.slo.ttft_s;
  if (c.slo.tpot_s) slo["tpot_s"] = *c.slo.tpot_s;
  const nlohmann::json scenario{{"name", c.scenario}, {"workload", c.workload}, {"accelerator", c.accelerator}, {"layout", c.layout},
                                {"input_len", c.input_len}, {"output_len", c.output_len}};
  if (c.closed_loop) {
    nlohmann::json capacity{{"slo", slo}, {"concurrency", c.closed_loop->concurrency},
                            {"per_replica", engine_steady_state_to_json(*c.closed_loop)}};
    if (c.closed_loop_meets_slo) capacity["per_replica"]["meets_slo"] = *c.closed_loop_meets_slo;
    return {{"scenario", scenario}, {"capacity", capacity}, {"assumptions", c.assumptions}};
  }
  nlohmann::json decode = nlohmann::json::array();
  for (const models::StepPoint& p : r.decode) decode.push_back({{"batch", p.batch}, {"step_s", p.step_s}});
  nlohmann::json replica{{"devices", c.devices_per_replica}, {"prefill_s", r.prefill_s}, {"decode_steps", decode},
                         {"max_concurrency", r.max_concurrency}, {"saturation_rate_per_s", c.saturation_rate}};
  nlohmann::json capacity{{"slo", slo}, {"replica", replica}};
  if (c.slo_rate) capacity["slo_rate_per_s"] = *c.slo_rate;
  else capacity["slo_verdict"] = c.slo_verdict;
  if (c.target_rate) capacity["target_rate_per_s"] = *c.target_rate;
  if (c.replicas) {
    capacity["replicas"] = *c.replicas;
    capacity["devices"] = *c.devices;
    capacity["per_replica"] = serving_point_to_json(*c.at_target);
  }
  nlohmann::json curve = nlohmann::json::array();
  for (const LoadPoint& l : c.curve) {
    nlohmann::json p = serving_point_to_json(l.point);
    p["meets_slo"] = l.meets_slo;
    curve.push_back(p);
  }
  capacity["latency_curve"] = curve;
  if (c.disaggregated) {
    const DisaggregatedPlan& d = *c.disaggregated;
    nlohmann::json j{{"kv_bytes_per_device", d.kv_bytes_per_device}, {"kv_transfer_s", d.kv_transfer_s}, {"nic_share_bps", d.nic_share_Bps}};
    if (d.prefill_slo_rate) j["prefill_slo_rate_per_s"] = *d.prefill_slo_rate;
    if (d.decode_slo_rate) j["decode_slo_rate_per_s"] = *d.decode_slo_rate;
    if (d.devices) {
      j["prefill_replicas"] = *d.prefill_replicas;
      j["decode_replicas"] = *d.decode_replicas;
      j["devices"] = *d.devices;
      j["prefill"] = serving_point_to_json(*d.prefill_point);
      j["decode"] = serving_point_to_json(*d.decode_point);
    } else {
      j["verdict"] = d.verdict;
    }
    capacity["disaggregated"] = j;
  }
  return {{"scenario", scenario},
          {"capacity", capacity},
          {"assumptions", c.assumptions}};
}

std::string capacity_to_csv(const CapacityReport& c) {
  if (c.closed_loop) {
    const models::SimulatedServing& r = c.closed_loop->result;
    return fmt::format("concurrency,percentile,rate_per_s,output_tokens_per_s,ttft_mean_s,ttft_p50_s,ttft_at_percentile_s,tpot_mean_s,"
                       "tpot_p50_s,tpot_at_percentile_s,e2e_mean_s\n{:g},{:g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g}\n",
                       c.closed_loop->concurrency, r.percentile * 100, r.requests_per_s, r.output_tokens_per_s, r.ttft_mean_s, r.ttft_p50_s,
                       r.ttft_p_s, r.tpot_mean_s, r.tpot_p50_s, r.tpot_p_s, r.e2e_mean_s);
  }
  // Fixed column names (a percentile column says which one the *_at_percentile columns are).
  std::string out = "load,rate_per_s,percentile,ttft_p50_s,ttft_at_percentile_s,tpot_p50_s,tpot_at_percentile_s,output_tokens_per_s,meets_slo\n";
  for (const LoadPoint& l : c.curve) {
    const models::ServingPoint& p = l.point;
    out += fmt::format("{:.9g},{:.9g},{:g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{}\n", p.load, p.rate, p.percentile * 100, p.ttft_p50_s,
                       p.ttft_p_s, p.tpot_p50_s, p.tpot_p_s, p.output_tokens_per_s, l.meets_slo ? "true" : "false");
  }
  return out;
}

}  // namespace perfcast
