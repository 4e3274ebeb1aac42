#pragma once
// A workload: a transformer or a vision op list, with the published figures its preset cites.
#include <optional>
#include <string>
#include <variant>

#include "models/precision.hpp"
#include "models/transformer.hpp"
#include "models/vision.hpp"

namespace perfcast {

struct WorkloadSource {
  std::string title, url, locator, date;
};

struct Workload {
  std::string name, display_name, file;
  WorkloadSource source;
  std::variant<models::TransformerSpec, models::VisionModel> model;
  std::optional<double> published_parameters, published_active_parameters, published_macs;
  double published_resolution = 0;  // unit of the published figures' last digit (1e8 for "70.6B")
  // Parameters the published total counts but the preset does not model (a vision encoder),
  // counted by hand in the preset's note; the total is checked as counted + these.
  double published_not_modelled = 0;
  int input_resolution = 0;  // vision
  // How the checkpoint stores its weights (a Hugging Face quantization_config): inference's
  // weight_dtype unless the scenario gives one.
  std::optional<Precision> stored_weight_dtype;
  // Where it quantises only the routed experts (gpt-oss's mxfp4): their format, inference's
  // expert_weight_dtype unless the scenario gives one; the rest stays as the model's own dtype.
  std::optional<Precision> stored_expert_weight_dtype;
  Fp4Blocks stored_fp4_blocks = Fp4Blocks::nvfp4;  // the block scales of its 4-bit float weights
  std::string stored_weight_note;
  bool stores_quantised() const { return stored_weight_dtype || stored_expert_weight_dtype; }

  // What outputs call the model: its display name, else its name.
  const std::string& label() const { return display_name.empty() ? name : display_name; }
  bool is_transformer() const { return std::holds_alternative<models::TransformerSpec>(model); }
  const models::TransformerSpec& transformer() const { return std::get<models::TransformerSpec>(model); }
  const models::VisionModel& vision() const { return std::get<models::VisionModel>(model); }
};

}  // namespace perfcast
