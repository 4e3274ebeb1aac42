#include "engine/core/units.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <optional>

#include "engine/core/errors.hpp"

namespace perfcast::units {
namespace {

enum PrefixSet : unsigned { kNoPrefix = 0, kDecimal = 1, kBinary = 2, kSubunit = 4 };

struct Prefix {
  std::string_view symbol;
  double factor;
  PrefixSet set;
};

constexpr std::array<Prefix, 16> kPrefixes{{
    {"k", 1e3, kDecimal},          {"M", 1e6, kDecimal},          {"G", 1e9, kDecimal},
    {"T", 1e12, kDecimal},         {"P", 1e15, kDecimal},         {"E", 1e18, kDecimal},
    {"Ki", 0x1p10, kBinary},       {"Mi", 0x1p20, kBinary},       {"Gi", 0x1p30, kBinary},
    {"Ti", 0x1p40, kBinary},       {"Pi", 0x1p50, kBinary},       {"Ei", 0x1p60, kBinary},
    {"m", 1e-3, kSubunit},         {"u", 1e-6, kSubunit},         {"\u00b5", 1e-6, kSubunit},
    {"n", 1e-9, kSubunit},
}};

struct Atom {
  std::string_view symbol;
  Dimension dimension;
  double factor;
  unsigned prefixes;
};

// Longest symbols first so that "FLOP" wins over "OP" and "Wh" over "h".
constexpr std::array<Atom, 16> kAtoms{{
    {"FLOP", dim::ops, 1, kDecimal},
    {"USD", dim::usd, 1, kNoPrefix},
    {"bit", dim::bytes, 0.125, kDecimal},
    {"min", dim::seconds, 60, kNoPrefix},
    {"OP", dim::ops, 1, kDecimal},
    {"Wh", dim::joules, 3600, kDecimal},
    {"Hz", dim::hertz, 1, kDecimal},
    {"B", dim::bytes, 1, kDecimal | kBinary},
    {"b", dim::bytes, 0.125, kDecimal},
    {"s", dim::seconds, 1, kSubunit},
    {"h", dim::seconds, 3600, kNoPrefix},
    {"d", dim::seconds, 86400, kNoPrefix},
    {"W", dim::watts, 1, kDecimal | kSubunit},
    {"J", dim::joules, 1, kDecimal | kSubunit},
    {"g", dim::kg, 1e-3, kDecimal},
    {"t", dim::kg, 1e3, kDecimal},
}};

struct Scaled {
  Dimension dimension;
  double factor = 1;
};

Dimension combine(Dimension a, Dimension b, int sign) {
  auto add = [sign](std::int8_t x, std::int8_t y) { return static_cast<std::int8_t>(x + sign * y); };
  return {add(a.bytes, b.bytes), add(a.ops, b.ops),   add(a.seconds, b.seconds),
          add(a.joules, b.joules), add(a.usd, b.usd), add(a.kg, b.kg)};
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// One unit token such as "TB", "GiB", "Gbit", "kWh", "gCO2e", "us", "$".
Scaled parse_atom(std::string_view token) {
  if (token == "$") return {dim::usd, 1};
  for (std::string_view co2 : {"CO2eq", "CO2e", "CO2"}) {
    if (ends_with(token, co2) && token.size() > co2.size()) {
      token.remove_suffix(co2.size());
      break;
    }
  }
  if (token == "KB" || token == "Kb" || token == "Kbit")
    throw UnitError(fmt::format("ambiguous unit '{}': write 'k{}' (1000) or 'Ki{}' (1024)", token,
                                token.substr(1), token.substr(1)));
  for (const Atom& atom : kAtoms) {
    if (!ends_with(token, atom.symbol)) continue;
    std::string_view prefix = token.substr(0, token.size() - atom.symbol.size());
    if (prefix.empty()) return {atom.dimension, atom.factor};
    for (const Prefix& p : kPrefixes)
      if (p.symbol == prefix && (atom.prefixes & p.set)) return {atom.dimension, atom.factor * p.factor};
  }
  throw UnitError(fmt::format("unknown unit '{}'", token));
}

// A unit expression: "TB/s", "Gbps", "GBps", "TFLOPS", "$/h", "kg/kWh", "gCO2e/kWh".
Scaled parse_unit(std::string_view unit) {
  std::string compact;
  for (char c : unit)
    if (!std::isspace(static_cast<unsigned char>(c))) compact += c;
  std::string_view u = compact;
  if (std::count(u.begin(), u.end(), '/') > 1)
    throw UnitError(fmt::format("unit '{}' has more than one '/'", unit));
  std::string_view numerator = u, denominator;
  if (auto slash = u.find('/'); slash != std::string_view::npos) {
    numerator = u.substr(0, slash);
    denominator = u.substr(slash + 1);
    if (numerator.empty()) numerator = "$";  // "$2.50/h" arrives as "/h" after the number
  } else if (ends_with(u, "OPs")) {
    throw UnitError(fmt::format(
        "ambiguous unit '{}': write '{}' for a count or '{}/s' for a rate", unit,
        u.substr(0, u.size() - 1), u.substr(0, u.size() - 1)));
  } else if (ends_with(u, "OPS")) {  // FLOPS, TFLOPS, TOPS
    numerator = u.substr(0, u.size() - 1);
    denominator = "s";
  } else if (ends_with(u, "ps") && u.size() > 2 && (u[u.size() - 3] == 'b' || u[u.size() - 3] == 'B')) {
    numerator = u.substr(0, u.size() - 2);  // Gbps, GBps
    denominator = "s";
  }
  Scaled result = parse_atom(numerator);
  if (!denominator.empty()) {
    Scaled den = parse_atom(denominator);
    result.dimension = combine(result.dimension, den.dimension, -1);
    result.factor /= den.factor;
  }
  return result;
}

// Strips a trailing direction phrase ("bidirectional", "per direction", ...).
Direction take_direction(std::string_view& rest) {
  struct Phrase {
    std::string_view text;
    Direction direction;
  };
  static constexpr Phrase phrases[] = {
      {"bidirectional", Direction::bidirectional}, {"bi-directional", Direction::bidirectional},
      {"bidir", Direction::bidirectional},         {"per direction", Direction::per_direction},
      {"per-direction", Direction::per_direction}, {"each direction", Direction::per_direction},
      {"unidirectional", Direction::per_direction}};
  for (const Phrase& p : phrases) {
    if (ends_with(rest, p.text)) {
      std::string_view before = rest.substr(0, rest.size() - p.text.size());
      if (!before.empty() && !std::isspace(static_cast<unsigned char>(before.back()))) continue;
      rest = trim(before);
      return p.direction;
    }
  }
  return Direction::unstated;
}

double parse_number(std::string_view& rest, std::string_view whole) {
  std::size_t end = 0;
  auto is_digit = [&](std::size_t i) { return i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i])); };
  if (end < rest.size() && (rest[end] == '-' || rest[end] == '+')) ++end;
  if (!is_digit(end)) {
    if (rest.empty()) throw UnitError("empty value");
    throw UnitError(fmt::format("'{}' does not start with a number", whole));
  }
  while (is_digit(end)) ++end;
  if (end < rest.size() && rest[end] == ',' && is_digit(end + 1))
    throw UnitError(fmt::format("'{}': thousands separators are not allowed", whole));
  if (end < rest.size() && rest[end] == '.') {
    ++end;
    while (is_digit(end)) ++end;
  }
  if (end < rest.size() && (rest[end] == 'e' || rest[end] == 'E')) {
    std::size_t exp = end + 1;
    if (exp < rest.size() && (rest[exp] == '-' || rest[exp] == '+')) ++exp;
    if (is_digit(exp)) {
      end = exp;
      while (is_digit(end)) ++end;
    }
  }
  std::string_view digits = rest.substr(0, end);
  if (digits.front() == '+') digits.remove_prefix(1);
  double value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range || !std::isfinite(value))
    throw UnitError(fmt::format("'{}' is out of the representable range", whole));
  if (ec != std::errc() || ptr != digits.data() + digits.size())
    throw UnitError(fmt::format("'{}' does not start with a number", whole));
  rest.remove_prefix(end);
  return value;
}

}  // namespace

