#pragma once
// The hardware database: every file under hardware_db/<kind>/ loaded, validated, cross-checked
// (references resolve to items of the right kind and class) and available by name.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/data/hardware_records.hpp"

namespace perfcast {

// The shipped database: this checkout's hardware_db/, or an install's share/perfcast/hardware_db.
std::filesystem::path default_hardware_db_dir();

class HardwareDb {
 public:
  // Loads <root>/{accelerators,interconnects,systems,offers,regions}/*.toml. Throws InputError.
  static HardwareDb load(const std::filesystem::path& root);

  // All records, by kind (schema order) then name.
  const std::vector<Record>& records() const { return records_; }
  std::vector<const Record*> records_of(schema::Kind kind) const;
  // The record named `name`, or an InputError with a "did you mean".
  const Record& record(std::string_view name) const;

  const AcceleratorSpec& accelerator(std::string_view name) const;
  const LinkSpec& link(std::string_view name) const;
  const SystemSpec& system(std::string_view name) const;
  const OfferSpec& offer(std::string_view name) const;
  const RegionSpec& region(std::string_view name) const;

 private:
  const Record& record_of_kind(std::string_view name, schema::Kind kind) const;
  void check_references() const;
  // F-EN-5: the held rates a part takes from the measured parts it names (sustained_dense.from) for
  // each precision it has no figure of its own for, then every accelerator's datapath classes.
  void resolve_sustained_rates();
  // A part without a decode-attention measurement takes a measured part's as a share of memory bandwidth.
  void resolve_decode_attention();
  // F-ROOF-8: dense_reached's rates, from the die_of part's datasheet rates.
  void resolve_reached_rates();

  std::vector<Record> records_;
  std::map<std::string, std::size_t, std::less<>> by_name_;
  std::map<std::string, AcceleratorSpec, std::less<>> accelerators_;
  std::map<std::string, LinkSpec, std::less<>> links_;
  std::map<std::string, SystemSpec, std::less<>> systems_;
  std::map<std::string, OfferSpec, std::less<>> offers_;
  std::map<std::string, RegionSpec, std::less<>> regions_;
};

}  // namespace perfcast
