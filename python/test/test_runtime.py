"""Tests of fuser_mlir.runtime: a compiled program run on 2 MPI ranks from
Python with NumPy arrays (run_tp_mlp.py is each rank)."""

import importlib.util
import os
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


@unittest.skipUnless(CAN_RUN, "needs the compiler, the runtime, NumPy and mpirun")
class RuntimeTest(unittest.TestCase):
    def test_tp_mlp_on_two_ranks(self):
        from fuser_mlir import ir

        with tempfile.TemporaryDirectory() as directory:
            library = os.path.join(directory, "tp_mlp.so")
            with open(os.path.join(ROOT, "examples", "tp_mlp.mlir")) as source:
                ir.compile(ir.Module.parse(source.read(), ir.Context()), library)
            ranks = subprocess.run(
                ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2",
                 "-x", "PYTHONPATH", "-x", "FUSER_TIMEOUT_S=30",
                 RANK_PYTHON, os.path.join(HERE, "run_tp_mlp.py"), library],
                capture_output=True, text=True, timeout=120)
            self.assertEqual(ranks.returncode, 0, ranks.stdout + ranks.stderr)
            for rank in (0, 1):
                self.assertIn(f"rank {rank} of 2: ['tp_mlp'] cpu ok", ranks.stdout)

    def test_bad_library(self):
        from fuser_mlir import runtime

        with tempfile.NamedTemporaryFile(suffix=".so") as empty:
            with self.assertRaises(ValueError) as raised:
                runtime.Library(empty.name)
            self.assertIn("cannot load", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
