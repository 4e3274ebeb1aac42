#pragma once
// Quantity strings ("3.35 TB/s", "80 GiB", "400 Gb/s", "$2.50/h", "0.39 kg/kWh") parsed once, at the
// loader boundary, into SI doubles. Inside the engine every value is SI: bytes, FLOP (or integer
// operations), seconds, joules, USD, kg CO2e, and products/quotients of those.
//
// Rules that keep the classic mistakes out:
//  - decimal (k, M, G, T, P, E = 10^3n) and binary (Ki, Mi, Gi, Ti, Pi, Ei = 2^10n) prefixes are
//    both accepted and never confused; "KB" and "Kb" are refused as ambiguous;
//  - "B" is a byte and "b"/"bit" a bit ("400 Gb/s" = 5e10 B/s);
//  - "FLOPs"/"OPs" are refused as ambiguous (count or rate?): write "FLOP" or "FLOP/s" ("FLOPS");
//  - link bandwidths carry a direction: "900 GB/s bidirectional" is 450e9 B/s per direction;
//  - a bare number, NaN, infinity or thousands separators are errors.
#include <cstdint>
#include <string>
#include <string_view>

namespace perfcast::units {

// Exponents of the base quantities. Watts are J/s, hertz are 1/s, bits are bytes/8.
struct Dimension {
  std::int8_t bytes = 0;
  std::int8_t ops = 0;
  std::int8_t seconds = 0;
  std::int8_t joules = 0;
  std::int8_t usd = 0;
  std::int8_t kg = 0;  // kg CO2e
  constexpr bool operator==(const Dimension&) const = default;
};

namespace dim {
inline constexpr Dimension none{};
inline constexpr Dimension bytes{.bytes = 1};
inline constexpr Dimension bytes_per_second{.bytes = 1, .seconds = -1};
inline constexpr Dimension ops{.ops = 1};
inline constexpr Dimension ops_per_second{.ops = 1, .seconds = -1};
inline constexpr Dimension seconds{.seconds = 1};
inline constexpr Dimension hertz{.seconds = -1};
inline constexpr Dimension joules{.joules = 1};
inline constexpr Dimension watts{.seconds = -1, .joules = 1};
inline constexpr Dimension usd{.usd = 1};
inline constexpr Dimension usd_per_second{.seconds = -1, .usd = 1};
inline constexpr Dimension usd_per_joule{.joules = -1, .usd = 1};
inline constexpr Dimension kg{.kg = 1};
inline constexpr Dimension kg_per_joule{.joules = -1, .kg = 1};
}  // namespace dim

// How a bandwidth was stated: not at all, per direction, or as the sum of both directions.
enum class Direction { unstated, per_direction, bidirectional };

struct Quantity {
  double value = 0;       // SI, as written (a bidirectional total stays the total here)
  Dimension dimension{};
  Direction direction = Direction::unstated;

  // The per-direction value of a bandwidth: half of a bidirectional total.
  double per_direction() const { return direction == Direction::bidirectional ? value / 2 : value; }
};

// Parses "<number> <unit> [direction]" or "$<number>[/unit]". Throws UnitError.
Quantity parse_quantity(std::string_view text);

// "bandwidth (B/s)", "power (W)", or the unit itself for dimensions without a name.
std::string describe(Dimension d);
// The SI unit symbol of a dimension: "B/s", "FLOP/s", "W", "USD/s", "kg/J".
std::string si_symbol(Dimension d);
// A human rendering with a readable prefix and unit: "3.35 TB/s", "989.4 TFLOP/s", "700 W",
// "$55.04/h", "323.1 g/kWh", "80 GB". Bytes use decimal prefixes (the binary form is separate).
// `symbol` replaces the dimension's default unit symbol (e.g. "OP/s" for integer rates).
std::string format(double si_value, Dimension d, std::string_view symbol = {});
// "74.5078 GiB": bytes with a binary prefix and `decimals` digits after the point.
std::string format_binary_bytes(double bytes, int decimals = 4);

}  // namespace perfcast::units
