#pragma once
// Closed-form FLOP counts from the literature (MODELS-REFERENCE §6.2-6.3). The op accounting in
// transformer_ops.hpp is the general form; these are the published special cases it must reproduce.

namespace perfcast::models {

// F-FLOP-1, Narayanan et al. 2021 Eq. 3: FLOPs per iteration of a GPT model with full activation
// recomputation (hardware FLOPs, GEMMs only, full s x s attention). B = global batch in sequences.
double narayanan_iteration_flops(double B, double s, double l, double h, double V);
// The no-recompute (model FLOPs) analogue, 72 B s l h^2 (1 + s/6h + V/12lh) (Korthikanti Eq. 7).
double narayanan_model_flops(double B, double s, double l, double h, double V);
// F-FLOP-2, Narayanan Eq. 2: P = 12 l h^2 (1 + 13/12h + (V+s)/12lh).
double narayanan_parameters(double l, double h, double V, double s);
// F-FLOP-3, Narayanan Eq. 4: end-to-end training time 8 T P / (n X) with full recompute.
double narayanan_training_time_s(double tokens, double params, double devices, double flops_per_device);

// F-FLOP-4, Kaplan et al. 2020 Eq. 2.1-2.2: non-embedding parameters 12 n_layer d_model^2 and
// training compute 6N per token (the context term is dropped; valid while d_model > n_ctx/12).
double kaplan_parameters(double n_layer, double d_model);
double kaplan_training_flops_per_token(double N);
// Kaplan's context term per training token: 3 x 2 n_layer n_ctx d_attn.
double kaplan_context_flops_per_token(double n_layer, double n_ctx, double d_attn);

// F-FLOP-5, PaLM Appendix B: model FLOPs per token 6N + 12 L H Q T (full attention count).
double palm_flops_per_token(double N, double L, double H, double Q, double T);

// F-FLOP-6: MFU = tokens/s x model FLOPs per token / (devices x peak); HFU with hardware FLOPs.
double utilisation(double tokens_per_s, double flops_per_token, double devices, double peak_flops);

}  // namespace perfcast::models
