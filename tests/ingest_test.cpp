// Reading measured output: nccl-tests tables (single- and multi-node, with and without the root
// column, validation on and off) into runs, and into collective cases that validate scores.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "engine/core/errors.hpp"
#include "engine/ingest/aiperf_export.hpp"
#include "engine/ingest/measurements.hpp"
#include "engine/ingest/megatron_log.hpp"
#include "engine/ingest/mlperf_summary.hpp"
#include "engine/predict/training.hpp"
#include "engine/ingest/nccl_tests.hpp"
#include "engine/ingest/trtllm_bench.hpp"
#include "engine/ingest/vllm_bench.hpp"
#include "engine/core/input_file.hpp"
#include "engine/validate/validation.hpp"
#include "engine/ingest/case_writers.hpp"
#include "engine/data/scenario_reader.hpp"
#include "tests/case_files.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;

namespace {

std::string sample(const std::string& name) { return std::string(PERFCAST_SOURCE_DIR) + "/tests/data/ingest/" + name; }

NcclTestsRun read(const std::string& name, std::optional<models::Collective> op = std::nullopt) {
  return parse_nccl_tests(read_input_file(sample(name), "nccl-tests output"), sample(name), op);
}

}  // namespace

TEST_CASE("nccl-tests: a single-node all_reduce_perf run, rows and header") {
  const NcclTestsRun r = read("all_reduce_perf_8gpu.txt");
  CHECK(r.op == models::Collective::all_reduce);  // from the file name
  CHECK(r.ranks == 8);
  CHECK(r.hosts == 1);
  CHECK(r.device == "NVIDIA H100 80GB HBM3");
  REQUIRE(r.rows.size() == 5);
  const NcclTestsRow& big = r.rows.back();
  CHECK(big.bytes == 8589934592.0);
  CHECK(big.count == 2147483648.0);
  CHECK(big.type == "float");
  CHECK(big.redop == "sum");
  CHECK(big.out_of_place.time_s == doctest::Approx(31300e-6));
  CHECK(big.out_of_place.algbw_Bps == doctest::Approx(274.44e9));
  CHECK(big.out_of_place.busbw_Bps == doctest::Approx(480.27e9));
  CHECK(big.out_of_place.wrong == 0);
  CHECK(big.in_place.busbw_Bps == doctest::Approx(475.51e9));
  CHECK(big.line == 20);
  REQUIRE(r.average_busbw_Bps);
  CHECK(*r.average_busbw_Bps == doctest::Approx(187.42e9));
}

TEST_CASE("nccl-tests: multi-node alltoall without validation, and an old table without root") {
  const NcclTestsRun a = read("multinode-16gpu.txt");  // the pasted command line names alltoall_perf
  CHECK(a.op == models::Collective::all_to_all);
  CHECK(a.ranks == 16);
  CHECK(a.hosts == 2);
  REQUIRE(a.rows.size() == 3);
  CHECK_FALSE(a.rows[0].out_of_place.wrong.has_value());  // N/A
  CHECK(a.rows[0].redop == "none");
  const NcclTestsRun old = read("reduce_scatter_perf_old.txt");
  CHECK(old.op == models::Collective::reduce_scatter);  // not reduce_perf, a suffix of it
  CHECK(old.ranks == 4);
  REQUIRE(old.rows.size() == 2);
  CHECK(old.rows[1].out_of_place.time_s == doctest::Approx(520e-6));
  // --op wins over the file name.
  CHECK(read("all_reduce_perf_8gpu.txt", models::Collective::all_gather).op == models::Collective::all_gather);
}

TEST_CASE("nccl-tests: malformed output names the file and line") {
  CHECK_THROWS_WITH_AS(read("all_reduce_perf_cut.txt"), doctest::Contains("all_reduce_perf_cut.txt:18:1: nccl-tests: a result row has 7 columns"),
                       InputError);
  CHECK_THROWS_WITH_AS(parse_nccl_tests("#  Rank  0 Group  0 Pid 1 on h device 0 [0] GPU\n", "x.txt", models::Collective::all_reduce),
                       doctest::Contains("no results table"), InputError);
  CHECK_THROWS_WITH_AS(parse_nccl_tests("nothing here\n", "run.txt"), doctest::Contains("cannot tell the collective"), InputError);
  const std::string no_ranks = "#  size  count  type  redop  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n"
                               "  1024  256  float  sum  10.0  0.10  0.18  0  10.0  0.10  0.18  0\n";
  CHECK_THROWS_WITH_AS(parse_nccl_tests(no_ranks, "all_reduce_perf.txt"), doctest::Contains("number of GPUs is unknown"), InputError);
  const std::string bad_number = "#  Rank  0 Group  0 Pid 1 on h device 0 [0] GPU\n" + no_ranks.substr(0, no_ranks.find('\n') + 1) +
                                 "  1024  256  float  sum  fast  0.10  0.18  0  10.0  0.10  0.18  0\n";
  CHECK_THROWS_WITH_AS(parse_nccl_tests(bad_number, "all_reduce_perf.txt"), doctest::Contains("all_reduce_perf.txt:3:1: nccl-tests: column 'time' is 'fast'"),
                       InputError);
}

