#include "cli/hw_command.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <memory>

#include "engine/api/answers.hpp"
#include "engine/data/hardware_db.hpp"
#include "engine/data/record_loader.hpp"
#include "engine/writers/record_writers.hpp"

namespace perfcast::cli {
namespace {

struct HwOptions {
  std::string kind;
  std::string format = "table";
  std::string name;
  std::vector<std::string> files;
};

int list(const GlobalOptions& global, const HwOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  const std::vector<const Record*> records = api::hw_records(db, o.kind);
  if (o.format == "json") {
    fmt::print("{}\n", api::hw_list(records).dump(2));
  } else if (o.format == "csv") {
    fmt::print("{}", records_to_csv(records));
  } else {
    fmt::print("{}", records_summary_table(records));
  }
  return 0;
}

int show(const GlobalOptions& global, const HwOptions& o) {
  HardwareDb db = HardwareDb::load(global.hardware_db);
  const Record& r = db.record(o.name);
  const Record* one[] = {&r};
  if (o.format == "json")
    fmt::print("{}\n", api::hw_show(db, o.name).dump(2));
  else if (o.format == "csv")
    fmt::print("{}", records_to_csv(one));
  else
    fmt::print("{}", record_to_table(r));
  return 0;
}

// Validates files one by one; the kind comes from the parent directory (accelerators/, ...).
int check(const HwOptions& o) {
  for (const std::string& file : o.files) {
    std::filesystem::path path(file);
    std::string directory = path.parent_path().filename().string();
    const schema::KindSchema* kind = schema::find_kind(directory);
    if (!kind)
      throw InputError({file, 0, 0}, fmt::format("cannot tell the kind from the directory '{}' (expected "
                                                 "accelerators/, interconnects/, systems/, offers/ or regions/)",
                                                 directory));
    Record r = load_record(path, kind->kind);
    fmt::print("{}: ok ({} '{}', {} figures, {} sources)\n", file, kind->name, r.name,
               std::count_if(r.entries.begin(), r.entries.end(),
                             [](const Entry& e) { return schema::is_figure(e.field->type); }),
               r.sources.size());
  }
  return 0;
}

}  // namespace

void add_hw_command(CLI::App& app, const GlobalOptions& global, std::function<int()>& action) {
  auto options = std::make_shared<HwOptions>();
  CLI::App* hw = app.add_subcommand("hw", "Browse the hardware database (every figure with its source)");
  hw->require_subcommand(1);
  const std::vector<std::string> formats{"table", "json", "csv"};

  CLI::App* list_cmd = hw->add_subcommand("list", "List accelerators, interconnects, systems, offers and regions");
  list_cmd->add_option("--kind", options->kind, "Only items of this kind")
      ->check(CLI::IsMember({"accelerator", "interconnect", "system", "offer", "region"}));
  list_cmd->add_option("--format", options->format, "Output format")->check(CLI::IsMember(formats));
  list_cmd->callback([&action, &global, options] { action = [&global, options] { return list(global, *options); }; });

  CLI::App* show_cmd = hw->add_subcommand("show", "Show one item with every figure and its source");
  show_cmd->add_option("name", options->name, "Item name, e.g. h100-sxm")->required();
  show_cmd->add_option("--format", options->format, "Output format")->check(CLI::IsMember(formats));
  show_cmd->callback([&action, &global, options] { action = [&global, options] { return show(global, *options); }; });

  CLI::App* check_cmd = hw->add_subcommand(
      "check", "Validate data files (schema, units, sources); cross-file references are checked by list/show");
  check_cmd->add_option("files", options->files, "TOML files under accelerators/, interconnects/, ...")->required();
  check_cmd->callback([&action, options] { action = [options] { return check(*options); }; });
}

}  // namespace perfcast::cli
