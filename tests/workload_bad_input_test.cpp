// Bad workloads and scenarios give one-line errors naming the file, the key and what is wrong.
#include <doctest/doctest.h>

#include <string>

#include "engine/data/scenario_reader.hpp"
#include "engine/data/workload_reader.hpp"
#include "tests/shipped_db.hpp"

using namespace perfcast;

namespace {

std::string scenario_error(const std::string& text) {
  try {
    parse_scenario(text, "bad.toml", PERFCAST_DEFAULT_WORKLOADS, shipped_db());
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string kHardware = "[hardware]\nsystem = \"dgx-h100\"\nnodes = 2\n";
const std::string kTraining = "[training]\nseq_len = 4096\nglobal_batch = 64\n";

std::string inline_model(const std::string& fields) {
  return "[model]\nlayers = 32\nvocab = 32000\nffn_hidden = 14336\n" + fields + kHardware + kTraining;
}

}  // namespace

TEST_CASE("unknown preset: suggestion, at the key") {
  CHECK(scenario_error("[model]\npreset = \"llama3-7b\"\n" + kHardware + kTraining).starts_with(
      "bad.toml:2:1: model.preset: unknown workload preset 'llama3-7b' (did you mean 'llama2-7b'?)"));
}

TEST_CASE("inconsistent architectures") {
  CHECK(scenario_error(inline_model("hidden = 4096\nheads = 48\n")) ==
        "bad.toml:6:1: model.heads: 48 does not divide hidden 4096; give head_dim explicitly");
  CHECK(scenario_error(inline_model("hidden = 4096\nheads = 32\nkv_heads = 5\n")) ==
        "bad.toml:7:1: model.kv_heads: 5 does not divide heads 32 (grouped-query attention needs heads = groups x kv_heads)");
  CHECK(scenario_error(inline_model("hidden = 0\nheads = 32\n")) == "bad.toml:5:1: model.hidden: 0 is out of range [1, 10000000]");
  CHECK(scenario_error(inline_model("hidden = -4096\nheads = 32\n")) == "bad.toml:5:1: model.hidden: -4096 is out of range [1, 10000000]");
  CHECK(scenario_error(inline_model("hidden = 4096\nheads = 32\n[model.moe]\nexperts = 8\ntop_k = 10\nexpert_ffn_hidden = 1024\n")) ==
        "bad.toml:7:8: model.moe: top_k 10 exceeds experts 8");
  CHECK(scenario_error(inline_model("hidden = 4096\nheads = 32\n[model.moe]\nexperts = 8\ntop_k = 2\n")) ==
        "bad.toml:7:1: missing required key 'model.moe.expert_ffn_hidden'");
  CHECK(scenario_error(inline_model("hiden = 4096\nheads = 32\n")) ==
        "bad.toml:5:1: unknown key 'model.hiden' (did you mean 'hidden'?)");
  CHECK(scenario_error(inline_model("heads = 32\n")) == "bad.toml:1:1: missing required key 'model.hidden'");
}

TEST_CASE("layouts that do not fit the model or the device count") {
  const std::string base = "[model]\npreset = \"llama3-8b\"\n" + kHardware + kTraining;
  CHECK(scenario_error(base + "[parallelism]\ntp = 3\n") == "bad.toml:10:1: parallelism.tp: tp x pp x cp = 3 does not divide the 16 devices");
  CHECK(scenario_error("[model]\npreset = \"llama3-8b\"\n[hardware]\nsystem = \"dgx-h100\"\nnodes = 3\n" + kTraining +
                       "[parallelism]\ntp = 8\npp = 3\n") == "(no error)");  // balanced: 10, 12 and 10 layers (F-PIPE-4)
  CHECK(scenario_error("[model]\npreset = \"llama3-8b\"\n[hardware]\nsystem = \"dgx-h100\"\nnodes = 5\n" + kTraining +
                       "[parallelism]\ntp = 2\npp = 20\n") ==
        "bad.toml:11:1: parallelism.pp: 20 stages leave a pipeline stage without a layer of the model's 32 (the embedding and loss "
        "count as a layer each when pp does not divide the layers)");
  CHECK(scenario_error("[model]\npreset = \"megatron-gpt-1.7b\"\n" + kHardware + kTraining + "[parallelism]\ntp = 16\n") ==
        "bad.toml:10:1: parallelism.tp: 16 does not divide the model's 24 attention heads");
  CHECK(scenario_error(base + "[parallelism]\ntp = 2\npp = 8\ndp = 2\n") == "bad.toml:12:1: parallelism.dp: tp x pp x cp x dp = 32 is not the 16 devices");
  CHECK(scenario_error(base + "[parallelism]\nep = 2\n") == "bad.toml:10:1: parallelism.ep: expert parallelism needs an MoE model");
  CHECK(scenario_error("[model]\npreset = \"llama3-8b\"\n" + kHardware + "[training]\nseq_len = 4096\nglobal_batch = nan\n") ==
        "bad.toml:8:1: training.global_batch: expected a whole number, got nan");
  CHECK(scenario_error("[model]\npreset = \"llama3-8b\"\n[hardware]\naccelerator = \"h100-sxn\"\n" + kTraining) ==
        "bad.toml:4:1: hardware.accelerator: no accelerator named 'h100-sxn' (did you mean 'h100-sxm'?) (perfcast hw list shows them all)");
}

TEST_CASE("a preset file names its source and matches its file name") {
  const std::string dir = PERFCAST_DEFAULT_WORKLOADS;
  auto error = [&](const std::string& text) {
    try {
      parse_workload(text, "tiny.toml", dir);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string model = "[model]\nlayers = 2\nhidden = 64\nheads = 4\nffn_hidden = 256\nvocab = 100\n";
  CHECK(error("schema_version = 1\nname = \"tiny\"\n" + model) == "tiny.toml:1:1: missing required table [source] (title, url, locator, date of the published config)");
  CHECK(error("schema_version = 1\nname = \"other\"\n" + model) == "tiny.toml:2:1: name: 'other' does not match the file name 'tiny'");
  CHECK(error("schema_version = 1\nname = \"tiny\"\n[source]\ntitle = \"t\"\ndate = \"2024\"\n" + model) == "(no error)");
}

TEST_CASE("tokens to train on: at least one step's, and never a denormal") {
  const std::string head = "[model]\npreset = \"llama3-8b\"\n" + kHardware;
  CHECK(scenario_error(head + kTraining + "tokens = 1e-300\n") == "bad.toml:9:1: training.tokens: 1e-300 must be >= 1");
  CHECK(scenario_error(head + kTraining + "tokens = 1000\n") ==
        "bad.toml:9:1: training.tokens: 1000 tokens is less than one step's global_batch x seq_len = 262144");
  CHECK(scenario_error("[model]\npreset = \"llama3-8b\"\n[hardware]\naccelerator = \"h100-sxm\"\ncount = 8\n" + kTraining +
                       "tokens = 262144\n") == "(no error)");
}
