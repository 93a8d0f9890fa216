"""Running compiled programs on the MPI ranks of this process's world.

Start one Python per rank (`mpirun -np 2 python3 script.py`); each runs:

    from fuser_mlir import runtime
    library = runtime.Library("tp_mlp.so")        # written by ir.compile
    y, = library.run("tp_mlp", [x, w1, w2])

Inputs are NumPy arrays, or tensors of PyTorch (or of any library that
speaks DLPack: CuPy, JAX) on the device the program runs on: the rank's GPU
for a `cuda` library, the CPU for a `cpu` one. By default every rank passes
the global inputs (the same values on every rank) and the runner cuts the
rank's piece; `pieces=True` takes each rank's own piece instead
(`fuser_mlir.shard` cuts one). Outputs come back whole on every rank, or
with `gather=False` as the rank's piece, as the inputs came: NumPy arrays
(bf16 as float32, which holds every bf16 value), or tensors on the device.

Tensors are exchanged without copies where the layout allows: a piece
(`pieces=True`) that is row-major is read where it lies, and with
`gather=False` an output is the buffer the program wrote. The program runs
on the caller's CUDA stream: `stream=` (a `torch.cuda.Stream`, a CuPy stream
or a `cudaStream_t` as an int), by default PyTorch's current stream for
PyTorch tensors and the legacy default stream otherwise. Whole outputs
(`gather=True`) are put together through the host: use `gather=False` where
speed matters.

`inputs(program)` and `outputs(program)` describe the signature: global
shape, element type, mesh and the mesh axes of each dim.
"""

import atexit
import sys

from . import _runtime
from ._runtime import Tensor, device_index, finalize, rank, world_size

# MPI ends once, after everything else the process does.
atexit.register(finalize)

# DLPack's number for CUDA's legacy default stream (0 is not allowed).
_LEGACY_DEFAULT_STREAM = 1


def _is_numpy(value):
    return type(value).__module__ == "numpy"


def _torch_if_tensor(value):
    """PyTorch's module when `value` is one of its tensors (never importing
    it for a program that does not use it)."""
    torch = sys.modules.get("torch")
    return torch if torch is not None and isinstance(value, torch.Tensor) else None


def _stream_handle(stream, torch, device):
    """The cudaStream_t the program runs on, as DLPack numbers streams."""
    if stream is None and torch is not None and device.type == "cuda":
        stream = torch.cuda.current_stream(device)
    if stream is None:
        return _LEGACY_DEFAULT_STREAM
    for attribute in ("cuda_stream", "ptr"):  # PyTorch's, CuPy's streams
        stream = getattr(stream, attribute, stream)
    return int(stream) or _LEGACY_DEFAULT_STREAM


class Library:
    """A library the compiler wrote, loaded."""

    def __init__(self, path):
        self._library = _runtime.Library(path)

    @property
    def target(self):
        return self._library.target

    @property
    def programs(self):
        return self._library.programs

    def inputs(self, program):
        return self._library.inputs(program)

    def outputs(self, program):
        return self._library.outputs(program)

    def reference(self, program, inputs):
        """Runs the unsharded reference of `program` (compiled beside it,
        as fuser-exec --check runs it) on this rank alone over global NumPy
        arrays; returns its outputs whole."""
        return self._library.reference(program, list(inputs))

    def run(self, program, inputs, *, pieces=False, gather=True, stream=None):
        """Runs `program` on this rank over `inputs`; returns its outputs."""
        inputs = list(inputs)
        tensors = [not _is_numpy(value) and hasattr(value, "__dlpack__")
                   for value in inputs]
        if not any(tensors):
            return self._library.run_arrays(program, inputs, pieces=pieces,
                                            gather=gather)
        if not all(tensors):
            raise TypeError("inputs mix arrays and tensors: pass NumPy arrays "
                            "only, or tensors only")
        torch = _torch_if_tensor(inputs[0])
        if torch is not None:
            # The runtime copies whole rows; PyTorch lays out any tensor so.
            inputs = [value if value.dim() == 0 or value.stride(-1) == 1
                      else value.contiguous() for value in inputs]
        device = inputs[0].device if torch is not None else None
        outputs = self._library.run_tensors(
            program, inputs, stream=_stream_handle(stream, torch, device),
            pieces=pieces, gather=gather)
        if torch is None:
            return outputs
        return [torch.from_dlpack(output) for output in outputs]


__all__ = ["Library", "Tensor", "device_index", "rank", "world_size"]
