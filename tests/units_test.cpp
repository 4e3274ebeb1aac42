// Unit parsing: conversions pinned to hand-computed values (tolerance: exact or 1e-12 relative).
#include <doctest/doctest.h>

#include "engine/core/errors.hpp"
#include "engine/core/units.hpp"

using namespace perfcast::units;

namespace {
double si(const char* text) { return parse_quantity(text).value; }
}  // namespace

TEST_CASE("binary and decimal byte prefixes are never confused") {
  CHECK(si("80 GiB") == 85'899'345'920.0);  // 80 x 2^30
  CHECK(si("80 GB") == 80e9);
  CHECK(si("81559 MiB") == 81559.0 * 1048576.0);  // 85,520,809,984 B: what nvidia-smi reports for H100
  CHECK(si("1 KiB") == 1024.0);
  CHECK(si("1 kB") == 1000.0);
  CHECK(si("1.5 TiB") == 1.5 * 1099511627776.0);
  CHECK(parse_quantity("80 GiB").dimension == dim::bytes);
}

TEST_CASE("bits and bytes are never confused") {
  CHECK(si("400 Gb/s") == doctest::Approx(5e10).epsilon(1e-12));   // 400e9 / 8
  CHECK(si("400 Gbps") == doctest::Approx(5e10).epsilon(1e-12));
  CHECK(si("400 Gbit/s") == doctest::Approx(5e10).epsilon(1e-12));
  CHECK(si("819 GBps") == doctest::Approx(819e9).epsilon(1e-12));  // Google's spelling of bytes
  CHECK(si("3.35 TB/s") == doctest::Approx(3.35e12).epsilon(1e-12));
  CHECK(parse_quantity("400 Gb/s").dimension == dim::bytes_per_second);
}

TEST_CASE("link directions: a bidirectional total is halved per direction") {
  Quantity q = parse_quantity("900 GB/s bidirectional");
  CHECK(q.direction == Direction::bidirectional);
  CHECK(q.value == doctest::Approx(900e9));
  CHECK(q.per_direction() == doctest::Approx(450e9));
  Quantity p = parse_quantity("25 GB/s per direction");
  CHECK(p.direction == Direction::per_direction);
  CHECK(p.per_direction() == doctest::Approx(25e9));
  CHECK(parse_quantity("3.35 TB/s").direction == Direction::unstated);
}

TEST_CASE("compute rates, power, time, money, energy and carbon") {
  CHECK(si("989.4 TFLOP/s") == doctest::Approx(989.4e12).epsilon(1e-12));
  CHECK(si("989.4 TFLOPS") == doctest::Approx(989.4e12).epsilon(1e-12));
  CHECK(si("1978.9 TOP/s") == doctest::Approx(1978.9e12).epsilon(1e-12));
  CHECK(parse_quantity("1978.9 TOPS").dimension == dim::ops_per_second);
  CHECK(si("700 W") == 700.0);
  CHECK(si("14.3 kW") == doctest::Approx(14300.0));
  CHECK(parse_quantity("700 W").dimension == dim::watts);
  CHECK(si("1.5 us") == doctest::Approx(1.5e-6).epsilon(1e-12));
  CHECK(si("1.5 \u00b5s") == doctest::Approx(1.5e-6).epsilon(1e-12));
  CHECK(si("2 h") == 7200.0);
  CHECK(si("1830 MHz") == doctest::Approx(1.83e9));
  CHECK(parse_quantity("1830 MHz").dimension == dim::hertz);
  Quantity rate = parse_quantity("$2.50/h");
  CHECK(rate.dimension == dim::usd_per_second);
  CHECK(rate.value == doctest::Approx(2.5 / 3600).epsilon(1e-12));
  CHECK(si("$33750") == 33750.0);
  CHECK(si("$5M") == 5e6);
  CHECK(si("$1.2B") == doctest::Approx(1.2e9));
  CHECK(si("$800k") == 800e3);
  CHECK(parse_quantity("$1k/h").value == doctest::Approx(1000.0 / 3600));
  CHECK_THROWS_AS(parse_quantity("$5Mx"), perfcast::UnitError);
  CHECK_THROWS_AS(parse_quantity("$5G"), perfcast::UnitError);
  CHECK(parse_quantity("$0.08/kWh").value == doctest::Approx(0.08 / 3.6e6).epsilon(1e-12));
  Quantity carbon = parse_quantity("0.39 kg/kWh");
  CHECK(carbon.dimension == dim::kg_per_joule);
  CHECK(carbon.value == doctest::Approx(0.39 / 3.6e6).epsilon(1e-12));
  CHECK(si("390 gCO2e/kWh") == doctest::Approx(0.39 / 3.6e6).epsilon(1e-12));
  CHECK(si("1287 MWh") == doctest::Approx(1287e6 * 3600));
  CHECK(si("552 tCO2e") == doctest::Approx(552e3));
  CHECK(parse_quantity("552 t").dimension == dim::kg);
}

TEST_CASE("a bare number parses as dimensionless so that the loader can refuse it") {
  Quantity q = parse_quantity("80");
  CHECK(q.dimension == dim::none);
  CHECK(q.value == 80.0);
}

TEST_CASE("malformed quantities are refused with a reason") {
  CHECK_THROWS_WITH_AS(parse_quantity("80 KB"), "ambiguous unit 'KB': write 'kB' (1000) or 'KiB' (1024)",
                       perfcast::UnitError);
  CHECK_THROWS_WITH_AS(parse_quantity("312 TFLOPs"),
                       "ambiguous unit 'TFLOPs': write 'TFLOP' for a count or 'TFLOP/s' for a rate",
                       perfcast::UnitError);
  CHECK_THROWS_WITH_AS(parse_quantity("3 furlongs"), "unknown unit 'furlongs'", perfcast::UnitError);
  CHECK_THROWS_WITH_AS(parse_quantity("nan GB"), "'nan GB' does not start with a number", perfcast::UnitError);
  CHECK_THROWS_WITH_AS(parse_quantity("inf GB"), "'inf GB' does not start with a number", perfcast::UnitError);
  CHECK_THROWS_WITH_AS(parse_quantity("1e999 GB"), "'1e999 GB' is out of the representable range",
                       perfcast::UnitError);
  CHECK_THROWS_WITH_AS(parse_quantity("1,000 GB"), "'1,000 GB': thousands separators are not allowed",
                       perfcast::UnitError);
  CHECK_THROWS_WITH_AS(parse_quantity("1 GB/s/s"), "unit 'GB/s/s' has more than one '/'", perfcast::UnitError);
  CHECK_THROWS_WITH_AS(parse_quantity(""), "empty value", perfcast::UnitError);
  CHECK_THROWS_AS(parse_quantity("5 Ms"), perfcast::UnitError);  // mega-seconds: prefix not allowed on s
  CHECK_THROWS_AS(parse_quantity("5 mb"), perfcast::UnitError);  // milli-bits
}

TEST_CASE("formatting picks a readable prefix and the conventional unit") {
  CHECK(format(3.35e12, dim::bytes_per_second) == "3.35 TB/s");
  CHECK(format(989.4e12, dim::ops_per_second) == "989.4 TFLOP/s");
  CHECK(format(1978.9e12, dim::ops_per_second, "OP/s") == "1.9789 POP/s");
  CHECK(format(700, dim::watts) == "700 W");
  CHECK(format(55.04 / 3600, dim::usd_per_second) == "$55.04/h");
  CHECK(format(323.05 / 3.6e9, dim::kg_per_joule) == "323.05 g/kWh");
  CHECK(format(1.5e-6, dim::seconds) == "1.5 us");
  CHECK(format_binary_bytes(85899345920.0) == "80.0000 GiB");
  CHECK(describe(dim::bytes_per_second) == "a bandwidth (B/s)");
  CHECK(si_symbol(dim::usd_per_joule) == "USD/J");
}
