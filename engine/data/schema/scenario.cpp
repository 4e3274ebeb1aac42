#include "engine/data/schema/scenario.hpp"

#include <array>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/core/toml_section.hpp"
#include "models/memory.hpp"
#include "models/pipeline.hpp"
#include "models/serving_engine.hpp"
#include "models/training_stack.hpp"
#include "models/transformer_ops.hpp"

namespace perfcast::schema {
namespace {

constexpr double kMaxCount = 10'000'000;  // devices, tokens per sequence, nodes: far above any real run
constexpr double kMaxDim = 10'000'000;    // model widths and counts
constexpr double kMaxContext = 1e9;       // tokens of context (MiniMax-M1's config states 10,240,000)

constexpr std::array<std::string_view, 6> kTrainingPrecisions{"fp32", "tf32", "bf16", "fp16", "fp8", "fp4"};
constexpr std::array<std::string_view, 2> kGradReduceDtypes{"fp32", "bf16"};
constexpr std::array<std::string_view, 8> kServingDtypes{"fp32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8", "int4"};
// Weights' storage formats: the math formats, and the two block scalings of 4-bit floats by name.
constexpr std::array<std::string_view, 10> kWeightDtypes{"fp32", "bf16", "fp16", "fp8", "fp6", "fp4", "nvfp4", "mxfp4", "int8", "int4"};
constexpr std::array<std::string_view, 2> kEngines{"gpu", "dla"};

constexpr ScenarioKey integer(std::string_view key, std::string_view unit, std::string_view default_text, double min, double max,
                              std::string_view help) {
  return {.key = key, .type = KeyType::integer, .unit = unit, .default_text = default_text, .min = min, .max = max, .help = help};
}
constexpr ScenarioKey integer_list(std::string_view key, std::string_view unit, std::string_view default_text, double min, double max,
                                   std::string_view help) {
  return {.key = key, .type = KeyType::integer_list, .unit = unit, .default_text = default_text, .min = min, .max = max, .help = help};
}
// A number above `min` (or at it when `min_inclusive`) and at most `max`.
constexpr ScenarioKey number(std::string_view key, std::string_view unit, std::string_view default_text, double min, bool min_inclusive,
                             double max, std::string_view help) {
  return {.key = key, .type = KeyType::number, .unit = unit, .default_text = default_text, .min = min, .min_inclusive = min_inclusive,
          .max = max, .help = help};
}
constexpr ScenarioKey flag(std::string_view key, std::string_view default_text, std::string_view help) {
  return {.key = key, .type = KeyType::flag, .default_text = default_text, .help = help};
}
constexpr ScenarioKey text(std::string_view key, std::string_view default_text, std::string_view help) {
  return {.key = key, .type = KeyType::text, .default_text = default_text, .help = help};
}
constexpr ScenarioKey choice(std::string_view key, std::span<const std::string_view> choices, std::string_view default_text,
                             std::string_view help) {
  return {.key = key, .type = KeyType::choice, .default_text = default_text, .choices = choices, .help = help};
}
constexpr ScenarioKey name(std::string_view key, std::string_view refers_to, std::string_view default_text, std::string_view help) {
  return {.key = key, .type = KeyType::name, .default_text = default_text, .refers_to = refers_to, .help = help};
}

constexpr ScenarioKey kTop[] = {
    integer("schema_version", "", "1", 1, 1, "The file format's version"),
    text("name", "the file's stem", "What outputs call the scenario"),
};

constexpr ScenarioKey kModel[] = {
    name("preset", "workloads/ preset", "none (the architecture is given here)",
         "A workload preset; the keys below override its values"),
    text("hf_config", "none", "A Hugging Face config.json: a path from this file's folder, or (Python dict, web request) its content as a table; the keys below override what it gives"),
    text("display_name", "the preset's or config's name; '<that> modified' when the keys below change its parameters",
         "What outputs call the model"),
    integer("layers", "", "required without a preset", 1, kMaxDim, "Transformer layers"),
    integer("hidden", "", "required without a preset", 1, kMaxDim, "Model width d"),
    integer("heads", "", "required without a preset", 1, kMaxDim, "Attention (query) heads"),
    integer("kv_heads", "", "heads (multi-head attention)", 1, kMaxDim, "Key/value heads; fewer than heads is grouped-query attention"),
    integer("head_dim", "", "hidden / heads", 1, kMaxDim, "Width of one head"),
    integer("ffn_hidden", "", "required without a preset", 1, kMaxDim, "MLP inner width"),
    integer("vocab", "tokens", "required without a preset", 1, kMaxDim, "Vocabulary size"),
    integer("max_positions", "tokens", "0 (no limit)", 0, kMaxDim, "Position embeddings the model was built with"),
    integer("max_context", "tokens", "0 (max_positions)", 0, kMaxContext, "Longest context the model serves (input + output)"),
    choice("mlp", models::kMlpKeys, "swiglu", "MLP kind: gelu (two GEMMs) or swiglu (three)"),
    choice("norm", models::kNormKeys, "rmsnorm", "Normalisation layer"),
    flag("tied_embeddings", "false", "Input embedding and output projection share one matrix"),
    flag("linear_bias", "false", "The linear layers carry biases"),
    flag("qkv_bias", "false", "Only the query, key and value projections carry biases (Qwen2)"),
    flag("qk_norm", "false", "An RMSNorm over each query and key head (Qwen3, Gemma 3)"),
    flag("qk_norm_across_heads", "false", "The q/k RMSNorm spans all heads at once, a gain per element (MiniMax-M2)"),
    flag("attention_output_gate", "false", "A sigmoid gate on the attention output, projected with the queries (Qwen3-Next)"),
    integer("norms_per_layer", "", "2", 2, 4, "2 (before attention and MLP) or 4 (after them too, Gemma 2/3)"),
    flag("attention_sinks", "false", "A learned sink logit per head in the softmax (GPT-OSS)"),
    integer("sliding_window", "tokens", "0 (none)", 0, kMaxDim, "Keys a sliding-window layer attends to; its KV cache keeps no more"),
    integer("sliding_layers", "", "all layers when sliding_window is set", 0, kMaxDim,
            "Layers that use the sliding window; the others attend to the whole context"),
    integer("mtp_layers", "", "0", 0, 16, "Multi-token-prediction modules trained beside the model (DeepSeek-V3)"),
    number("dropout", "", "0", 0, true, 1, "Dropout probability (below 1); training only"),
};

constexpr ScenarioKey kMoe[] = {
    integer("experts", "", "required", 1, kMaxDim, "Routed experts per MoE layer"),
    integer("top_k", "", "required", 1, kMaxDim, "Experts each token is routed to"),
    integer("expert_ffn_hidden", "", "required", 1, kMaxDim, "MLP inner width of one expert"),
    integer("shared_experts", "", "0", 0, kMaxDim, "Experts every token passes through"),
    integer("shared_ffn_hidden", "", "expert_ffn_hidden", 1, kMaxDim, "MLP inner width of one shared expert"),
    integer("dense_layers", "", "0", 0, kMaxDim, "Leading layers with a dense MLP instead of experts"),
    flag("router_bias", "false", "The router carries a bias"),
    flag("shared_expert_gate", "false", "A sigmoid gate (hidden to 1) scales the shared experts' output (Qwen MoE)"),
    number("load_imbalance", "", "1 (balanced)", 1, true, 1000,
           "Tokens of the busiest expert over the mean; the routed-expert GEMMs wait for it"),
};

constexpr ScenarioKey kMla[] = {
    integer("q_lora_rank", "", "0 (queries not compressed)", 0, kMaxDim, "Rank of the compressed query projection"),
    integer("kv_lora_rank", "", "required", 1, kMaxDim, "Rank of the compressed key/value latent (what the KV cache holds)"),
    integer("qk_nope_head_dim", "", "required", 1, kMaxDim, "Per-head query/key width without rotary embedding"),
    integer("qk_rope_head_dim", "", "required", 1, kMaxDim, "Per-head query/key width with rotary embedding"),
    integer("v_head_dim", "", "required", 1, kMaxDim, "Per-head value width"),
};

constexpr ScenarioKey kLinearAttention[] = {
    choice("kind", models::kLinearAttentionKeys, "gated-deltanet",
           "gated-deltanet (Qwen3-Next, Qwen3.5) or lightning (MiniMax-01)"),
    integer("layers", "", "required", 1, kMaxDim, "Layers with linear attention; the others attend with softmax"),
    integer("key_heads", "", "required", 1, kMaxDim, "Query/key heads"),
    integer("value_heads", "", "key_heads", 1, kMaxDim, "Value heads, one recurrent state each"),
    integer("key_head_dim", "", "required", 1, kMaxDim, "Width of a query/key head"),
    integer("value_head_dim", "", "key_head_dim", 1, kMaxDim, "Width of a value head"),
    integer("conv_kernel", "", "0 (none)", 0, 64, "Causal short convolution over q, k and v (Gated DeltaNet: 4)"),
};

constexpr ScenarioKey kSparseAttention[] = {
    integer("index_heads", "", "required", 1, kMaxDim, "Heads of the lightning indexer that scores every earlier key"),
    integer("index_head_dim", "", "required", 1, kMaxDim, "Width of an indexer head (and of its cached key)"),
    integer("top_k", "", "required", 1, kMaxContext, "Keys the attention core reads per query"),
};

constexpr ScenarioKey kAttention[] = {
    choice("mask", models::kAttentionMaskKeys, "causal", "Attention mask: causal (half the scores) or full"),
    choice("kernel", models::kAttentionKernelKeys, "flash",
           "Attention kernel: flash (fused, no s×s scores in memory) or materialised"),
    choice("decode_kv", models::kDecodeKvReadsKeys, "shared",
           "How decode attention reads the KV cache under GQA/MQA: once per KV head (XQA, FlashAttention, FlashInfer) or "
           "once per query head (TensorRT-LLM's masked multi-head attention kernel, its generation kernel before XQA in "
           "v0.8; F-ATT-3)"),
};

constexpr ScenarioKey kHardware[] = {
    name("system", "hardware_db system", "none", "A whole node (devices, scale-up and scale-out links); give this or accelerator"),
    name("accelerator", "hardware_db accelerator", "none", "One device kind; give this or system"),
    integer("nodes", "nodes", "1", 1, kMaxCount, "Nodes of the system (with system)"),
    integer("count", "devices", "1", 1, kMaxCount, "Devices in all (with accelerator)"),
    integer("gpus_per_node", "devices", "count, at most 8", 1, 100'000, "Devices per node (with accelerator)"),
    text("power_mode", "the device's default", "A power mode of the accelerator (edge devices: \"10W\", \"MAXN\")"),
    number("power_limit", "W", "the board's default limit, else its TDP", 0, false, 1e4,
           "Board power limit (nvidia-smi -pl) below TDP: tensor-bound work runs at a lower sustained clock (F-EN-4)"),
    choice("engine", kEngines, "gpu", "dla: one NVDLA core of a Jetson runs the model instead of the GPU"),
    name("scale_up", "hardware_db interconnect", "the system's", "The link inside a node"),
    name("scale_out", "hardware_db interconnect", "the system's", "The link between nodes"),
};

constexpr ScenarioKey kTraining[] = {
    integer("seq_len", "tokens", "required", 1, kMaxCount, "Tokens per sequence"),
    integer("global_batch", "sequences", "required", 1, 1e9, "Sequences per optimizer step, all replicas"),
    integer("micro_batch", "sequences", "1", 1, 1e6, "Sequences per micro-batch; divides global_batch"),
    choice("precision", kTrainingPrecisions, "bf16", "GEMM math precision (fp4: NVFP4 training, Blackwell)"),
    choice("recompute", models::kRecomputeKeys, "none", "Activation recomputation (Korthikanti et al. 2022)"),
    number("tokens", "tokens", "none (no time-to-train)", 1, true, 1e18,
           "Tokens to train on: time-to-train, goodput, cost (at least one step's, global_batch × seq_len)"),
    name("optimizer", "optimizer recipe", "the stack's for the precision (megatron-lm: megatron-bf16, megatron-fp16, fp8-te)",
         "Bytes per parameter of weights, gradients and optimizer states (MODELS-REFERENCE §17.2)"),
    choice("offload", models::kOffloadKeys, "none", "ZeRO-Offload of optimizer states (and parameters) to host memory"),
    number("data_loading_s", "s", "0", 0, true, 1e9, "Data loading per step and replica, prefetched behind compute (F-DATA-1)"),
    choice("stack", models::kTrainingStackKeys, "megatron-lm",
           "The training software: which layouts run, which overlaps, bytes per parameter (perfcast stacks)"),
    choice("tp_overlap", models::kTpOverlapKeys, "the stack's",
           "TP collectives: exposed, backward (async under the backward GEMMs), pipelined (forward too; needs SP)"),
    choice("fp8_recipe", models::kFp8ScalingKeys, "the stack's",
           "FP8 scaling: delayed (amax history), current (per-tensor 'tensorwise': an amax pass before each cast) or mxfp8 "
           "(32-value block scales, Blackwell)"),
    flag("compile", "false",
         "torch.compile fuses the elementwise ops of each transformer block (torchtitan stacks; else eager kernels, F-EAGER-1)"),
    flag("fp8_param_gather", "false",
         "precision = \"fp8\": the sharded optimizer's parameter all-gather moves FP8 weights, 1 B per parameter "
         "(Megatron --fp8-param-gather, NeMo fp8_params); memory accounting unchanged"),
    choice("grad_reduce_dtype", kGradReduceDtypes, "the optimizer recipe's gradients (Megatron: fp32 main grads)",
           "Data-parallel gradient reduction dtype (Megatron --grad-reduce-in-bf16, NeMo grad_sync_dtype)"),
};

constexpr ScenarioKey kInference[] = {
    integer("input_len", "tokens", "1", 1, kMaxCount, "Prompt tokens per request"),
    integer("output_len", "tokens", "0", 0, kMaxCount, "Generated tokens per request"),
    integer("batch", "sequences", "the largest that fits", 1, 1e6,
            "Sequences in one static batch; or \"max\": the engine's steady state on an endless request queue (F-SRV-2)"),
    choice("engine", models::kServingEngineKeys, "vllm",
           "Serving engine whose scheduler defaults (token budget, running requests) apply to batch = \"max\" and capacity "
           "--concurrency"),
    choice("weight_dtype", kWeightDtypes, "compute_dtype",
           "Weight storage format; fp4 is nvfp4 (an E4M3 scale per 16 values, 0.5625 B), mxfp4 an E8M0 scale per 32 (0.53125 B)"),
    choice("expert_weight_dtype", kWeightDtypes, "weight_dtype",
           "The routed experts' storage format, where a checkpoint quantises only them (gpt-oss: mxfp4 experts, BF16 attention)"),
    choice("kv_dtype", kServingDtypes, "bf16 (int8 on integer-only devices)", "KV cache element format"),
    choice("compute_dtype", kServingDtypes, "bf16 (the device's own on edge parts)", "Math precision"),
    number("target_fps", "frames/s", "none", 0.01, true, 1e6, "Edge: the frame rate the model must sustain (at least one frame per 100 s)"),
    number("memory_utilization", "", "0.9 (vLLM --gpu-memory-utilization; TensorRT-LLM free_gpu_memory_fraction); SGLang: its mem_fraction_static default for the device and tp x pp", 0, false, 1,
           "Share of device memory the server may use, weights included; with engine = \"trtllm\", the KV cache's share of the "
           "memory the weights and buffers leave"),
    integer("kv_block", "tokens", "16 (vLLM block size)", 1, 1e6, "Paged KV cache block"),
    number("speculative_alpha", "", "none", 0, true, 1, "Speculative decoding: draft token acceptance rate, below 1"),
    integer("draft_length", "tokens", "none", 1, 64, "Speculative decoding: tokens drafted per step"),
    number("draft_cost_ratio", "", "none", 0, true, 1, "Speculative decoding: a draft step's cost over a target step's"),
};

constexpr ScenarioKey kParallelism[] = {
    integer("tp", "devices", "1", 1, 1e6, "Tensor parallel"),
    integer("pp", "stages", "1", 1, 1e6, "Pipeline parallel"),
    integer("vp", "chunks", "1", 1, 1e6, "Virtual pipeline chunks per rank (interleaved 1F1B)"),
    integer("cp", "devices", "1", 1, 1e6, "Context parallel"),
    integer("ep", "devices", "1", 1, 1e6, "Expert parallel"),
    integer("dp", "replicas", "devices / (tp·cp·pp)", 1, kMaxCount, "Data parallel; when given, must equal the rest"),
    integer("first_stage_layers", "layers", "an even split", 1, 1e6, "Layers on the first pipeline stage"),
    integer("last_stage_layers", "layers", "an even split", 1, 1e6, "Layers on the last pipeline stage"),
    flag("sequence_parallel", "false", "Megatron sequence parallelism with tp"),
    integer("zero", "", "0", 0, 3, "ZeRO stage (0 to 3) of the data-parallel group"),
    choice("schedule", models::kScheduleKeys, "1f1b", "Pipeline schedule"),
};

constexpr ScenarioKey kReliability[] = {
    number("gpu_mtbf_h", "h", "Llama 3's interruption rate", 0, false, 1e9, "Mean time between failures of one device"),
    number("checkpoint_write_s", "s", "checkpoint bytes at 427 MB/s per device (Llama 3 storage)", 0, true, 1e9, "Blocking write of one checkpoint"),
    number("restart_s", "s", "600 (MODELS-REFERENCE E7)", 0, true, 1e9, "Detection, rescheduling, reload and warm-up after a failure"),
};

constexpr ScenarioKey kServing[] = {
    number("arrival_rate", "requests/s", "none", 0, false, 1e9, "Offered load over all replicas"),
    number("ttft_slo_s", "s", "none", 0, false, 1e6, "Time-to-first-token objective"),
    number("tpot_slo_s", "s", "none", 0, false, 1e6, "Time-per-output-token objective"),
    number("slo_percentile", "%", "99", 0, false, 99.999, "The percentile the objectives bound"),
    integer("max_concurrency", "sequences", "the engine's (TensorRT-LLM: capped by the whole requests the KV cache holds)", 1, 1e7,
            "Sequences per replica (vLLM max_num_seqs, TensorRT-LLM max_batch_size)"),
    integer("max_batched_tokens", "tokens", "the engine's", 1, 1e7,
            "Tokens per engine step, decodes and prompt chunks together (vLLM max_num_batched_tokens, TensorRT-LLM max_num_tokens)"),
    flag("chunked_prefill", "the engine's (true)", "Split prompts longer than a step's remaining token budget over several steps"),
    flag("mixed_prefill", "the engine's (vLLM, TensorRT-LLM: true; SGLang: false)",
         "Prompt tokens share a step with the running decodes; false: a step runs prompts or decodes, prompts first (SGLang "
         "--enable-mixed-chunk sets it)"),
    flag("cuda_graph_padding", "the engine's (TensorRT-LLM: false, CudaGraphConfig.enable_padding)",
         "TensorRT-LLM only: a step of decodes alone runs the CUDA graph captured for the smallest of cuda_graph_batch_sizes at or "
         "above its requests, dummy requests filling the rest, which pay every token's work but no attention (cuda_graph_config "
         "enable_padding: true, as NVIDIA's published throughput runs set it); steps with prompt tokens, and batches above the "
         "largest size captured, run unpadded. vLLM's and SGLang's own padding is not modelled"),
    integer_list("cuda_graph_batch_sizes", "requests", "TensorRT-LLM's with padding: 1, 2, 4, 8, 16, ..., 128 (CudaGraphConfig defaults)",
                 1, 1e6, "The batch sizes CUDA graphs are captured for (cuda_graph_config batch_sizes); those above the engine's "
                 "max_batch_size are not captured. Needs cuda_graph_padding = true"),
    flag("overlap_scheduling", "the engine's (TensorRT-LLM, SGLang: true; vLLM: false)",
         "The CPU schedules the next step while the GPU runs this one: a request joins the second step after it arrives, and a "
         "finished one decodes once more (false: TensorRT-LLM's TensorRT-engine backend or disable_overlap_scheduler, SGLang before "
         "0.4 or --disable-overlap-schedule; true: vLLM --async-scheduling)"),
    integer("scheduler_steps", "steps", "1 (every step scheduled on its own)", 1, 1024,
            "vLLM V0 only (from 0.6.0, --num-scheduler-steps): multi-step scheduling, a step of decodes alone begins a round of this "
            "many decode steps scheduled once, none admitted and none released before it ends, the round's tokens streamed at its "
            "end; prompt steps stay single. Needs chunked_prefill = false and mixed_prefill = false, as v0.6.0 ran it (F-SRV-5)"),
    integer("concurrency", "requests", "none", 1, 1e6,
            "Closed loop of this many clients per replica, each sending its next request when its last finishes (instead of "
            "arrival_rate): predict adds the engine's steady state"),
    number("prefix_cache_hit_rate", "", "0", 0, true, 1,
           "Share of each prompt's tokens found in the engine's prefix cache: not computed again, still attended to"),
    number("arrival_cv2", "", "1 (Poisson)", 0, true, 1e3, "Squared coefficient of variation of inter-arrival times"),
    number("length_cv2", "", "0 (the scenario's fixed lengths)", 0, true, 1e3, "Squared coefficient of variation of service times"),
    number("length_min_fraction", "", "1 (the scenario's fixed lengths)", 0, false, 1,
           "Prompt and output lengths drawn uniformly from [f x length, length], as vLLM's benchmark_serving.py random "
           "dataset does at --random-range-ratio f (the scenario's lengths are the longest)"),
    integer("benchmark_requests", "requests", "none (the steady state)", 1, 1e6,
            "A finite benchmark of this many requests from an idle engine, every request counted, throughput over the time to "
            "the last completion: with concurrency, C sent at a time (vllm bench serve --num-prompts); with batch = \"max\", "
            "all queued at once (trtllm-bench throughput, vllm bench throughput over a dataset)"),
};

constexpr ScenarioKey kCost[] = {
    name("offer", "hardware_db offer", "none", "A cloud offer; give this or purchase = true"),
    flag("purchase", "false", "Own the hardware (TCO); needs a [region]"),
    flag("spot", "false", "Spot capacity of the offer (needs spot_preemptions_per_day)"),
    number("reserved_discount", "", "0", 0, true, 0.99, "Fraction off the on-demand price"),
    number("spot_preemptions_per_day", "1/day", "none", 0, true, 1e4, "Interruptions of the job per day on spot capacity"),
    number("capex_usd", "USD", "the database price of the systems", 0, false, 1e13, "Purchase price of the whole cluster"),
    number("network_usd_per_node", "USD", "not included", 0, true, 1e9, "Scale-out network CapEx per node"),
    number("storage_usd", "USD", "0", 0, true, 1e12, "Storage CapEx"),
    number("lifetime_years", "years", "5", 0, false, 50, "Depreciation life"),
    number("discount_rate", "", "0 (straight line)", 0, true, 1, "Annual discount rate of the capital"),
    number("maintenance_fraction", "", "0", 0, true, 1, "Yearly maintenance as a fraction of CapEx"),
    number("utilisation", "", "0.7", 0, false, 1, "Share of the cluster's life it is allocated"),
    number("facility_usd_per_kw_month", "USD/kW/month", "0", 0, true, 1e5, "Colocation or facility cost per kW of IT load"),
    number("staff_usd_per_year", "USD/year", "0", 0, true, 1e10, "Operations staff"),
    number("usd_per_kwh", "USD/kWh", "the region's price", 0, false, 10, "Electricity price"),
};

constexpr ScenarioKey kRegion[] = {
    name("name", "hardware_db region", "required", "Grid carbon intensity, PUE and electricity price"),
    number("pue", "", "the region's", 1, true, 3, "The facility's own power usage effectiveness"),
    number("market_g_per_kwh", "gCO2e/kWh", "none", 0, true, 2000, "Market-based factor (contracts, PPAs), reported beside location-based"),
};

constexpr ScenarioTable kTables[] = {
    {"", "The top level", kTop},
    {"model", "Required: a preset, an architecture, or a preset with overrides", kModel},
    {"model.moe", "Mixture of experts (optional)", kMoe},
    {"model.mla", "Multi-head latent attention (optional)", kMla},
    {"model.linear_attention", "Linear-attention layers: a recurrent state instead of a KV cache (optional)", kLinearAttention},
    {"model.sparse_attention", "DeepSeek Sparse Attention over MLA: an indexer picks top_k keys per query (optional)", kSparseAttention},
    {"attention", "How attention runs (optional)", kAttention},
    {"hardware", "Required: what runs it", kHardware},
    {"training", "A training run; a scenario has [training] or [inference]", kTraining},
    {"inference", "A serving run; a scenario has [training] or [inference]", kInference},
    {"parallelism", "The layout (optional; without it every device is a data-parallel replica)", kParallelism},
    {"reliability", "Failures and checkpoints (training, optional)", kReliability},
    {"serving", "Load and objectives (inference, optional)", kServing},
    {"cost", "Payment: a cloud offer or a purchase (optional)", kCost},
    {"region", "Where it runs: grid carbon, PUE, electricity price (optional)", kRegion},
};

std::string_view type_name(KeyType t) {
  switch (t) {
    case KeyType::integer: return "integer";
    case KeyType::number: return "number";
    case KeyType::flag: return "true/false";
    case KeyType::text: return "text";
    case KeyType::choice: return "choice";
    case KeyType::name: return "name";
    case KeyType::integer_list: return "list of integers";
  }
  return "";
}

std::string bound_text(double v) { return std::abs(v) >= 1e6 ? fmt::format("{:g}", v) : fmt::format("{}", v); }

std::string range_text(const ScenarioKey& k) {
  if (k.type == KeyType::integer_list) return fmt::format("each {} to {}", bound_text(k.min), bound_text(k.max));
  if (k.type == KeyType::integer) return k.min == k.max ? bound_text(k.min) : fmt::format("{} to {}", bound_text(k.min), bound_text(k.max));
  if (k.type == KeyType::number) return fmt::format("{} {}, ≤ {}", k.min_inclusive ? "≥" : ">", bound_text(k.min), bound_text(k.max));
  if (k.type == KeyType::choice) {
    std::string out;
    for (std::string_view c : k.choices) out += (out.empty() ? "" : ", ") + std::string(c);
    return out;
  }
  if (k.type == KeyType::name) return std::string(k.refers_to);
  return "";
}

}  // namespace

std::span<const ScenarioTable> scenario_tables() { return kTables; }

const ScenarioKey& scenario_key(std::string_view table, std::string_view key) {
  for (const ScenarioTable& t : kTables)
    if (t.name == table)
      for (const ScenarioKey& k : t.keys)
        if (k.key == key) return k;
  throw std::logic_error(fmt::format("scenario schema declares no key '{}' in [{}]", key, table));
}

std::string scenario_schema_markdown() {
  std::string out =
      "# Scenario file format\n\n"
      "Written by `perfcast schema scenario --format markdown` from the table the scenario reader uses; "
      "a test keeps this file equal to it. A scenario is TOML; a key not listed here is an error naming the file, "
      "line and key. Ranges are inclusive unless marked `>`.\n";
  for (const ScenarioTable& t : kTables) {
    out += fmt::format("\n## {}\n\n{}.\n\n| key | type | unit | default | range or choices | meaning |\n|---|---|---|---|---|---|\n",
                       t.name.empty() ? "top level" : fmt::format("[{}]", t.name), t.help);
    for (const ScenarioKey& k : t.keys)
      out += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", k.key, type_name(k.type), k.unit, k.default_text, range_text(k), k.help);
  }
  return out;
}

nlohmann::json scenario_schema_document() {
  nlohmann::json tables = nlohmann::json::array();
  for (const ScenarioTable& t : kTables) {
    nlohmann::json keys = nlohmann::json::array();
    for (const ScenarioKey& k : t.keys) {
      nlohmann::json j{{"key", k.key}, {"type", type_name(k.type)}, {"unit", k.unit}, {"default", k.default_text}, {"help", k.help}};
      if (k.type == KeyType::integer || k.type == KeyType::number || k.type == KeyType::integer_list)
        j.update({{"min", k.min}, {"min_inclusive", k.min_inclusive}, {"max", k.max}});
      if (k.type == KeyType::choice) j["choices"] = std::vector<std::string>(k.choices.begin(), k.choices.end());
      if (k.type == KeyType::name) j["refers_to"] = k.refers_to;
      keys.push_back(j);
    }
    tables.push_back({{"table", t.name}, {"help", t.help}, {"keys", keys}});
  }
  return nlohmann::json{{"scenario", tables}};
}

std::string scenario_schema_json() { return scenario_schema_document().dump(2); }

const ScenarioKey& KeyReader::declared(std::string_view key, KeyType type) const {
  const ScenarioKey& k = scenario_key(table_, key);
  const bool textual = type == KeyType::text && (k.type == KeyType::text || k.type == KeyType::name);
  if (k.type != type && !textual)
    throw std::logic_error(fmt::format("[{}] {} is declared {}, read as {}", table_, key, type_name(k.type), type_name(type)));
  return k;
}

std::optional<std::int64_t> KeyReader::integer(std::string_view key) {
  const ScenarioKey& k = declared(key, KeyType::integer);
  return t_.integer(key, std::int64_t(k.min), std::int64_t(k.max));
}

std::optional<std::vector<std::int64_t>> KeyReader::integers(std::string_view key) {
  const ScenarioKey& k = declared(key, KeyType::integer_list);
  return t_.integers(key, 0, std::int64_t(k.min), std::int64_t(k.max));
}

std::int64_t KeyReader::require_integer(std::string_view key) {
  const ScenarioKey& k = declared(key, KeyType::integer);
  return t_.require_integer(key, std::int64_t(k.min), std::int64_t(k.max));
}

std::optional<double> KeyReader::number(std::string_view key) {
  const ScenarioKey& k = declared(key, KeyType::number);
  return t_.number(key, k.min, k.min_inclusive, k.max);
}

std::optional<bool> KeyReader::flag(std::string_view key) {
  declared(key, KeyType::flag);
  return t_.boolean(key);
}

std::optional<std::string> KeyReader::text(std::string_view key) {
  declared(key, KeyType::text);
  return t_.string(key);
}

std::optional<std::string> KeyReader::choice(std::string_view key) { return t_.choice(key, declared(key, KeyType::choice).choices); }

std::optional<std::size_t> KeyReader::choice_index(std::string_view key) {
  return t_.choice_index(key, declared(key, KeyType::choice).choices);
}

}  // namespace perfcast::schema
