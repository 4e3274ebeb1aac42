// Every field a command writes is declared (`perfcast fields`), and docs/scenario-format.md is what
// `perfcast schema scenario` writes. Runs each command over every shipped scenario.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/data/schema/scenario.hpp"
#include "engine/writers/output_fields.hpp"
#include "run_binary.hpp"

namespace fs = std::filesystem;
using perfcast::test::run;

namespace {

void leaf_paths(const nlohmann::json& j, const std::string& path, std::set<std::string>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) leaf_paths(value, path.empty() ? key : path + "." + key, out);
  } else if (j.is_array()) {
    for (const auto& value : j) leaf_paths(value, path + "[]", out);
  } else {
    out.insert(path);
  }
}

std::vector<std::string> undeclared(const std::vector<perfcast::OutputField>& declared, const std::set<std::string>& paths) {
  std::vector<std::string> missing;
  for (const std::string& p : paths) {
    bool found = false;
    for (const perfcast::OutputField& f : declared) found = found || perfcast::path_matches(f.path, p);
    if (!found) missing.push_back(p);
  }
  return missing;
}

std::vector<std::string> csv_header(const std::string& out) {
  std::vector<std::string> columns;
  std::stringstream line(out.substr(0, out.find('\n')));
  for (std::string c; std::getline(line, c, ',');) columns.push_back(c);
  return columns;
}

std::vector<fs::path> shipped_scenarios() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(PERFCAST_SOURCE_DIR) / "scenarios"))
    if (e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Runs `args --format json` and `args --format csv`; checks every key and column is declared.
void check_declared(const std::string& command, const std::string& args, bool with_csv = true) {
  const perfcast::CommandFields* fields = perfcast::fields_of(command);
  REQUIRE(fields);
  const auto json_run = run(command + " " + args + " --format json");
  if (json_run.code != 0 && json_run.code != 4) return;  // a scenario the command does not apply to (its error is tested elsewhere)
  std::set<std::string> paths;
  leaf_paths(nlohmann::json::parse(json_run.out), "", paths);
  const std::vector<std::string> missing = undeclared(fields->json, paths);
  CHECK_MESSAGE(missing.empty(), command, " ", args, ": undeclared JSON fields, first: ", missing.empty() ? "" : missing.front());
  if (!with_csv) return;
  const auto csv_run = run(command + " " + args + " --format csv");
  for (const std::string& column : csv_header(csv_run.out)) {
    bool found = false;
    for (const perfcast::OutputField& f : fields->csv) found = found || f.path == column;
    CHECK_MESSAGE(found, command, " ", args, ": undeclared CSV column '", column, "'");
  }
}

}  // namespace

TEST_CASE("perfcast fields: every JSON key and CSV column of every command over the shipped scenarios is declared") {
  for (const fs::path& s : shipped_scenarios()) {
    const std::string file = s.string();
    for (const char* command : {"predict", "memory", "comm", "roofline", "scaling", "compare"}) check_declared(command, file);
    check_declared("predict", file + " --detail --uncertainty --samples 10", false);
    check_declared("capacity", file + " --rate 10 --ttft-slo 2s --tpot-slo 100ms");
    check_declared("compare", file + " --hardware system=dgx-h200 --cost cloud --cost purchase --region us-virginia");
    check_declared("sweep", file + " --top 3 --pareto time,memory --threads 2 --devices 8");
  }
  check_declared("plan", std::string(PERFCAST_SOURCE_DIR) + "/scenarios/llama3-70b-15t-pretrain.toml --accelerators h100-sxm,b200 --nodes 64:256 --top 5");
  check_declared("plan", std::string(PERFCAST_SOURCE_DIR) + "/scenarios/llama3-70b-h100-serving.toml --rate 50 --accelerators h100-sxm,b200 --top 5");
  check_declared("collective", "--op all_reduce --system dgx-h100 --gpus 16 --sizes 1M:16M:4");
  check_declared("validate", "--kind gemm");
  check_declared("roofline", "--hw h100-sxm --op gemm:M=8192,N=8192,K=8192,dtype=bf16");
  for (const char* model : {"deepseek-v3", "mixtral-8x7b"}) check_declared("model", std::string("show ") + model, false);
  check_declared("model", "show " + std::string(PERFCAST_SOURCE_DIR) + "/tests/data/hf/gpt-oss-120b/config.json", false);
}

