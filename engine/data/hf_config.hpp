#pragma once
// A Hugging Face `config.json` read as a workload (F-ARCH-1): the architecture fields each supported
// model class defines, HF's own defaults where a field is absent, and `quantization_config` as the
// weights' stored dtype. A local file only. Errors name the file and the field, in one line.
#include <filesystem>
#include <string>
#include <string_view>

#include "engine/spec/workload.hpp"

namespace perfcast {

// Reads `file`; the workload is named after `_name_or_path`, else the file's folder (for a
// config.json) or stem.
Workload read_hf_config(const std::filesystem::path& file);
// The same from text; `label` names the file in messages and gives the default name, unless
// `fallback_name` is given (text that came from no file).
Workload parse_hf_config(std::string_view json_text, const std::string& label, const std::string& fallback_name = "");

}  // namespace perfcast
