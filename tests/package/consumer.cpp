// Predicts the installed Llama 3 70B training scenario through the installed perfcast::engine.
#include <fmt/format.h>

#include "engine/data/hardware_db.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/data/workload_reader.hpp"
#include "engine/predict/training.hpp"

int main() {
  using namespace perfcast;
  const HardwareDb db = HardwareDb::load(PERFCAST_DEFAULT_HARDWARE_DB);
  const std::filesystem::path scenarios = default_workloads_dir().parent_path();
  const Scenario s = load_scenario(scenarios / "llama3-70b-h100-training.toml", default_workloads_dir(), db);
  const TrainingPrediction p = predict_training(s, {});
  fmt::print("step {:.3f} s from {}\n", p.step_time_s, PERFCAST_DEFAULT_HARDWARE_DB);
  return p.step_time_s > 0 ? 0 : 1;
}
