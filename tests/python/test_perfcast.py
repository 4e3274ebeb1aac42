"""The Python module against the command line: each function returns what the matching command
prints with --format json, a scenario given as a dict reads as its file does, and bad input raises
perfcast.InputError with the command's one-line message. Run by CTest with the build's module on
PYTHONPATH and the CLI's path in PERFCAST_BINARY."""
import json
import os
import subprocess
import tomllib
import unittest

import perfcast

SOURCE = os.environ["PERFCAST_SOURCE_DIR"]
BINARY = os.environ["PERFCAST_BINARY"]


def scenario(name):
    return os.path.join(SOURCE, "scenarios", name)


def cli(*args):
    run = subprocess.run([BINARY, *args, "--format", "json"], capture_output=True, text=True, check=False)
    return json.loads(run.stdout)


class SameAsCommandLine(unittest.TestCase):
    def test_predict_training_and_inference(self):
        for name in ("llama3-70b-h100-training.toml", "llama3-70b-h100-serving.toml", "resnet-50-orin-nx-15w.toml"):
            with self.subTest(name):
                self.assertEqual(perfcast.predict(scenario(name)), cli("predict", scenario(name)))

    def test_predict_order_and_calibration(self):
        path = scenario("gpt3-175b-64xa100-korthikanti.toml")
        self.assertEqual(perfcast.predict(path, order="tp-dp-cp-ep-pp"), cli("predict", path, "--order", "tp-dp-cp-ep-pp"))

    def test_memory_capacity_compare(self):
        training, serving = scenario("llama3-70b-h100-training.toml"), scenario("llama3-70b-h100-serving.toml")
        self.assertEqual(perfcast.memory(training), cli("memory", training))
        self.assertEqual(perfcast.capacity(serving, rate=20.0), cli("capacity", serving, "--rate", "20"))
        self.assertEqual(perfcast.capacity(serving, concurrency=16), cli("capacity", serving, "--concurrency", "16"))
        self.assertEqual(perfcast.capacity(serving, rate=20.0, ttft_slo=0.5, tpot_slo=0.05),
                         cli("capacity", serving, "--rate", "20", "--ttft-slo", "500ms", "--tpot-slo", "50ms"))
        self.assertEqual(perfcast.compare(training, hardware=["system=dgx-b200,nodes=8"], cost=["cloud"]),
                         cli("compare", training, "--hardware", "system=dgx-b200,nodes=8", "--cost", "cloud"))
        # A dict compares as its file does, naming <dict> where the file's name would stand.
        with open(training, "rb") as f:
            tables = tomllib.load(f)
        from_dict = perfcast.compare(tables, hardware=["system=dgx-b200,nodes=8"])
        from_file = perfcast.compare(training, hardware=["system=dgx-b200,nodes=8"])
        self.assertEqual(from_dict["scenario"], "<dict>")
        from_dict.pop("scenario"), from_file.pop("scenario")
        self.assertEqual(from_dict, from_file)

    def test_sweep(self):
        path = scenario("gpt3-175b-64xa100-korthikanti.toml")
        mine = perfcast.sweep(path, top=3, pareto=["time", "memory"], threads=1)
        theirs = cli("sweep", path, "--top", "3", "--pareto", "time,memory", "--threads", "1")
        for result in (mine, theirs):
            for key in ("seconds", "threads", "layouts_per_s"):
                result["sweep"].pop(key)
        self.assertEqual(mine, theirs)

    def test_validate_and_hardware(self):
        cases = os.path.join(SOURCE, "validation", "memory.toml")
        self.assertEqual(perfcast.validate(cases=cases), cli("validate", "--cases", cases))
        self.assertEqual(perfcast.hw.show("h100-sxm"), cli("hw", "show", "h100-sxm"))
        self.assertEqual(perfcast.hw.list("region"), cli("hw", "list", "--kind", "region"))

    def test_dict_reads_as_its_file(self):
        for name in ("llama3-70b-h100-training.toml", "llama3-70b-h100-serving.toml"):
            with open(scenario(name), "rb") as f:
                tables = tomllib.load(f)
            with self.subTest(name):
                self.assertEqual(perfcast.predict(tables), perfcast.predict(scenario(name)))


class BadInput(unittest.TestCase):
    def assert_refused(self, call, message):
        with self.assertRaises(perfcast.InputError) as e:
            call()
        self.assertIn(message, str(e.exception))
        self.assertNotIn("\n", str(e.exception))
        self.assertTrue(issubclass(perfcast.InputError, ValueError))

    def test_refusals(self):
        good = {"schema_version": 1, "model": {"preset": "llama3-8b"}, "hardware": {"accelerator": "h100-sxm", "count": 8},
                "training": {"global_batch": 8, "seq_len": 4096}, "parallelism": {"tp": 3}}
        self.assert_refused(lambda: perfcast.predict(good), "<dict>: parallelism.tp")
        self.assert_refused(lambda: perfcast.predict({**good, "parallelism": {"tp": 2}, "typo": 1}), "typo")
        self.assert_refused(lambda: perfcast.predict({**good, "parallelism": {"tp": None}}), "parallelism.tp: null is not a value")
        self.assert_refused(lambda: perfcast.predict({**good, "parallelism": {"tp": float("nan")}}), "<dict>")
        self.assert_refused(lambda: perfcast.predict(scenario("no-such-file.toml")), "no-such-file.toml")
        self.assert_refused(lambda: perfcast.predict(42), "give a file path or a dict")
        self.assert_refused(lambda: perfcast.predict(scenario("llama3-70b-h100-training.toml"), order="tp-tp"), "--order 'tp-tp'")
        self.assert_refused(lambda: perfcast.hw.show("h100-sxmm"), "h100-sxmm")
        self.assert_refused(lambda: perfcast.hw.list("gpu"), "hw list 'gpu'")
        self.assert_refused(lambda: perfcast.validate(kind="nothing"), "validate --kind 'nothing'")


if __name__ == "__main__":
    unittest.main()