TEST_CASE("nccl-tests: a size beyond 1 TiB or not whole is refused (a fuzz finding: it overflowed the int64 cast)") {
  const std::string head = "#  Rank  0 Group  0 Pid 1 on h device 0 [0] GPU\n"
                           "#  size  count  type  redop  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n";
  CHECK_THROWS_WITH_AS(parse_nccl_tests(head + "  1.6e87  256  float  sum  10.0  0.10  0.18  0  10.0  0.10  0.18  0\n", "all_reduce_perf.txt"),
                       doctest::Contains("all_reduce_perf.txt:3:1: nccl-tests: size 1.6e+87 is not a whole number of bytes up to 1 TiB"),
                       InputError);
  CHECK_THROWS_AS(parse_nccl_tests(head + "  1024.5  256  float  sum  10.0  0.10  0.18  0  10.0  0.10  0.18  0\n", "all_reduce_perf.txt"),
                  InputError);
  // Another: a #wrong count beyond long was cast.
  CHECK_THROWS_WITH_AS(parse_nccl_tests(head + "  1024  256  float  sum  10.0  0.10  0.18  8.9e43  10.0  0.10  0.18  0\n", "all_reduce_perf.txt"),
                       doctest::Contains("nccl-tests: column '#wrong' is '8.9e43', not a count of wrong elements"), InputError);
}

TEST_CASE("nccl-tests: NCCL_ALGO from an NCCL_DEBUG=INFO line is written into the cases") {
  const std::string table = "#  Rank  0 Group  0 Pid 1 on h device 0 [0] GPU\n"
                            "#  size  count  type  redop  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n"
                            "  1024  256  float  sum  10.0  0.10  0.18  0  10.0  0.10  0.18  0\n";
  auto algo = [&](const std::string& info) { return parse_nccl_tests(info + table, "all_reduce_perf.txt").algorithm; };
  CHECK(algo("node:1:1 [0] NCCL INFO NCCL_ALGO set by environment to NVLS\n") == models::CollectiveAlgorithm::nvls);
  CHECK(algo("node:1:1 [0] NCCL INFO NCCL_ALGO set by environment to allreduce:NVLSTree\n") ==
        models::CollectiveAlgorithm::nvls_tree);
  CHECK_FALSE(algo("node:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring,Tree\n"));
  CHECK_FALSE(algo(""));
  const NcclTestsRun ring = parse_nccl_tests("x NCCL INFO NCCL_ALGO set by environment to Ring\n" + table, "all_reduce_perf.txt");
  CHECK(collective_cases_toml(ring, "dgx-h100", "").find("algorithm = 'ring'") != std::string::npos);
  // --algo wins over the log.
  CHECK(collective_cases_toml(ring, "dgx-h100", "", models::CollectiveAlgorithm::tree).find("algorithm = 'tree'") != std::string::npos);
}

TEST_CASE("nccl-tests rows become collective cases that validate scores, busbw from the time") {
  const NcclTestsRun r = read("all_reduce_perf_8gpu.txt");
  const std::vector<CaseScore> scores = score_case_text(collective_cases_toml(r, "dgx-h100", ""), "perfcast-ingest");
  REQUIRE(scores.size() == 5);
  for (const CaseScore& s : scores) {
    CHECK(s.scored);
    CHECK(std::isfinite(s.error));
    CHECK(s.source == "nccl-tests output " + sample("all_reduce_perf_8gpu.txt"));
  }
  // 8 GiB in 31,300 us on 8 ranks: 8589934592 / 31300e-6 × 2·7/8 B/s.
  CHECK(scores.back().measured == doctest::Approx(8589934592.0 / 31300e-6 * 1.75).epsilon(1e-5));
  CHECK(scores.back().tolerance == 0.15);  // every size of a curve alike, so calibrate weighs them alike
  CHECK(scores.front().tolerance == 0.15);
}

TEST_CASE("Generic measurements: CSV and JSON rows become training or inference cases that validate scores") {
  const std::string csv = sample("measured.csv");
  const std::vector<Measurement> rows = parse_measurements(read_input_file(csv, "measurements"), csv);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].source == "Korthikanti et al. 2022, Table 5, 'Present Work'");
  CHECK(rows[1].notes == "163 TFLOP/s per GPU, \"52 %\" of peak");  // quoted comma and doubled quotes
  CHECK(rows[1].line == 3);
  const std::vector<CaseScore> scores = score_case_text(scenario_cases_toml(rows, csv, shipped_db()), "perfcast-measured");
  REQUIRE(scores.size() == 2);
  CHECK(scores[0].measured == 13.75);
  CHECK(scores[0].kind == "training");
  CHECK(std::isfinite(scores[0].error));
  CHECK(scores[1].id == "narayanan-1t");

  const std::string json = sample("measured.json");
  const std::vector<Measurement> j = parse_measurements(read_input_file(json, "measurements"), json);
  REQUIRE(j.size() == 1);
  CHECK(j[0].tolerance == 0.3);
  CHECK(scenario_cases_toml(j, json, shipped_db()).find("suite = 'inference'") != std::string::npos);
}

