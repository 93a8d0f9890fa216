"""Tests of fuser_mlir.runtime: a compiled program run on 2 MPI ranks from
Python with NumPy arrays (run_tp_mlp.py is each rank) and with DLPack
tensors (run_tp_mlp_tensors.py; PyTorch's where it is installed, and on
GPUs through scripts/run-gpu-tests.sh)."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def interpreter_with_numpy():
    """This Python, or the system's (same version: the modules load in
    both), whichever has NumPy for the ranks."""
    for python in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(python) and subprocess.run(
                [python, "-c", "import numpy"], capture_output=True).returncode == 0:
            return python
    return None


RANK_PYTHON = interpreter_with_numpy()
CAN_RUN = (importlib.util.find_spec("fuser_mlir._ir") is not None
           and importlib.util.find_spec("fuser_mlir._runtime") is not None
           and RANK_PYTHON is not None and shutil.which("mpirun") is not None)


def run_on_ranks(ranks, script, *arguments, timeout=600, timeout_s=60,
                 environment=()):
    """Runs the rank script `script` of this folder on `ranks` MPI ranks,
    with FUSER_TIMEOUT_S=`timeout_s` and the variables `environment`
    ("NAME=value") set."""
    exported = [option for variable in environment for option in ("-x", variable)]
    return subprocess.run(
        ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks),
         "-x", "PYTHONPATH", "-x", f"FUSER_TIMEOUT_S={timeout_s}", *exported,
         RANK_PYTHON, os.path.join(HERE, script), *arguments],
        capture_output=True, text=True, timeout=timeout)


def rank_problems(output):
    """{case: first problem} of the lines "rank R: CASE: PROBLEM" rank
    scripts print."""
    problems = {}
    for line in output.splitlines():
        found = re.match(r"rank \d+: (\w+): (.*)", line)
        if found:
            problems.setdefault(found.group(1), found.group(2))
    return problems


def has_torch(python):
    return python is not None and subprocess.run(
        [python, "-c", "import torch"], capture_output=True).returncode == 0


@unittest.skipUnless(CAN_RUN, "needs the compiler, the runtime, NumPy and mpirun")
class RuntimeTest(unittest.TestCase):
    def run_on_two_ranks(self, script, *arguments,
                         program=os.path.join(ROOT, "examples", "tp_mlp.mlir")):
        """Compiles `program` (the TP MLP example) for the CPU and runs
        `script` on 2 ranks over it; returns their output."""
        from fuser_mlir import ir

        with tempfile.TemporaryDirectory() as directory:
            library = os.path.join(directory, "program.so")
            with open(program) as source:
                ir.compile(ir.Module.parse(source.read(), ir.Context()), library)
            ranks = subprocess.run(
                ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2",
                 "-x", "PYTHONPATH", "-x", "FUSER_TIMEOUT_S=30",
                 RANK_PYTHON, os.path.join(HERE, script), library, *arguments],
                capture_output=True, text=True, timeout=120)
            self.assertEqual(ranks.returncode, 0, ranks.stdout + ranks.stderr)
            return ranks.stdout

    def test_tp_mlp_on_two_ranks(self):
        output = self.run_on_two_ranks("run_tp_mlp.py")
        for rank in (0, 1):
            self.assertIn(f"rank {rank} of 2: ['tp_mlp'] cpu ok", output)

    def test_tp_mlp_with_dlpack_tensors(self):
        output = self.run_on_two_ranks("run_tp_mlp_tensors.py")
        for rank in (0, 1):
            self.assertIn(f"rank {rank} of 2: tp_mlp dlpack cpu ok", output)

    @unittest.skipUnless(has_torch(RANK_PYTHON), "needs PyTorch")
    def test_tp_mlp_with_torch_tensors(self):
        output = self.run_on_two_ranks("run_tp_mlp_tensors.py", "--torch")
        for rank in (0, 1):
            self.assertIn(f"rank {rank} of 2: tp_mlp torch cpu ok", output)

    def test_forty_inputs_and_twelve_outputs(self):
        output = self.run_on_two_ranks(
            "run_many_arguments.py",
            program=os.path.join(ROOT, "test", "e2e", "Inputs", "many-arguments.mlir"))
        for rank in (0, 1):
            self.assertIn(f"rank {rank} of 2: 40 inputs, 12 outputs ok", output)

    def test_errors_raise_on_every_rank(self):
        from fuser_mlir import FusionDefinition, Mesh, ir

        # Its output, cut in two, needs 2 TiB on each rank.
        too_large = FusionDefinition("too_large", mesh=Mesh([2]))
        small = too_large.input([4], "f32")
        too_large.output(small + small,
                         too_large.full([1 << 20, 1 << 20], 1.0, "f32",
                                        sharding=[[0], []]))
        with tempfile.TemporaryDirectory() as directory:
            libraries = [os.path.join(directory, name)
                         for name in ("tp_mlp.so", "too_large.so")]
            with open(os.path.join(ROOT, "examples", "tp_mlp.mlir")) as source:
                ir.compile(ir.Module.parse(source.read(), ir.Context()), libraries[0])
            ir.compile(too_large.module(ir.Context()), libraries[1])
            # Sanitized builds return null for an allocation too large, as
            # the system's allocator does.
            sanitizer = os.environ.get("ASAN_OPTIONS")
            environment = ([f"ASAN_OPTIONS={sanitizer}:allocator_may_return_null=1"]
                           if sanitizer else [])
            ranks = run_on_ranks(2, "run_errors.py", *libraries, timeout=120,
                                 timeout_s=10, environment=environment)
        self.assertEqual(ranks.returncode, 0, ranks.stdout + ranks.stderr)
        for rank in (0, 1):
            self.assertIn(f"rank {rank}: errors ok", ranks.stdout)

    def test_execute_compiles_once_and_runs_on_every_rank(self):
        with tempfile.TemporaryDirectory() as cache:
            ranks = run_on_ranks(2, "run_execute.py", cache, timeout=300)
        self.assertEqual(ranks.returncode, 0, ranks.stdout + ranks.stderr)
        for rank in (0, 1):
            self.assertIn(f"rank {rank}: execute ok", ranks.stdout)

    def test_compiling_leaves_the_module_as_it_was(self):
        from fuser_mlir import ir

        with open(os.path.join(ROOT, "examples", "tp_mlp.mlir")) as source:
            module = ir.Module.parse(source.read(), ir.Context())
        text = str(module)
        with tempfile.TemporaryDirectory() as directory:
            ir.compile(module, os.path.join(directory, "first.so"))
            self.assertEqual(str(module), text)
            report = os.path.join(directory, "bytes.json")
            ir.compile(module, os.path.join(directory, "second.so"), streams=2,
                       reshard_placement="before", programs=["tp_mlp"],
                       report_communication=report, vjp=True, vjp_save="all",
                       pipelining="collective")
            with open(report) as written:
                self.assertIn("tp_mlp__bwd", written.read())
            with self.assertRaises(ir.MLIRError) as raised:
                ir.compile(module, os.path.join(directory, "third.so"),
                           reshard_placement="sideways")
            self.assertIn("unknown reshard placement 'sideways'",
                          str(raised.exception.diagnostics))
            self.assertEqual(sorted(os.listdir(directory)),
                             ["bytes.json", "first.so", "first.so.json",
                              "second.so", "second.so.json"])

    def test_bad_library(self):
        from fuser_mlir import runtime

        with tempfile.NamedTemporaryFile(suffix=".so") as empty:
            with self.assertRaises(ValueError) as raised:
                runtime.Library(empty.name)
            self.assertIn("cannot load", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
