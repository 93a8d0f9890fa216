"""One rank of test_torch.py's torchrun test, on CPU ranks torchrun
started (no MPI): the world starts from torch.distributed's store, a
program without communications compiles once and runs on both ranks with
its outputs put together through the store, a bad input on one rank raises
on both, and a program that communicates says CPU ranks need mpirun."""

import os
import sys

import numpy as np

from fuser_mlir import FusionDefinition, Mesh, runtime
from rank_support import expect_error


def main(cache):
    os.environ["FUSER_CACHE_DIR"] = cache
    rank = runtime.rank()
    assert runtime.uses_store()
    assert runtime.world_size() == int(os.environ["WORLD_SIZE"]) == 2
    assert rank == int(os.environ["RANK"])
    x = np.arange(32, dtype=np.float32).reshape(4, 8)

    with FusionDefinition("squares", mesh=Mesh([2])) as fd:
        fx = fd.input([4, 8], "f32", name="x")
        fd.output(fx * fx, fd.sum(fx, dim=-1))
    squared, total = fd.execute([x])
    assert np.array_equal(squared, x * x) and np.allclose(total, x.sum(-1))
    # Each rank's piece, then the pieces put together through the store.
    with FusionDefinition("halves", mesh=Mesh([2])) as fd:
        fx = fd.input([4, 8], "f32", sharding=[[0], []], name="x")
        fd.output(fx + 1)
    shifted, = fd.execute([x])
    assert np.array_equal(shifted, x + 1), shifted

    if rank == 1:
        expect_error(ValueError, "input 'x' (#0) has shape [2, 8]",
                     lambda: fd.execute([x[:2]]))
    else:
        expect_error(RuntimeError, "rank 1: checking the inputs of halves",
                     lambda: fd.execute([x]))

    with FusionDefinition("row_sums", mesh=Mesh([2])) as fd:
        fx = fd.input([4, 8], "f32", sharding=[[], [0]], name="x")
        fd.output(fd.sum(fx, dim=-1, sharding=[[]]))
    expect_error(RuntimeError, "CPU ranks communicate over MPI",
                 lambda: fd.execute([x]))
    print(f"rank {rank}: torchrun ok")


if __name__ == "__main__":
    main(sys.argv[1])
