"""One rank of test_sharding_space.py: runs every program of the library
given on the command line with global inputs and checks this rank's piece
of each output (every replica, every shard) against the program's
unsharded reference. Prints one line per rank, and one per mismatch."""

import sys
import zlib

import numpy as np

from fuser_mlir import Mesh, runtime, shard

NUMPY_TYPES = {"f32": np.float32, "f64": np.float64, "i1": np.bool_}


def inputs_of(library, program):
    """The same inputs on every rank: positive floats (every unary op is
    defined on them), and booleans."""
    generator = np.random.default_rng(zlib.crc32(program.encode()))
    values = []
    for tensor in library.inputs(program):
        shape = tensor["shape"]
        if tensor["dtype"] == "i1":
            values.append(generator.random(shape) < 0.5)
        else:
            values.append(generator.uniform(0.5, 2.0, shape).astype(
                NUMPY_TYPES[tensor["dtype"]]))
    return values


def mismatches(library, program, rank):
    inputs = inputs_of(library, program)
    try:
        pieces = library.run(program, inputs, gather=False)
    except Exception as problem:  # a runtime failure is the case's verdict
        return ["%s: %s" % (type(problem).__name__, problem)]
    expected = library.reference(program, inputs)
    found = []
    for index, (tensor, piece, whole) in enumerate(
            zip(library.outputs(program), pieces, expected)):
        mesh = Mesh(tensor["mesh_shape"], tensor["devices"])
        mine = shard(whole, tensor["dim_axes"], mesh, rank)
        if mine is None:
            continue  # the rank holds no piece of it
        piece = np.asarray(piece, dtype=np.float64)
        mine = np.asarray(mine, dtype=np.float64)
        scale = max(np.abs(mine).max(initial=0.0), 1.0)
        error = np.abs(piece - mine).max(initial=0.0) / scale
        if piece.shape != mine.shape or not error <= 1e-5:
            found.append("output #%d: piece %s differs from the reference's "
                         "%s by %.3g" % (index, piece.shape, mine.shape, error))
    return found


def main(path):
    library = runtime.Library(path)
    rank = runtime.rank()
    failed = 0
    for program in library.programs:
        for problem in mismatches(library, program, rank):
            print("rank %d: %s: %s" % (rank, program, problem), flush=True)
            failed += 1
    print("rank %d of %d: %d programs, %d mismatches"
          % (rank, runtime.world_size(), len(library.programs), failed), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
