#pragma once
// The fuzz targets (issue 27): every reader of a file a user hands perfcast, fed arbitrary bytes.
// A target passes an input when it is read or refused with an InputError (one line naming the file
// and key); anything else — another exception, a crash, a sanitizer report, a nan or inf in what a
// read input predicts — is a finding. The libFuzzer drivers (tests/fuzz/fuzz_main.cpp, built with
// -DPERFCAST_FUZZ=ON under clang) and the regression test in the ordinary suite
// (tests/fuzz_regression_test.cpp) call the same functions, so every kept input is rerun by CI.
#include <span>
#include <string_view>
#include <vector>

namespace perfcast::fuzz {

struct Target {
  std::string_view name;                        // fuzz_<name>, tests/fuzz/regressions/<name>/
  std::vector<std::string_view> seed_globs;     // shipped files that seed its corpus, from the source dir
  void (*run)(std::string_view input);          // throws only what is a finding
};

std::span<const Target> targets();
const Target* find_target(std::string_view name);

}  // namespace perfcast::fuzz