Quantity parse_quantity(std::string_view text) {
  std::string_view rest = trim(text);
  bool dollars = !rest.empty() && rest.front() == '$';
  if (dollars) rest.remove_prefix(1);
  double number = parse_number(rest, text);
  rest = trim(rest);
  Quantity q;
  q.direction = take_direction(rest);
  if (dollars) {
    // Money's own multipliers: "$800k", "$5M", "$1.2B", "$2T".
    if (!rest.empty() && (rest.size() == 1 || rest[1] == '/')) {
      const std::string_view scales = "kMBT";
      if (const std::size_t k = scales.find(rest.front()); k != std::string_view::npos) {
        number *= std::pow(1e3, double(k + 1));
        rest.remove_prefix(1);
      }
    }
    if (!rest.empty() && rest.front() != '/')
      throw UnitError(fmt::format("'{}': after '$<number>' only '/<unit>' may follow", text));
  } else if (rest.empty()) {
    q.value = number;  // a bare number: dimensionless; the loader decides whether that is allowed
    return q;
  }
  Scaled unit = dollars && rest.empty() ? Scaled{dim::usd, 1} : parse_unit(rest);
  q.value = number * unit.factor;
  q.dimension = unit.dimension;
  if (!std::isfinite(q.value))
    throw UnitError(fmt::format("'{}' is out of the representable range", text));
  return q;
}

