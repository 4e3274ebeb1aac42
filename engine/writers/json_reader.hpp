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
  // The figures of a row perfcast wrote (a plan's or a sweep's, nested tables included): none is
  // negative but a band's slowness (slowness_p10/p50/p90, ln of measured over predicted), and a
  // utilization (mfu) is at most 1, and a row has a device and a replica or more; `where` names the
  // row in the message.
  void check_figures(const nlohmann::json& row, std::string_view where) const {
    if (!row.is_object()) fail(fmt::format("{} is not an object", where));
    for (const auto& [key, v] : row.items()) {
      if (v.is_object()) check_figures(v, where);
      if (!v.is_number() || key.starts_with("slowness_")) continue;
      const double x = v.get<double>();
      if (x < 0) fail(fmt::format("{}: '{}' is {:g}; no figure perfcast writes is negative", where, key, x));
      if (key == "mfu" && x > 1) fail(fmt::format("{}: 'mfu' is {:g}; a utilization is at most 1", where, x));
      if ((key == "devices" || key == "replicas" || key == "replica_devices") && x < 1)
        fail(fmt::format("{}: '{}' is {:g}; a row runs on one device or more", where, key, x));
    }
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
