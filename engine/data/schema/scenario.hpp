#pragma once
// The scenario file's keys, table by table: type, unit, default, range and help. The same table
// drives the scenario reader (ranges and choices are read from here), `perfcast schema scenario`
// and docs/scenario-format.md, which a test keeps equal to what `schema scenario` writes.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast {
class TomlSection;
}

namespace perfcast::schema {

enum class KeyType { integer, number, flag, text, choice, name, integer_list };

struct ScenarioKey {
  std::string_view key;
  KeyType type = KeyType::text;
  std::string_view unit;           // what the number counts or measures: "tokens", "s", "USD"; "" for none
  std::string_view default_text;   // what applies when the key is absent; "required" when it must be given
  double min = 0;                  // integers and numbers: lower bound, exclusive unless min_inclusive
  bool min_inclusive = true;
  double max = 0;                  // upper bound, inclusive
  std::span<const std::string_view> choices{};  // choice: the accepted values
  std::string_view refers_to;      // name: the hardware_db kind or other list the name comes from
  std::string_view help;
};

struct ScenarioTable {
  std::string_view name;  // "" for the top level, "model.moe" for a sub-table
  std::string_view help;
  std::span<const ScenarioKey> keys;
};

std::span<const ScenarioTable> scenario_tables();
// The key `key` of table `table`; a std::logic_error when the table does not declare it (a reader
// asking for an undeclared key is a programming error the tests catch).
const ScenarioKey& scenario_key(std::string_view table, std::string_view key);

// The tables as markdown (docs/scenario-format.md) and as JSON text.
std::string scenario_schema_markdown();
std::string scenario_schema_json();
// The same document, {"scenario": [tables]}, before it is written out.
nlohmann::json scenario_schema_document();

// Reads one table's keys with the type, range and choices its schema declares.
class KeyReader {
 public:
  KeyReader(TomlSection& section, std::string_view table) : t_(section), table_(table) {}
  std::optional<std::int64_t> integer(std::string_view key);
  std::int64_t require_integer(std::string_view key);
  // A non-empty array of whole numbers, each within the key's range.
  std::optional<std::vector<std::int64_t>> integers(std::string_view key);
  std::optional<double> number(std::string_view key);
  std::optional<bool> flag(std::string_view key);
  std::optional<std::string> text(std::string_view key);  // text and names
  std::optional<std::string> choice(std::string_view key);
  // A choice as its index in the declared choices (the enum order for kRecomputeKeys and kin).
  template <class Enum>
  std::optional<Enum> pick(std::string_view key) {
    auto i = choice_index(key);
    return i ? std::optional<Enum>(static_cast<Enum>(*i)) : std::nullopt;
  }
  TomlSection& section() { return t_; }

 private:
  const ScenarioKey& declared(std::string_view key, KeyType type) const;
  std::optional<std::size_t> choice_index(std::string_view key);
  TomlSection& t_;
  std::string_view table_;
};

}  // namespace perfcast::schema