TEST_CASE("perfcast fields: declarations have meanings, commands are listed, an unknown command is an error") {
  for (const perfcast::CommandFields& c : perfcast::output_fields()) {
    CHECK(!c.json.empty());
    for (const auto* list : {&c.json, &c.csv})
      for (const perfcast::OutputField& f : *list) CHECK_MESSAGE(!f.description.empty(), c.command, " ", f.path);
  }
  const auto all = run("fields --format json");
  REQUIRE(all.code == 0);
  const auto j = nlohmann::json::parse(all.out);
  CHECK(j["predict"]["json"].size() == perfcast::fields_of("predict")->json.size());
  CHECK(run("fields sweep").out.find("sweep.best[].figures.step_time_s") != std::string::npos);
  const auto bad = run("fields nope");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("'nope' is not a command") != std::string::npos);
  CHECK(perfcast::path_matches("a.*.b", "a.x.y.b"));
  CHECK(perfcast::path_matches("ttft_p*_s", "ttft_p99_s"));
  CHECK_FALSE(perfcast::path_matches("a.b", "a.bc"));
}

TEST_CASE("docs/scenario-format.md is what `perfcast schema scenario` writes") {
  std::ifstream in(fs::path(PERFCAST_SOURCE_DIR) / "docs" / "scenario-format.md");
  REQUIRE(in);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto r = run("schema scenario");
  REQUIRE(r.code == 0);
  CHECK_MESSAGE(doc == r.out, "regenerate: perfcast schema scenario > docs/scenario-format.md");
}

TEST_CASE("scenario schema: an out-of-range value of any numeric key is refused at that key") {
  // One base scenario per table; each numeric key in turn set past its declared maximum.
  const std::string base = R"(schema_version = 1
[model]
preset = "llama3-8b"
[hardware]
accelerator = "h100-sxm"
count = 8
[training]
seq_len = 4096
global_batch = 64
)";
  const std::string tmp = (fs::temp_directory_path() / ("perfcast-schema-" + std::to_string(getpid()) + ".toml")).string();
  int checked = 0;
  for (const perfcast::schema::ScenarioTable& t : perfcast::schema::scenario_tables()) {
    if (t.name != "training" && t.name != "parallelism" && t.name != "reliability") continue;
    for (const perfcast::schema::ScenarioKey& k : t.keys) {
      if (k.type != perfcast::schema::KeyType::number && k.type != perfcast::schema::KeyType::integer) continue;
      const std::string value = k.type == perfcast::schema::KeyType::integer ? std::to_string(std::int64_t(k.max) + 1)
                                                                             : fmt::format("{:.17g}", k.max * 2 + 1);
      std::string text = base;
      const std::string header = "[" + std::string(t.name) + "]\n";
      const std::string line = std::string(k.key) + " = " + value + "\n";
      const auto at = text.find(header);
      if (at == std::string::npos) text += header + line;
      else {
        // replace an existing key of the base, else add it under the header
        const auto key_at = text.find("\n" + std::string(k.key) + " = ", at);
        if (key_at != std::string::npos) text.erase(key_at + 1, text.find('\n', key_at + 1) - key_at);
        text.insert(at + header.size(), line);
      }
      std::ofstream(tmp) << text;
      const auto r = run("predict " + tmp);
      CHECK_MESSAGE(r.code == 2, t.name, ".", k.key, " = ", value);
      CHECK_MESSAGE(r.err.find(std::string(k.key)) != std::string::npos, r.err);
      ++checked;
    }
  }
  std::remove(tmp.c_str());
  CHECK(checked >= 15);
}

TEST_CASE("docs/validation.md is what `perfcast validate --format markdown` writes today") {
  std::ifstream in(fs::path(PERFCAST_SOURCE_DIR) / "docs" / "validation.md");
  REQUIRE(in);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto r = run("validate --format markdown");
  REQUIRE((r.code == 0 || r.code == 4));
  CHECK(r.out.find("## By suite") != std::string::npos);
  CHECK(r.out.find("## By source") != std::string::npos);
  CHECK_MESSAGE(doc == r.out, "regenerate: perfcast validate --format markdown > docs/validation.md");
}
