#pragma once
// Runs the perfcast binary the build made: exit code, stdout and stderr.
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace perfcast::test {

struct Run {
  int code;
  std::string out;  // stdout
  std::string err;  // stderr
};

inline Run run(const std::string& args) {
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

}  // namespace perfcast::test
