#pragma once
// Measured runs written as validation cases that `perfcast validate --cases` scores (and that
// calibration will fit): nccl-tests rows as collective cases.
#include <optional>
#include <string>

#include <vector>

#include "engine/data/hardware_db.hpp"
#include "engine/ingest/aiperf_export.hpp"
#include "engine/ingest/measurements.hpp"
#include "engine/ingest/megatron_log.hpp"
#include "engine/ingest/mlperf_summary.hpp"
#include "engine/ingest/nccl_tests.hpp"
#include "engine/ingest/trtllm_bench.hpp"
#include "engine/ingest/vllm_bench.hpp"

namespace perfcast {

// One collective case per row of `run` on `system`: the out-of-place busbw (size / time × bus
// factor) as measured_busbw, one tolerance for every size (0.15: a run measures its sizes alike),
// the run's GPUs, hosts and device in the notes.
// `algorithm` (else the run's NCCL_ALGO, else none: NCCL's auto choice) is written into every case.
std::string collective_cases_toml(const NcclTestsRun& run, const std::string& system, const std::string& source,
                                  std::optional<models::CollectiveAlgorithm> algorithm = std::nullopt);

// The generic measurements of `file` as training or inference cases: each row's scenario file
// (loaded and checked, relative to `file`) inlined as [case.scenario], its metric checked against
// the suite's. InputError when rows mix training and inference (one case file has one suite).
std::string scenario_cases_toml(const std::vector<Measurement>& rows, const std::string& file, const HardwareDb& db);

// A Megatron-LM run as one training case on `system`: its arguments as the scenario (checked by
// the scenario loader), the median iteration time as the measured step_time_s.
std::string megatron_case_toml(const MegatronRun& run, const std::string& system, const HardwareDb& db, const std::string& source);

// A vLLM serving run as inference cases on the serving scenario `scenario_file` (model, hardware,
// layout): its [inference] batch set to the run's concurrency and its lengths to the run's mean
// input and output tokens; cases output_tokens_per_s_per_device (server throughput over the
// replica's tp x pp devices), ttft_s and, when recorded, latency_s (means). InputError for runs
// with a finite request rate (not a static batch).
// Offline vLLM throughput: one case, output tokens/s per device of the replica, on the scenario
// (its input_len/output_len must be the run's: checked against the token total).
std::string vllm_throughput_cases_toml(const VllmThroughputRun& run, const std::string& scenario_file, const HardwareDb& db,
                                       const std::string& source);
// trtllm-bench throughput: per-GPU output throughput, mean request latency, and mean TTFT when
// streamed, on the scenario with the run's mean lengths and mean concurrency as its batch.
std::string trtllm_cases_toml(const TrtllmBenchRun& run, const std::string& scenario_file, const HardwareDb& db, const std::string& source);
std::string vllm_cases_toml(const VllmServingRun& run, const std::string& scenario_file, const HardwareDb& db, const std::string& source);
// An AIPerf or GenAI-Perf run as serving cases on the scenario, with the run's mean lengths (and
// output-length spread) and its load: a closed loop of its concurrency (a finite benchmark of its
// requests when it counted them) or arrivals at its rate (Poisson, or evenly spaced for AIPerf's
// constant mode). Cases: output tokens/s per replica and, as the file has them, the means and
// medians of TTFT, inter-token latency (perfcast's TPOT) and request latency.
std::string aiperf_cases_toml(const AiperfRun& run, const std::string& scenario_file, const HardwareDb& db, const std::string& source);

// A valid MLPerf Inference Offline LLM result as one inference case on `scenario_file` (the
// system's model, devices, layout, and the batch and lengths that stand for the run):
// output_tokens_per_s_per_device = tokens per second over the scenario's devices. InputError for
// invalid results, other scenarios (Server, SingleStream: latency-bounded) and results without tokens.
std::string mlperf_case_toml(const MlperfSummary& run, const std::string& scenario_file, const HardwareDb& db, const std::string& source);

}  // namespace perfcast
