"""One rank of test_runtime.py's error tests: a bad input on one rank at
the first call, inputs that differ between ranks, and programs that fail
inside (their output does not fit in memory) raise on every rank, and the
process runs the next call."""

import sys

import numpy as np

from fuser_mlir import runtime
from rank_support import expect_error

NAMES = ["x", "w1", "w2"]


def main(mlp_path, too_large_path):
    library = runtime.Library(mlp_path)
    rank = runtime.rank()
    generator = np.random.default_rng(7)
    x = generator.uniform(-1, 1, (8, 64)).astype(np.float32)
    w1 = generator.uniform(-1, 1, (256, 64)).astype(np.float32)
    w2 = generator.uniform(-1, 1, (64, 256)).astype(np.float32)

    # The first call, where the teams are not made yet: only rank 1's input
    # is wrong, and every rank raises instead of waiting for it.
    if rank == 1:
        expect_error(ValueError,
                     "input 'w1' (#1) has shape [128, 64]; the program takes [256, 64]",
                     lambda: library.run("tp_mlp", [x, w1[:128], w2], names=NAMES))
    else:
        expect_error(RuntimeError,
                     "rank 1: checking the inputs of tp_mlp: input 'w1' (#1) has shape",
                     lambda: library.run("tp_mlp", [x, w1, w2], names=NAMES))
    y, = library.run("tp_mlp", [x, w1, w2], names=NAMES)

    expect_error(ValueError, "tp_mlp: input 'x' (#0) differs between ranks 0 and 1",
                 lambda: library.run("tp_mlp", [x + rank, w1, w2], names=NAMES,
                                     check_replicated=True))
    checked, = library.run("tp_mlp", [x, w1, w2], check_replicated=True)
    assert np.array_equal(checked, y)

    too_large = runtime.Library(too_large_path)
    small = np.ones(4, np.float32)
    expect_error(RuntimeError, "out of host memory",
                 lambda: too_large.run("too_large", [small]))
    expect_error(RuntimeError, "out of host memory",
                 lambda: too_large.reference("too_large", [small]))

    again, = library.run("tp_mlp", [x, w1, w2])
    assert np.array_equal(again, y)
    print(f"rank {rank}: errors ok")


if __name__ == "__main__":
    main(*sys.argv[1:])
