#include "cli/model_command.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <memory>

#include "cli/option_checks.hpp"
#include "cli/output_file.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/hf_config.hpp"
#include "engine/data/workload_reader.hpp"
#include "engine/writers/model_writers.hpp"

namespace perfcast::cli {
namespace {

struct ModelOptions {
  std::string input, output, name, format = "table";
};

// A config.json path, a preset file, or a preset name.
Workload load_model(const std::string& input) {
  const std::filesystem::path path(input);
  if (path.extension() == ".json") return read_hf_config(path);
  if (path.extension() == ".toml") return load_workload_file(path, default_workloads_dir());
  return load_preset(default_workloads_dir(), input);
}

void require_transformer(const Workload& w, const std::string& input) {
  if (!w.is_transformer()) throw InputError({input, 0, 0}, "a vision op list has no transformer architecture to show");
}

int run_import(const ModelOptions& o) {
  Workload w = read_hf_config(o.input);
  // A preset's name is its file's stem (scenarios/workloads/<name>.toml).
  if (!o.name.empty()) w.name = o.name;
  else if (!o.output.empty()) w.name = std::filesystem::path(o.output).stem().string();
  if (!o.output.empty() && std::filesystem::path(o.output).stem().string() != w.name)
    throw InputError({o.output, 0, 0}, fmt::format("a preset's file is named after it: write '{}' to {}.toml", w.name, w.name));
  w.display_name = w.name;
  std::get<models::TransformerSpec>(w.model).name = w.name;
  const std::string toml = model_preset_toml(w);
  if (o.output.empty()) {
    fmt::print("{}", toml);
    return 0;
  }
  write_output_file(o.output, toml, "preset", {o.input});
  fmt::print("wrote {} ({})\n", o.output, w.source.title);
  return 0;
}

int run_show(const ModelOptions& o) {
  const Workload w = load_model(o.input);
  require_transformer(w, o.input);
  if (o.format == "json") fmt::print("{}\n", model_json(w).dump(2));
  else fmt::print("{}", model_table(w));
  return 0;
}

}  // namespace

void add_model_command(CLI::App& app, const GlobalOptions&, std::function<int()>& action) {
  auto o = std::make_shared<ModelOptions>();
  CLI::App* model = app.add_subcommand("model", "Transformer architectures: import a Hugging Face config.json, show a model's parameters");
  model->require_subcommand(1);
  CLI::App* import = model->add_subcommand("import", "A Hugging Face config.json as a workload preset (scenarios/workloads format)");
  import->add_option("config", o->input, "config.json (a local file)")->required();
  import->add_option("-o,--output", o->output, "Write the preset here (its stem is the preset's name); default: print it")->check(output_path());
  import->add_option("--name", o->name, "The preset's name (default: the output's stem, else the model's)")->check(preset_name());
  import->callback([&action, o] { action = [o] { return run_import(*o); }; });
  CLI::App* show = model->add_subcommand("show", "A model's architecture, parameter counts and KV cache per token");
  show->add_option("model", o->input, "A preset name, a preset .toml or a config.json")->required();
  show->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json"}))->capture_default_str();
  show->callback([&action, o] { action = [o] { return run_show(*o); }; });
}

}  // namespace perfcast::cli
