#pragma once
// A data file as read against its schema: every value with its position, and every figure with the
// source it cites. Typed specs (engine/spec/hardware.hpp) are built from records (hardware_records); `hw show` prints them.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/errors.hpp"
#include "engine/data/schema/field.hpp"
#include "engine/core/units.hpp"

namespace perfcast {

struct Source {
  std::string id;
  std::string title;
  std::string locator;  // table, section, page
  std::string url;
  std::string date;
  std::string kind;     // datasheet, whitepaper, paper, code, dataset, derived, ...
  std::string via;      // how it was read, when not from the primary document itself
  FilePosition where;
};

struct Entry {
  std::string path;                 // "memory.bandwidth", "power_modes[1].power"
  const schema::Field* field = nullptr;
  double number = 0;                // figures, SI (link bandwidths per direction)
  std::string text;                 // text/choice/reference/date; a quantity as written
  bool flag = false;
  std::vector<std::string> list;
  units::Direction direction = units::Direction::unstated;
  int source = -1;                  // index into Record::sources for figures
  std::string note;
  FilePosition where;
};

class Record {
 public:
  schema::Kind kind{};
  std::string name;
  std::string file;
  std::vector<Source> sources;
  std::vector<Entry> entries;  // in schema order

  const Entry* find(std::string_view path) const;
  std::optional<double> number(std::string_view path) const;
  std::string text(std::string_view path) const;  // "" when absent
  bool flag(std::string_view path) const;
  std::size_t array_size(std::string_view key) const;  // elements of a [[key]] array
  const Source* source_of(const Entry& e) const;

  // An InputError at an entry's position, naming the entry: "file:l:c: path: message".
  InputError error(const Entry& e, std::string_view message) const;
  InputError error(std::string_view message) const;  // at the top of the file
};

}  // namespace perfcast
