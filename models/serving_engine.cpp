#include "models/serving_engine.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace perfcast::models {

double trtllm_bench_batch(double kv_requests, int pp) {
  const double raw = std::min(kv_requests, 4096.0) / pp;
  if (raw < 256) return std::max(64.0, 32 * std::ceil(raw / 32));
  if (raw < 1024) return 128 * std::ceil(raw / 128);
  return 256 * std::ceil(raw / 256);
}

double trtllm_bench_tokens(double batch, double input_len, double output_len) {
  const double raw = std::min(batch * (1 + input_len / output_len), 32768.0);
  if (raw < 4096) return std::max(2048.0, 256 * std::ceil(raw / 256));
  if (raw < 8192) return 512 * std::ceil(raw / 512);
  return 1024 * std::ceil(raw / 1024);
}

namespace {

// SGLang's chunked_prefill_size by device memory (server_args.py @469c63e5: < 35 GB 2048, < 160 GB 8192, else 16384).
double sglang_chunk(double memory_GiB) {
  const double gb = memory_GiB * 1.073741824;
  return gb < 35 ? 2048 : gb < 160 ? 8192 : 16384;
}

}  // namespace

double sglang_mem_fraction_static(double memory_MiB, int tp_pp) {
  const double gib = memory_MiB / 1024;
  // cuda_graph_max_bs by the same tiers (server_args.py v0.5.3): 16 or 80 below 35 GiB (tp < 4 or not),
  // 32 or 160 below 60 GiB, 256 or 512 below 160 GiB, 512 above.
  const bool wide = tp_pp >= 4;
  const double graphs = gib < 35 ? (wide ? 80 : 16) : gib < 60 ? (wide ? 160 : 32) : gib < 160 ? (wide ? 512 : 256) : 512;
  double reserved = 512 + 1.5 * std::max(sglang_chunk(gib), 2048.0) + 2 * graphs + tp_pp / 8.0 * 1024;
  if (gib > 60) reserved = std::max(reserved, 10.0 * 1024);
  return std::round(1000 * (memory_MiB - reserved) / memory_MiB) / 1000;
}

