#pragma once
// The fields of a plan's row, declared once: each one's key, unit and meaning, how it is written to
// JSON and CSV, and how `plan-merge` reads it back. The plan writers, the plan reader and
// `perfcast fields plan` all read these tables. A row's layout columns are the sweep's
// (sweep_columns), so a plan and a sweep write a layout alike.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/sweep/plan.hpp"
#include "engine/sweep/serving_plan.hpp"

namespace perfcast {

template <class Row>
struct PlanColumn {
  std::string key, unit, description;
  std::function<nlohmann::json(const Row&)> get;
  // Sets the field from its JSON value; throws nlohmann::json::exception on a wrong type and
  // std::out_of_range on an unknown name. Empty: derived from other fields, not read back.
  std::function<void(Row&, const nlohmann::json&)> set;
};

const std::vector<PlanColumn<PlanRow>>& training_plan_columns();
const std::vector<PlanColumn<ServingPlanRow>>& serving_plan_columns();

// The row as a JSON object of its columns.
template <class Row>
nlohmann::json plan_row_json(const std::vector<PlanColumn<Row>>& columns, const Row& row) {
  nlohmann::json j = nlohmann::json::object();
  for (const PlanColumn<Row>& c : columns) j[c.key] = c.get(row);
  return j;
}

}  // namespace perfcast
