// libFuzzer driver for one target, chosen at build time (PERFCAST_FUZZ_TARGET, CMakeLists.txt).
// With PERFCAST_FUZZ_WRITE_SEEDS=<dir> in the environment it copies the target's seed files there
// and exits, so that the corpus starts from the files the target's own list names.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "tests/fuzz/fuzz_targets.hpp"
#include "tests/fuzz/seed_files.hpp"

namespace {

const perfcast::fuzz::Target& target() {
  static const perfcast::fuzz::Target* t = perfcast::fuzz::find_target(PERFCAST_FUZZ_TARGET);
  return *t;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("PERFCAST_FUZZ_WRITE_SEEDS")) {
    std::filesystem::create_directories(dir);
    int n = 0;
    for (const auto& f : perfcast::fuzz::seed_files(target(), PERFCAST_SOURCE_DIR))
      std::filesystem::copy_file(f, std::filesystem::path(dir) / ("seed-" + std::to_string(n++) + "-" + f.filename().string()),
                                 std::filesystem::copy_options::overwrite_existing);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  target().run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