EngineLimits engine_limits(ServingEngine e, EngineMode mode, const EngineDevice& d) {
  EngineLimits out;
  SchedulerLimits& l = out.limits;
  const double fit = std::max(1.0, std::floor(d.kv_sequences));
  const double pool = d.kv_tokens > 0 ? d.kv_tokens : fit * (d.input_len + d.output_len);
  const double held_at_mean = std::max(1.0, std::floor(pool / (d.input_len + d.output_len / 2)));
  switch (e) {
    case ServingEngine::vllm: {
      // vllm/engine/arg_utils.py @99d7eb5d (V1 defaults): devices of >= 70 GiB other than A100 get
      // max_num_batched_tokens 8192 behind `vllm serve` and 16384 in the LLM class, max_num_seqs
      // 1024; the others 2048 / 8192 and 256. max_num_seqs is clamped to the token budget.
      // Chunked prefill is always on in V1.
      const bool large = d.memory_GiB >= 70 && !d.a100;
      l.max_step_tokens = large ? (mode == EngineMode::server ? 8192 : 16384) : (mode == EngineMode::server ? 2048 : 8192);
      const double seqs = std::min(large ? 1024.0 : 256.0, l.max_step_tokens);
      l.max_sequences = seqs;
      l.chunked_prefill = true;
      // The V1 scheduler takes blocks as requests run and preempts the newest for want of them
      // (vllm/v1/core/sched/scheduler.py, kv_cache_manager.py allocate_slots @ v0.11.0, F-SRV-7).
      l.kv = {.admission = KvAdmission::on_demand, .tokens = pool, .block_tokens = d.kv_block_tokens};
      out.concurrency = std::min(seqs, held_at_mean);
      // Async scheduling is opt-in (--async-scheduling) at the pinned defaults; vLLM PR #27614 later turns it on.
      l.overlap_scheduling = false;
      out.rule = fmt::format("vLLM V1 {} defaults on a {} device (vllm/engine/arg_utils.py @99d7eb5d): max_num_batched_tokens {:g}, "
                             "max_num_seqs {:g}, chunked prefill, synchronous scheduling (--async-scheduling off); KV blocks of {:g} tokens "
                             "taken as requests run, the newest preempted and recomputed when {:.4g} tokens run out",
                             mode == EngineMode::server ? "server" : "LLM-class", large ? ">= 70 GiB" : "smaller or A100",
                             l.max_step_tokens, seqs, d.kv_block_tokens, pool);
      break;
    }
    case ServingEngine::sglang: {
      // python/sglang/srt/server_args.py @469c63e5: chunked_prefill_size by device memory (< 35 GB:
      // 2048, < 160 GB: 8192, else 16384); the running requests are what the KV token pool holds.
      // enable_mixed_chunk defaults to False (in every ServerArgs read, v0.3-era to @469c63e5), and the
      // scheduler's get_next_batch_to_run runs a new prefill batch first, the running batch's decode
      // step only when no prefill batch forms (python/sglang/srt/managers/scheduler.py).
      const double gb = d.memory_GiB * 1.073741824;
      l.max_step_tokens = sglang_chunk(d.memory_GiB);
      // max_running_requests unset: min(max_total_num_tokens // 2, the request pool), the pool
      // min(max(pool tokens / context_len × 512, 2048), 4096) (managers/tp_worker.py,
      // model_executor/model_runner.py init_memory_pool, v0.4.3 to v0.5.6); admission by the
      // reserved estimate, page_size 1 (F-SRV-7).
      const double request_pool = d.max_context > 0 ? std::min(std::max(std::floor(pool / d.max_context * 512), 2048.0), 4096.0) : 2048;
      l.max_sequences = std::max(1.0, std::min(std::floor(pool / 2), request_pool));
      l.kv = {.admission = KvAdmission::reserved_estimate, .tokens = pool, .block_tokens = 1};
      out.concurrency = std::min(l.max_sequences, held_at_mean);
      l.chunked_prefill = true;
      l.mixed_prefill = false;
      // disable_overlap_schedule defaults to False since v0.4, the "zero-overhead batch scheduler"
      // (lmsys.org/blog/2024-12-04-sglang-v0-4): the next batch is scheduled while the GPU runs this one.
      l.overlap_scheduling = true;
      out.rule = fmt::format("SGLang defaults (python/sglang/srt/server_args.py @469c63e5): chunked_prefill_size {:g} for {:.0f} GB; "
                             "prompt and decode steps apart, prompts first (enable_mixed_chunk off); running requests limited by the KV pool; "
                             "overlap scheduling (v0.4 on; disable_overlap_schedule off); at most {:g} running requests; admission while "
                             "the {:.4g}-token pool holds each prompt and output beside 0.7 to 0.098 of the running outputs left, "
                             "retraction when it runs out",
                             l.max_step_tokens, gb, l.max_sequences, pool);
      break;
    }
    case ServingEngine::trtllm: {
      // trtllm-bench sizes max_batch_size and max_num_tokens from the KV cache and the dataset's
      // lengths (tensorrt_llm/bench/build/tuning.py @04cba882); the capacity scheduler
      // (GUARANTEED_NO_EVICT) admits only what the KV cache holds.
      const double batch = trtllm_bench_batch(fit, d.pp);
      const double tuned = trtllm_bench_tokens(std::min(fit, 4096.0) / d.pp, d.input_len, d.output_len);
      l.max_sequences = std::min(batch, fit);
      out.max_batch_size = batch;
      out.concurrency = l.max_sequences;
      // trtllm-bench throughput (offline) runs without chunked prefill unless --enable_chunked_context (or
      // the LLM API options) ask for it, and then raises max_num_tokens to the longest prompt plus
      // max_batch_size so every prompt fits a step whole (bench/benchmark/utils/general.py, get_settings,
      // @0171265e; bench/benchmark/throughput.py, default False).
      l.chunked_prefill = mode != EngineMode::offline;
      // The PyTorch backend (the default from 1.0) launches step n+1 before it checks step n's stop
      // criteria; "one extra decoding step" (docs/source/features/overlap-scheduler.md, on by default,
      // disable_overlap_scheduler). The TensorRT-engine backend's executor does not overlap.
      l.overlap_scheduling = true;
      l.max_step_tokens = l.chunked_prefill ? tuned : std::max(tuned, d.input_len + batch);
      out.rule = fmt::format("TensorRT-LLM, max_batch_size {:g} and max_num_tokens {:g} as trtllm-bench{} derives them "
                             "(tensorrt_llm/bench/build/tuning.py @04cba882{}",
                             batch, l.max_step_tokens, l.chunked_prefill ? "" : " throughput",
                             l.chunked_prefill ? "); prompts longer than the token budget chunked"
                                               : "; without chunked prefill, its default, max_num_tokens is at least the prompt + "
                                                 "max_batch_size, bench/benchmark/utils/general.py @0171265e): each prompt runs "
                                                 "whole in one step");
      out.rule += "; PyTorch backend's overlap scheduler (on by default)";
      break;
    }
  }
  if (l.kv.admission == KvAdmission::whole_request)
    out.rule += fmt::format("; at most {:g} requests of {:g} + {:g} tokens hold their KV cache at once (GUARANTEED_NO_EVICT)", l.max_sequences,
                            d.input_len, d.output_len);
  return out;
}

}  // namespace perfcast::models