std::string si_symbol(Dimension d) {
  std::string num, den;
  auto part = [&](int exponent, std::string_view symbol) {
    std::string& side = exponent > 0 ? num : den;
    for (int i = 0; i < std::abs(exponent); ++i) {
      if (!side.empty()) side.append("·");
      side.append(symbol);
    }
  };
  part(d.usd, "USD");
  part(d.kg, "kg");
  part(d.bytes, "B");
  part(d.ops, "FLOP");
  part(d.joules, "J");
  part(d.seconds, "s");
  if (d == dim::watts) return "W";
  if (d == dim::hertz) return "Hz";
  if (num.empty()) num = "1";
  if (!den.empty()) num.append("/").append(den);
  return num;
}

std::string describe(Dimension d) {
  struct Named {
    Dimension dimension;
    std::string_view name;
  };
  static constexpr Named names[] = {
      {dim::none, "a plain number"},
      {dim::bytes, "a size (B)"},
      {dim::bytes_per_second, "a bandwidth (B/s)"},
      {dim::ops, "an operation count (FLOP)"},
      {dim::ops_per_second, "a compute rate (FLOP/s)"},
      {dim::seconds, "a time (s)"},
      {dim::hertz, "a frequency (Hz)"},
      {dim::joules, "an energy (J)"},
      {dim::watts, "a power (W)"},
      {dim::usd, "an amount of money (USD)"},
      {dim::usd_per_second, "a price per time (USD/s)"},
      {dim::usd_per_joule, "an energy price (USD/J)"},
      {dim::kg, "a mass of CO2e (kg)"},
      {dim::kg_per_joule, "a carbon intensity (kg CO2e/J)"},
  };
  for (const Named& n : names)
    if (n.dimension == d) return std::string(n.name);
  return si_symbol(d);
}

namespace {

std::string number(double v) {
  std::string s = fmt::format("{:.6g}", v);
  return s;
}

// value with the largest decimal prefix that keeps it >= 1.
std::string with_prefix(double value, std::string_view unit) {
  static constexpr std::array<std::pair<double, std::string_view>, 6> steps{
      {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  for (auto [factor, symbol] : steps)
    if (std::abs(value) >= factor) return fmt::format("{} {}{}", number(value / factor), symbol, unit);
  return fmt::format("{} {}", number(value), unit);
}

}  // namespace

std::string format(double v, Dimension d, std::string_view symbol) {
  if (!symbol.empty()) return with_prefix(v, symbol);
  if (d == dim::bytes) return with_prefix(v, "B");
  if (d == dim::bytes_per_second) return with_prefix(v, "B/s");
  if (d == dim::ops_per_second) return with_prefix(v, "FLOP/s");
  if (d == dim::ops) return with_prefix(v, "FLOP");
  if (d == dim::watts) return with_prefix(v, "W");
  if (d == dim::hertz) return with_prefix(v, "Hz");
  if (d == dim::joules) return with_prefix(v / 3600, "Wh");
  if (d == dim::usd) return fmt::format("${}", number(v));
  if (d == dim::usd_per_second) return fmt::format("${}/h", number(v * 3600));
  if (d == dim::usd_per_joule) return fmt::format("${}/kWh", number(v * 3.6e6));
  if (d == dim::kg_per_joule) return fmt::format("{} g/kWh", number(v * 3.6e9));
  if (d == dim::kg) return std::abs(v) >= 1000 ? fmt::format("{} t", number(v / 1000)) : fmt::format("{} kg", number(v));
  if (d == dim::seconds) {
    double a = std::abs(v);
    if (a != 0 && a < 1e-6) return fmt::format("{} ns", number(v * 1e9));
    if (a != 0 && a < 1e-3) return fmt::format("{} us", number(v * 1e6));
    if (a != 0 && a < 1) return fmt::format("{} ms", number(v * 1e3));
    if (a >= 2 * 86400) return fmt::format("{} d", number(v / 86400));
    if (a >= 2 * 3600) return fmt::format("{} h", number(v / 3600));
    return fmt::format("{} s", number(v));
  }
  if (d == dim::none) return number(v);
  return fmt::format("{} {}", number(v), si_symbol(d));
}

std::string format_binary_bytes(double bytes, int decimals) {
  static constexpr std::array<std::pair<double, std::string_view>, 5> steps{
      {{0x1p50, "PiB"}, {0x1p40, "TiB"}, {0x1p30, "GiB"}, {0x1p20, "MiB"}, {0x1p10, "KiB"}}};
  for (auto [factor, symbol] : steps)
    if (std::abs(bytes) >= factor) return fmt::format("{:.{}f} {}", bytes / factor, decimals, symbol);
  return fmt::format("{} B", number(bytes));
}

}  // namespace perfcast::units
