#!/usr/bin/env python3
"""Tests of the GPU benchmarks' own logic, without GPUs or PyTorch: the
programs and builds the generator lists on 2 and 4 devices, fuser-exec's
lines as the harness reads them (a stand-in fuser-exec prints them), the
targets the reports derive, and what build.sh and run.sh start on 4 GPUs
(stand-ins for the compiler and mpirun). test/e2e/bench-overlap.test runs
it; test/bench-d4 and test/bench-d8 run the 4- and 8-device programs on
CPU ranks."""
import contextlib
import io
import os
import re
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "mlp"))

import bench_mlp  # noqa: E402
import bench_overlap  # noqa: E402
import check_cpu  # noqa: E402
import harness  # noqa: E402
import programs  # noqa: E402


class Programs(unittest.TestCase):
    def test_one_function_per_op_shape_and_split(self):
        text = programs.program_text(programs.SHAPES, 2)
        self.assertIn("#mesh = #fuser.mesh<[2]>", text)
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
        builds = programs.builds(programs.SHAPES, 2)
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
                programs.SMALL_SHAPES, 4):
            placement = "before" if op is programs.AG_GEMM else "after"
            self.assertIn(f"--reshard-placement={placement}", options)
            self.assertIn("--target=cuda", options)
            if label == "ring-ipc-s2":
                self.assertTrue(function.endswith("_s2"))
                self.assertIn("--backend=cuda_ipc", options)

    def test_flop_per_gpu_follows_ddlb(self):
        shape = (4096, 8192, 8192)
        for devices in (2, 4):
            self.assertEqual(programs.AG_GEMM.flop_per_gpu(shape, devices),
                             2 * 4096 * 8192 * 8192)
        self.assertEqual(programs.GEMM_RS.flop_per_gpu(shape, 2),
                         4096 * 8192 * 8192)
        self.assertEqual(programs.GEMM_RS.flop_per_gpu(shape, 4),
                         4096 * 8192 * 8192 / 2)

    def test_every_cell_exists_on_four_devices(self):
        for shapes in (programs.SHAPES, programs.SMALL_SHAPES):
            self.assertEqual(programs.unavailable(shapes, 4), [])
            text = programs.program_text(shapes, 4)
            self.assertEqual(programs.mesh_devices(text), 4)
            self.assertEqual(text.count("func.func @"),
                             len(programs.OPS) * len(shapes)
                             * len(programs.STREAM_CHUNKS))
            # The same libraries, compiled with the same options: only the
            # mesh differs.
            self.assertEqual(programs.builds(shapes, 4),
                             programs.builds(shapes, 2))

    def test_cells_that_cannot_exist_are_named_not_dropped(self):
        # k = 6 does not split over 4 devices; a rank's 12 rows do not
        # split into 8 chunks; m = 6 does not split at all.
        shapes = ((48, 6, 16), (6, 8, 8))
        text = programs.program_text(shapes, 4)
        self.assertEqual(re.findall(r"func\.func @(\w+)\(", text),
                         ["ag_gemm_48_6_16_s1", "ag_gemm_48_6_16_s2",
                          "ag_gemm_48_6_16_s4"])
        builds = programs.builds(shapes, 4)
        missing = programs.unavailable(shapes, 4)
        self.assertEqual(len(builds) + len(missing),
                         len(programs.labels()) * 2 * len(shapes))
        self.assertEqual(sorted(label for _, label, op, shape, _, _ in builds),
                         sorted(set(programs.labels()) - {"collective-s8"}))
        lines = programs.unavailable_lines(shapes, 4)
        self.assertIn("no ag_gemm 48x6x16 collective-s8 on 4 devices: a rank's "
                      "12 rows do not split into 8 chunks", lines)
        self.assertIn("no gemm_rs 48x6x16 none on 4 devices: k = 6 does not "
                      "split over 4 devices", lines)
        self.assertIn("no ag_gemm 6x8x8 auto on 4 devices: m = 6 does not "
                      "split over 4 devices", lines)
        self.assertEqual(programs.unavailable_lines(shapes, 4, (programs.AG_GEMM,)),
                         [line for line in lines if line.startswith("no ag_gemm")])
        # On 2 devices, k = 6 splits and a rank's 24 rows split into 8.
        self.assertEqual(programs.unavailable(((48, 6, 16),), 2), [])

    def test_mlp_builds_name_functions_of_mlp_mlir(self):
        with open(os.path.join(HERE, "..", "mlp", "mlp.mlir")) as source:
            text = source.read()
        for _, _, _, function, _ in bench_mlp.builds():
            self.assertIn(f"func.func @{function}(", text)