TEST_CASE("Generic measurements: bad rows name the file and line") {
  auto fails = [](const std::string& text, const std::string& file, const char* what) {
    CAPTURE(what);
    CHECK_THROWS_WITH_AS(parse_measurements(text, file), doctest::Contains(what), InputError);
  };
  fails("scenario,metric\nx.toml,step_time_s\n", "m.csv", "m.csv:1:1: measurements: the header has no 'value' column");
  fails("scenario,metric,value,colour\n", "m.csv", "unknown column 'colour'");
  fails("scenario,metric,value\nx.toml,step_time_s,fast\n", "m.csv", "m.csv:2:1: measurements: value 'fast' is not a number");
  fails("scenario,metric,value\nx.toml,step_time_s,-2\n", "m.csv", "'value' must be a positive number");
  fails("scenario,metric,value\nx.toml,step_time_s\n", "m.csv", "m.csv:2:1: measurements: 2 fields, the header has 3");
  fails("scenario,metric,value\n\"x.toml,step_time_s,1\n", "m.csv", "a quoted field is never closed");
  fails("[{\"scenario\": \"x.toml\", \"metric\": \"ttft_s\", \"value\": \"2\"}]", "m.json", "m.json:1:1: measurements: entry 1: 'value' must be a number");
  fails("[{\"scenario\": \"x.toml\", \"metric\": \"ttft_s\", \"value\": 2, \"unit\": \"s\"}]", "m.json", "unknown key 'unit'");
  fails("{\"rows\": []}", "m.json", "expected an array");
  fails("scenario,metric,value\n", "m.csv", "measurements: no rows");
  // A metric of the wrong suite, and a row mixing suites, are named at their line.
  const std::string csv = sample("measured.csv");
  std::vector<Measurement> rows = parse_measurements(read_input_file(csv, "measurements"), csv);
  rows[0].metric = "ttft_s";
  CHECK_THROWS_WITH_AS(scenario_cases_toml(rows, csv, shipped_db()), doctest::Contains("measured.csv:2:1: measurements: 'ttft_s' is not a training metric"),
                       InputError);
  rows[0].metric = "step_time_s";
  rows[1].scenario = "../../../scenarios/llama3-70b-h100-serving.toml";
  CHECK_THROWS_WITH_AS(scenario_cases_toml(rows, csv, shipped_db()), doctest::Contains("one case file holds one suite"), InputError);
}

TEST_CASE("Megatron-LM log: arguments and iteration times, mapped to the same scenario as the hand-written one") {
  const std::string log = sample("megatron_gpt3_175b_64gpu.log");
  const MegatronRun run = parse_megatron_log(read_input_file(log, "Megatron-LM log"), log);
  CHECK(run.arguments.at("num_layers") == "96");
  CHECK(run.arguments.at("fp8") == "None");
  REQUIRE(run.iterations.size() == 5);
  CHECK(run.iterations[0].iteration == 10);
  CHECK(run.iterations[0].step_s == doctest::Approx(20.4127));
  CHECK(run.iterations[1].tflops_per_gpu == doctest::Approx(149.4));
  // The median of the four intervals after the first: (13.7509 + 13.7610) / 2.
  CHECK(run.iterations_used == 4);
  CHECK(run.median_step_s == doctest::Approx((13.7509 + 13.7610) / 2));

  const std::vector<CaseScore> scores = score_case_text(megatron_case_toml(run, "dgx-a100-80gb", shipped_db(), ""), "perfcast-megatron");
  REQUIRE(scores.size() == 1);
  // The log's arguments describe Korthikanti et al.'s GPT-3 175B run: the prediction equals the
  // shipped scenario's.
  const Scenario shipped = load_scenario(std::string(PERFCAST_SOURCE_DIR) + "/scenarios/gpt3-175b-64xa100-korthikanti.toml",
                                         PERFCAST_DEFAULT_WORKLOADS, shipped_db());
  CHECK(scores[0].predicted == doctest::Approx(predict_training(shipped).step_time_s).epsilon(1e-9));
}

TEST_CASE("Megatron-LM log: what cannot be read or mapped is named") {
  const std::string args = "---------------- arguments ----------------\n  num_layers ........ 2\n---------- end of arguments ----------\n";
  CHECK_THROWS_WITH_AS(parse_megatron_log(" iteration 1/ 2 | elapsed time per iteration (ms): 5.0 |\n", "a.log"),
                       doctest::Contains("no '---- arguments ----' block"), InputError);
  CHECK_THROWS_WITH_AS(parse_megatron_log(args, "a.log"), doctest::Contains("no 'iteration ... | elapsed time"), InputError);
  CHECK_THROWS_WITH_AS(parse_megatron_log(args + " iteration 1/ 2 | elapsed time per iteration (ms): soon |\n", "a.log"),
                       doctest::Contains("a.log:4:1: megatron log: an iteration line without a positive"), InputError);
  const MegatronRun run = parse_megatron_log(args + " iteration 1/ 2 | elapsed time per iteration (ms): 5.0 |\n", "a.log");
  CHECK_THROWS_WITH_AS(megatron_scenario(run, "dgx-h100", 8), doctest::Contains("the arguments block has no 'num_attention_heads'"), InputError);
  MegatronRun moe = run;
  moe.arguments["num_experts"] = "8";
  CHECK_THROWS_WITH_AS(megatron_scenario(moe, "dgx-h100", 8), doctest::Contains("MoE runs"), InputError);
  const std::string log = sample("megatron_gpt3_175b_64gpu.log");
  MegatronRun odd = parse_megatron_log(read_input_file(log, "log"), log);
  odd.arguments["world_size"] = "60";
  CHECK_THROWS_WITH_AS(megatron_scenario(odd, "dgx-a100-80gb", 8), doctest::Contains("world_size 60 is not whole nodes"), InputError);
  MegatronRun wet = parse_megatron_log(read_input_file(log, "log"), log);
  wet.arguments["hidden_dropout"] = "1.5";
  CHECK_THROWS_WITH_AS(megatron_scenario(wet, "dgx-a100-80gb", 8), doctest::Contains("hidden_dropout = '1.5' is not a probability below 1"),
                       InputError);
}

