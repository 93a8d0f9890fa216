"""One rank of test_runtime.py: runs the TP MLP library given on the
command line with NumPy inputs, global and as pieces, and checks the
outputs against NumPy. Prints one line per rank."""

import sys

import numpy as np

from fuser_mlir import Mesh, shard
from fuser_mlir import runtime
from rank_support import expect_error


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def main(path):
    library = runtime.Library(path)
    rank = runtime.rank()
    generator = np.random.default_rng(7)
    x = generator.uniform(-1, 1, (8, 64)).astype(np.float32)
    w1 = generator.uniform(-1, 1, (256, 64)).astype(np.float32)
    w2 = generator.uniform(-1, 1, (64, 256)).astype(np.float32)
    expected = gelu_tanh(x @ w1.T) @ w2.T

    y, = library.run("tp_mlp", [x, w1, w2])
    mesh = Mesh([2])
    pieces = [x, shard(w1, [[0], []], mesh, rank), shard(w2, [[], [0]], mesh, rank)]
    y_from_pieces, = library.run("tp_mlp", pieces, pieces=True)
    y_piece, = library.run("tp_mlp", [x, w1, w2], gather=False)

    error = max(np.abs(y - expected).max(), np.abs(y_from_pieces - expected).max())
    assert y.shape == (8, 64) and y_piece.shape == (8, 64), (y.shape, y_piece.shape)
    assert error < 1e-3 * np.abs(expected).max(), error
    expect_error(ValueError, "tp_mlp takes 3 inputs, not 2",
                 lambda: library.run("tp_mlp", [x, w1]))
    expect_error(TypeError, "input #0 is float64; the program takes f32",
                 lambda: library.run("tp_mlp", [x.astype(np.float64), w1, w2]))
    expect_error(ValueError, "input #1 has shape [256, 64]; the program takes [128, 64]",
                 lambda: library.run("tp_mlp", [x, w1, w2], pieces=True))
    expect_error(KeyError, "no program named 'mlp'",
                 lambda: library.run("mlp", [x, w1, w2]))
    print(f"rank {rank} of {runtime.world_size()}: "
          f"{library.programs} {library.target} ok")


if __name__ == "__main__":
    main(sys.argv[1])
