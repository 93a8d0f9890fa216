"""Tests of fuser_mlir.torch on 2 CPU ranks (PyTorch on the CPU): a
compiled program as a differentiable function and module
(run_torch_function.py), a world that torchrun started, without MPI
(run_torchrun.py), and a 2-layer GPT model from compiled programs trained
50 steps with AdamW beside the same model in plain PyTorch
(examples/transformer/train_gpt.py)."""

import os
import socket
import subprocess
import tempfile
import unittest

from test_runtime import (CAN_RUN, HERE, RANK_PYTHON, ROOT, has_torch,
                          run_on_ranks)

TRAIN_GPT = os.path.join(ROOT, "examples", "transformer", "train_gpt.py")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@unittest.skipUnless(CAN_RUN and has_torch(RANK_PYTHON),
                     "needs the compiler, the runtime, mpirun and PyTorch")
class TorchTest(unittest.TestCase):
    def run_in_fresh_cache(self, script, *arguments):
        """`script` on 2 ranks, compiling into a cache folder of its own."""
        with tempfile.TemporaryDirectory() as cache:
            return run_on_ranks(2, script, *arguments, timeout=1200,
                                environment=[f"FUSER_CACHE_DIR={cache}"])

    def test_function_and_module(self):
        ranks = self.run_in_fresh_cache("run_torch_function.py")
        self.assertEqual(ranks.returncode, 0, ranks.stdout + ranks.stderr)
        for rank in (0, 1):
            self.assertIn(f"rank {rank}: torch function ok", ranks.stdout)

    def test_torchrun_starts_the_world_from_its_store(self):
        # The processes get the environment torchrun gives its workers
        # (Debian's torchrun of PyTorch 1.13 does not start on Python
        # 3.11); without torchrun's agent, rank 0 serves the store.
        port = str(free_port())
        with tempfile.TemporaryDirectory() as cache:
            ranks = [subprocess.Popen(
                [RANK_PYTHON, os.path.join(HERE, "run_torchrun.py"), cache],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                env=dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank),
                         WORLD_SIZE="2", LOCAL_WORLD_SIZE="2",
                         MASTER_ADDR="127.0.0.1", MASTER_PORT=port,
                         FUSER_TIMEOUT_S="30"))
                for rank in (0, 1)]
            outputs = [rank.communicate(timeout=600)[0] for rank in ranks]
        for rank, (process, output) in enumerate(zip(ranks, outputs)):
            self.assertEqual(process.returncode, 0, output)
            self.assertIn(f"rank {rank}: torchrun ok", output)

    def test_gpt_training_matches_pytorch(self):
        ranks = self.run_in_fresh_cache(TRAIN_GPT, "--steps", "50", "--compare")
        self.assertEqual(ranks.returncode, 0, ranks.stdout + ranks.stderr)
        for rank in (0, 1):
            self.assertIn(f"rank {rank}: matches PyTorch over 50 steps",
                          ranks.stdout)
        # It learns: the loss falls.
        losses = [float(line.split()[3]) for line in ranks.stdout.splitlines()
                  if line.startswith("step ")]
        self.assertEqual(len(losses), 50)
        self.assertLess(losses[-1], 0.1 * losses[0])


if __name__ == "__main__":
    unittest.main()