TEST_CASE("vLLM benchmark_serving result: its closed loop on the serving scenario, scored through the engine's steady state") {
  const std::string json = sample("vllm_serving_llama3-70b_tp8.json");
  const VllmServingRun run = parse_vllm_serving(read_input_file(json, "vLLM result"), json);
  CHECK(run.all_at_once);
  CHECK(run.max_concurrency == 32);
  CHECK(run.completed == 256);
  CHECK(run.mean_ttft_s == doctest::Approx(2.3502));
  REQUIRE(run.mean_e2el_s);
  const std::string scenario = std::string(PERFCAST_SOURCE_DIR) + "/scenarios/llama3-70b-h100-serving.toml";
  const std::string text = vllm_cases_toml(run, scenario, shipped_db(), "");
  CHECK(text.find("concurrency = 32") != std::string::npos);
  CHECK(text.find("benchmark_requests = 256") != std::string::npos);  // the same finite benchmark from an idle engine
  CHECK(text.find("input_len = 2048") != std::string::npos);   // 524,288 / 256
  CHECK(text.find("output_len = 256") != std::string::npos);
  const std::vector<CaseScore> scores = score_case_text(text, "perfcast-vllm");
  REQUIRE(scores.size() == 8);
  CHECK(scores[0].measured == doctest::Approx(1250.4));  // the server's output tokens/s, one replica
  CHECK(scores[1].measured == doctest::Approx(2.3502));
  CHECK(scores[2].measured == doctest::Approx(0.01861));
  CHECK(scores[3].measured == doctest::Approx(7.0964));
  // The medians the result prints, each a case of its own.
  CHECK(scores[4].detail.starts_with("serving_ttft_p50_s"));
  CHECK(scores[4].measured == doctest::Approx(2.3017));
  CHECK(scores[5].measured == doctest::Approx(0.01855));
  CHECK(scores[6].detail.starts_with("serving_e2e_p50_s"));
  CHECK(scores[6].measured == doctest::Approx(7.051));
  // median_itl_ms: the gaps between streamed chunks, the simulation's itl_p50_s.
  CHECK(scores[7].detail.starts_with("serving_itl_p50_s"));
  CHECK(scores[7].measured == doctest::Approx(0.0182));
  for (const CaseScore& s : scores) {
    CHECK(s.scored);
    CHECK(std::isfinite(s.error));
  }
}

TEST_CASE("vLLM benchmark_serving result: what does not map is named") {
  const std::string scenario = std::string(PERFCAST_SOURCE_DIR) + "/scenarios/llama3-70b-h100-serving.toml";
  CHECK_THROWS_WITH_AS(parse_vllm_serving("not json", "r.json"), doctest::Contains("r.json: vLLM benchmark: not JSON"), InputError);
  // A fuzz finding: a number beyond a double escaped as nlohmann's out_of_range.
  CHECK_THROWS_WITH_AS(parse_vllm_serving("{\"completed\": 5e4288}", "r.json"), doctest::Contains("r.json: vLLM benchmark: not JSON"),
                       InputError);
  CHECK_THROWS_WITH_AS(parse_measurements("[{\"value\": 2e777}]", "m.json"), doctest::Contains("m.json: measurements: not JSON"),
                       InputError);
  CHECK_THROWS_WITH_AS(parse_vllm_serving("{\"completed\": 10}", "r.json"), doctest::Contains("no 'total_input_tokens'"), InputError);
  // The completed requests become benchmark_requests: a whole number from 1 to 1e6.
  CHECK_THROWS_WITH_AS(parse_vllm_serving("{\"completed\": 10.5}", "r.json"),
                       doctest::Contains("r.json: vLLM benchmark: 'completed' 10.5 is not a whole number from 1 to 1e6"), InputError);
  CHECK_THROWS_WITH_AS(parse_vllm_serving("{\"completed\": 2e6}", "r.json"), doctest::Contains("is not a whole number from 1 to 1e6"),
                       InputError);
  const std::string rated = R"({"completed": 10, "total_input_tokens": 100, "total_output_tokens": 100, "output_throughput": 5,
                               "mean_ttft_ms": 50, "request_rate": 4.0})";
  const VllmServingRun run = parse_vllm_serving(rated, "r.json");
  CHECK_FALSE(run.all_at_once);
  // A finite rate is scored at that rate.
  CHECK(vllm_cases_toml(run, scenario, shipped_db(), "").find("arrival_rate = 4") != std::string::npos);
  CHECK_THROWS_WITH_AS(parse_vllm_serving(R"({"completed": 10, "total_input_tokens": 100, "total_output_tokens": 100,
                                              "output_throughput": 5, "mean_ttft_ms": 50, "request_rate": -1})", "r.json"),
                       doctest::Contains("'request_rate' is neither inf nor a positive number"), InputError);
  CHECK_THROWS_WITH_AS(parse_vllm_serving(R"({"completed": 10, "total_input_tokens": 100, "total_output_tokens": 100,
                                              "output_throughput": 5, "mean_ttft_ms": 50, "request_rate": 4, "median_tpot_ms": -2})", "r.json"),
                       doctest::Contains("r.json: vLLM benchmark: 'median_tpot_ms' is negative"), InputError);
  // A median of 0 (no request with that figure) is no case rather than a refusal.
  CHECK_FALSE(parse_vllm_serving(R"({"completed": 10, "total_input_tokens": 100, "total_output_tokens": 10, "output_throughput": 5,
                                     "mean_ttft_ms": 50, "request_rate": 4, "median_tpot_ms": 0})", "r.json").median_tpot_s);
  const std::string training = std::string(PERFCAST_SOURCE_DIR) + "/scenarios/gpt3-175b-64xa100-korthikanti.toml";
  VllmServingRun all = run;
  all.all_at_once = true;
  CHECK_THROWS_WITH_AS(vllm_cases_toml(all, training, shipped_db(), ""), doctest::Contains("must be an LLM [inference] scenario"), InputError);
}

