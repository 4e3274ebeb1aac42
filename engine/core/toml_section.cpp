#include "engine/core/toml_section.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "engine/core/edit_distance.hpp"

namespace perfcast {
namespace {

FilePosition position(const std::string& file, const toml::source_region& where) {
  return {file, static_cast<int>(where.begin.line), static_cast<int>(where.begin.column)};
}

}  // namespace

std::string toml_type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    default: return "a date/time";
  }
}

TomlSection::TomlSection(const toml::table& table, std::string file, std::string path)
    : table_(&table), file_(std::move(file)), path_(std::move(path)) {}

TomlSection TomlSection::parse(std::string_view content, const std::string& file_label,
                               std::shared_ptr<toml::table>& storage) {
  try {
    storage = std::make_shared<toml::table>(toml::parse(content, file_label));
  } catch (const toml::parse_error& e) {
    throw InputError(position(file_label, e.source()), std::string(e.description()));
  }
  return TomlSection(*storage, file_label, "");
}

FilePosition TomlSection::position_of(std::string_view key) const {
  for (auto&& [k, node] : *table_)
    if (k.str() == key) {
      FilePosition p = position(file_, k.source());
      return p.line ? p : position(file_, node.source());
    }
  return position(file_, table_->source());
}

void TomlSection::fail(std::string_view key, std::string_view message) const {
  throw InputError(position_of(key), fmt::format("{}{}: {}", path_, key, message));
}

void TomlSection::fail_here(std::string_view message) const {
  FilePosition where = position(file_, table_->source());
  if (where.line == 0) where = {file_, 1, 1};
  throw InputError(where, std::string(message));
}

const toml::node* TomlSection::get(std::string_view key) {
  used_.emplace_back(key);
  return table_->get(key);
}

std::optional<std::int64_t> TomlSection::integer(std::string_view key, std::int64_t min, std::int64_t max) {
  const toml::node* node = get(key);
  if (!node) return std::nullopt;
  std::int64_t n;
  if (const auto* i = node->as_integer()) {
    n = i->get();
  } else {
    // 3.0e9 style is accepted when it is a whole number.
    const auto* f = node->as_floating_point();
    double v = f ? f->get() : 0;
    if (!f || std::trunc(v) != v || !std::isfinite(v) || std::fabs(v) > 9e15)
      fail(key, fmt::format("expected a whole number, got {}", f ? fmt::format("{}", v) : toml_type_name(*node)));
    n = static_cast<std::int64_t>(v);
  }
  if (n < min || n > max) fail(key, fmt::format("{} is out of range [{}, {}]", n, min, max));
  return n;
}

std::optional<double> TomlSection::number(std::string_view key, double min, bool min_inclusive, double max) {
  const toml::node* node = get(key);
  if (!node) return std::nullopt;
  double v;
  if (const auto* i = node->as_integer()) v = static_cast<double>(i->get());
  else if (const auto* f = node->as_floating_point()) v = f->get();
  else fail(key, fmt::format("expected a number, got {}", toml_type_name(*node)));
  if (!std::isfinite(v)) fail(key, "must be a finite number (got NaN or infinity)");
  // A subnormal (4.9e-324) is no measurement or setting anyone means, and its reciprocal is infinite.
  if (v != 0 && !std::isnormal(v)) fail(key, fmt::format("{} is a subnormal number, not a usable figure", v));
  bool low = min_inclusive ? v < min : v <= min;
  if (low) fail(key, fmt::format("{} must be {} {}", v, min_inclusive ? ">=" : ">", min));
  if (v > max) fail(key, fmt::format("{} is above the plausible maximum {}", v, max));
  return v;
}

std::optional<std::string> TomlSection::string(std::string_view key) {
  const toml::node* node = get(key);
  if (!node) return std::nullopt;
  const auto* s = node->as_string();
  if (!s) fail(key, fmt::format("expected a string, got {}", toml_type_name(*node)));
  if (s->get().empty()) fail(key, "must not be empty");
  return s->get();
}

std::optional<std::string> TomlSection::choice(std::string_view key, std::span<const std::string_view> options) {
  auto value = string(key);
  if (!value) return value;
  if (std::find(options.begin(), options.end(), *value) != options.end()) return value;
  std::vector<std::string> names(options.begin(), options.end());
  std::string list;
  for (const auto& o : names) list += (list.empty() ? "" : ", ") + o;
  fail(key, fmt::format("'{}' is not one of: {}{}", *value, list, did_you_mean(*value, names)));
}

std::optional<std::size_t> TomlSection::choice_index(std::string_view key, std::span<const std::string_view> options) {
  auto value = choice(key, options);
  if (!value) return std::nullopt;
  return std::size_t(std::find(options.begin(), options.end(), *value) - options.begin());
}

