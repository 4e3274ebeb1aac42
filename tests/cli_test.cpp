// End-to-end: the perfcast binary's output and exit codes (0 ok, 1 usage, 2 bad input).
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct Run {
  int code;
  std::string out;  // stdout
  std::string err;  // stderr
};

Run run(const std::string& args) {
  std::string err_file = (std::filesystem::temp_directory_path() /
                          ("perfcast-cli-test-stderr-" + std::to_string(getpid()) + ".txt")).string();
  std::string command = std::string(PERFCAST_BINARY) + " " + args + " 2>" + err_file;
  Run r{};
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe);
  std::array<char, 4096> buffer{};
  while (std::size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) r.out.append(buffer.data(), n);
  int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (FILE* f = std::fopen(err_file.c_str(), "r")) {
    while (std::size_t n = fread(buffer.data(), 1, buffer.size(), f)) r.err.append(buffer.data(), n);
    std::fclose(f);
    std::remove(err_file.c_str());
  }
  return r;
}

}  // namespace

TEST_CASE("--version and --help exit 0") {
  Run v = run("--version");
  CHECK(v.code == 0);
  CHECK(v.out.rfind("perfcast 0.", 0) == 0);
  Run h = run("--help");
  CHECK(h.code == 0);
  CHECK(h.out.find("hw") != std::string::npos);
  CHECK(run("hw show --help").code == 0);
}

TEST_CASE("hw show h100-sxm --format json: dense BF16, HBM bandwidth, capacity basis, sources") {
  Run r = run("hw show h100-sxm --format json");
  REQUIRE(r.code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["peak_dense"]["bf16"]["value"].get<double>() == doctest::Approx(989.4e12));
  CHECK(j["memory"]["bandwidth"]["value"].get<double>() == doctest::Approx(3.35e12));
  CHECK(j["memory"]["usable_capacity"]["value"].get<double>() == doctest::Approx(81559.0 * 1048576));
  CHECK(j["memory"]["capacity"]["source"].contains("url"));
  CHECK(j["memory"]["capacity"]["basis"] == "marketing");
  CHECK(j["memory"]["usable_capacity"]["basis"] == "usable");
}

TEST_CASE("hw list --format json lists every item, every figure with a source") {
  Run r = run("hw list --format json");
  REQUIRE(r.code == 0);
  nlohmann::json items = nlohmann::json::parse(r.out);
  CHECK(items.size() > 90);
  std::size_t figures = 0;
  // Figures are objects holding "value"; each must carry a "source" with a title.
  auto walk = [&](auto& self, const nlohmann::json& node) -> void {
    if (!node.is_object() && !node.is_array()) return;
    if (node.is_object() && node.contains("value")) {
      ++figures;
      CHECK(node.contains("source"));
      CHECK(node["source"].contains("title"));
      return;
    }
    for (const auto& child : node) self(self, child);
  };
  for (const auto& item : items) {
    nlohmann::json body = item;
    body.erase("sources");
    walk(walk, body);
  }
  CHECK(figures > 500);
  Run kind = run("hw list --kind region --format csv");
  CHECK(kind.code == 0);
  CHECK(kind.out.find("region,us-iowa,grid_intensity,") != std::string::npos);
  CHECK(kind.out.find("accelerator,") == std::string::npos);
}

TEST_CASE("bad input: one line on stderr and exit 2") {
  Run unknown = run("hw show h100");
  CHECK(unknown.code == 2);
  CHECK(unknown.err == "perfcast: error: no hardware named 'h100' (did you mean 'h200'?) (perfcast hw list shows them all)\n");
  Run missing_db = run("--db /nonexistent/db hw list");
  CHECK(missing_db.code == 2);
  CHECK(missing_db.err ==
        "perfcast: error: /nonexistent/db: hardware database directory not found (set --db or PERFCAST_HARDWARE_DB)\n");
  Run bad_file = run(std::string("hw check ") + PERFCAST_TEST_DATA + "/bad/accelerators/negative-bandwidth.toml");
  CHECK(bad_file.code == 2);
  CHECK(bad_file.err.find("memory.bandwidth: must be positive, got -3.35 TB/s\n") != std::string::npos);
  CHECK(bad_file.out.empty());
  Run good_file = run(std::string("hw check ") + PERFCAST_TEST_DATA + "/good/accelerators/test-gpu.toml");
  CHECK(good_file.code == 0);
}

TEST_CASE("usage errors exit 1") {
  CHECK(run("hw list --format xml").code == 1);
  CHECK(run("frobnicate").code == 1);
  CHECK(run("").code == 1);
  CHECK(run("hw show").code == 1);
}
