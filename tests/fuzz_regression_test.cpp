// The fuzz targets' inputs rerun in the ordinary suite: every seed (the shipped files each reader
// is for) and every input kept from a finding (tests/fuzz/regressions/<target>/) is read or refused
// with an InputError, and what it predicts is finite. The fuzzing itself runs in CI under clang
// (tests/fuzz/README.md).
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "tests/fuzz/fuzz_targets.hpp"
#include "tests/fuzz/seed_files.hpp"

using namespace perfcast::fuzz;

namespace {

std::string contents(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("every fuzz target has seeds, and its seeds and kept findings pass") {
  // CMakeLists.txt builds one fuzz_<name> driver per name in its list: the same names, in order.
  std::string names;
  for (const Target& t : targets()) names += (names.empty() ? "" : ",") + std::string(t.name);
  REQUIRE(names == PERFCAST_FUZZ_TARGET_NAMES);
  for (const Target& t : targets()) {
    CAPTURE(t.name);
    const auto seeds = seed_files(t, PERFCAST_SOURCE_DIR);
    CHECK_FALSE(seeds.empty());
    for (const auto& files : {seeds, regression_files(t, PERFCAST_SOURCE_DIR)})
      for (const auto& f : files) {
        CAPTURE(f.string());
        CHECK_NOTHROW(t.run(contents(f)));
      }
  }
}
