#pragma once
// `perfcast compare`: one workload across hardware, ways of paying and regions. Each axis is a
// list of variants; every combination is predicted (training or inference, as the scenario says)
// and ranked on time, cost, energy, CO2e, perf/$ and perf/W.
#include <optional>
#include <string>
#include <vector>

#include "engine/spec/scenario.hpp"


namespace perfcast {

struct CompareRow {
  std::string hardware, cost, region;  // the variants' labels
  std::string accelerator, offer, error;
  std::string offer_note;  // how the offer was chosen, and whether it is spot or community capacity
  int devices = 0;
  bool training = true;
  std::optional<double> wall_s;                 // training: expected wall time as billed
  std::optional<double> tokens_per_s;
  std::optional<double> usd, usd_per_million_tokens, tokens_per_usd;
  std::optional<double> kwh, kwh_per_million_tokens, co2e_kg, co2e_kg_per_million_tokens;
  std::optional<double> tokens_per_s_per_kw;
  bool meets_deadline = true;
  bool hosts_counted = false;  // energy includes hosts, NICs and fans (the system has a node power)
};

struct CompareBest {
  std::string metric;  // "time", "cost", "energy", "co2e", "perf_per_usd", "perf_per_watt"
  int row = -1;        // index into rows; -1 when no row qualifies or the metric is not ranked
  std::string not_ranked;  // why an energy metric is not ranked: rows count energy differently
};

struct CompareReport {
  std::string scenario;
  bool training = true;
  std::optional<double> deadline_s;
  std::vector<CompareRow> rows;
  std::vector<CompareBest> best;  // among rows without error that meet the deadline
};

// Each variant predicted and ranked; a variant whose scenario was refused (engine/data/
// scenario_variants), or that cannot be priced, becomes a row's error. `deadline_s`: training
// rows slower than this miss.
CompareReport compare(const std::vector<ScenarioVariant>& variants, const std::string& scenario_file,
                      std::optional<double> deadline_s);

}  // namespace perfcast
