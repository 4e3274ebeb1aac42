// Validation ratchets: the held-out error of every suite may only get smaller. Each pin is today's
// figure; a change that improves a suite updates its pin in the same commit (and says so), one that
// worsens it fails here. Outliers above 50 % are listed by id with their cause, so a new one fails.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/calibrate/calibration.hpp"
#include "engine/calibrate/empirical_bands.hpp"
#include "engine/data/residual_table.hpp"
#include "engine/validate/validation.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;

namespace {

struct Pin {
  double median_abs_error;  // held-out median |error| must stay at or below this
  int within_tolerance;     // scored cases within their tolerance must stay at or above this
  int held_out;             // held-out cases: a change in count must update the pin knowingly
};

// Pinned 2026-11-23 (perfcast validate, uncalibrated, every file under validation/); training,
// inference, edge and gemm moved with training stacks, FP8 structure and the MAMF FP8 default
// (gemm: its H100 FP8 case is now the default's source, so one fewer held out); training moved
// again 2026-11-24 with SM contention of hidden communication (14.929 % -> 14.910 %, 24 -> 25 within).
// 2026-11-24, a GEMM's depth on Hopper (F-ROOF-5): inference 13.810 % -> 13.234 % (31 -> 32 within);
// gemm gains the ten XLA sm_90 cases gemm_fixed_k is fitted to (not held out; 9 of them within).
// 2026-11-24, swap-AB token tiles on Hopper/Blackwell (F-ROOF-6, removing the batch 128 -> 150 cliff):
// inference 13.234 % -> 13.244 %, the one pin moved the wrong way, knowingly: the static-batch H100
// rows it touches (TensorRT-LLM v0.6, Azure) were already too fast and lose their padding.
// 2026-11-24, the H100's sustained tensor rate at its 700 W limit, measured by the GPU kit (F-EN-5):
// training 14.910 % -> 13.791 % (25 -> 30 within), inference 13.244 % -> 9.809 % (32 -> 35 within).
// 2026-11-27, NCCL's LL rates (a quarter or a third of the ring's, capped at llMaxBw) and multi-node network
// overhead (F-COLL-3), and DeepSpeed 0.3's on-demand ZeRO-3 gathers (stack deepspeed-2021) for Narayanan's
// Table 2: training 13.791 % -> 13.471 % (30 -> 31 within; Table 2's ZeRO-3 rows +56..+132 % -> -9..+56 %).
// 2026-11-27, Megatron-LM 2021-2022 as it ran: dropout's own kernels (F-DROP-1), the gradient all-reduce after
// the backward, weight gradients added to the main gradient by a kernel of their own (F-GRAD-1): training
// 13.471 % -> 7.484 % (31 -> 37 within; Narayanan and Korthikanti's A100 rows 7-32 % too fast -> -8..+13 %).
// 2026-11-28, decode attention reading each KV head's cache once per query head where TensorRT-LLM's 2023 tables ran
// its masked multi-head attention kernel (F-ATT-3, before XQA): inference 9.810 % -> 9.052 % (35 -> 40 within; their
// Llama 2 70B and Falcon 180B rows +9..+101 % -> -15..-3 %).
// 2026-11-28, F-ROOF-8: GB200's dense rates are B200's datasheet's times the MAMF ratio of the two (1.049), so
// MAMF's two GB200 rows become its source (used_for): gemm's held-out set 19 -> 17, its median over the 17 whose
// predictions did not move 6.295 % -> 7.081 % (the two left were 4.6 % and 6.3 % off); no other prediction of the
// suite changed. Held out elsewhere, GB200's TensorRT-LLM and Megatron-Bridge rows: see README.
// 2026-11-29, cases scored as validate scores them, with the profile a case names for its harness: Azure's ND H100 v5
// rows are the fitted cases of profiles/trtllm-python-session.toml, no longer held out (59 -> 53); the median over the
// 53 left 9.052 % -> 8.282 % (their predictions did not move; the six left were 21-35 % off), within 40 -> 46 (the six
// fitted rows, 5.5-9.5 % off with the profile, counted as scored cases are).
const std::map<std::string, Pin> kPins = {
    // 2026-11-29, F-INF-6 (a quantised checkpoint's output layer in 16 bits): inference 8.282 % -> 7.680 % (46 -> 47
    // within: performance.md 7.4 % -> 7.0 %).
    // 2026-11-29, the H100-vs-A100 blog's batch-64 first-token latencies as cases of their own (53 -> 55 held out;
    // H100 102 ms -3.8 %, A100 481 ms -16.2 %): 7.680 % -> 7.676 %, 47 -> 48 within.
    // 2026-11-29, twelve more of Coral's rows scored, no longer skipped, with presets for their networks (vgg19,
    // resnet-50-299, resnet-50-v2-299, resnet-152-v2-299, densenet-121, inception-v1): edge 6 -> 18 held out, 2 -> 9
    // within, 58.005 % -> 23.155 %. The median moves with the count, not with the model: no prediction changed. The
    // eight ResNet and VGG19 rows stream their parameters as VGG16 does (+2 to -26 %); the networks that fit on chip
    // are short as the MobileNets are: Inception v1 -33 / -45 %, DenseNet-121 -69 / -75 % (known outliers below).
    // 2026-12-01, decode GEMMs split over K where their tiles leave SMs idle (F-ROOF-9), knowingly the wrong way: the batch-64 decode
    // steps of Azure's H100 / H200 rows and the H100-vs-A100 blog's GPT-J now run at their weights' bytes, which
    // these tuned-stack rows (already +5..+11 % fast) do not reach: 7.676 % -> 9.349 %, 48 -> 46 within. The residual
    // is the engines' own cost per step, not the GEMMs': the GPU kit's cuBLAS GEMMs at 64 rows, measured alone, go
    // from -24..-30 % to -6..+8 %.
    {"training", {0.07485, 37, 47}},  {"inference", {0.09349, 46, 55}}, {"edge", {0.23155, 9, 18}},
    {"collective", {0.07518, 28, 26}}, {"memory", {0.01682, 5, 5}},      {"gemm", {0.07081, 27, 17}},
    {"carbon", {0.00421, 15, 15}},
    // 2026-11-29, published checkpoint sizes as the memory model's weights (validation/weights-gpt-oss.toml): gpt-oss's
    // MXFP4 experts at 0.53125 B a weight, -0.14 % / +0.06 % of the model card's 60.8 / 12.8 GiB (+5.3 % / +4.4 % as NVFP4).
    // 2026-12-01, the routed experts' biases 16-bit as the checkpoint keeps them: -0.05 % / +0.13 %, 0.100 % -> 0.090 %.
    {"weights", {0.00090, 2, 2}},
    // Serving under load (serving_* metrics: the engine simulated under the benchmark's protocol), added
    // 2026-11-24 with InferenceX's DeepSeek-R1 FP4 B200 TensorRT-LLM concurrency sweep: TTFT 70 % short
    // in the median, TPOT 10 %, output throughput 14 % (README, Validation).
    // 2026-11-24, 4-bit GEMMs at their own measured efficiency, B200's 148 SMs, block scales in the bytes
    // timed, a 4-bit model's attention in FP8: 19.830 % -> 16.563 % (32 -> 36 within); then B200's
    // measured decode-attention rate (F-ATT-2): 16.425 % (37 within).
    // 2026-11-27, Blackwell's tensor rates held at the power limit, transferred from the two measured Hopper
    // SXM parts (F-EN-5): 16.425 % -> 16.159 %.
    // 2026-11-27, NCCL's LL rates (F-COLL-3): TP-8 decode all-reduces of a few hundred KB no longer at half the
    // ring's rate: 16.159 % -> 12.885 % (37 -> 38 within).
    // 2026-11-28, the step a request joins (F-SRV-3): a returning client's request misses the step the engine
    // begins at once, and TensorRT-LLM's overlap scheduler adds one more: TTFT 4-15 points closer, 12.885 % -> 12.703 %.
    // 2026-11-29, F-INF-6 (DeepSeek-R1's output layer in 16 bits under its NVFP4 checkpoint): 12.703 % -> 12.444 %.
    {"serving", {0.12444, 38, 63}},
    // 2026-11-27, attention microbenchmarks scored through F-ATT-1 (the kit's cuDNN calls, which SDPA picks:
    // eight on the H100 of 2026-11-24, 9.947 %; eight more on the lent H200 of 2026-11-27, 7.4 %): every one
    // slower than measured (cuDNN 9.19 beats the 2024 figures F-ATT-1 takes).
    {"attention", {0.08938, 16, 16}},
};

// A source added after its kind's pin gets a pin of its own, its first figure, and stays out of
// its kind's pin: new, harder cases neither hide a regression in the old ones nor loosen their pin.
struct SourcePin {
  std::string kind, source;  // cases of this kind whose source contains this text
  Pin pin;
};
// Megatron-Bridge's NeMo 25.11 / 26.04.01 dense Llama 3 FP8 rows on H100, B200 and GB200 (added
// 2026-11-23): every one 23-45 % too fast with the defaults (README, Validation).
// The torchtitan team's Llama 3.1 runs on Grand Teton H100 at 500 W (added 2026-11-24): with the
// power limit, FlashAttention-2 on Hopper and op-level selective recomputation, still 7-60 % too fast.
// Both moved 2026-11-24 with the measured attention kernels (F-ATT-1: cuDNN under Transformer Engine,
// FlashAttention-2 under torchtitan): Megatron-Bridge 35.844 % -> 30.451 % (0 -> 1 within),
// torchtitan 39.131 % -> 36.968 %; and again with current scaling's amax passes (Bridge's FP8-CS,
// torchao's dynamic Float8): 30.451 % -> 27.355 % (2 within), 36.968 % -> 33.587 %. torchtitan moved
// 2026-11-24 with eager PyTorch modules (F-EAGER-1, stack torchtitan-2024): the same 16 cases 33.587 % ->
// 24.802 %, and its two torch.compile-only rows, skipped until compile was modelled, now scored (18: 25.162 %).
// Megatron-Bridge's MXFP8 and NVFP4 rows, skipped until the block-scaled recipes were modelled
// (2026-11-24): pinned apart from the same tables' FP8 rows, at their first figure (all too fast,
// MXFP8 +32 to +47 %, NVFP4 +48 / +62 %).
// A GEMM's depth on Hopper (F-ROOF-5, 2026-11-24): Megatron-Bridge 27.355 % -> 26.536 %, torchtitan
// 25.163 % -> 24.030 % (the block-scaled rows run on Blackwell, where the term is not applied).
// NVIDIA's MLPerf Training v4.0 GPT-3 175B runs on 512, 10,752 and 11,616 H100 (added 2026-11-24),
// with their published BF16 gradient reduction and FP8 parameter gather: every one 16.3-16.4 % too
// fast on step time, at every scale (without those two settings the largest two read +9 %, the
// data-parallel traffic's excess cancelling the FP8 compute's optimism).
// TensorRT-LLM v1.0's maximum-throughput table (added 2026-11-24), scored through batch = "max" (the
// engine's steady state, F-SRV-2): its 60 FP8 rows on H100/H200 8.0 % (54 within), its 40 NVFP4 rows
// on B200/GB200 43.8 %, every one too fast.
// The same change moved its 40 NVFP4 rows from 43.8 % to 31.6 %, F-ATT-2 to 29.2 % (median of the 100: 13.300 % -> 13.299 %).
// Blackwell 4-bit GEMMs by shape (added 2026-11-24; validation/gemm-blackwell-fp4.toml): pytorch/ao's
// cuBLAS NVFP4 squares (the 6144^3 row is gemm_4bit's source, not held out), DeepGEMM's MXFP4 table
// with its cuBLASLt baseline, FlashInfer's mm_fp4: pinned apart at their first figures.
// perfcast's own GPU kit on one H100 SXM (added 2026-11-24; validation/*-h100-kit.toml): GEMMs by shape,
// HBM copies, one Llama-3-8B-shaped layer and 8-layer steps in BF16 and FP8, eager and compiled, and
// CUDA-graph generation; pinned apart at their first figures (eager FP8 is the largest miss: README).
// Then, 2026-11-24, torchao's Float8 casts as torchao runs them (F-LP-2) with the kit's rows under the
// torchtitan stack whose modules they run (cuDNN attention, measured as SDPA's choice): kit training
// 16.448 % -> 10.946 % (5 -> 8 within), torchtitan's Dec 2024 rows 24.030 % -> 22.547 % (2 -> 4 within).
// MLPerf and Megatron-Bridge move to today's figures, lowered by an earlier change without their pins.
// The H100's sustained tensor rate (F-EN-5): MLPerf 14.054 % -> 7.770 % (3 within), Megatron-Bridge
// 25.509 % -> 19.428 % (4 within), kit training 10.945 % -> 7.185 % (10 within), kit inference 9.550 %
// -> 5.640 % (10 within), TensorRT-LLM v1.0's table 13.299 % -> 12.071 % (56 within); torchtitan's
// rows ran on Grand Teton's HBM2e H100, which has no measurement, and do not move. The H200's, measured
// the same way (0.843 BF16, 0.846 FP8): TensorRT-LLM v1.0's table 12.071 % -> 7.743 % (59 within).
// Grand Teton's HBM2e H100 takes the H100 SXM's ratios (the same die at the same 700 W TDP, as its
// idle power does), F-EN-4 lowering them to its 500 W limit: torchtitan 22.546 % -> 12.176 % (12
// within); its 256k-token CP row leaves the outliers (+50.3 % -> +35.0 %).
// 2026-11-27, B200, B300, GB200 and GB300 take the held tensor rate the kit measured on the H100 SXM and H200
// (their mean: 0.870 BF16, 0.861 FP8 and narrower; F-EN-5, an assumption until a Blackwell part is measured):
// Megatron-Bridge 19.428 % -> 11.495 % (4 -> 7 within), its block-scaled rows 43.953 % -> 26.152 %, TensorRT-LLM
// v1.0's table 59 -> 70 within (its 40 NVFP4 rows 29.2 % -> 20.5 %; the Hopper rows hold the median).
// 2026-11-27, F-EN-4's power law measured on an H200 by the kit's duty section (the tensor rate's exponent
// 2.232 in place of an assumed cube): torchtitan's 500 W rows 12.176 % -> 8.422 % (12 -> 14 within).
const char* const kKitSource = "perfcast_gpu_bench.py (perfcast's GPU kit";
const std::vector<SourcePin> kSourcePins = {
    {"training", "MLPerf Training v4.0", {0.07771, 3, 3}},
    // 2026-11-28, GB200's dense rates as MAMF measured them beside B200 (F-ROOF-8, 0.944 of its datasheet's):
    // Megatron-Bridge 11.495 % -> 8.579 % (7 -> 8 within), its block-scaled rows 26.152 % -> 20.976 % (0 -> 1 within).
    // 2026-11-29, NVLink 5's measured ring rate (F-COLL-7): its B200 rows' TP and DP rings slower, 8.579 % -> 8.568 %.
    // 2026-11-29, GB200's 152 SMs (not B200's 148) in its GEMMs' wave count: its rows 1-5 points closer, 8.569 % ->
    // 8.568 % (8 -> 9 within), the block-scaled rows 20.977 % -> 19.926 %.
    // 2026-11-29, B200's BF16 held rate its own measurement (0.853, flashinfer PR #2899; the Hopper parts' 0.870 before):
    // its four rows 0.2-0.8 points closer, the block-scaled rows 1 -> 2 within (B200 Llama 3 8B MXFP8 +15.4 -> +14.7 %).
    {"training", "NVIDIA-NeMo/Megatron-Bridge", {0.08568, 9, 10}},
    {"training", ", block-scaled rows", {0.19926, 2, 7}},
    {"training", "pytorch/torchtitan", {0.08422, 14, 18}},
    // 2026-11-27, NCCL's LL rates (F-COLL-3): 7.743 % -> 7.479 %. Then GB200 takes B200's measured decode-attention
    // kernel as the same share of its memory bandwidth (F-ATT-2, decode_attention_from): 7.479 % -> 7.174 % (72 within;
    // the 20 GB200 NVFP4 rows 1-7 points closer, the 40 NVFP4 rows 20.5 % -> 18.9 %).
    // 2026-11-28, each row scored as the finite run it measured (the page's $num_requests, all queued at once, throughput
    // over the time to the last completion; F-SRV-2) instead of an endless queue: 7.174 % -> 7.690 %, the median moved
    // the wrong way knowingly, with 72 -> 81 within: the 40 NVFP4 rows 18.9 % -> 14.0 % (13 -> 21 within), the 60 FP8
    // rows 4.0 % -> 4.5 % in the median (signed mean -0.2 % -> -4.0 %: the ramp and drain they lost to the steady state).
    // Then prompts run whole, as trtllm-bench runs them (chunked prefill off by default, max_num_tokens raised to the
    // prompt + max_batch_size; bench/benchmark/utils/general.py): 7.690 % -> 8.294 %, the median the wrong way again,
    // knowingly, with 81 -> 83 within: the NVFP4 rows 14.0 % -> 13.8 % (23 within), the FP8 rows 4.5 % -> 5.3 % (all 60
    // within; signed mean -4.0 % -> -4.6 %).
    // Then TensorRT-LLM's KV cache takes free_gpu_memory_fraction of what the weights and buffers leave, not vLLM's
    // share of the whole device (F-KV-3): 8.294 % -> 7.921 %, 83 -> 80 within (the within count the wrong way,
    // knowingly): the FP8 rows 5.3 % -> 3.8 % (all 60 within), the NVFP4 rows 13.8 % -> 14.8 % (23 -> 20 within).
    // 2026-11-28, the PyTorch backend's overlap scheduler (F-SRV-3): a finished request decodes once more in its slot,
    // the 128/128 rows 0.3-0.5 % slower: 7.925 % -> 7.916 %, 80 -> 81 within.
    // 2026-11-28, B200's decode kernel over an FP8 cache at 0.926 of its 16-bit rate per byte (F-ATT-4, the vLLM
    // blog's B200 slopes): the 40 NVFP4 rows 14.6 % -> 12.7 % (9 -> 7 above 20 %), 7.916 % -> 6.908 %, 81 -> 88 within.
    // 2026-11-28, GB200's dense rates as MAMF measured them beside B200 (F-ROOF-8): the GB200 NVFP4 rows 13.0 % ->
    // 9.8 % (13 -> 15 within 15 %), 6.908 % -> 6.487 %, 88 -> 90 within.
    // 2026-11-29, NVLink 5's ring at the rate Azure measured on GB200 (F-COLL-7): the 20 Llama 3.1 405B NVFP4 rows on 4 B200
    // or GB200 (their TP all-reduces) 1.5-2.3 points closer, 6.487 % -> 6.104 %, 90 -> 91 within (6 -> 4 rows above 20 %).
    // 2026-11-29, the H200's memory as its driver reports it (143,771 MiB = 140.4 GiB, not 141e9 B): KV caches 7 %
    // larger, 27 of the 30 H200 FP8 rows move (21 closer, e.g. 70B 1000/2000 -11.5 % -> -6.5 %; six further, all
    // still within 5 %), their median 3.3 % -> 3.0 %; 6.104 % -> 5.704 %, 91 within.
    // 2026-11-29, GB200's 152 SMs in its GEMMs' wave count (they were not counted: the record had no SM count): the 20
    // GB200 NVFP4 rows 1-7 points closer but two (+0.3 / +2.4 % -> -3.9 / -3.3 %), 5.705 % -> 5.457 %, 91 -> 93 within,
    // 4 -> 2 rows above 20 %.
    // 2026-11-29, each row with the CUDA graphs the page's llm_options.yml captures, padded (F-SRV-4), as its runs were:
    // the NVFP4 rows 8.5 % -> 6.7 % (2 -> 1 above 20 %), the FP8 rows 3.5 % -> 5.0 % (2.1 % -> 4.0 % slow on average: the
    // padded decode GEMMs on Hopper, timed without split-K); 5.457 % -> 5.141 %, 93 -> 96 within.
    // 2026-11-29, a quantised checkpoint's output layer read and multiplied in 16 bits, as Model Optimizer's checkpoints
    // keep it (F-INF-6): the NVFP4 rows 6.7 % -> 5.3 % (36 -> 37 within), the FP8 rows 5.0 % -> 6.4 % (4.0 % -> 5.0 % slow
    // on average, all 60 still within): 5.141 % -> 5.910 %, the median the wrong way, knowingly, with 96 -> 97 within.
    // The FP8 rows' slowness had been offset by a head read at half its size; its cause is still open.
    // 2026-12-01, decode GEMMs split over K where their tiles leave SMs idle (F-ROOF-9): 5.910 % -> 5.136 %, 97 -> 96 within.
    {"inference", "perf-overview.md @ 00f37686", {0.05136, 96, 100}},
    // Azure's ND H200 v5 page (added 2026-11-28, inference-azure-nd-h200.toml): the ND H100 v5 rows' workloads on
    // the H200, +16 to +38 % too fast as the H100 rows are; the model's H200 / H100 ratio within 2 points of the
    // measured one (+4 to +6 %) on all five paired rows, so the shared residual is not the device's.
    // 2026-11-29, scored as validate scores them: with their harness's profile (profiles/trtllm-python-session.toml,
    // kernel_overhead_s 12.4 us fitted on the ND H100 v5 rows alone, which are no longer held out; README, "A harness's
    // launch cost"): 27.921 % -> 6.247 %, 0 -> 6 within.
    // 2026-11-29, F-INF-6 (the FP8 checkpoints' output layer in 16 bits): 6.247 % -> 6.226 %.
    // 2026-12-01, decode GEMMs split over K where their tiles leave SMs idle (F-ROOF-9), knowingly the wrong way: the batch-64 rows' decode
    // steps at the weights' bytes, +7..+11 % fast: 6.226 % -> 7.729 %.
    {"inference", "Azure_Results/ND_H200_v5_results.md", {0.07729, 6, 6}},
    // Azure's ND A100 v4 page (added 2026-11-29, inference-azure-nd-a100.toml): the same workloads and harness on A100s in
    // FP16, +3.6..+15.7 % (median 6.8 %) with the defaults, -3.2..+2.1 % (1.6 %) with the harness's profile.
    // 2026-12-01, decode GEMMs split over K where their tiles leave SMs idle (F-ROOF-9): 1.614 % -> 0.911 %.
    {"inference", "Azure_Results/ND_A100_v4_results.md", {0.00911, 5, 5}},
    {"gemm", "pytorch/ao PR #2427", {0.15503, 4, 6}},
    // Azure's ND GB200 v6 NCCL ring all-reduce over 4 GPUs (added 2026-11-29; collectives-azure-gb200.toml), the first
    // NVLink 5 collective, first pinned at 19.7 % over all 24 with NVLink 4's ring efficiency. Then its 8 GiB row became
    // NVLink 5's measured ring rate (F-COLL-7), no longer held out: the other 23 at 15.8 %, 64 MiB and up -2..+6 %,
    // 4-32 MiB +9..+21 %, 1-64 KiB +50..+61 % (outliers below), every size within its tolerance.
    {"collective", "Azure_Results/ND_GB200_v6_results.md", {0.15780, 24, 23}},
    // The same pytorch/ao run's BF16 reference rows on B200 (added 2026-11-25; gemm-blackwell-bf16.toml): at
    // 4096^3 and up cuBLAS holds 1.41-1.45 PF/s, 0.63-0.64 of peak, below the MAMF best (0.776) the
    // shared `gemm` default stands near: +19 to +24 % too fast there, as Blackwell training is.
    {"gemm", "the torch.bfloat16 reference rows", {0.18990, 3, 7}},
    // Transformer Engine's GEMM profiling tutorial on a B300 (added 2026-11-27; gemm-b300-te.toml): the four BF16
    // forward GEMMs of a 5B layer, 0.66-0.77 of peak, the model +2 to +20 % as on B200's cuBLAS rows.
    {"gemm", "docs/examples/gemm_profiling/gemm_profiling.rst", {0.18695, 1, 4}},
    {"gemm", "deepseek-ai/DeepGEMM PR #348", {0.19460, 6, 14}},
    {"gemm", "flashinfer-ai/flashinfer PR #1979", {0.00931, 1, 1}},
    // 2026-11-28: 81 -> 83 within, today's count (moved by earlier changes without their pin). 2026-12-01, few-tile GEMMs split over K (F-ROOF-9): the 64-row
    // decode shapes -24..-30 % -> -6..+8 %, 5.617 % -> 5.232 %, 83 -> 85 within.
    {"gemm", kKitSource, {0.05232, 85, 94}},
    {"memory", kKitSource, {0.00954, 4, 4}},
    {"training", kKitSource, {0.07186, 10, 12}},
    // 2026-12-01, decode GEMMs split over K where their tiles leave SMs idle (F-ROOF-9), knowingly the wrong way: graph decode at batch 128 and
    // 256 -1.4 / -4.9 % -> -7.0 / -7.1 % (the same run's 128- and 256-row GEMMs with deep K run faster split than cuBLAS
    // ran them, +14..+22 %): 5.641 % -> 7.037 %.
    {"inference", kKitSource, {0.07037, 10, 10}},
    // The kit on the lent H200 (run 7, validation/microbenchmarks-h200-kit.toml): GEMMs and copies.
    // 2026-11-28: 73 -> 75 within, today's count. 2026-12-01, few-tile GEMMs split over K (F-ROOF-9): 7.803 % -> 6.753 %, 75 -> 79 within.
    {"gemm", "run of 2026-11-24 on one NVIDIA H200", {0.06753, 79, 94}},
    {"memory", "run of 2026-11-24 on one NVIDIA H200", {0.01900, 4, 4}},
    // The kit's layer, train and graph-decode sections on a lent H200 (added 2026-11-26;
    // validation/*-h200-kit.toml), a device none of the defaults was fitted on: pinned at their first figures.
    {"training", "run of 2026-11-26 on one NVIDIA H200", {0.06896, 10, 12}},
    {"inference", "run of 2026-11-26 on one NVIDIA H200", {0.06512, 6, 6}},
    // The graph-decode section at 128- to 2,048-token prompts (added 2026-11-29; validation/inference-h200-kit.toml),
    // pinned at its first figures: the 128-token batch-1 first token -14.8 % eager and +37.6 % as one CUDA graph (the
    // one outside 15 %: the model's 128-row GEMMs slow, the eager host issue unmodelled), the grouped-query decode
    // steps over 2,048 cached tokens -13.0 %, the kit's one-row-per-head call -1.4 %.
    {"inference", "run of 2026-11-29 on one NVIDIA H200", {0.01983, 11, 12}},
    // A second published concurrency sweep (added 2026-11-25): vLLM serving Mistral-7B on one RTX 4090
    // (mushfiqrahman.dev). Output throughput 8-19 % short (its decode GEMMs' tokens pad a 64-row tile whose
    // waves leave SMs idle: README, Validation), TTFT 9-70 % short, as InferenceX's under load.
    // 2026-11-28, the step a request joins (F-SRV-3), knowingly the wrong way: TTFT at 4 and 8 clients
    // -9 / -20 % -> +28 / +10 % (this source's decode steps run 8-19 % long, and the client's request now
    // waits one), at 16-48 clients -49..-70 % -> -32..-65 %: 17.000 % -> 17.732 % (7 -> 6 within), the
    // mean |TTFT error| 42.6 % -> 38.2 %.
    // 2026-12-01, decode GEMMs split over K where their tiles leave SMs idle (F-ROOF-9): the decode steps at the weights' bytes, output
    // throughput -8..-19 % -> -1.6..+0.1 %: 17.732 % -> 3.071 % (6 within: TTFT at 16-48 clients still -34..-65 %).
    {"serving", "mushfiqrahman.dev", {0.03071, 6, 10}},
    // A published rate sweep (added 2026-11-26; validation/serving-sglang-rate-sweep.toml): SGLang v0.3.0 serving
    // ShareGPT at 4 and 8 requests/s (Llama 3.1 8B on an A100, 70B on 4 H100), medians of TTFT, TPOT and E2E,
    // scored at the rate with SGLang's prompt and decode steps apart: the 8B within 1-19 %, the 70B 21-33 % fast.
    // 2026-11-27, NCCL's LL rates (F-COLL-3): the 70B's TP-4 all-reduces slower, 19.937 % -> 19.001 % (6 -> 7 within).
    // 2026-11-29, vLLM v0.6.0's 12 rows scored, no longer skipped, through its multi-step scheduling (F-SRV-5; V0's
    // limits, rounds of 10 decode steps): their TTFT -66..-80 % as single steps -> -13..-36 %, TPOT -6..-13 %, E2E
    // -7..-22 %, 8 of 12 within. The source 12 -> 24 held out, 19.001 % -> 16.633 % (7 -> 15 within); SGLang's rows unmoved.
    // 2026-11-29, each row's median ITL a case too (serving_itl_p50_s: every gap between the chunks a streaming client
    // receives, as sglang.bench_serving counts them): SGLang's four -2..-18 %, vLLM's four, whose rounds stream ten
    // tokens a chunk, 117-237 ms predicted for 129-275 ms measured (-7..-20 %); all eight within 20 %. The source 24 ->
    // 32 held out, 16.633 % -> 15.993 %, 15 -> 23 within.
    // 2026-12-01, decode GEMMs split over K where their tiles leave SMs idle (F-ROOF-9), knowingly the wrong way: the A100 8B decode
    // steps (20-60 running requests) at the weights' bytes, TPOT -1..-14 % -> -15..-26 %; the engines' step costs
    // of 2024 (vLLM v0.6 / SGLang v0.3 scheduling on the host) are not modelled: 15.993 % -> 20.461 %, 23 -> 15 within.
    {"serving", "benchmark/benchmark_vllm_060/README.md", {0.20461, 15, 32}},
    // A third published concurrency sweep (added 2026-11-28; validation/serving-nim-concurrency.toml): NVIDIA's NIM
    // benchmarking guide, Llama 3.3 70B FP8 on 2 H100 under NIM 1.8.0's TensorRT-LLM, 5000 + 500 tokens at 1-250
    // clients, the closed loop's steady state: TTFT 13.9 % in the median, inter-token latency 10.4 %, output
    // throughput 3.8 %; past the KV cache's 96 sequences (the run held about 86) the wait for a slot dominates.
    // 2026-11-28, the step a request joins (F-SRV-3): TTFT at 25 and 50 clients -27 / -26 % -> -4 / -6 %:
    // 8.479 % -> 7.201 % (21 -> 23 within).
    // 2026-11-29, F-INF-6 (Llama 3.3 70B FP8's output layer in 16 bits): 7.201 % -> 6.458 %.
    // 2026-12-01, decode GEMMs split over K where their tiles leave SMs idle (F-ROOF-9), knowingly the wrong way: 6.458 % -> 6.616 %.
    {"serving", "NVIDIA NIM LLM Benchmarking Guide", {0.06616, 23, 24}},
    // The vLLM blog's FP8 KV-cache measurements (added 2026-11-28; validation/serving-vllm-fp8-kv-blog.toml): Llama-3.1-8B
    // on one H100 and one B200 under vLLM v0.19.1, the fitted single-request ITL at 4k-64k prompt tokens with BF16 and
    // FP8 caches, and Table 4's 150 requests at concurrency 8 on H100 (~20k + ~2k tokens): the ITLs within -5..+2 %,
    // Table 4 within -8..+8 % but the FP8 row's throughput (+20 %). B200's Llama FP8 rows are F-ATT-4's source, not held
    // out. gpt-oss-20b's single-request ITL on B200 is 40-44 % short: its slope per context token is within 5-13 %, its
    // 3.15 ms intercept (a step of a 3.6B-active MXFP4 MoE at batch 1) predicted 1.76 ms.
    {"serving", "The State of FP8 KV-Cache and Attention Quantization in vLLM", {0.05453, 17, 21}},
    // GPUStack's Performance Lab, as deployed (kIndependentSources below), at its first figure 2026-12-02.
    {"serving", "gpustack/gpustack", {0.45055, 68, 243}},
    // IBM's fms-fsdp and MosaicML's llm-foundry FSDP throughput tables, as deployed (kIndependentSources), at their
    // first figures 2026-12-02: 82 of 83 too fast, H100 13-38 %, A100 4-30 %.
    {"training", "foundation-model-stack/fms-fsdp", {0.18253, 13, 16}},
    {"training", "mosaicml/llm-foundry", {0.24741, 35, 67}},
};

// The pin a case counts under: the last source pin whose text its source contains (a later pin
// narrows an earlier one, as the block-scaled rows narrow Megatron-Bridge's).
// Independent as-deployed sources (transcribed whole, every row, not studied to change the model): their
// outliers are counted, not listed one by one, and the count may only fall.
struct IndependentSource {
  std::string source;
  int outliers;  // held-out cases more than 50 % off
};
// GPUStack's Performance Lab (added 2026-12-02): vLLM v0.11, SGLang v0.5 and TensorRT-LLM 1.2 on H100, A100 and
// H200 with their default flags, mostly 500-1,000 requests sent at once: throughput +63 % (too fast), TTFT -54 %,
// TPOT -30 % in the median (README, Validation).
// IBM's fms-fsdp (Llama 2 on 128 A100 / 96 H100) and MosaicML's llm-foundry (MPT 1B-70B, Composer FSDP on A100 and
// H100), PyTorch FSDP as their teams ran it (added 2026-12-02): 82 of 83 too fast, 22 % in the median.
const std::vector<IndependentSource> kIndependentSources = {
    {"gpustack/gpustack", 107}, {"foundation-model-stack/fms-fsdp", 0}, {"mosaicml/llm-foundry", 2}};

const IndependentSource* independent_source(const CaseScore& s) {
  for (const IndependentSource& i : kIndependentSources)
    if (s.source.starts_with(i.source)) return &i;
  return nullptr;
}

const SourcePin* own_pin(const CaseScore& s) {
  const SourcePin* last = nullptr;
  for (const SourcePin& p : kSourcePins)
    if (s.kind == p.kind && s.source.find(p.source) != std::string::npos) last = &p;
  return last;
}
bool has_own_pin(const CaseScore& s) { return own_pin(s) != nullptr; }

void check_pin(const ValidationSummary& s, const Pin& pin) {
  CHECK(s.held_out == pin.held_out);
  CHECK(s.median_abs_error <= pin.median_abs_error);
  CHECK(s.within_tolerance >= pin.within_tolerance);
}

// Held-out cases more than 50 % off, each with why (and the issue that takes it on).
const std::map<std::string, std::string> kKnownOutliers = {
    {"narayanan2021-t2-zero3-174p6b-768gpu", "DeepSpeed ZeRO-3 (2021, stack deepspeed-2021): gathers on demand at NCCL's LL128 rates; the "
                                             "384-GPU run stays +32 % and this one +54 %, the 1,536-GPU one +33 %: the strong-scaling "
                                             "trend is not reproduced (a recomputed forward's third gather per layer is unsourced) (issue 23)"},
    {"azure-nccl-allreduce-h100-8gpu-65k", "small all-reduce: NCCL's protocol choice (LL/LL128) and launch latency are not modelled (issue 27)"},
    {"azure-nccl-allreduce-h100-8gpu-132k", "small all-reduce, as above (issue 27)"},
    {"azure-nccl-allreduce-h100-8gpu-256k", "small all-reduce, as above (issue 27)"},
    {"azure-nccl-allreduce-gb200-4gpu-ring-1k", "small ring all-reduce on GB200: the measured 1 KiB time, 15.4 us, is 1.5x the tuner's ring LL "
                                                "latency the model takes (6.6 us + 6 NVLink hops x 0.6 us = 10.2 us); NCCL 2.25.1 driving 4 GPUs "
                                                "from one process (-g 4) on a Grace host, launch latency not modelled"},
    {"azure-nccl-allreduce-gb200-4gpu-ring-2k", "small ring all-reduce on GB200, as above"},
    {"azure-nccl-allreduce-gb200-4gpu-ring-4k", "small ring all-reduce on GB200, as above"},
    {"azure-nccl-allreduce-gb200-4gpu-ring-8k", "small ring all-reduce on GB200, as above"},
    {"azure-nccl-allreduce-gb200-4gpu-ring-16k", "small ring all-reduce on GB200, as above"},
    {"azure-nccl-allreduce-gb200-4gpu-ring-32k", "small ring all-reduce on GB200, as above"},
    {"azure-nccl-allreduce-gb200-4gpu-ring-65k", "small ring all-reduce on GB200, as above"},
    {"coral-mobilenet-v1-224x224-usb-accelerator", "Edge TPU predicted too fast: the per-invocation host overhead and the compiler's utilisation are not modelled"},
    {"coral-mobilenet-v1-224x224-dev-board", "Edge TPU, as above"},
    {"coral-mobilenet-v2-224x224-usb-accelerator", "Edge TPU, as above"},
    {"coral-mobilenet-v2-224x224-dev-board", "Edge TPU, as above"},
    {"coral-densenet-224x224-usb-accelerator", "Edge TPU predicted too fast, as the MobileNets: DenseNet-121's 120 small convolutions and 58 "
                                               "concatenations; 8.06 M parameters, about the 8 MB cache, so little streams"},
    {"coral-densenet-224x224-dev-board", "Edge TPU, as above"},
    {"llama2-70b-predicted-co2e", "scope: the Llama 2 card counts 400 W per GPU adjusted for PUE and no hosts; ours adds the DGX A100 "
                                  "hosts (node factor 2.03), so at equal hours ours is 1.7-2x the card's (issue 27)"},
    {"cublaslt-mxfp4-b200-128x24576x1536", "cuBLASLt's 4-bit kernel on a skinny, shallow shape: 745 TFLOP/s where DeepGEMM reaches 980 on the "
                                           "same shape (+29 % there); a library's tile choice, not modelled (issue 24)"},
    {"cublaslt-mxfp4-b200-512x7168x2048", "cuBLASLt's 4-bit kernel at K = 2048: 1,190 TFLOP/s, DeepGEMM 1,439 on the same shape; Blackwell's "
                                          "per-tile fixed cost is not modelled (F-ROOF-5 is fitted on Hopper; applied to B200 it "
                                          "costs the MAMF FP8 best shapes 7-15 %) (issue 24)"},
    {"cublaslt-mxfp4-b200-1024x7168x2048", "cuBLASLt at K = 2048, as above: 1,399 TFLOP/s against DeepGEMM's 2,056 (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-1024-1024-c4-ttft",
     "TTFT under a closed-loop benchmark 36-78 % short on every row, about 110 ms short already at "
     "concurrency 4, with the steps a returning client's request waits (F-SRV-3) counted: cause not established; "
     "the server's request handling outside the forward passes and TensorRT-LLM's context steps without CUDA graphs "
     "are not modelled (stream_interval does not delay the first token: py_executor sends it at decoding iteration 1) "
     "(issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-1024-1024-c8-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"rahman-vllm-mistral7b-rtx4090-256-128-c32-ttft", "TTFT under a closed-loop benchmark on vLLM too: the measured median (277 ms) exceeds the "
                                                       "mean perfcast predicts, while output throughput is within 10 % (issue 24)"},
    {"rahman-vllm-mistral7b-rtx4090-256-128-c48-ttft", "TTFT under a closed-loop benchmark on vLLM, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-1024-1024-c16-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-1024-1024-c32-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-1024-1024-c64-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-1024-1024-c128-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-1024-1024-c256-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-1024-8192-c4-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-1024-8192-c8-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-1024-8192-c16-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-1024-8192-c32-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-1024-8192-c64-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-1024-8192-c128-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-1024-8192-c256-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-8192-1024-c64-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-8192-1024-c128-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"inferencex-dsr1-fp4-b200-trt-tp8-8192-1024-c256-ttft", "TTFT under a closed-loop benchmark, as above (issue 24)"},
    {"nim-llama33-70b-fp8-2xh100-5000-500-c100-ttft",
     "a closed loop just past the KV cache's capacity: TTFT is the wait for a slot, the end-to-end time less 499 decode "
     "steps; perfcast holds 96 sequences at 103.6 ms a step where the run held about 86 at 92.9 ms (its ITL x throughput), "
     "the same output rate (+0.7 %), so the wait it leaves is 3.1 s, not 8.0 s (issue 24)"},
    {"kit-h100-20261124-gemm-fp8-512x512x512", "a 3.2 us GEMM replayed in a CUDA graph: the roofline's launch term is an eager "
                                               "launch's, about twice what a graph replay pays per kernel (the BF16 one, split "
                                               "over K since F-ROOF-9, is 47 % short)"},
    {"mamf-bf16-amd-mi300x", "MI300X BF16 GEMMs reach far less of peak than the NVIDIA-measured default GEMM efficiency (calibrate per device)"},
};

// Every shipped case scored as validate scores it, once per test process.
const std::vector<CaseScore>& all_scores() {
  static const std::vector<CaseScore> out = [] {
    std::vector<CaseScore> v;
    for (const auto& file : validation_files(default_validation_dir()))
      for (CaseScore& s : score_file_with_case_profiles(file, shipped_db())) v.push_back(std::move(s));
    return v;
  }();
  return out;
}

}  // namespace

TEST_CASE("validation ratchet: no suite's held-out error grows, no suite loses cases within tolerance") {
  const std::vector<CaseScore>& scores = all_scores();
  std::vector<CaseScore> kind_pinned;
  for (const CaseScore& s : scores)
    if (!has_own_pin(s)) kind_pinned.push_back(s);
  std::map<std::string, ValidationSummary> by_kind;
  for (const auto& [kind, summary] : summarise_by(kind_pinned, SummaryKey::kind)) by_kind[kind] = summary;
  for (const auto& [kind, pin] : kPins) {
    CAPTURE(kind);
    REQUIRE(by_kind.count(kind));
    check_pin(by_kind.at(kind), pin);
  }
  for (const SourcePin& p : kSourcePins) {
    CAPTURE(p.source);
    std::vector<CaseScore> own;
    for (const CaseScore& s : scores)
      if (own_pin(s) == &p) own.push_back(s);
    const auto summaries = summarise_by(own, SummaryKey::kind);
    REQUIRE(summaries.size() == 1);
    check_pin(summaries.front().second, p.pin);
  }
}

TEST_CASE("validation ratchet: every held-out case more than 50 % off is a known outlier with its cause") {
  std::set<std::string> seen;
  std::map<const IndependentSource*, int> outliers;
  for (const CaseScore& s : all_scores()) {
    if (!s.held_out || std::abs(s.error) <= 0.5) continue;
    CAPTURE(s.id);
    if (const auto* independent = independent_source(s)) {
      ++outliers[independent];
      continue;
    }
    CHECK_MESSAGE(kKnownOutliers.count(s.id), "a new outlier: fix it or list it with its cause");
    seen.insert(s.id);
  }
  for (const IndependentSource& i : kIndependentSources) {
    CAPTURE(i.source);
    CHECK(outliers[&i] <= i.outliers);
  }
  // A listed outlier that is no longer one leaves the list (the ratchet moves).
  for (const auto& [id, cause] : kKnownOutliers) {
    CAPTURE(id);
    CHECK(seen.count(id));
    CHECK_FALSE(cause.empty());
  }
}

TEST_CASE("validation/residuals.json is what `perfcast validate --write-residuals` writes today") {
  const std::vector<Residual> today = residuals_of(all_scores());
  const ResidualTable shipped = load_residual_table(shipped_residuals_file());
  const std::string hint = "regenerate: perfcast validate --write-residuals validation/residuals.json";
  REQUIRE_MESSAGE(shipped.cases.size() == today.size(), hint);
  for (std::size_t i = 0; i < today.size(); ++i) {
    CAPTURE(today[i].id);
    REQUIRE_MESSAGE(shipped.cases[i].id == today[i].id, hint);
    CHECK_MESSAGE(shipped.cases[i].source == today[i].source, hint);
    CHECK_MESSAGE(shipped.cases[i].features.values == today[i].features.values, hint);
    CHECK_MESSAGE(std::abs(shipped.cases[i].slowness - today[i].slowness) < 1e-6, hint);
  }
}

// The empirical bands' coverage, leave-one-source-out (validate --coverage): pooled within 75-85 % and no kind
// further below 80 % than today. Pinned 2026-12-02: pooled 83 %; gemm 92 %, inference 92 %, training 94 %, and
// serving 67 %, below nominal, knowingly: GPUStack's as-deployed runs (62 % of the serving cases) are 52 % inside
// the band the other five serving sources give them, the model's own error on untuned engines (issue 71).
TEST_CASE("validation ratchet: the empirical bands' leave-one-source-out coverage stays near nominal") {
  const CoverageReport c = coverage(all_scores());
  CHECK(c.pooled.share_80() >= 0.75);
  CHECK(c.pooled.share_80() <= 0.85);
  const std::map<std::string, double> kFloor = {{"gemm", 0.90}, {"inference", 0.90}, {"training", 0.92}, {"serving", 0.665}};
  for (const CoverageRow& k : c.by_kind) {
    CAPTURE(k.key);
    REQUIRE(kFloor.count(k.key));
    CHECK(k.share_80() >= kFloor.at(k.key));
  }
}