TEST_CASE("AIPerf export: a closed loop of its clients over its counted requests, every metric in seconds, scored") {
  const std::string json = sample("aiperf_profile_export_llama3-70b_tp8.json");
  const AiperfRun run = parse_aiperf_export(read_input_file(json, "AIPerf export"), json);
  CHECK(run.tool == "AIPerf");
  CHECK(run.model == "meta-llama/Meta-Llama-3-70B-Instruct");
  CHECK(run.concurrency == 32);
  CHECK_FALSE(run.request_rate);
  CHECK(run.requests == 320);
  CHECK(run.input_tokens == 2048);
  CHECK(run.output_tokens == 512);
  REQUIRE(run.ttft);
  CHECK(run.ttft->mean_s == doctest::Approx(0.5124));
  CHECK(run.ttft->p50_s == doctest::Approx(0.4987));
  REQUIRE(run.itl);
  CHECK(run.itl->mean_s == doctest::Approx(0.03317));
  CHECK(run.latency.mean_s == doctest::Approx(17.4628));
  const std::string scenario = std::string(PERFCAST_SOURCE_DIR) + "/scenarios/llama3-70b-h100-serving.toml";
  const std::string text = aiperf_cases_toml(run, scenario, shipped_db(), "");
  CHECK(text.find("concurrency = 32") != std::string::npos);
  CHECK(text.find("benchmark_requests = 320") != std::string::npos);  // the counted requests from an idle engine
  CHECK(text.find("input_len = 2048") != std::string::npos);
  CHECK(text.find("output_len = 512") != std::string::npos);
  CHECK(text.find("length_cv2") == std::string::npos);  // fixed lengths: no spread written
  const std::vector<CaseScore> scores = score_case_text(text, "perfcast-aiperf");
  REQUIRE(scores.size() == 7);
  CHECK(scores[0].detail.starts_with("serving_output_tokens_per_s"));
  CHECK(scores[0].measured == doctest::Approx(937.5));
  CHECK(scores[1].measured == doctest::Approx(0.5124));
  CHECK(scores[2].detail.starts_with("serving_tpot_mean_s"));
  CHECK(scores[2].measured == doctest::Approx(0.03317));
  CHECK(scores[3].measured == doctest::Approx(17.4628));
  CHECK(scores[6].detail.starts_with("serving_e2e_p50_s"));
  CHECK(scores[6].measured == doctest::Approx(17.4406));
  for (const CaseScore& s : scores) {
    CHECK(s.scored);
    CHECK(std::isfinite(s.error));
  }
}

TEST_CASE("GenAI-Perf export: a rate's flat input_config, measurement windows as the steady state, a spread of outputs") {
  const std::string json = sample("genai_perf_profile_export_llama3-70b_tp8_rate.json");
  AiperfRun run = parse_aiperf_export(read_input_file(json, "GenAI-Perf export"), json);
  CHECK(run.tool == "GenAI-Perf");
  CHECK(run.model == "meta-llama/Meta-Llama-3-70B-Instruct");
  CHECK_FALSE(run.concurrency);
  CHECK(run.request_rate == 1.5);
  CHECK_FALSE(run.requests);  // request_count 0: measurement windows
  const std::string scenario = std::string(PERFCAST_SOURCE_DIR) + "/scenarios/llama3-70b-h100-serving.toml";
  std::string text = aiperf_cases_toml(run, scenario, shipped_db(), "my run");
  CHECK(text.find("arrival_rate = 1.5") != std::string::npos);
  CHECK(text.find("arrival_cv2 = 1") != std::string::npos);  // Poisson
  CHECK(text.find("benchmark_requests") == std::string::npos);
  CHECK(text.find("source = 'my run'") != std::string::npos);
  std::vector<CaseScore> scores = score_case_text(text, "perfcast-genai-perf");
  REQUIRE(scores.size() == 7);
  for (const CaseScore& s : scores) CHECK(s.scored);
  // A spread of output lengths is written as its squared coefficient of variation.
  run.output_tokens_std = 128;
  text = aiperf_cases_toml(run, scenario, shipped_db(), "");
  CHECK(text.find("length_cv2 = 0.25") != std::string::npos);
}

