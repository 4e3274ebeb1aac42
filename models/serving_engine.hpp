#pragma once
// Serving engines (DESIGN.md "Software stacks and engines"): the scheduler limits each engine (F-SRV-1)
// defaults to, by device and by how it is run, each with its source
// (../shared/reference/serving-engines.md quotes them). The scheduler itself is
// models/scheduler_simulation; kernel efficiencies fitted to an engine's results are calibration.
#include <array>
#include <string>
#include <string_view>

#include "models/scheduler_simulation.hpp"

namespace perfcast::models {

enum class ServingEngine { vllm, sglang, trtllm };
inline constexpr std::array<std::string_view, 3> kServingEngineKeys{"vllm", "sglang", "trtllm"};  // in enum order

// How the engine is run: behind its OpenAI-compatible server (`vllm serve`, `python -m
// sglang.launch_server`, `trtllm-serve`), or by its offline throughput benchmark (`vllm bench
// throughput` through the LLM class, `trtllm-bench throughput`), whose defaults differ.
enum class EngineMode { server, offline };

struct EngineDevice {
  double memory_GiB = 80;       // one device's memory
  bool a100 = false;            // vLLM keeps its small-device defaults on A100 (PR #17885)
  double kv_sequences = 1;      // requests of input_len + output_len whose KV cache fits (the memory model)
  double kv_tokens = 0;         // the tokens the cache holds (the same memory; 0: kv_sequences whole requests' worth)
  double kv_block_tokens = 16;  // the paged cache's block ([inference] kv_block, vLLM's 16)
  double max_context = 0;       // the model's longest context (SGLang sizes its request pool by it; 0: not stated)
  double input_len = 1, output_len = 1;
  int pp = 1;
};

struct EngineLimits {
  SchedulerLimits limits;       // max_sequences capped by the KV cache where the engine reserves whole requests
  double max_batch_size = 0;    // the engine's own batch limit before the KV cache caps it (TensorRT-LLM's
                                // max_batch_size: no CUDA graph is captured above it); 0 where not modelled
  std::string rule;             // "vLLM V1 server defaults on a >= 70 GiB device: max_num_seqs 1024, ..."
  // Requests of input_len + output_len running at once at most: max_sequences, and for a cache
  // taken on demand the requests it holds at their mean length input_len + output_len/2.
  double concurrency = 0;
};

EngineLimits engine_limits(ServingEngine e, EngineMode mode, const EngineDevice& d);

// SGLang's default --mem-fraction-static for a device of `memory_MiB` (nvidia-smi's total) and `tp_pp`
// = tp × pp ranks (server_args.py _handle_gpu_memory_settings, v0.5.3 to v0.5.6): (M − r)/M rounded to
// 0.001, r = 512 + 1.5 · max(chunked_prefill_size, 2048) + 2 · cuda_graph_max_bs + tp·pp/8 · 1024 MiB, at
// least 10,240 MiB above 60 GiB. Speculative decoding and DP attention, which reserve more, are not modelled.
double sglang_mem_fraction_static(double memory_MiB, int tp_pp);

// TensorRT-LLM's trtllm-bench: the max batch size and max number of tokens it builds with for a
// dataset (tensorrt_llm/bench/build/tuning.py): the KV-cache requests, capped at 4096 and divided
// by pp, and that batch × (1 + ISL/OSL) tokens capped at 32768, each rounded up.
double trtllm_bench_batch(double kv_requests, int pp);
double trtllm_bench_tokens(double batch, double input_len, double output_len);

}  // namespace perfcast::models
