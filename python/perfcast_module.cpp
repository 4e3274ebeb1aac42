// The Python module `perfcast` (issue 26): the engine's answers as Python objects — each function
// returns what the matching command prints with `--format json`. A scenario is a file path or a
// dict of the file's tables; options are keyword arguments with the command's meaning. Bad input
// raises perfcast.InputError (a ValueError) with the command's one-line message.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/api/answers.hpp"
#include "engine/core/errors.hpp"
#include "engine/data/scenario_variants.hpp"
#include "engine/data/scenario_json.hpp"
#include "engine/data/scenario_reader.hpp"
#include "engine/data/workload_reader.hpp"

namespace py = pybind11;
using namespace perfcast;

namespace {

const HardwareDb& db() {
  static const HardwareDb loaded = HardwareDb::load(default_hardware_db_dir());
  return loaded;
}

// JSON crosses as text: Python's json module builds the dicts, and a dict given comes back as JSON.
py::object to_python(const nlohmann::json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

nlohmann::json from_python(const py::dict& d) {
  const std::string text = py::module_::import("json").attr("dumps")(d).cast<std::string>();
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw InputError({"<dict>", 0, 0}, "not a scenario: a dict of tables of numbers, strings and booleans");
  }
}

// A scenario file's path, or its tables as a dict.
Scenario scenario_of(const py::object& given) {
  if (py::isinstance<py::dict>(given)) return scenario_from_json(from_python(given.cast<py::dict>()), "<dict>", db());
  if (py::isinstance<py::str>(given) || py::hasattr(given, "__fspath__"))
    return load_scenario(py::str(given).cast<std::string>(), default_workloads_dir(), db());
  throw InputError({}, "scenario: give a file path or a dict of the scenario's tables");
}

py::object predict_answer(const py::object& scenario, const std::string& calibration, const std::string& order, bool uncertainty, int samples,
                          bool ignore_memory) {
  return to_python(api::to_json(api::predict(scenario_of(scenario), {calibration, order, uncertainty, samples, ignore_memory})));
}

py::object memory_answer(const py::object& scenario) { return to_python(api::memory(scenario_of(scenario))); }

py::object capacity_answer(const py::object& scenario, std::optional<double> rate, std::optional<int> concurrency, std::optional<double> ttft_slo,
                    std::optional<double> tpot_slo, std::optional<double> percentile, bool disaggregated) {
  CapacityRequest r;
  r.rate = rate, r.ttft_slo_s = ttft_slo, r.tpot_slo_s = tpot_slo, r.percentile = percentile, r.disaggregated = disaggregated;
  if (concurrency) r.concurrency = *concurrency;
  return to_python(api::capacity(scenario_of(scenario), r));
}

py::object sweep_answer(const py::object& scenario, const std::vector<int>& devices, const std::string& objective, int top,
                 const std::vector<std::string>& pareto, const std::vector<std::string>& constraints, int threads) {
  return to_python(api::sweep(scenario_of(scenario), {devices, objective, top, pareto, constraints, threads}));
}

py::object compare_answer(const py::object& scenario, const std::vector<std::string>& hardware, const std::vector<std::string>& cost,
                   const std::vector<std::string>& region, std::optional<double> deadline) {
  CompareRequest r{.hardware = hardware, .cost = cost, .region = region};
  r.deadline_s = deadline;
  if (py::isinstance<py::dict>(scenario)) {
    const toml::table base = scenario_table_from_json(from_python(scenario.cast<py::dict>()), "<dict>", FilePaths::allowed);
    return to_python(api::compare(scenario_variants(base, "<dict>", r, db()), "<dict>", r.deadline_s));
  }
  if (!py::isinstance<py::str>(scenario) && !py::hasattr(scenario, "__fspath__"))
    throw InputError({}, "scenario: give a file path or a dict of the scenario's tables");
  r.scenario_file = py::str(scenario).cast<std::string>();
  return to_python(api::compare(scenario_variants(r, db()), r.scenario_file, r.deadline_s));
}

py::object validate_answer(const std::string& cases, const std::string& kind, const std::string& source, const std::string& calibration) {
  return to_python(validation_to_json(api::validation_report({cases, kind, source, calibration}, db())));
}

}  // namespace

PYBIND11_MODULE(perfcast, m) {
  m.doc() = "perfcast: predictions of AI training and serving on hardware, with their sources; each function returns what the "
            "command prints with --format json";
  static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(input_error.ptr(), e.what());
    }
  });
  using namespace pybind11::literals;
  m.def("predict", &predict_answer, "perfcast predict: a training or inference prediction", "scenario"_a, py::kw_only(), "calibration"_a = "",
        "order"_a = "", "uncertainty"_a = false, "samples"_a = 200, "ignore_memory"_a = false);
  m.def("memory", &memory_answer, "perfcast memory: memory per device by component", "scenario"_a);
  m.def("capacity", &capacity_answer, "perfcast capacity: serving capacity under SLOs (seconds for the SLOs)", "scenario"_a, py::kw_only(),
        "rate"_a = py::none(), "concurrency"_a = py::none(), "ttft_slo"_a = py::none(), "tpot_slo"_a = py::none(),
        "percentile"_a = py::none(), "disaggregated"_a = false);
  m.def("sweep", &sweep_answer, "perfcast sweep: layouts ranked by an objective, with the Pareto front", "scenario"_a, py::kw_only(),
        "devices"_a = std::vector<int>{}, "objective"_a = "time", "top"_a = 20, "pareto"_a = std::vector<std::string>{},
        "constraints"_a = std::vector<std::string>{}, "threads"_a = 0);
  m.def("compare", &compare_answer, "perfcast compare: one workload across hardware, payment and regions (variants as the CLI's strings)",
        "scenario"_a, py::kw_only(), "hardware"_a = std::vector<std::string>{}, "cost"_a = std::vector<std::string>{},
        "region"_a = std::vector<std::string>{}, "deadline"_a = py::none());
  m.def("validate", &validate_answer, "perfcast validate: predictions scored against measured cases", py::kw_only(), "cases"_a = "", "kind"_a = "",
        "source"_a = "", "calibration"_a = "");
  py::module_ hw = m.def_submodule("hw", "The hardware database, every figure with its source");
  hw.def("list", [](const std::string& kind) { return to_python(api::hw_list(api::hw_records(db(), kind))); }, "perfcast hw list", "kind"_a = "");
  hw.def("show", [](const std::string& name) { return to_python(api::hw_show(db(), name)); }, "perfcast hw show", "name"_a);
}
