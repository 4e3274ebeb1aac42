// Table, JSON and CSV writers over the same record.
#include <doctest/doctest.h>

#include "engine/data/hardware_db.hpp"
#include "tests/shipped_db.hpp"
#include "engine/writers/record_writers.hpp"
#include "engine/writers/text_table.hpp"


TEST_CASE("JSON: every figure has its SI value, unit, text as written and source") {
  nlohmann::json j = perfcast::record_to_json(shipped_db().record("h100-sxm"));
  CHECK(j["kind"] == "accelerator");
  CHECK(j["peak_dense"]["bf16"]["value"].get<double>() == doctest::Approx(989.4e12));
  CHECK(j["peak_dense"]["bf16"]["unit"] == "FLOP/s");
  CHECK(j["peak_dense"]["int8"]["unit"] == "OP/s");
  CHECK(j["peak_dense"]["bf16"]["source"]["title"] == "NVIDIA H100 Tensor Core GPU Architecture whitepaper v1.04");
  CHECK(j["memory"]["bandwidth"]["value"].get<double>() == doctest::Approx(3.35e12));
  CHECK(j["memory"]["capacity"]["description"].get<std::string>().find("marketing") != std::string::npos);
  CHECK(j["memory"]["usable_capacity"]["description"].get<std::string>().find("driver reports") != std::string::npos);
  CHECK(j["memory"]["usable_capacity"]["as_written"] == "81559 MiB");
  CHECK(j["scale_up"]["bandwidth"]["direction"] == "per direction");
  CHECK(j["scale_up"]["bandwidth"]["value"].get<double>() == doctest::Approx(450e9));
  CHECK(j["sources"].contains("h100-whitepaper"));
}

TEST_CASE("JSON: power modes become an array") {
  nlohmann::json j = perfcast::record_to_json(shipped_db().record("jetson-orin-nx-16gb"));
  REQUIRE(j["power_modes"].is_array());
  CHECK(j["power_modes"].size() == 3);
  CHECK(j["power_modes"][0]["name"] == "10W");
  CHECK(j["power_modes"][0]["gpu_max_clock"]["value"].get<double>() == doctest::Approx(612e6));
}

TEST_CASE("CSV: one row per entry, quoted where needed") {
  const perfcast::Record* one[] = {&shipped_db().record("pcie5-x16")};
  std::string csv = perfcast::records_to_csv(one);
  CHECK(csv.rfind("kind,name,key,value,unit,as_written,source_title", 0) == 0);
  CHECK(csv.find("interconnect,pcie5-x16,bandwidth,6.3e+10,B/s,63 GB/s per direction,") != std::string::npos);
  CHECK(perfcast::csv_field("a,b") == "\"a,b\"");
  CHECK(perfcast::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
}

TEST_CASE("text table aligns columns") {
  perfcast::TextTable t({"a", "long header"});
  t.add_row({"value", "x"});
  CHECK(t.render() == "a      long header\n-----  -----------\nvalue  x\n");
}
