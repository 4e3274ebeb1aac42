#include "engine/data/record.hpp"

#include <fmt/format.h>

namespace perfcast {

const Entry* Record::find(std::string_view path) const {
  for (const Entry& e : entries)
    if (e.path == path) return &e;
  return nullptr;
}

std::optional<double> Record::number(std::string_view path) const {
  const Entry* e = find(path);
  if (!e || !e->field || !schema::is_figure(e->field->type)) return std::nullopt;
  return e->number;
}

std::string Record::text(std::string_view path) const {
  const Entry* e = find(path);
  return e ? e->text : std::string();
}

bool Record::flag(std::string_view path) const {
  const Entry* e = find(path);
  return e && e->flag;
}

std::size_t Record::array_size(std::string_view key) const {
  std::size_t n = 0;
  std::string prefix = fmt::format("{}[", key);
  for (const Entry& e : entries) {
    if (e.path.rfind(prefix, 0) != 0) continue;
    std::size_t index = std::stoul(e.path.substr(prefix.size()));
    n = std::max(n, index + 1);
  }
  return n;
}

const Source* Record::source_of(const Entry& e) const {
  return e.source >= 0 ? &sources[static_cast<std::size_t>(e.source)] : nullptr;
}

InputError Record::error(const Entry& e, std::string_view message) const {
  return InputError(e.where, fmt::format("{}: {}", e.path, message));
}

InputError Record::error(std::string_view message) const {
  return InputError(FilePosition{file, 1, 1}, std::string(message));
}

InputError::InputError(FilePosition where, std::string message)
    : std::runtime_error([&] {
        std::string prefix = where.file;
        if (where.line > 0) prefix += fmt::format(":{}:{}", where.line, where.column);
        std::string line = prefix.empty() ? message : prefix + ": " + message;
        // A NUL from the input (a path, a field) would end the message wherever it is read as C text.
        for (std::size_t at = line.find('\0'); at != std::string::npos; at = line.find('\0', at + 2)) line.replace(at, 1, "\\0");
        return line;
      }()),
      where_(std::move(where)),
      message_(std::move(message)) {}

}  // namespace perfcast
