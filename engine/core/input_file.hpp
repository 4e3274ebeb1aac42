#pragma once
// Reads an input file (data file, preset, scenario, validation cases) whole, as bytes.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace perfcast {

// The largest input read: far above any scenario, record or case file, and above the benchmark
// logs `perfcast ingest` reads (a Megatron-LM log of 100,000 iterations is about 30 MB).
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t(256) << 20;

// Throws InputError "<file>: cannot open <what>: <why>" when the file is missing, not a regular
// file (a device or FIFO would never end or would block), or larger than kMaxInputFileBytes.
std::string read_input_file(const std::filesystem::path& file, std::string_view what);

// A folder perfcast ships (hardware_db, scenarios/workloads, validation): where the build found it,
// or, when that is gone and perfcast is installed (`cmake --install`), `relative` under the
// install prefix's share/perfcast.
std::filesystem::path shipped_data(const std::filesystem::path& build_tree, std::string_view relative);

}  // namespace perfcast
