// The web API of `perfcast serve` (web/api.hpp) without a socket: its answers equal the commands'
// JSON, and every bad request — malformed, oversized, a file path, an unknown key or endpoint — is
// refused with its status and one line. tests/web/ drives the same over HTTP and in a browser.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "engine/api/answers.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/data/workload_reader.hpp"
#include "web/api.hpp"
#include "web/assets.hpp"
#include "web/report.hpp"
#include "web/site.hpp"

using namespace perfcast;
namespace fs = std::filesystem;

namespace {

const web::Site& site() {
  static const web::Site s(fs::path(PERFCAST_SOURCE_DIR) / "hardware_db", fs::path(PERFCAST_SOURCE_DIR) / "scenarios");
  return s;
}

web::Reply post(const std::string& endpoint, const std::string& body) { return web::answer(site(), "POST", "/api/" + endpoint, {}, body); }
web::Reply get(const std::string& path, std::multimap<std::string, std::string> query = {}) { return web::answer(site(), "GET", path, query, ""); }

nlohmann::json preset(const std::string& name) {
  for (const web::Preset& p : site().presets())
    if (p.name == name) return p.scenario;
  FAIL("no preset ", name);
  return {};
}

std::string with_scenario(const nlohmann::json& scenario, nlohmann::json options = nlohmann::json::object()) {
  options["scenario"] = scenario;
  return options.dump();
}

// A refusal: its status, and its body one JSON line {"error": "..."} containing `words`.
void refused(const web::Reply& r, int status, const std::string& words) {
  CHECK(r.status == status);
  CHECK(r.body.find('\n') == std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(r.body);
  REQUIRE(j.contains("error"));
  CHECK_MESSAGE(j["error"].get<std::string>().find(words) != std::string::npos, j["error"].get<std::string>());
}

Scenario shipped(const std::string& name) {
  return load_scenario(fs::path(PERFCAST_SOURCE_DIR) / "scenarios" / (name + ".toml"), default_workloads_dir(), site().db());
}

}  // namespace

TEST_CASE("web API: every shipped scenario is a preset, and a preset predicts what the file predicts") {
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(fs::path(PERFCAST_SOURCE_DIR) / "scenarios")) files += e.path().extension() == ".toml";
  CHECK(site().presets().size() == files);
  const nlohmann::json s = nlohmann::json::parse(get("/api/site").body);
  CHECK(s["presets"].size() == files);
  CHECK(s["names"]["hardware_db system"].size() > 5);
  CHECK(s["schema"].size() > 10);

  for (const std::string name : {"llama3-70b-h100-training", "llama3-70b-h100-serving", "mixtral-8x7b-2xh100"}) {
    CAPTURE(name);
    const web::Reply r = post("predict", with_scenario(preset(name)));
    REQUIRE(r.status == 200);
    const nlohmann::json expected = api::to_json(api::predict(shipped(name), {}));
    nlohmann::json got = nlohmann::json::parse(r.body);
    // The scenario's name is the same; only where a file name would stand does the request say <request>.
    CHECK(got["scenario"]["name"] == expected["scenario"]["name"]);
    CHECK(got == expected);
    CHECK(nlohmann::json::parse(post("memory", with_scenario(preset(name))).body) == api::memory(shipped(name)));
    CHECK(nlohmann::json::parse(post("roofline", with_scenario(preset(name))).body) == api::roofline(shipped(name)));
  }
}

TEST_CASE("web API: a field turned changes the answer, capacity, sweep and compare answer as the commands do") {
  nlohmann::json s = preset("llama3-70b-h100-training");
  const double tp4 = nlohmann::json::parse(post("predict", with_scenario(s)).body)["training"]["step_time_s"];
  s["parallelism"]["tp"] = 8;
  const double tp8 = nlohmann::json::parse(post("predict", with_scenario(s)).body)["training"]["step_time_s"];
  CHECK(tp8 != doctest::Approx(tp4));

  const nlohmann::json serving = preset("llama3-70b-h100-serving");
  const web::Reply c = post("capacity", with_scenario(serving, {{"rate", 20.0}}));
  REQUIRE(c.status == 200);
  CapacityRequest rate;
  rate.rate = 20.0;
  CHECK(nlohmann::json::parse(c.body) == api::capacity(shipped("llama3-70b-h100-serving"), rate));

  const web::Reply sw = post("sweep", with_scenario(preset("llama3-70b-h100-training"), {{"pareto", {"step_time", "memory"}}, {"top", 3}}));
  REQUIRE(sw.status == 200);
  const nlohmann::json sweep = nlohmann::json::parse(sw.body)["sweep"];
  CHECK(sweep["best"].size() == 3);
  CHECK(!sweep["pareto_front"].empty());

  const web::Reply cmp = post("compare", with_scenario(preset("llama3-70b-h100-training"), {{"hardware", {"system=dgx-b200,nodes=8", "system=dgx-h100,nodes=8"}}}));
  REQUIRE(cmp.status == 200);
  CHECK(nlohmann::json::parse(cmp.body)["rows"].size() == 2);

  CHECK(nlohmann::json::parse(get("/api/hw/h100-sxm").body) == api::hw_show(site().db(), "h100-sxm"));
  CHECK(nlohmann::json::parse(get("/api/hw", {{"kind", "system"}}).body) == api::hw_list(api::hw_records(site().db(), "system")));
  CHECK(nlohmann::json::parse(get("/api/validate", {{"kind", "training"}}).body)["summary"]["held_out"].get<int>() > 50);
}

