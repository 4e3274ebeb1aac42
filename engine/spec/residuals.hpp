#pragma once
// What a validated case shares with a question, and the validation residuals the empirical bands
// (engine/calibrate/empirical_bands, F-UNC-2) are drawn from. Plain values; the table is written by
// `perfcast validate --write-residuals` and read by engine/data/residual_table.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast {

// The features a band narrows on, most telling first. An empty value: the case does not say.
inline constexpr std::array<std::string_view, 8> kBandFeatureNames{"kind",     "figure",   "stack", "vendor",
                                                                   "settings", "precision", "model", "scale"};
struct BandFeatures {
  // kind: training, inference, serving, gemm, collective, ...; figure: step, throughput, ttft, tpot,
  // e2e, latency (or the kind itself); stack: the training stack's family (its dated releases
  // with it) or the serving engine ("unstated");
  // vendor; settings (serving): "engine flags set" or "engine defaults"; precision: the weights' or
  // the training's; model: dense or moe; scale: devices in one of 1, 2-8, 9-64, 65-512, 513+.
  std::array<std::string, kBandFeatureNames.size()> values;
  const std::string& kind() const { return values[0]; }
};

// One held-out case's residual: slowness = ln(how much longer reality took than predicted), i.e.
// ln(measured / predicted) for a time and ln(predicted / measured) for a rate.
struct Residual {
  std::string id;
  std::string source;  // its publisher (engine/calibrate/empirical_bands source_group)
  BandFeatures features;
  double slowness = 0;
};

struct ResidualTable {
  std::string generated;   // what wrote it (validate's command and what it scored)
  std::vector<Residual> cases;
};

}  // namespace perfcast
