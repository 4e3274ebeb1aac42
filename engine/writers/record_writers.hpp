#pragma once
// Writers for hardware records: `hw show` (one item, every figure with its source) and `hw list`.
// One walk over Record::entries feeds the table, JSON and CSV forms, so they cannot drift.
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "engine/data/record.hpp"

namespace perfcast {

// {"name", "kind", ..., "memory": {"bandwidth": {"value": 3.35e12, "unit": "B/s", "as_written": ...,
//  "description": ..., "source": {"title", "locator", "url", "date", "kind"}}}, "sources": {...}}
nlohmann::json record_to_json(const Record& r);

// Every entry of one record as a table: key, value as written, SI value, source.
std::string record_to_table(const Record& r);

// Long-format CSV: one row per figure or attribute of every record.
std::string records_to_csv(std::span<const Record* const> records);

// One line per item with the figures that matter most for its kind.
std::string records_summary_table(std::span<const Record* const> records);

}  // namespace perfcast
