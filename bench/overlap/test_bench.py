#!/usr/bin/env python3
"""Tests of the 2-GPU benchmarks' own logic, without GPUs or PyTorch: the
programs and builds the generator lists, fuser-exec's lines as the harness
reads them (a stand-in fuser-exec prints them), and the targets the
reports derive. test/e2e/bench-overlap.test runs it."""
import os
import stat
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "mlp"))

import bench_mlp  # noqa: E402
import bench_overlap  # noqa: E402
import harness  # noqa: E402
import programs  # noqa: E402


class Programs(unittest.TestCase):
    def test_one_function_per_op_shape_and_split(self):
        text = programs.program_text(programs.SHAPES)
        self.assertEqual(text.count("func.func @"),
                         len(programs.OPS) * len(programs.SHAPES)
                         * len(programs.STREAM_CHUNKS))
        self.assertIn("func.func @ag_gemm_32768_16384_8192_s8(%a: "
                      "tensor<32768x16384xbf16, #rows_s8>, %b: "
                      "tensor<16384x8192xbf16, #replicated>) -> "
                      "tensor<32768x8192xbf16, #replicated>", text)
        self.assertIn("func.func @gemm_rs_16384_1024_8192_s1(%a: "
                      "tensor<16384x1024xbf16, #cols>, %b: "
                      "tensor<1024x8192xbf16, #rows>) -> "
                      "tensor<16384x8192xbf16, #rows_s1>", text)

    def test_builds_cover_every_label_op_and_shape_once(self):
        builds = programs.builds(programs.SHAPES)
        labels = programs.labels()
        self.assertEqual(labels, ["none", "collective-s2", "collective-s4",
                                  "collective-s8", "ring-ipc-s1",
                                  "ring-ipc-s2", "ring-nccl-s1", "auto"])
        cells = {(label, op.name, shape) for _, label, op, shape, _, _ in builds}
        self.assertEqual(len(cells), len(builds))
        self.assertEqual(len(builds), len(labels) * 2 * len(programs.SHAPES))
        libraries = {(variant.name, function)
                     for variant, _, _, _, function, _ in builds}
        self.assertEqual(len(libraries), len(builds))

    def test_each_op_moves_data_where_its_pipeline_needs(self):
        for _, label, op, _, function, options in programs.builds(
                programs.SMALL_SHAPES):
            placement = "before" if op is programs.AG_GEMM else "after"
            self.assertIn(f"--reshard-placement={placement}", options)
            self.assertIn("--target=cuda", options)
            if label == "ring-ipc-s2":
                self.assertTrue(function.endswith("_s2"))
                self.assertIn("--backend=cuda_ipc", options)

    def test_flop_per_gpu_follows_ddlb(self):
        shape = (4096, 8192, 8192)
        self.assertEqual(programs.AG_GEMM.flop_per_gpu(shape),
                         2 * 4096 * 8192 * 8192)
        self.assertEqual(programs.GEMM_RS.flop_per_gpu(shape),
                         4096 * 8192 * 8192)

    def test_mlp_builds_name_functions_of_mlp_mlir(self):
        with open(os.path.join(HERE, "..", "mlp", "mlp.mlir")) as source:
            text = source.read()
        for _, _, _, function, _ in bench_mlp.builds():
            self.assertIn(f"func.func @{function}(", text)


def fake_fuser_exec(directory, body):
    """An executable that prints what fuser-exec would and exits with
    `body`'s status."""
    path = os.path.join(directory, "fuser-exec")
    with open(path, "w") as script:
        script.write("#!/bin/sh\n" + textwrap.dedent(body))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


