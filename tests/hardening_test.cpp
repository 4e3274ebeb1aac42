// Hardening round 3 (issue 76), each check failing before its fix: the options' bounds every front
// end shares (engine/api/request_limits.hpp), a training layout that does not fit refused as
// inference's is, what ingest and the shard readers refuse instead of writing or merging, --pareto
// with a metric twice, preset names, and outputs refused before the work. tests/reliability/ runs
// the whole catalogue against the binary; tests/web/ the server's limits.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "engine/api/answers.hpp"
#include "engine/api/request_limits.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/data/workload_reader.hpp"
#include "engine/ingest/aiperf_export.hpp"
#include "engine/ingest/mlperf_summary.hpp"
#include "engine/writers/plan_reader.hpp"
#include "engine/writers/sweep_writers.hpp"
#include "tests/run_binary.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;
using perfcast::test::run;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = PERFCAST_SOURCE_DIR;

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Scenario shipped(const char* name) { return load_scenario((kSource / "scenarios" / name).string(), default_workloads_dir(), shipped_db()); }

std::string refusal(auto&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

bool has(const std::string& text, const char* words) { return text.find(words) != std::string::npos; }

}  // namespace

TEST_CASE("the engine's answers refuse options outside the bounds the CLI has, whichever front end asks") {
  const Scenario train = shipped("llama3-70b-h100-training.toml"), serve = shipped("llama3-70b-h100-serving.toml");
  for (int samples : {-1, 0, 5, 1'000'000})
    CHECK(has(refusal([&] { api::predict(train, {.uncertainty = true, .samples = samples}); }), "--samples"));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(has(refusal([&] { api::capacity_answer(serve, {.tpot_slo_s = nan}); }), "--tpot-slo nan"));
  CHECK(has(refusal([&] { api::capacity_answer(serve, {.ttft_slo_s = 0.0}); }), "--ttft-slo 0"));
  CHECK(has(refusal([&] { api::capacity_answer(serve, {.percentile = 100.0}); }), "--percentile 100"));
  CHECK(has(refusal([&] { api::capacity_answer(serve, {.concurrency = 0.0}); }), "--concurrency 0"));
  CHECK(has(refusal([&] { api::capacity_answer(serve, {.concurrency = 1e7}); }), "from 1 to 100000"));
  CHECK(has(refusal([&] { api::capacity_answer(serve, {.rate = 5.0, .concurrency = 8.0}); }), "give one"));
  CHECK(has(refusal([&] { api::sweep(train, {.devices = {2'147'483'647}}); }), "--devices 2147483647"));
  CHECK(has(refusal([&] { api::sweep(train, {.devices = {64}, .threads = -5}); }), "--threads -5"));
  CHECK(has(refusal([&] { api::sweep(train, {.devices = {64}, .threads = 100'000}); }), "--threads 100000"));
  CHECK(has(refusal([&] { api::check_deadline(-1.0); }), "--deadline -1"));
  CHECK(has(refusal([&] { api::check_deadline(nan); }), "--deadline nan"));
  CHECK(refusal([&] { api::check_deadline(86400.0); }) == "(accepted)");
}

TEST_CASE("a training layout that does not fit in memory is refused, as inference's is, unless --ignore-memory asks for its time") {
  const fs::path file = fs::temp_directory_path() / "perfcast-hardening-nofit.toml";
  std::ofstream(file) << "schema_version = 1\n[model]\npreset = \"llama3-8b\"\n[hardware]\nsystem = \"dgx-h100\"\nnodes = 1\n"
                         "[training]\nseq_len = 1048576\nglobal_batch = 8\nmicro_batch = 1\nprecision = \"bf16\"\nrecompute = \"selective\"\n"
                         "tokens = 1e11\n[parallelism]\ntp = 1\npp = 1\n";
  const auto refused = run("predict " + file.string() + " --format json");
  CHECK(refused.code == 2);
  CHECK(has(refused.err, "does not fit in device memory"));
  CHECK(has(refused.err, "--ignore-memory"));
  CHECK(refused.out.empty());
  const auto timed = run("predict " + file.string() + " --format json --ignore-memory");
  REQUIRE(timed.code == 0);
  const json j = json::parse(timed.out);
  CHECK(!j["memory"]["fits"].get<bool>());
  CHECK(j["training"]["step_time_s"].get<double>() > 0);
  CHECK(has(j.dump(), "timed though it does not fit"));
  fs::remove(file);
}

TEST_CASE("an MLPerf summary ingest would write a case validate refuses is refused: zero, huge or subnormal rates, two results in one file") {
  const std::string m = text_of(kSource / "tests/data/ingest/mlperf_log_summary_offline.txt");
  const std::string tps = "Tokens per second: 12134.6";
  REQUIRE(has(m, tps.c_str()));
  auto with = [&](const std::string& line) {
    std::string t = m;
    return t.replace(t.find(tps), tps.size(), line);
  };
  auto refused = [](const std::string& text) { return refusal([&] { parse_mlperf_summary(text, "s.txt"); }); };
  CHECK(refused(m) == "(accepted)");
  CHECK(has(refused(with("Tokens per second: 0")), "above 0"));
  CHECK(has(refused(with("Tokens per second: 1e308")), "at most"));
  CHECK(has(refused(with("Tokens per second: 5e-324")), "subnormal"));
  CHECK(has(refused(with(tps + "\nTokens per second: 99999999")), "one summary per file"));
  CHECK(has(refused(m + "\nResult is : INVALID\n"), "one summary per file"));
  CHECK(refused(with(tps + "\n" + tps)) == "(accepted)");  // the same line twice says nothing new
}

TEST_CASE("an AIPerf export whose figures cannot be a run is refused: TTFT after the request's end, huge or subnormal throughput, an unknown rate mode") {
  const json a = json::parse(text_of(kSource / "tests/data/ingest/aiperf_profile_export_llama3-70b_tp8.json"));
  auto refused = [](const json& j) { return refusal([&] { parse_aiperf_export(j.dump(), "a.json"); }); };
  CHECK(refused(a) == "(accepted)");
  json late = a;
  late["time_to_first_token"]["avg"] = 99999.0;
  CHECK(has(refused(late), "longer than request_latency"));
  json huge = a;
  huge["output_token_throughput"]["avg"] = 1e308;
  CHECK(has(refused(huge), "beyond any measurement"));
  json tiny = a;
  tiny["output_token_throughput"]["avg"] = 5e-324;
  CHECK(has(refused(tiny), "subnormal"));
  json mode = a;
  mode["input_config"]["loadgen"]["request_rate_mode"] = "bogus";
  CHECK(has(refused(mode), "request_rate_mode 'bogus'"));
}

TEST_CASE("a shard's negative figures, or an MFU above 1, are refused by plan-merge and sweep-merge") {
  const json plan = json::parse(text_of(kSource / "tests/data/shards/plan-serving.json"));
  CHECK(refusal([&] { plan_from_json(plan, "p.json"); }) == "(accepted)");  // written before plans had --risk: read as p50
  for (const char* key : {"usd_per_hour", "replicas", "ttft_p_s"}) {
    CAPTURE(key);
    json bad = plan;
    bad["plan"]["best"][0][key] = -6;
    CHECK(has(refusal([&] { plan_from_json(bad, "p.json"); }), "is -6; no figure perfcast writes is negative"));
  }
  json none = plan;
  none["plan"]["best"][0]["devices"] = 0;
  CHECK(has(refusal([&] { plan_from_json(none, "p.json"); }), "one device or more"));
  json rate = plan;
  rate["plan"]["rate"] = -50;
  CHECK(has(refusal([&] { plan_from_json(rate, "p.json"); }), "not a request rate"));
  json dropped = plan;
  dropped["plan"]["dropped"][0]["count"] = 1e308;
  CHECK(has(refusal([&] { plan_from_json(dropped, "p.json"); }), "not a whole number of 0 or more"));

  const json sweep = json::parse(text_of(kSource / "tests/data/shards/sweep-shard.json"));
  CHECK(refusal([&] { sweep_from_json(sweep, "s.json"); }) == "(accepted)");
  json step = sweep;
  step["sweep"]["best"][0]["figures"]["step_time_s"] = -11.3;
  CHECK(has(refusal([&] { sweep_from_json(step, "s.json"); }), "'step_time_s' is -11.3"));
  json mfu = sweep;
  mfu["sweep"]["best"][0]["figures"]["mfu"] = 2.5;
  CHECK(has(refusal([&] { sweep_from_json(mfu, "s.json"); }), "a utilization is at most 1"));
}

TEST_CASE("command line: --pareto with a metric twice, a preset name no preset can have, a report output that cannot be written, an unknown case kind") {
  const std::string plan = "plan " + (kSource / "scenarios/llama3-70b-15t-pretrain.toml").string();
  const auto twice = run(plan + " --pareto time,time --top 1");
  CHECK(twice.code == 2);
  CHECK(has(twice.err, "'time' twice"));
  const std::string config = (kSource / "tests/data/hf/qwen3-8b/config.json").string();
  for (const char* name : {"../../etc/x", "''", ".hidden", "a\\ b"}) {
    CAPTURE(name);
    const auto r = run("model import " + config + " --name " + name);
    CHECK(r.code == 1);
    CHECK(has(r.err, "a preset name is"));
  }
  CHECK(run("model import " + config + " --name qwen3-8b-local").code == 0);
  const auto report = run("report " + (kSource / "scenarios/llama3-70b-h100-serving.toml").string() + " -o /nonexistent/dir/r.html");
  CHECK(report.code == 2);
  CHECK(has(report.err, "/nonexistent/dir/r.html: cannot write the report file"));
  const auto kind = run("validate --kind bogus");
  CHECK(kind.code == 2);
  CHECK(has(kind.err, "'bogus': not a kind of case"));
}

TEST_CASE("a NUL byte in a path or a field is shown as \\0, so the one-line message is never cut short") {
  const InputError e({std::string("scen\0arios/x.toml", 17), 0, 0}, std::string("bad \0 value", 11));
  CHECK(std::string(e.what()) == "scen\\0arios/x.toml: bad \\0 value");
}
