#pragma once
// The validation residuals the empirical bands are drawn from (spec/residuals.hpp), as the JSON file
// `perfcast validate --write-residuals` writes: validation/residuals.json ships with the cases, and a
// test fails when it no longer matches what validate scores.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/spec/residuals.hpp"

namespace perfcast {

// InputError naming the file and the key for a file that is not such a table.
ResidualTable load_residual_table(const std::filesystem::path& file);
nlohmann::json residual_table_json(const ResidualTable& t);

// The shipped table (validation/residuals.json), read once; empty when the file is missing, as in an
// install without validation/, so that predictions then carry no band rather than fail.
const ResidualTable& shipped_residuals();
std::filesystem::path shipped_residuals_file();

}  // namespace perfcast