class FuserExecLines(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.library = os.path.join(self.directory.name, "p.so")

    def tearDown(self):
        self.directory.cleanup()

    def runner(self, body):
        return harness.FuserExec(fake_fuser_exec(self.directory.name, body),
                                 "", 20, 60)

    def test_reads_timing_allocations_and_check(self):
        result = self.runner("""\
            echo "fuser-exec: timing p: executions=20 batch=1 median_us=1500.000 min_us=1400.500 max_us=1700.000"
            echo "fuser-exec: device allocations p: executions=20 per_execution=0"
            echo "fuser-exec: p on 2 ranks, 21 iterations, 3 cached buffers: check passed, max relative error 0.00390625 (tolerance 0.02)"
            """).run(self.library, "p", check=True)
        self.assertNotIn("error", result)
        self.assertEqual((result["median_ms"], result["min_ms"],
                          result["max_ms"], result["iterations"]),
                         (1.5, 1.4005, 1.7, 20))
        self.assertEqual(result["allocations_per_execution"], 0)
        self.assertEqual(result["reference_check"],
                         {"passed": True, "relative_error": 0.00390625})
        self.assertIn("--iterations 21 --time --check", result["command"])

    def test_a_failed_run_keeps_its_lines(self):
        result = self.runner("""\
            echo "fuser-exec: no program named p in p.so"
            exit 1
            """).run(self.library, "p")
        self.assertEqual(result["error"], "exit 1")
        self.assertEqual(result["lines"], ["fuser-exec: no program named p in p.so"])
        self.assertNotIn("median_ms", result)

    def test_refused_inputs_fall_back_to_the_reference(self):
        runner = self.runner("""\
            case "$*" in
            *--inputs*) echo "fuser-exec: --inputs reads f32 .npy files; input 0 of p is bf16"; exit 1;;
            esac
            echo "fuser-exec: timing p: executions=20 batch=1 median_us=10.0 min_us=9.0 max_us=11.0"
            case "$*" in
            *--check*) echo "fuser-exec: p on 2 ranks, 21 iterations, 1 cached buffers: check FAILED, max relative error 0.5 (tolerance 0.02)";;
            *) echo "fuser-exec: p on 2 ranks, 21 iterations, 1 cached buffers: done";;
            esac
            """)
        output = os.path.join(self.directory.name, "y.npy")
        first = runner.run_validated(self.library, "p", ["a.npy", "b.npy"],
                                     "expected.npy", output, True)
        self.assertTrue(runner.inputs_refused)
        self.assertEqual(first["median_ms"], 0.01)
        self.assertNotIn("--inputs", first["command"])
        self.assertEqual(first["validation"]["passed"], False)
        second = runner.run_validated(self.library, "p", ["a.npy", "b.npy"],
                                      "expected.npy", output, False)
        self.assertNotIn("--check", second["command"])
        self.assertNotIn("validation", second)


class Budget(unittest.TestCase):
    def test_a_run_is_skipped_when_its_size_no_longer_fits(self):
        budget = harness.TimeBudget(100)
        self.assertTrue(budget.allows("large"))
        budget.record("large", {"wall_s": 150.0})
        self.assertFalse(budget.allows("large"))
        self.assertTrue(budget.allows("small"))

    def test_skipped_runs_say_so(self):
        with tempfile.TemporaryDirectory() as artifacts:
            os.makedirs(os.path.join(artifacts, "auto"))
            open(os.path.join(artifacts, "auto", "p.so"), "w").close()
            budget = harness.TimeBudget(0)
            result = harness.run_library(None, budget, "large", artifacts,
                                         "auto", "p")
            self.assertEqual(result["error"],
                             "skipped: our runs' time budget of 0 s was spent")
            missing = harness.run_library(None, budget, "large", artifacts,
                                          "none", "p")
            self.assertTrue(missing["error"].startswith("not built (no log"))

    def test_every_label_has_its_turn(self):
        self.assertEqual(sorted(bench_overlap.RUN_ORDER), sorted(programs.labels()))
        self.assertEqual(bench_overlap.RUN_ORDER[:2], ("auto", "none"))


def timed(milliseconds, **extra):
    return dict({"median_ms": milliseconds, "min_ms": milliseconds,
                 "max_ms": milliseconds, "iterations": 20}, **extra)


class Targets(unittest.TestCase):
    torch_op = {"compute": timed(10.0), "communication": timed(4.0),
                "sequential": timed(14.0), "symmetric_memory": timed(11.0)}

    def summary_and_misses(self, ours):
        summary = bench_overlap.shape_summary(programs.AG_GEMM, self.torch_op, ours)
        return summary, bench_overlap.targets(summary, ours)

    def test_all_met_within_five_percent_of_the_ideal(self):
        ours = {"none": timed(14.5), "collective-s4": timed(10.4),
                "auto": timed(10.3, allocations_per_execution=0)}
        summary, misses = self.summary_and_misses(ours)
        self.assertEqual(summary["ideal"], 10.0)
        self.assertEqual((summary["best_label"], summary["best"]), ("auto", 10.3))
        self.assertEqual(misses, [])

    def test_misses_are_named(self):
        ours = {"collective-s2": timed(15.0), "ring-ipc-s1": timed(10.2),
                "auto": timed(14.5, allocations_per_execution=2)}
        _, misses = self.summary_and_misses(ours)
        self.assertEqual(misses, [
            "auto 1.45x ideal", "auto slower than symm_mem",
            "auto slower than sequential", "collective slower than sequential",
            "device allocations per execution: auto"])

    def test_a_run_that_failed_validation_is_not_the_best(self):
        ours = {"ring-ipc-s1": timed(5.0, validation={"passed": False}),
                "auto": timed(10.4)}
        summary, misses = self.summary_and_misses(ours)
        self.assertEqual(summary["best_label"], "auto")
        self.assertIn("collective: no valid time", misses)
        self.assertEqual(harness.validation_cell(ours), "0/1 passed (failed: ring-ipc-s1)")

    def test_report_renders_without_results(self):
        lines = bench_overlap.op_report(programs.GEMM_RS, {}, {})
        self.assertIn("## GEMM+ReduceScatter", lines)
        self.assertEqual(sum(line.startswith("| 32768, 16384, 8192 |")
                             for line in lines), 3)

    def test_time_cells_give_tflops_per_gpu(self):
        flop = programs.AG_GEMM.flop_per_gpu((8192, 8192, 8192))
        self.assertEqual(harness.time_cell(1.56, flop), "1.560 / 705")
        self.assertEqual(harness.time_cell(0.5), "0.500")
        self.assertEqual(harness.time_cell(None, flop), "n/a")


class MlpTargets(unittest.TestCase):
    def test_ratios_and_targets_per_mlp(self):
        torch_mlps = {"tp": {"compute": timed(5.0), "pytorch": timed(8.0)}}
        ours = {"tp": {"collective-s4": timed(7.0, validation={"passed": True}),
                       "auto": timed(9.0)}}
        times, _, ratios, _ = bench_mlp.mlp_rows(torch_mlps, ours)
        self.assertEqual(times[0][:3], ["tensor parallel", "5.000 / 880",
                                        "8.000 / 550"])
        self.assertEqual(ratios[0], ["tensor parallel", "collective-s4",
                                     "1.143", "0.889", "1/1 passed",
                                     "auto slower than PyTorch"])
        self.assertEqual(ratios[1][-1], "best: no valid time; auto: no valid time")


if __name__ == "__main__":
    unittest.main()
