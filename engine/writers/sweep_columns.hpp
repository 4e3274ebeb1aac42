#pragma once
// The columns of a sweep row, declared once: each one's key, unit and meaning, how the table shows
// it, and how it is written to JSON and CSV and read back by `sweep-merge`. The sweep writers and
// `perfcast fields sweep` both read these tables.
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

#include "engine/sweep/inference_sweep.hpp"
#include "engine/sweep/training_sweep.hpp"

namespace perfcast {

// When a figure is known: always, only when the scenario sets a token budget, or only with cost.
enum class Known { always, job, economics };

template <class Figures>
struct FigureColumn {
  std::string_view key;          // JSON key under "figures" and CSV column
  std::string_view unit;
  std::string_view description;
  double Figures::*member;
  Known known = Known::always;
  std::string_view heading;      // the table's column; "" when the table leaves it out
  std::string (*text)(double) = nullptr;
};

template <class Layout>
struct LayoutColumn {
  std::string_view key;          // JSON key under "layout"
  std::string_view csv_key;      // CSV column ("" = key)
  std::string_view unit;
  std::string_view description;
  nlohmann::json (*get)(const Layout&);
  // Sets the column from its JSON value (sweep-merge); throws nlohmann::json::exception on a wrong
  // type and std::out_of_range on an unknown name. nullptr: derived, not read back.
  void (*set)(Layout&, const nlohmann::json&) = nullptr;
};

std::span<const FigureColumn<SweepFigures>> training_figure_columns();
std::span<const LayoutColumn<SweepLayout>> training_layout_columns();
std::span<const FigureColumn<ServeFigures>> serving_figure_columns();
std::span<const LayoutColumn<ServeLayout>> serving_layout_columns();

inline bool known(Known k, bool job, bool economics) {
  return k == Known::always || (k == Known::job && job) || (k == Known::economics && economics);
}

// What makes a layout read back from a file one no search writes ("" when none): a parallel
// degree below 1 or above the devices, tp·cp·pp not dividing the devices, a ZeRO stage outside
// 0–3, a negative or non-finite micro-batch. The writers divide by these degrees.
std::string layout_fault(const SweepLayout& l);
std::string layout_fault(const ServeLayout& l);

// The precision a column's JSON value names (a setter's helper); std::out_of_range for an unknown name.
Precision precision_named(const nlohmann::json& v);

// A JSON scalar as a CSV cell: strings quoted where needed, numbers as the shortest exact text.
std::string csv_cell(const nlohmann::json& v);

}  // namespace perfcast
