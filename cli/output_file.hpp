#pragma once
// Writing a command's output file (an --svg chart, a report, a profile), and reading back a shard it wrote.
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast::cli {

// An output file opened before the command's work, so a path that cannot be written is refused at
// once: a regular file is written through a temporary beside it, renamed over it once every byte is
// written and checked (a failed write leaves the old file whole); a device or pipe (/dev/stdout,
// /dev/full, a FIFO) is written in place. Errors are InputError "<path>: cannot write the <what>...";
// a path that is empty or one of the command's `inputs` is refused. Not committed: the temporary is removed.
class OutputFile {
 public:
  OutputFile(std::string path, std::string_view what, const std::vector<std::string>& inputs = {});
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();
  void commit(std::string_view content);

 private:
  std::string path_, what_, target_;
  bool in_place_ = false, committed_ = false;
  std::ofstream out_;
};

// OutputFile(path, what, inputs).commit(content).
void write_output_file(const std::string& path, std::string_view content, std::string_view what,
                       const std::vector<std::string>& inputs = {});

// The JSON of a shard file (`what`: "sweep shard"); InputError "<path>: not JSON: <hint>" otherwise.
nlohmann::json read_shard_json(const std::string& path, std::string_view what, std::string_view hint);

}  // namespace perfcast::cli
