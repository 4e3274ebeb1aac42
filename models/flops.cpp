#include "models/flops.hpp"

namespace perfcast::models {

double narayanan_iteration_flops(double B, double s, double l, double h, double V) {
  return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}

double narayanan_model_flops(double B, double s, double l, double h, double V) {
  return 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
}

double narayanan_parameters(double l, double h, double V, double s) {
  return 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
}

double narayanan_training_time_s(double tokens, double params, double devices, double flops_per_device) {
  return 8 * tokens * params / (devices * flops_per_device);
}

double kaplan_parameters(double n_layer, double d_model) { return 12 * n_layer * d_model * d_model; }

double kaplan_training_flops_per_token(double N) { return 6 * N; }

double kaplan_context_flops_per_token(double n_layer, double n_ctx, double d_attn) {
  return 3 * 2 * n_layer * n_ctx * d_attn;
}

double palm_flops_per_token(double N, double L, double H, double Q, double T) { return 6 * N + 12 * L * H * Q * T; }

double utilisation(double tokens_per_s, double flops_per_token, double devices, double peak_flops) {
  return tokens_per_s * flops_per_token / (devices * peak_flops);
}

}  // namespace perfcast::models
