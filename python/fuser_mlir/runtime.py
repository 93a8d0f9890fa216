"""Running compiled programs on the MPI ranks of this process's world.

Start one Python per rank (`mpirun -np 2 python3 script.py`); each runs:

    from fuser_mlir import runtime
    library = runtime.Library("tp_mlp.so")        # written by ir.compile
    y, = library.run("tp_mlp", [x, w1, w2])       # NumPy arrays

By default every rank passes the global inputs (the same arrays on every
rank) and the runner cuts the rank's piece; `pieces=True` takes each rank's
own piece instead (`fuser_mlir.shard` cuts one). Outputs come back whole on
every rank, or with `gather=False` as the rank's piece. Element types map to
NumPy's (bf16 tensors take and give float32 arrays, which hold every bf16
value). `inputs(program)` and `outputs(program)` describe the signature:
global shape, element type, mesh and the mesh axes of each dim.
"""

import atexit

from ._runtime import Library, finalize, rank, world_size

# MPI ends once, after everything else the process does.
atexit.register(finalize)

__all__ = ["Library", "rank", "world_size"]