TEST_CASE("AIPerf / GenAI-Perf export: what does not map is named, with the file") {
  CHECK_THROWS_WITH_AS(parse_aiperf_export("not json", "p.json"), doctest::Contains("p.json: AIPerf / GenAI-Perf export: not JSON"), InputError);
  CHECK_THROWS_WITH_AS(parse_aiperf_export("[1]", "p.json"), doctest::Contains("expected the JSON object"), InputError);
  const std::string base = R"("input_sequence_length": {"unit": "tokens", "avg": 100},
    "output_sequence_length": {"unit": "tokens", "avg": 10},
    "output_token_throughput": {"unit": "tokens/sec", "avg": 50},
    "request_latency": {"unit": "ms", "avg": 200})";
  auto with = [&](const std::string& more) { return "{" + base + (more.empty() ? "" : ", " + more) + "}"; };
  const std::string clients = R"("input_config": {"loadgen": {"concurrency": 4}})";
  CHECK(parse_aiperf_export(with(clients), "p.json").latency.mean_s == doctest::Approx(0.2));
  CHECK_THROWS_WITH_AS(parse_aiperf_export(with(""), "p.json"),
                       doctest::Contains("p.json: GenAI-Perf export: input_config gives neither a concurrency nor a request_rate"), InputError);
  CHECK_THROWS_WITH_AS(parse_aiperf_export(with(R"("input_config": {"loadgen": {"concurrency": 4, "request_rate": 2}})"), "p.json"),
                       doctest::Contains("p.json: AIPerf export: the run sent requests at a rate capped by a concurrency"), InputError);
  CHECK_THROWS_WITH_AS(parse_aiperf_export(with(R"("input_config": {"loadgen": {"concurrency": 2.5}})"), "p.json"),
                       doctest::Contains("concurrency 2.5 is not a whole number from 1 to 1e6"), InputError);
  CHECK_THROWS_WITH_AS(parse_aiperf_export(with(R"("input_config": {"request_rate": -3})"), "p.json"),
                       doctest::Contains("request_rate -3 is not a positive rate"), InputError);
  CHECK_THROWS_WITH_AS(parse_aiperf_export(with(clients + R"(, "was_cancelled": true)"), "p.json"),
                       doctest::Contains("'was_cancelled' is true"), InputError);
  CHECK_THROWS_WITH_AS(parse_aiperf_export(with(clients + R"(, "error_request_count": {"unit": "requests", "avg": 3})"), "p.json"),
                       doctest::Contains("3 requests failed"), InputError);
  CHECK_THROWS_WITH_AS(parse_aiperf_export(with(clients + R"(, "time_to_first_token": {"unit": "tokens", "avg": 3})"), "p.json"),
                       doctest::Contains("'time_to_first_token' is in 'tokens', not a time unit"), InputError);
  CHECK_THROWS_WITH_AS(parse_aiperf_export(with(clients + R"(, "time_to_first_token": {"unit": "ms", "avg": "fast"})"), "p.json"),
                       doctest::Contains("'time_to_first_token.avg' is not a non-negative number"), InputError);
  CHECK_THROWS_WITH_AS(parse_aiperf_export(with(clients + R"(, "request_count": {"unit": "requests", "avg": 1e9})"), "p.json"),
                       doctest::Contains("request_count 1e+09 is not a whole number from 1 to 1e6"), InputError);
  CHECK_THROWS_WITH_AS(parse_aiperf_export(R"({"input_config": {"loadgen": {"concurrency": 4}}})", "p.json"),
                       doctest::Contains("no 'input_sequence_length'"), InputError);
  // Seconds and microseconds are read as such.
  CHECK(parse_aiperf_export(with(clients + R"(, "time_to_first_token": {"unit": "s", "avg": 0.125})"), "p.json").ttft->mean_s == 0.125);
  CHECK(parse_aiperf_export(with(clients + R"(, "inter_token_latency": {"unit": "us", "avg": 2000})"), "p.json").itl->mean_s ==
        doctest::Approx(0.002));
}

TEST_CASE("MLPerf summary: fields, an Offline case on the scenario, and what is refused") {
  const std::string offline = sample("mlperf_log_summary_offline.txt");
  const MlperfSummary m = parse_mlperf_summary(read_input_file(offline, "summary"), offline);
  CHECK(m.sut == "llama2-70b-Offline-SUT");
  CHECK(m.scenario == "Offline");
  CHECK(m.valid);
  CHECK(m.samples_per_s == doctest::Approx(41.27));
  CHECK(m.tokens_per_s == doctest::Approx(12134.6));
  CHECK(m.mean_latency_s == doctest::Approx(301.264719383));
  CHECK(m.fields.at("min_duration (ms)") == "600000");
  const std::string scenario = std::string(PERFCAST_SOURCE_DIR) + "/scenarios/llama3-70b-h100-serving.toml";
  const std::vector<CaseScore> scores = score_case_text(mlperf_case_toml(m, scenario, shipped_db(), ""), "perfcast-mlperf");
  REQUIRE(scores.size() == 1);
  CHECK(scores[0].measured == doctest::Approx(12134.6 / 8));
  CHECK(std::isfinite(scores[0].error));

  const std::string server = sample("mlperf_log_summary_server.txt");
  const MlperfSummary s = parse_mlperf_summary(read_input_file(server, "summary"), server);
  CHECK(s.tokens_per_s == doctest::Approx(9877.2));  // "Completed tokens per second"
  CHECK_THROWS_WITH_AS(mlperf_case_toml(s, scenario, shipped_db(), ""), doctest::Contains("scenario Server is bounded by latency targets"), InputError);
  const std::string invalid = sample("mlperf_log_summary_invalid.txt");
  CHECK_THROWS_WITH_AS(mlperf_case_toml(parse_mlperf_summary(read_input_file(invalid, "summary"), invalid), scenario, shipped_db(), ""),
                       doctest::Contains("the result is not VALID"), InputError);
  CHECK_THROWS_WITH_AS(parse_mlperf_summary("Scenario : Offline\n", "s.txt"), doctest::Contains("no 'MLPerf Results Summary' header"), InputError);
  CHECK_THROWS_WITH_AS(parse_mlperf_summary("MLPerf Results Summary\nScenario : Offline\nSamples per second: lots\n", "s.txt"),
                       doctest::Contains("s.txt:3:1: MLPerf summary: 'Samples per second' is 'lots', not a number"), InputError);
}

