// The house rules engine/README.md states, checked on the sources: includes flow one way between
// engine/'s folders, models/ stands alone, predictions and sweeps never see the database, and no
// source file sits at engine/'s root.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// Each folder's level: a file may include from its own folder and from folders of a lower level.
const std::map<std::string, int> kLevel = {{"core", 0},     {"spec", 1},     {"layout", 2},    {"data", 3},
                                           {"predict", 4},  {"sweep", 5},    {"validate", 5},  {"calibrate", 6},
                                           {"ingest", 6},   {"writers", 7},   {"api", 8}};

std::string text_of(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> includes_of(const fs::path& file) {
  const std::string s = text_of(file);
  static const std::regex include(R"re(#include "([^"]+)")re");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), include); it != std::sregex_iterator(); ++it) out.push_back((*it)[1]);
  return out;
}

bool is_source(const fs::path& p) { return p.extension() == ".cpp" || p.extension() == ".hpp"; }

// The folder under engine/ an include names ("engine/predict/memory.hpp" → "predict"), or "".
std::string engine_folder(const std::string& include) {
  if (include.rfind("engine/", 0) != 0) return {};
  const auto slash = include.find('/', 7);
  return slash == std::string::npos ? std::string{} : include.substr(7, slash - 7);
}

}  // namespace

TEST_CASE("engine/ folders include only downward and models/ includes nothing from engine/") {
  const fs::path root = PERFCAST_SOURCE_DIR;
  std::vector<std::string> problems;
  int files = 0;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / "engine")) {
    if (!e.is_regular_file() || !is_source(e.path())) continue;
    const fs::path rel = fs::relative(e.path(), root / "engine");
    if (rel.begin() == rel.end() || std::next(rel.begin()) == rel.end()) {
      problems.push_back("engine/" + rel.string() + ": a source file at engine/'s root");
      continue;
    }
    const std::string own = rel.begin()->string();
    if (!kLevel.count(own)) {
      problems.push_back("engine/" + rel.string() + ": folder '" + own + "' has no level in this test");
      continue;
    }
    ++files;
    for (const std::string& inc : includes_of(e.path())) {
      const std::string target = engine_folder(inc);
      if (target.empty() || target == own) continue;
      if (!kLevel.count(target) || kLevel.at(target) >= kLevel.at(own))
        problems.push_back("engine/" + rel.string() + " includes " + inc + " (" + own + " may not include from " + target + ")");
      if ((own == "predict" || own == "sweep") && target == "data")
        problems.push_back("engine/" + rel.string() + " includes " + inc + " (predictions and sweeps never see the database)");
    }
  }
  for (const fs::directory_entry& e : fs::directory_iterator(root / "models")) {
    if (!is_source(e.path())) continue;
    ++files;
    for (const std::string& inc : includes_of(e.path()))
      if (inc.rfind("models/", 0) != 0) problems.push_back("models/" + e.path().filename().string() + " includes " + inc);
  }
  CHECK(files > 100);
  for (const std::string& p : problems) CAPTURE(p);
  std::string all;
  for (const std::string& p : problems) all += p + "\n";
  CHECK_MESSAGE(problems.empty(), all);
}

TEST_CASE("the include rule catches an include that runs back up") {
  CHECK(engine_folder("engine/data/hardware_db.hpp") == "data");
  CHECK(engine_folder("models/roofline.hpp").empty());
  CHECK(kLevel.at("predict") < kLevel.at("writers"));
  CHECK(kLevel.at("data") < kLevel.at("predict"));
}

TEST_CASE("every formula id the code cites is defined in docs/models.md") {
  const fs::path root = PERFCAST_SOURCE_DIR;
  std::ifstream doc_in(root / "docs" / "models.md");
  REQUIRE(doc_in);
  std::stringstream doc_text;
  doc_text << doc_in.rdbuf();
  const std::string doc = doc_text.str();
  // "F-COLL-3", "F-PIPE-1..3" (each id of the range), worked examples "E7"
  static const std::regex cited(R"re(\b(F-[A-Z]+-)(\d+)(?:\.\.(\d+))?\b|\b(E\d{1,2})\b)re");
  std::set<std::string> ids;
  for (const char* dir : {"engine", "models", "cli"})
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / dir)) {
      if (!is_source(e.path())) continue;
      const std::string s = text_of(e.path());
      for (auto it = std::sregex_iterator(s.begin(), s.end(), cited); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        if (m[4].matched) {
          ids.insert(m[4]);
          continue;
        }
        const int first = std::stoi(m[2]), last = m[3].matched ? std::stoi(m[3]) : first;
        for (int i = first; i <= last; ++i) ids.insert(m[1].str() + std::to_string(i));
      }
    }
  CHECK(ids.size() >= 50);  // the scanner finds the citations at all
  for (const std::string& id : ids) CHECK_MESSAGE(doc.find("### " + id + " ") != std::string::npos, id, " is cited in the code but not defined in docs/models.md");
}

TEST_CASE("no test case's name holds a semicolon, which CTest's discovery cuts into a name that runs no test") {
  // doctest_discover_tests passes each name through a CMake list, where ';' separates items: the
  // truncated name matches no test case, and CTest reports the empty run as passed.
  const fs::path root = PERFCAST_SOURCE_DIR;
  static const std::regex test_case(R"re(TEST_CASE\("((?:[^"\\]|\\.)*)")re");
  int names = 0;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / "tests")) {
    if (!is_source(e.path())) continue;
    const std::string s = text_of(e.path());
    for (auto it = std::sregex_iterator(s.begin(), s.end(), test_case); it != std::sregex_iterator(); ++it) {
      ++names;
      CHECK_MESSAGE((*it)[1].str().find(';') == std::string::npos, e.path().filename().string(), ": ", (*it)[1].str());
    }
  }
  CHECK(names >= 300);  // the scanner finds the test cases at all
}