def executable(path, body):
    """A shell script at `path` that runs `body`."""
    with open(path, "w") as script:
        script.write("#!/bin/sh\n" + textwrap.dedent(body))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def fake_fuser_exec(directory, body):
    """An executable that prints what fuser-exec would and exits with
    `body`'s status."""
    path = os.path.join(directory, "fuser-exec")
    executable(path, body)
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
            echo "fuser-exec: device memory p: peak_bytes=3221225472"
            echo "fuser-exec: p on 2 ranks, 21 iterations, 3 cached buffers: check passed, max relative error 0.00390625 (tolerance 0.02)"
            """).run(self.library, "p", check=True)
        self.assertNotIn("error", result)
        self.assertEqual((result["median_ms"], result["min_ms"],
                          result["max_ms"], result["iterations"]),
                         (1.5, 1.4005, 1.7, 20))
        self.assertEqual(result["allocations_per_execution"], 0)
        self.assertEqual(result["peak_gib"], 3.0)
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
        lines = bench_overlap.op_report(programs.GEMM_RS, {}, {}, 2)
        self.assertIn("## GEMM+ReduceScatter", lines)
        self.assertEqual(sum(line.startswith("| 32768, 16384, 8192 |")
                             for line in lines), 3)

    def test_environment_names_what_ours_ran_with(self):
        environment = {"date": "2026-11-24", "gpus": 2, "gpu": "H200",
                       "gpu_memory_gib": 140, "driver": "580", "torch": "2.11",
                       "cuda": "13.0", "torch_nccl": "2.28",
                       "variables": {"NCCL_NVLS_ENABLE": "0"}}
        ours = {"runtime_nccl": "/usr/lib/libnccl.so.2.28.3",
                "nccl_max_ctas": "8"}
        lines = harness.environment_lines(environment, ours)
        self.assertIn("- environment: NCCL_NVLS_ENABLE=0", lines)
        self.assertEqual(lines[-1], "- our runtime's NCCL: "
                         "/usr/lib/libnccl.so.2.28.3, NCCL_MAX_CTAS=8")
        self.assertEqual(harness.environment_lines(environment, {}),
                         lines[:-1])

    def test_time_cells_give_tflops_per_gpu(self):
        flop = programs.AG_GEMM.flop_per_gpu((8192, 8192, 8192), 2)
        self.assertEqual(harness.time_cell(1.56, flop), "1.560 / 705")
        self.assertEqual(harness.time_cell(0.5), "0.500")
        self.assertEqual(harness.time_cell(None, flop), "n/a")


class FourDevices(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.work = self.directory.name

    def tearDown(self):
        self.directory.cleanup()

    def test_devices_choose_the_ranks_fuser_exec_runs_on(self):
        args = bench_overlap.parse_args(["--devices", "4", "ours", "artifacts",
                                         "fuser-exec", "work"])
        self.assertEqual((args.devices, args.mpirun), (4, None))
        runner = harness.FuserExec("fuser-exec", args.mpirun, 1, 1, args.devices)
        self.assertEqual(runner.mpirun[:6],
                         ["mpirun", "--allow-run-as-root", "--bind-to", "none",
                          "-np", "4"])
        # The MLPs name no device count: 2 ranks, as before.
        self.assertEqual(harness.FuserExec("fuser-exec", None, 1, 1).mpirun[:6],
                         ["mpirun", "--allow-run-as-root", "--bind-to", "none",
                          "-np", "2"])
        self.assertEqual(bench_overlap.parse_args(["report", "w", "t", "j"]).devices, 2)
        with self.assertRaises(SystemExit), \
                contextlib.redirect_stderr(io.StringIO()) as usage:
            bench_overlap.parse_args(["--devices", "0", "report", "w", "t", "j"])
        self.assertIn("invalid device_count value: '0'", usage.getvalue())

    def test_artifacts_of_another_device_count_are_refused(self):
        with self.assertRaisesRegex(SystemExit, "no .*overlap.mlir: run"):
            bench_overlap.check_artifact_devices(self.work, 2)
        with open(os.path.join(self.work, bench_overlap.SOURCE), "w") as source:
            source.write(programs.program_text(programs.SMALL_SHAPES, 2))
        bench_overlap.check_artifact_devices(self.work, 2)
        with self.assertRaisesRegex(SystemExit, "programs for 2 devices, not 4"):
            bench_overlap.check_artifact_devices(self.work, 4)

    def report(self, devices, torch_results):
        harness.write_json(os.path.join(self.work, "torch.json"), torch_results)
        args = bench_overlap.parse_args([
            "--devices", str(devices), "report", self.work,
            os.path.join(self.work, "t.md"), os.path.join(self.work, "t.json")])
        with contextlib.redirect_stdout(io.StringIO()):
            bench_overlap.run_report(args)
        with open(args.table) as table:
            return table.read()

    def test_report_on_four_gpus(self):
        shape = (4096, 8192, 8192)
        torch_results = {"shapes": {harness.shape_name(shape): {
            "gemm_rs": {"compute": timed(0.5)}}}}
        text = self.report(4, torch_results)
        self.assertIn("# AllGather+GEMM and GEMM+ReduceScatter on 4 GPUs", text)
        self.assertIn("GEMM+ReduceScatter 2·m·n·k/4", text)
        # 2·m·n·k/4 in 0.5 ms: 275 TFLOP/s per GPU (550 on 2 GPUs).
        self.assertIn("| 4096, 8192, 8192 | 0.500 / 275 |", text)
        self.assertIn("| 4096, 8192, 8192 | 0.500 / 550 |",
                      self.report(2, torch_results))

    def test_report_refuses_pytorch_results_of_another_device_count(self):
        with self.assertRaisesRegex(SystemExit, "of 2 GPUs, --devices is 4"):
            self.report(4, {"environment": {"gpus": 2}})


class CheckOnCpu(unittest.TestCase):
    def test_variants_keep_their_options_but_what_cpu_ranks_lack(self):
        for variant, _, op, _, _, options in programs.builds(
                programs.SMALL_SHAPES, 4):
            on_cpu = check_cpu.cpu_options(options)
            self.assertEqual(on_cpu[:2], ("--target=cpu",
                                          f"--reshard-placement={op.placement}"))
            self.assertNotIn("--backend=cuda_ipc", on_cpu)
            self.assertEqual(len(on_cpu), len(options))
            if variant.name == "ring-ipc":
                self.assertIn("--backend=nccl", on_cpu)
                self.assertIn("--pipelining=ring", on_cpu)

    def test_a_program_passes_only_checked_and_without_allocations(self):
        passed = timed(1.0, allocations_per_execution=0,
                       reference_check={"passed": True})
        self.assertIsNone(check_cpu.verdict(passed))
        self.assertEqual(check_cpu.verdict(dict(passed, allocations_per_execution=1)),
                         "1 allocations per execution")
        self.assertEqual(check_cpu.verdict(dict(
            passed, reference_check={"passed": False},
            lines=["fuser-exec: p: check FAILED"])),
            "check failed: fuser-exec: p: check FAILED")
        self.assertEqual(check_cpu.verdict({
            "error": "exit 1", "lines": ["fuser-exec: the program runs on 4 ranks",
                                         "mpirun noticed", "---"]}),
            "exit 1: fuser-exec: the program runs on 4 ranks")


class ShellEntryPoints(unittest.TestCase):
    """build.sh and run.sh with FUSER_BENCH_DEVICES=4, a stand-in compiler
    and a stand-in mpirun that records what it would start."""

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.root = self.directory.name
        os.makedirs(os.path.join(self.root, "bin"))
        executable(os.path.join(self.root, "bin", "fuser-compile"), """\
            while [ "$1" != -o ]; do shift; done
            touch "$2"
            """)
        executable(os.path.join(self.root, "bin", "fuser-exec"), "exit 1\n")
        executable(os.path.join(self.root, "bin", "mpirun"), f"""\
            echo "$*" >> {self.root}/mpirun.log
            exit 1
            """)
        self.environment = dict(os.environ, FUSER_BENCH_DEVICES="4",
                                TMPDIR=self.root,
                                PATH=os.path.join(self.root, "bin") + os.pathsep
                                + os.environ["PATH"])

    def tearDown(self):
        self.directory.cleanup()

    def script(self, name, *arguments):
        return subprocess.run([os.path.join(HERE, name), *arguments],
                              env=self.environment, capture_output=True,
                              text=True, check=True).stdout

    def test_build_and_run_on_four_gpus(self):
        artifacts = os.path.join(self.root, "overlap-d4")
        output = self.script("build.sh", artifacts, self.root)
        self.assertIn("80 of 80 libraries built", output)
        with open(os.path.join(artifacts, bench_overlap.SOURCE)) as source:
            self.assertEqual(programs.mesh_devices(source.read()), 4)
        results = os.path.join(self.root, "results")
        output = self.script("run.sh", artifacts, self.root, results)
        self.assertIn("PyTorch's step failed", output)
        with open(os.path.join(self.root, "mpirun.log")) as log:
            started = log.read().splitlines()
        # PyTorch's step, then each of our 80 runs, all on 4 ranks.
        self.assertEqual(len(started), 81)
        self.assertRegex(started[0], r"^--allow-run-as-root --bind-to none -np 4 .*"
                         r"bench_overlap\.py --devices 4 torch ")
        self.assertTrue(all(line.startswith("--allow-run-as-root --bind-to none -np 4 ")
                            for line in started))
        with open(os.path.join(results, "overlap-d4.md")) as table:
            self.assertIn("on 4 GPUs", table.readline())
        self.assertEqual(subprocess.run(
            ["bash", "-c", f"source {HERE}/steps.sh; benchmark_name overlap 2; benchmark_name overlap 4"],
            capture_output=True, text=True, check=True).stdout, "overlap\noverlap-d4\n")

    def test_run_stops_on_a_machine_with_fewer_gpus(self):
        artifacts = os.path.join(self.root, "overlap-d4")
        self.script("build.sh", artifacts, self.root)
        executable(os.path.join(self.root, "bin", "nvidia-smi"), """\
            echo "GPU 0: NVIDIA H200 (UUID: GPU-0)"
            echo "GPU 1: NVIDIA H200 (UUID: GPU-1)"
            """)
        with self.assertRaises(subprocess.CalledProcessError) as failed:
            self.script("run.sh", artifacts, self.root)
        self.assertEqual(failed.exception.stdout,
                         "overlap-d4 runs on 4 GPUs; this machine has 2\n")
        self.assertFalse(os.path.exists(os.path.join(self.root, "mpirun.log")))


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