TEST_CASE("trtllm-bench: the report's request, world and performance blocks become inference cases") {
  const std::string file = sample("trtllm_bench_llama3-70b_tp8.txt");
  const std::string text = read_input_file(file, "report");
  const TrtllmBenchRun r = parse_trtllm_bench(text, file);
  CHECK(r.model == "meta-llama/Llama-3.1-70B");
  CHECK(r.version == "1.1.0");
  CHECK(r.requests == 1024);
  REQUIRE(r.concurrency);
  CHECK(*r.concurrency == doctest::Approx(31.8723));
  CHECK(r.input_len == 2048);
  CHECK(r.output_len == 256);
  CHECK(r.tp == 8);
  CHECK(r.pp == 1);
  CHECK(r.max_batch_size == 32);
  CHECK(r.max_num_tokens == 8192);
  CHECK(r.per_gpu_output_tokens_per_s == doctest::Approx(139.2384));
  CHECK(r.avg_request_latency_s == doctest::Approx(7.3124410));
  REQUIRE(r.avg_ttft_s);
  CHECK(*r.avg_ttft_s == doctest::Approx(1.6042217));
  // Issued over the run (4.49 requests/s against 4.35 completed): a --concurrency run, scored as a closed
  // loop of its 32 clients over its 1,024 requests, under the run's limits.
  CHECK_FALSE(r.all_at_once());
  const std::string scenario = std::string(PERFCAST_SOURCE_DIR) + "/scenarios/llama3-70b-h100-serving.toml";
  const std::string cases = trtllm_cases_toml(r, scenario, shipped_db(), "");
  for (const char* key : {"concurrency = 32", "benchmark_requests = 1024", "max_concurrency = 32", "max_batched_tokens = 8192", "engine = 'trtllm'"})
    CHECK_MESSAGE(cases.find(key) != std::string::npos, key);
  const std::vector<CaseScore> scores = score_case_text(cases, "perfcast-trtllm");
  REQUIRE(scores.size() == 3);
  CHECK(scores[0].detail.rfind("serving_output_tokens_per_s ", 0) == 0);
  CHECK(scores[0].measured == doctest::Approx(139.2384 * 8));
  CHECK(scores[1].detail.rfind("serving_e2e_mean_s ", 0) == 0);
  CHECK(scores[1].measured == doctest::Approx(7.3124410));
  CHECK(scores[2].detail.rfind("serving_ttft_mean_s ", 0) == 0);
  CHECK(scores[2].measured == doctest::Approx(1.6042217));
  for (const CaseScore& s : scores) CHECK(s.scored);

  // The same report with every request queued at once (trtllm-bench's default: an issue rate of ~1e14
  // requests/s): batch = "max" over the dataset, TTFT counted from the common start.
  std::string at_once = text;
  at_once.replace(at_once.find("4.4902E+00"), 10, "1.2876E+14");
  const TrtllmBenchRun q = parse_trtllm_bench(at_once, "at_once.txt");
  CHECK(q.all_at_once());
  const std::string max_cases = trtllm_cases_toml(q, scenario, shipped_db(), "");
  CHECK(max_cases.find("batch = 'max'") != std::string::npos);
  CHECK(max_cases.find(" concurrency = ") == std::string::npos);  // no clients: the dataset at once
  const std::vector<CaseScore> max_scores = score_case_text(max_cases, "perfcast-trtllm");
  REQUIRE(max_scores.size() == 3);
  CHECK(max_scores[0].detail.rfind("output_tokens_per_s_per_device ", 0) == 0);
  CHECK(max_scores[2].detail.rfind("ttft_s ", 0) == 0);
  // 1,024 requests queued at once, 32 running: the mean request waits for half the run before its
  // first token, far longer than a client of the closed loop waits; its first token still precedes its last.
  CHECK(max_scores[2].predicted > 10 * scores[2].predicted);
  CHECK(max_scores[2].predicted < max_scores[1].predicted);

  // Without --streaming there is no TTFT line: two cases.
  std::string plain;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t end = text.find('\n', pos);
    const std::string line = text.substr(pos, end - pos);
    if (line.find("time-to-first-token") == std::string::npos) plain += line + "\n";
    pos = end == std::string::npos ? text.size() : end + 1;
  }
  CHECK_FALSE(parse_trtllm_bench(plain, "plain.txt").avg_ttft_s);
}