std::optional<bool> TomlSection::boolean(std::string_view key) {
  const toml::node* node = get(key);
  if (!node) return std::nullopt;
  const auto* b = node->as_boolean();
  if (!b) fail(key, fmt::format("expected true or false, got {}", toml_type_name(*node)));
  return b->get();
}

std::optional<std::vector<std::int64_t>> TomlSection::integers(std::string_view key, std::size_t size,
                                                              std::int64_t min, std::int64_t max) {
  const toml::node* node = get(key);
  if (!node) return std::nullopt;
  const auto* a = node->as_array();
  if (!a || (size > 0 && a->size() != size) || a->empty())
    fail(key, size > 0 ? fmt::format("expected an array of {} whole numbers", size) : std::string("expected a non-empty array of whole numbers"));
  std::vector<std::int64_t> out;
  for (const toml::node& e : *a) {
    const auto* i = e.as_integer();
    if (!i) fail(key, fmt::format("expected whole numbers, got {}", toml_type_name(e)));
    if (i->get() < min || i->get() > max) fail(key, fmt::format("{} is out of range [{}, {}]", i->get(), min, max));
    out.push_back(i->get());
  }
  return out;
}

std::optional<std::vector<std::string>> TomlSection::strings(std::string_view key) {
  const toml::node* node = get(key);
  if (!node) return std::nullopt;
  const auto* a = node->as_array();
  if (!a) fail(key, fmt::format("expected an array of strings, got {}", toml_type_name(*node)));
  std::vector<std::string> out;
  for (const toml::node& e : *a) {
    const auto* s = e.as_string();
    if (!s || s->get().empty()) fail(key, "expected non-empty strings");
    out.push_back(s->get());
  }
  return out;
}

std::optional<std::vector<double>> TomlSection::numbers(std::string_view key, std::size_t size) {
  const toml::node* node = get(key);
  if (!node) return std::nullopt;
  const auto* a = node->as_array();
  if (!a || (size && a->size() != size))
    fail(key, size ? fmt::format("expected an array of {} numbers", size) : std::string("expected an array of numbers"));
  std::vector<double> out;
  for (const toml::node& e : *a) {
    std::optional<double> v = e.is_integer() ? std::optional<double>(double(e.as_integer()->get()))
                              : e.is_floating_point() ? std::optional<double>(e.as_floating_point()->get())
                                                      : std::nullopt;
    if (!v || !std::isfinite(*v)) fail(key, "expected finite numbers");
    out.push_back(*v);
  }
  return out;
}

std::optional<TomlSection> TomlSection::table(std::string_view key) {
  const toml::node* node = get(key);
  if (!node) return std::nullopt;
  const auto* t = node->as_table();
  if (!t) fail(key, fmt::format("expected a table, got {}", toml_type_name(*node)));
  return TomlSection(*t, file_, fmt::format("{}{}.", path_, key));
}

std::vector<TomlSection> TomlSection::table_array(std::string_view key) {
  std::vector<TomlSection> out;
  const toml::node* node = get(key);
  if (!node) return out;
  const auto* a = node->as_array();
  if (!a || !a->is_array_of_tables()) fail(key, fmt::format("expected [[{}]] tables, got {}", key, toml_type_name(*node)));
  std::size_t i = 0;
  for (const toml::node& element : *a)
    out.emplace_back(*element.as_table(), file_, fmt::format("{}{}[{}].", path_, key, i++));
  return out;
}

std::int64_t TomlSection::require_integer(std::string_view key, std::int64_t min, std::int64_t max) {
  auto v = integer(key, min, max);
  if (!v) fail_here(fmt::format("missing required key '{}{}'", path_, key));
  return *v;
}

double TomlSection::require_number(std::string_view key, double min, bool min_inclusive, double max) {
  auto v = number(key, min, min_inclusive, max);
  if (!v) fail_here(fmt::format("missing required key '{}{}'", path_, key));
  return *v;
}

std::string TomlSection::require_string(std::string_view key) {
  auto v = string(key);
  if (!v) fail_here(fmt::format("missing required key '{}{}'", path_, key));
  return *v;
}

void TomlSection::finish() const {
  for (auto&& [key, node] : *table_) {
    std::string_view k = key.str();
    if (std::find(used_.begin(), used_.end(), k) != used_.end()) continue;
    std::string hint = did_you_mean(k, used_);
    FilePosition where = position(file_, key.source());
    if (where.line == 0) where = position(file_, node.source());
    throw InputError(where, fmt::format("unknown key '{}{}'{}", path_, k, hint));
  }
}

}  // namespace perfcast
