#pragma once
// Reading back what perfcast wrote as JSON (sweep and plan shards): each wrong or missing key is an
// InputError naming the file, what the file should have been and the key.
#include <array>
#include <cstddef>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "engine/core/errors.hpp"

namespace perfcast {

struct JsonReader {
  const std::string& file;
  std::string_view expected;  // "not a perfcast sweep shard"

  [[noreturn]] void fail(const std::string& what) const { throw InputError({file, 0, 0}, fmt::format("{}: {}", expected, what)); }
  const nlohmann::json& at(const nlohmann::json& j, const char* key) const {
    if (!j.is_object() || !j.contains(key)) fail(fmt::format("missing '{}'", key));
    return j.at(key);
  }
  template <class T>
  T get(const nlohmann::json& j, const char* key) const {
    try {
      return at(j, key).get<T>();
    } catch (const nlohmann::json::exception&) {
      fail(fmt::format("'{}' has the wrong type", key));
    }
  }
  // A number; null reads as 0.
  double number(const nlohmann::json& j, const char* key) const {
    const nlohmann::json& v = at(j, key);
    if (v.is_null()) return 0;
    if (!v.is_number()) fail(fmt::format("'{}' is not a number", key));
    return v.get<double>();
  }
  template <std::size_t N>
  int index(const nlohmann::json& j, const char* key, const std::array<std::string_view, N>& names) const {
    const std::string v = get<std::string>(j, key);
    for (std::size_t i = 0; i < N; ++i)
      if (names[i] == v) return int(i);
    fail(fmt::format("'{}' = '{}' is unknown", key, v));
  }
  // Sets a field through a column's setter, naming the key when the value is wrong.
  template <class Set, class Target>
  void set(const Set& setter, Target& target, const nlohmann::json& j, const std::string& key) const {
    try {
      setter(target, at(j, key.c_str()));
    } catch (const nlohmann::json::exception&) {
      fail(fmt::format("'{}' has the wrong type", key));
    } catch (const std::out_of_range& e) {
      fail(fmt::format("'{}' = {}", key, e.what()));
    }
  }
};

}  // namespace perfcast
