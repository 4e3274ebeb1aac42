#include "web/report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/api/answers.hpp"
#include "engine/core/errors.hpp"
#include "perfcast/version.hpp"
#include "web/assets.hpp"

namespace perfcast::web {
namespace {

std::string embedded(std::string_view name) {
  const std::optional<Asset> a = asset(name);
  if (!a) throw std::logic_error(fmt::format("report: asset {} is not embedded", name));
  return std::string(a->bytes);
}

// JSON inside <script>: every "<" is written \u003c (the same string to JSON and JavaScript), so no
// text of the data can end the element or open a comment in it.
std::string script_json(const nlohmann::json& j) {
  std::string out;
  for (char c : j.dump()) {
    if (c == '<') out += "\\u003c";
    else out += c;
  }
  return out;
}

std::string html_escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

}  // namespace

std::string report_html(const Scenario& s, const std::string& scenario_file, const HardwareDb& db) {
  nlohmann::json data{{"scenario_file", scenario_file}, {"version", version}};
  data["prediction"] = api::to_json(api::predict(s, {}));
  data["roofline"] = api::roofline(s);
  const std::string kind = s.inference ? "inference" : "training";
  // What `validate --kind K --format json` prints, less the case files' paths (this machine's, not the reader's).
  auto validation_of = [&db](const std::string& k) {
    nlohmann::json v = validation_to_json(api::validation_report({.kind = k}, db));
    v.erase("files");
    return v;
  };
  data["validation"] = validation_of(kind);
  if (s.inference) {
    try {
      data["capacity"] = api::capacity(s, {});
      data["serving_validation"] = validation_of("serving");
    } catch (const InputError& e) {
      data["capacity_note"] = fmt::format("no latency against load: {}", e.message());
    }
  }
  data["hardware"] = api::hw_show(db, s.hardware.accelerator);
  if (!s.hardware.system.empty()) data["system"] = api::hw_show(db, s.hardware.system);
  return fmt::format(R"(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>perfcast report: {title}</title>
<style>
{style}
</style>
</head>
<body>
<div class="report" id="report"></div>
<script>
{chart}
</script>
<script>
{charts}
</script>
<script>
const REPORT = {data};
</script>
<script>
{report}
</script>
</body>
</html>
)",
                     fmt::arg("title", html_escaped(s.name)), fmt::arg("style", embedded("style.css")), fmt::arg("chart", embedded("chart.min.js")),
                     fmt::arg("charts", embedded("charts.js")), fmt::arg("data", script_json(data)), fmt::arg("report", embedded("report.js")));
}

}  // namespace perfcast::web
