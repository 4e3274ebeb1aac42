#include "engine/ingest/nccl_tests.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <set>
#include <sstream>

#include "engine/core/errors.hpp"
#include "engine/ingest/text_fields.hpp"

namespace perfcast {
namespace {

// nccl-tests binaries and the collective each runs (nccl-tests README, "Tests").
constexpr std::pair<std::string_view, models::Collective> kBinaries[] = {
    {"all_reduce_perf", models::Collective::all_reduce},   {"all_gather_perf", models::Collective::all_gather},
    {"reduce_scatter_perf", models::Collective::reduce_scatter}, {"alltoall_perf", models::Collective::all_to_all},
    {"sendrecv_perf", models::Collective::send_recv},      {"broadcast_perf", models::Collective::broadcast},
    {"reduce_perf", models::Collective::reduce},
};

std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::optional<models::Collective> collective_named_in(std::string_view text) {
  // reduce_perf is a suffix of all_reduce_perf and reduce_scatter_perf...: take the longest name found.
  std::optional<models::Collective> found;
  std::size_t longest = 0;
  for (const auto& [name, op] : kBinaries)
    if (text.find(name) != std::string_view::npos && name.size() > longest) found = op, longest = name.size();
  return found;
}

// "... NCCL_ALGO set by environment to NVLS": the algorithm when the value names exactly one, with
// or without a "function:" prefix.
std::optional<models::CollectiveAlgorithm> algorithm_set_in(std::string_view line) {
  constexpr std::string_view kSet = "NCCL_ALGO set by environment to ";
  const std::size_t at = line.find(kSet);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view value = line.substr(at + kSet.size());
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.remove_suffix(1);
  if (value.find(',') != std::string_view::npos || value.find(';') != std::string_view::npos) return std::nullopt;
  if (const std::size_t colon = value.rfind(':'); colon != std::string_view::npos) value.remove_prefix(colon + 1);
  return models::algorithm_from(value);
}

}  // namespace

NcclTestsRun parse_nccl_tests(std::string_view text, const std::string& file, std::optional<models::Collective> op) {
  NcclTestsRun run;
  run.file = file;
  if (!op) op = collective_named_in(file);
  if (!op) op = collective_named_in(text);
  if (!op)
    throw InputError({file, 0, 0}, "nccl-tests: cannot tell the collective; pass --op or keep the binary's name (all_reduce_perf, ...) "
                                   "in the file name or its command line");
  run.op = *op;

  std::set<std::string> hosts;
  std::vector<std::string> columns;  // the header's names, "size" first
  int line_no = 0;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (auto a = algorithm_set_in(line)) run.algorithm = a;
    const std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    if (w[0] == "#") {
      if (w.size() >= 10 && w[1] == "Rank" && w[3] == "Group") {
        ++run.ranks;
        const auto on = std::find(w.begin(), w.end(), "on");
        if (on != w.end() && on + 1 != w.end()) hosts.insert(*(on + 1));
        const auto dev = std::find(w.begin(), w.end(), "device");
        if (run.device.empty() && dev != w.end() && w.end() - dev > 3) {
          std::string name;
          for (auto it = dev + 3; it != w.end(); ++it) name += (name.empty() ? "" : " ") + *it;
          run.device = name;
        }
      } else if (w.size() >= 5 && w[1] == "size" && w[2] == "count") {
        columns.assign(w.begin() + 1, w.end());
      } else if (w.size() >= 6 && w[1] == "Avg" && w[2] == "bus" && w[3] == "bandwidth") {
        if (auto v = parse_number(w.back())) run.average_busbw_Bps = *v * 1e9;
      }
      continue;
    }
    if (columns.empty()) continue;  // NCCL INFO lines and the like before the table
    if (!parse_number(w[0])) continue;    // text after the table (warnings, "# Out of bounds" has '#')
    if (w.size() != columns.size())
      throw InputError({file, line_no, 1}, fmt::format("nccl-tests: a result row has {} columns, the table's header {}", w.size(), columns.size()));
    NcclTestsRow row;
    row.line = line_no;
    int results = 0;  // time/algbw/busbw/#wrong groups seen: out-of-place, then in-place
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string& c = columns[i];
      auto need = [&](const std::string& value) {
        auto v = parse_number(value);
        if (!v || *v < 0) throw InputError({file, line_no, 1}, fmt::format("nccl-tests: column '{}' is '{}', not a number", c, value));
        return *v;
      };
      NcclTestsResult& r = results == 0 ? row.out_of_place : row.in_place;
      if (c == "size") row.bytes = need(w[i]);
      else if (c == "count") row.count = need(w[i]);
      else if (c == "type") row.type = w[i];
      else if (c == "redop") row.redop = w[i];
      else if (c == "time") r.time_s = need(w[i]) * 1e-6;  // microseconds
      else if (c == "algbw") r.algbw_Bps = need(w[i]) * 1e9;   // GB/s, decimal
      else if (c == "busbw") r.busbw_Bps = need(w[i]) * 1e9;
      else if (c == "#wrong" || c == "error") {
        if (w[i] != "N/A") {
          const double wrong = need(w[i]);
          if (wrong > 1e15)  // beyond any element count a device holds, and beyond a safe cast
            throw InputError({file, line_no, 1}, fmt::format("nccl-tests: column '{}' is '{}', not a count of wrong elements", c, w[i]));
          r.wrong = long(wrong);
        }
        ++results;
      }
    }
    if (row.bytes <= 0) throw InputError({file, line_no, 1}, "nccl-tests: a result row of 0 bytes");
    if (row.bytes > models::kMaxCollectiveBytes || row.bytes != std::floor(row.bytes))
      throw InputError({file, line_no, 1}, fmt::format("nccl-tests: size {:g} is not a whole number of bytes up to 1 TiB", row.bytes));
    if (row.out_of_place.time_s <= 0) throw InputError({file, line_no, 1}, "nccl-tests: a result row with no out-of-place time");
    run.rows.push_back(row);
  }
  if (columns.empty())
    throw InputError({file, 0, 0}, "nccl-tests: no results table (the '#  size  count  type ...' header is missing)");
  if (run.rows.empty()) throw InputError({file, 0, 0}, "nccl-tests: the results table has no rows");
  if (run.ranks == 0) throw InputError({file, 0, 0}, "nccl-tests: no '#  Rank  N Group ...' lines, so the number of GPUs is unknown");
  run.hosts = int(hosts.size());
  return run;
}

}  // namespace perfcast
