#pragma once
// Typed errors thrown by the engine. Only cli/ turns them into a message and an exit code.
#include <stdexcept>
#include <string>

namespace perfcast {

// A position in an input file; line and column are 1-based, 0 when unknown.
struct FilePosition {
  std::string file;
  int line = 0;
  int column = 0;
};

// Bad user input: a data file, a scenario or a name that does not exist.
// what() is one line: "file:line:column: message" (the position parts that are known).
class InputError : public std::runtime_error {
 public:
  InputError(FilePosition where, std::string message);
  const FilePosition& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  FilePosition where_;
  std::string message_;
};

// A unit string that cannot be parsed or has the wrong dimension. The loader adds file and key.
class UnitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace perfcast
