#pragma once
// The page's files (web/page/, and Chart.js from Debian's libjs-chart.js), embedded in the binary
// at build time (cmake/embed_assets.cmake writes the table): the server and `perfcast report`
// read them from here, never from disk.
#include <optional>
#include <string_view>

namespace perfcast::web {

struct Asset {
  std::string_view name;          // "index.html", "app.js", "chart.min.js"
  std::string_view content_type;
  std::string_view bytes;
};

// The asset of that name, or none.
std::optional<Asset> asset(std::string_view name);

}  // namespace perfcast::web
