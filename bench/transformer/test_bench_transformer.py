#!/usr/bin/env python3
"""Tests of bench_transformer.py's steps that need no GPU: which libraries
it builds on how many GPUs, which of them the ours step runs, and what the
report makes of their results."""
import json
import os
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_transformer  # noqa: E402
import harness  # noqa: E402


class Libraries(unittest.TestCase):
    def test_one_gpu_builds_the_nccl_programs_only(self):
        folders = [folder for folder, _, _, _ in bench_transformer.libraries(1)]
        self.assertEqual(folders, ["tp-dropout", "tp-validate", "sp-dropout",
                                   "sp-validate"])

    def test_more_gpus_also_build_the_ipc_programs(self):
        built = bench_transformer.libraries(2)
        self.assertEqual(len(built), 8)
        self.assertIn(("sp-validate-ipc", "sp", 0.0, "cuda_ipc"), built)
        self.assertIn(("tp-dropout", "tp", bench_transformer.DROPOUT, "nccl"),
                      built)


class FakeRunner:
    """Records what the ours step runs; every run takes 2 ms."""

    def __init__(self):
        self.libraries = []
        self.inputs_refused = False

    def run(self, library, program, inputs=(), output=None, check=False):
        self.libraries.append(os.path.relpath(library, self.root))
        return {"median_ms": 2.0, "lines": [], "peak_gib": 1.5}


class OursAndReport(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        root = self.directory.name
        self.artifacts = os.path.join(root, "artifacts")
        self.work = os.path.join(root, "work")
        os.makedirs(self.work)
        with open(os.path.join(self.work, "torch.json"), "w") as torch_json:
            json.dump({"modes": {"tp": {"ideal": {"forward": {"median_ms": 1.0}},
                                        "eager": {"forward": {"median_ms": 2.5}}}}},
                      torch_json)

    def tearDown(self):
        self.directory.cleanup()

    def ours(self, devices, folders, generated=()):
        """Runs the ours step over `folders`, those of `generated` with the
        library of the generated programs."""
        for folder in folders:
            os.makedirs(os.path.join(self.artifacts, folder))
        for folder in generated:
            open(os.path.join(self.artifacts, folder, "gpt_layer.so"), "w").close()
        runner = FakeRunner()
        runner.root = self.artifacts
        args = bench_transformer.parse_args(
            ["--devices", str(devices), "ours", self.artifacts, "fuser-exec",
             self.work, "--parts", "timing"])
        with mock.patch.object(harness, "FuserExec", return_value=runner), \
                mock.patch.object(harness, "runtime_nccl", return_value="x"), \
                mock.patch("builtins.print"):
            bench_transformer.run_ours(args)
        return runner.libraries

    def report(self, devices):
        table = os.path.join(self.work, "t.md")
        args = bench_transformer.parse_args(
            ["--devices", str(devices), "report", self.work, table,
             os.path.join(self.work, "t.json")])
        with mock.patch("builtins.print"):
            bench_transformer.run_report(args)
        with open(table) as text:
            return text.read()

    def test_each_backend_built_is_timed_and_reported(self):
        ran = self.ours(2, ["tp-dropout", "sp-dropout", "tp-dropout-ipc"])
        self.assertEqual(ran, ["tp-dropout/gpt_forward.so",
                               "tp-dropout/gpt_backward.so",
                               "sp-dropout/gpt_forward.so",
                               "sp-dropout/gpt_backward.so",
                               "tp-dropout-ipc/gpt_forward.so",
                               "tp-dropout-ipc/gpt_backward.so"])
        report = self.report(2)
        self.assertIn("| layer | PyTorch compute only (ideal) | PyTorch eager "
                      "| torch.compile | ours | ours (generated) | ours (IPC rings) "
                      "| ours (IPC rings) (generated) |", report)
        # Forward: ideal 1 ms, eager 2.5 ms, ours 2 ms over either backend;
        # no generated programs were built.
        self.assertIn("| tensor parallel, forward | 2.500 | 2.000 | 1.250 | n/a "
                      "| n/a | n/a | n/a | 2.000 | 1.250 | n/a | n/a | n/a | n/a |",
                      report)
        # SP had no IPC libraries: its cell says so.
        self.assertIn("| sequence parallel, forward | n/a | n/a | n/a "
                      "| 2.000 / 1907 | n/a | n/a | n/a |", report)

    def test_the_generated_pair_is_timed_beside_the_hand_written_one(self):
        ran = self.ours(1, ["tp-dropout"], generated=["tp-dropout"])
        self.assertEqual(ran, ["tp-dropout/gpt_forward.so",
                               "tp-dropout/gpt_backward.so",
                               "tp-dropout/gpt_layer.so",
                               "tp-dropout/gpt_layer.so"])
        report = self.report(1)
        self.assertIn("| tensor parallel, forward | 1.000 / 7628 | 2.500 / 3051 "
                      "| n/a | 2.000 / 3814 | 2.000 / 3814 |", report)
        self.assertIn("ours (generated) ÷ ours, tensor parallel: forward 1.000, "
                      "forward+backward 1.000", report)
        self.assertIn("| ours (generated) ÷ ideal | eager ÷ ours (generated) |",
                      report)

    def test_one_gpu_reports_one_column_of_ours(self):
        self.ours(1, ["tp-dropout", "sp-dropout"])
        report = self.report(1)
        self.assertNotIn("IPC", report)
        self.assertIn("| ours ÷ ideal | eager ÷ ours | compile ÷ ours |", report)


if __name__ == "__main__":
    unittest.main()