TEST_CASE("trtllm-bench: the 1.0 report's labels (tokens/sec/gpu, no concurrency line) are read too") {
  // As TensorRT-LLM's performance overview prints one (perf-overview.md @ 00f37686, its example output).
  const std::string v10 =
      "Number of requests:             5000\n"
      "Average Input Length (tokens):  128.0000\n"
      "Average Output Length (tokens): 128.0000\n"
      "TP Size:                1\n"
      "Max Runtime Batch Size: 2048\n"
      "Max Runtime Tokens:     4096\n"
      "Issue Rate (req/sec):   7.6753E+14\n"
      "Request Throughput (req/sec):                     43.2089\n"
      "Per GPU Output Throughput (tokens/sec/gpu):       5530.7382\n"
      "Average request latency (ms):                     75903.4456\n";
  const TrtllmBenchRun r = parse_trtllm_bench(v10, "v10.txt");
  CHECK(r.per_gpu_output_tokens_per_s == doctest::Approx(5530.7382));
  CHECK_FALSE(r.concurrency);
  CHECK(r.all_at_once());
  // Issued over the run but no concurrency line: nothing says how many clients; refused in one line.
  std::string held = v10;
  held.replace(held.find("7.6753E+14"), 10, "4.5000E+01");
  CHECK_THROWS_WITH_AS(parse_trtllm_bench(held, "held.txt"), doctest::Contains("held.txt:7:1: trtllm-bench: the requests were issued over the run"),
                       InputError);
  std::string fractional = v10;
  fractional.replace(fractional.find("Max Runtime Batch Size: 2048"), 28, "Max Runtime Batch Size: 20.5");
  CHECK_THROWS_WITH_AS(parse_trtllm_bench(fractional, "f.txt"), doctest::Contains("f.txt:5:1: trtllm-bench: 'Max Runtime Batch Size'"),
                       InputError);
}

TEST_CASE("trtllm-bench: a missing line or a bad number is named, with the line") {
  CHECK_THROWS_WITH_AS(parse_trtllm_bench("Number of requests: 10\n", "r.txt"),
                       doctest::Contains("no 'Average Input Length (tokens)' line"), InputError);
  const std::string bad = "Number of requests: 10\nNumber of concurrent requests: lots\n";
  CHECK_THROWS_WITH_AS(parse_trtllm_bench(bad, "r.txt"), doctest::Contains("r.txt:2:1: trtllm-bench: 'Number of concurrent requests': 'lots'"),
                       InputError);
  // A fuzz finding (tests/fuzz/regressions/trtllm_bench): a TP size beyond int was cast, undefined behaviour.
  const std::string huge_tp = "Number of requests: 10\nNumber of concurrent requests: 2\nAverage Input Length (tokens): 8\n"
                              "Average Output Length (tokens): 8\nTP Size: 2876E+14\n";
  CHECK_THROWS_WITH_AS(parse_trtllm_bench(huge_tp, "r.txt"),
                       doctest::Contains("r.txt:5:1: trtllm-bench: 'TP Size': '2876E+14' is not a whole number from 1 to 1e6"), InputError);
}

TEST_CASE("vLLM benchmark_throughput JSON: told apart from serving results, lengths checked against the scenario") {
  const std::string file = sample("vllm_throughput_llama3-70b_tp8.json");
  const std::string text = read_input_file(file, "result");
  CHECK(is_vllm_throughput(text));
  CHECK_FALSE(is_vllm_throughput(read_input_file(sample("vllm_serving_llama3-70b_tp8.json"), "result")));
  const VllmThroughputRun r = parse_vllm_throughput(text, file);
  CHECK(r.requests == 1000);
  const std::string scenario = std::string(PERFCAST_SOURCE_DIR) + "/scenarios/llama3-70b-h100-serving.toml";
  const std::vector<CaseScore> scores = score_case_text(vllm_throughput_cases_toml(r, scenario, shipped_db(), ""), "perfcast-vllm-tp");
  REQUIRE(scores.size() == 1);
  // 1,000 x 256 output tokens in 241.72 s over the replica's 8 GPUs.
  CHECK(scores[0].measured == doctest::Approx(1000.0 * 256 / 241.72 / 8));
  const std::string fp8 = std::string(PERFCAST_SOURCE_DIR) + "/scenarios/llama3-8b-l4.toml";  // 1,024 + 256 tokens
  CHECK_THROWS_WITH_AS(vllm_throughput_cases_toml(r, fp8, shipped_db(), ""), doctest::Contains("set the scenario's lengths"), InputError);
  CHECK_THROWS_WITH_AS(parse_vllm_throughput("{\"elapsed_time\": 3}", "x.json"), doctest::Contains("no number 'num_requests'"), InputError);
  // Scored as vLLM's offline engine over the same 1,000 requests queued at once.
  const std::string cases = vllm_throughput_cases_toml(r, scenario, shipped_db(), "");
  CHECK(cases.find("batch = 'max'") != std::string::npos);
  CHECK(cases.find("engine = 'vllm'") != std::string::npos);
  CHECK(cases.find("benchmark_requests = 1000") != std::string::npos);
  CHECK_THROWS_WITH_AS(
      parse_vllm_throughput(R"({"elapsed_time": 3, "num_requests": 2.5, "total_num_tokens": 10, "tokens_per_second": 3})", "x.json"),
      doctest::Contains("x.json: vLLM throughput benchmark: num_requests 2.5 is not a whole number from 1 to 1e6"), InputError);
  // The run is one replica: a scenario of two tp-8 replicas is refused in one line.
  const std::filesystem::path two = std::filesystem::temp_directory_path() / ("perfcast-two-replicas-" + std::to_string(getpid()) + ".toml");
  std::string two_text = read_input_file(scenario, "scenario");
  two_text.replace(two_text.find("nodes = 1"), 9, "nodes = 2");
  std::ofstream(two) << two_text;
  CHECK_THROWS_WITH_AS(vllm_throughput_cases_toml(r, two.string(), shipped_db(), ""),
                       doctest::Contains("the run is one replica of tp x pp = 8 devices; the scenario"), InputError);
  std::filesystem::remove(two);
}
