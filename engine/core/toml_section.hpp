#pragma once
// Strict reading of one TOML table for the plain (unsourced) input files: workload presets,
// scenarios and validation cases. Every getter checks type and range; `finish()` refuses keys that
// were never read, with a "did you mean". Errors are InputErrors at the key: "file:l:c: key: ...".
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "engine/core/errors.hpp"

namespace perfcast {

class TomlSection {
 public:
  // `path` prefixes key names in messages ("model.moe."), "" at the top level.
  TomlSection(const toml::table& table, std::string file, std::string path);

  // Parses a whole file (syntax errors become InputErrors) and keeps the document alive.
  static TomlSection parse(std::string_view content, const std::string& file_label,
                           std::shared_ptr<toml::table>& storage);

  bool has(std::string_view key) const { return table_->contains(key); }
  bool is_string(std::string_view key) const {
    const toml::node* n = table_->get(key);
    return n && n->is_string();
  }
  std::optional<std::int64_t> integer(std::string_view key, std::int64_t min, std::int64_t max);
  std::optional<double> number(std::string_view key, double min, bool min_inclusive, double max);
  std::optional<std::string> string(std::string_view key);
  std::optional<std::string> choice(std::string_view key, std::span<const std::string_view> options);
  // The same choice as its index in `options` (an enum's position when `options` are its names in order).
  std::optional<std::size_t> choice_index(std::string_view key, std::span<const std::string_view> options);
  std::optional<bool> boolean(std::string_view key);
  // An array of `size` whole numbers (any number of them, at least one, when `size` is 0), each within [min, max].
  std::optional<std::vector<std::int64_t>> integers(std::string_view key, std::size_t size, std::int64_t min, std::int64_t max);
  // An array of non-empty strings; an array of finite numbers (`size` of them unless 0).
  std::optional<std::vector<std::string>> strings(std::string_view key);
  std::optional<std::vector<double>> numbers(std::string_view key, std::size_t size);
  std::optional<TomlSection> table(std::string_view key);
  std::vector<TomlSection> table_array(std::string_view key);

  // The same, for keys that must be present.
  std::int64_t require_integer(std::string_view key, std::int64_t min, std::int64_t max);
  double require_number(std::string_view key, double min, bool min_inclusive, double max);
  std::string require_string(std::string_view key);

  // Marks keys as read without reading them (kept for a later stage or a parent).
  void skip(std::string_view key) { used_.emplace_back(key); }
  // Refuses every key of this table that no getter asked for (suggesting the closest asked-for key).
  void finish() const;

  [[noreturn]] void fail(std::string_view key, std::string_view message) const;
  [[noreturn]] void fail_here(std::string_view message) const;
  const std::string& file() const { return file_; }
  // The table itself, for a key whose value is a whole document of another format (an inline config.json).
  const toml::table& raw() const { return *table_; }
  const std::string& path() const { return path_; }
  FilePosition position_of(std::string_view key) const;

 private:
  const toml::node* get(std::string_view key);
  const toml::table* table_;
  std::string file_, path_;
  std::vector<std::string> used_;
};

// "a string", "an integer", ... for messages.
std::string toml_type_name(const toml::node& node);

}  // namespace perfcast