TEST_CASE("web API: a pasted config.json is the model, a config's path is refused") {
  std::ifstream in(fs::path(PERFCAST_TEST_DATA) / "hf" / "llama-3.1-8b" / "config.json");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json s = preset("llama3-70b-h100-serving");
  s["model"] = {{"hf_config", nlohmann::json::parse(text.str())}};
  const web::Reply r = post("predict", with_scenario(s));
  REQUIRE(r.status == 200);
  CHECK(nlohmann::json::parse(r.body)["inference"]["decode_step_s"].get<double>() > 0);

  s["model"] = {{"hf_config", "../tests/data/hf/llama-3.1-8b/config.json"}};
  refused(post("predict", with_scenario(s)), 400, "model.hf_config: a file path is not accepted here");
  s["model"] = {{"hf_config", {{"hidden_size", 4096}}}};
  refused(post("predict", with_scenario(s)), 400, "<request>: model.hf_config");
  refused(post("compare", with_scenario(preset("llama3-70b-h100-serving"), {{"hardware", {"model.hf_config=/etc/passwd"}}})), 400,
          "may not set model.hf_config");
}

TEST_CASE("web API: bad requests are refused with their status and one line") {
  const nlohmann::json s = preset("llama3-70b-h100-training");
  refused(post("predict", "{\"scenario\": "), 400, "not valid JSON");
  refused(post("predict", "[1, 2]"), 400, "give a JSON object");
  refused(post("predict", ""), 400, "not valid JSON");
  refused(post("predict", "{}"), 400, "scenario: missing");
  refused(post("predict", with_scenario(s, {{"uncertainty", "yes"}})), 400, "uncertainty: give true or false");
  refused(post("predict", with_scenario(s, {{"calibration", "/etc/passwd"}})), 400, "unknown key 'calibration'");
  refused(post("capacity", with_scenario(preset("llama3-70b-h100-serving"), {{"rate", -1}})), 400, "rate: give a number above 0");
  refused(post("capacity", with_scenario(preset("llama3-70b-h100-serving"), {{"rate", 1e300}})), 400, "rate:");
  refused(post("sweep", with_scenario(s, {{"devices", {0}}})), 400, "devices: give whole numbers");
  refused(post("sweep", with_scenario(s, {{"devices", {600000, 600000}}})), 400, "devices: at most 1000000 summed");
  refused(post("memory", with_scenario(s, {{"order", "tp-dp"}})), 400, "unknown key 'order'");

  nlohmann::json bad = s;
  bad["parallelism"]["tp"] = 3;
  refused(post("predict", with_scenario(bad)), 400, "<request>");
  bad = s;
  bad["parallelism"]["tpp"] = 2;
  refused(post("predict", with_scenario(bad)), 400, "tpp");
  bad = s;
  bad["model"]["preset"] = "../../hardware_db/accelerators/h100-sxm";  // a name, never a path
  refused(post("predict", with_scenario(bad)), 400, "unknown workload preset");
  bad["model"]["preset"] = std::string(5000, 'E');  // longer than a file name may be
  refused(post("predict", with_scenario(bad)), 400, "unknown workload preset");
  bad = s;
  bad["parallelism"]["tp"] = nullptr;
  refused(post("predict", with_scenario(bad)), 400, "null is not a value");
  bad = s;
  bad["training"]["seq_len"] = std::numeric_limits<double>::quiet_NaN();  // NaN becomes null in JSON
  refused(post("predict", with_scenario(bad)), 400, "training.seq_len");
  refused(post("predict", "{\"scenario\": {\"parallelism\": {\"tp\": 1e400}}}"), 400, "");

  // Nesting far deeper than any scenario, and a body beyond the limit.
  refused(post("predict", "{\"scenario\": " + std::string(100000, '[') + std::string(100000, ']') + "}"), 400, "");
  refused(post("predict", std::string(web::kMaxRequestBytes + 1, ' ')), 413, "at most");

  refused(get("/api/nothing"), 404, "no endpoint /api/nothing");
  refused(get("/api/predict"), 405, "POST");
  refused(post("site", "{}"), 405, "GET");
  refused(get("/api/hw/no-such-device"), 400, "no-such-device");
  refused(get("/api/hw", {{"kind", "toaster"}}), 400, "toaster");
  refused(get("/api/validate", {{"kind", "toaster"}}), 400, "toaster");
}

TEST_CASE("web assets are embedded, and a report is one file that names no outside resource") {
  for (const char* name : {"index.html", "app.js", "charts.js", "report.js", "style.css", "chart.min.js"}) {
    CAPTURE(name);
    const auto a = web::asset(name);
    REQUIRE(a);
    CHECK(a->bytes.size() > 500);
  }
  CHECK(!web::asset("../CMakeLists.txt"));
  CHECK(web::asset("index.html")->content_type.starts_with("text/html"));

  for (const std::string name : {"llama3-70b-h100-training", "llama3-70b-h100-serving"}) {
    CAPTURE(name);
    const std::string html = web::report_html(shipped(name), "scenarios/" + name + ".toml", site().db());
    CHECK(html.find("Chart.js v") != std::string::npos);
    const std::size_t data = html.find("const REPORT = {");
    REQUIRE(data != std::string::npos);
    const std::string line = html.substr(data, html.find('\n', data) - data);
    CHECK(line.find('<') == std::string::npos);  // the data cannot end its <script> element
    CHECK(nlohmann::json::parse(line.substr(std::string("const REPORT = ").size(), line.size() - std::string("const REPORT = ;").size()))
              .contains("prediction"));
    CHECK(html.find("<script src=") == std::string::npos);
    CHECK(html.find("<link") == std::string::npos);
    CHECK(html.find(PERFCAST_SOURCE_DIR) == std::string::npos);  // no path of this machine
  }
}
