"""Running compiled programs on the ranks of this process's world.

Start one Python per rank (`mpirun -np 2 python3 script.py`, or on GPUs
`torchrun --nproc-per-node 2 script.py`); each runs:

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

Under torchrun (no MPI launcher; RANK, WORLD_SIZE, MASTER_ADDR and
MASTER_PORT set) the ranks meet in torch.distributed's store: the default
process group's where the program made one, else torchrun's agent store.
Through it they exchange what setting up takes; GPU ranks then communicate
over NCCL and CUDA IPC as under mpirun (the NCCL communicators are the
runtime's own). CPU ranks communicate over MPI only: start them with
mpirun. `start_with_store(store, rank, world_size)` starts a world from any
torch.distributed Store.

Errors raise on every rank: the ranks agree that each of them could check
and place its inputs before any runs the program, and that each ran it
before any gathers an output. The rank at fault raises its own error
(`ValueError("input 'w1' (#1) has shape ...")`, `names=` naming the
inputs), the others a RuntimeError naming that rank. A failure inside the
program (a peer that timed out, memory that ran out) returns from it and
raises the runtime's message; the process goes on. With
`check_replicated=True` the ranks also compare a hash of every input they
must all pass alike (the global inputs, or with `pieces=True` the
replicated ones) and raise ValueError where one differs.
"""

import atexit
import hashlib
import os
import sys

from . import _runtime
from ._runtime import (Tensor, agree, barrier, device_index, finalize,
                       node_of_rank, rank, uses_store, world_size)

# MPI ends once, after everything else the process does.
atexit.register(finalize)

# What tells an MPI launcher's processes apart.
_MPI_LAUNCHER_VARIABLES = ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK")
_TORCHRUN_VARIABLES = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


def _launched_by_torchrun():
    return (not any(name in os.environ for name in _MPI_LAUNCHER_VARIABLES)
            and all(name in os.environ for name in _TORCHRUN_VARIABLES))


def _torch_store():
    """(store, rank, world size) of torch.distributed: the default process
    group's store where the program made one, else a client of torchrun's
    agent store (without such an agent, rank 0 serves a store at
    MASTER_PORT)."""
    from datetime import timedelta

    import torch.distributed as distributed

    if distributed.is_available() and distributed.is_initialized():
        store = distributed.distributed_c10d._get_default_store()
        rank, world = distributed.get_rank(), distributed.get_world_size()
    else:
        rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        agent = os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True"
        store = distributed.TCPStore(
            os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), world,
            is_master=not agent and rank == 0,
            timeout=timedelta(seconds=float(os.environ.get("FUSER_TIMEOUT_S", 60))))
    return distributed.PrefixStore("fuser_mlir/", store), rank, world


def start_with_store(store, rank, world_size):
    """Starts this process's world from `store` (a torch.distributed Store
    every rank reaches) as rank `rank` of `world_size`, instead of MPI.
    Before anything else of the runtime runs."""
    _runtime.set_store_provider(lambda: (store, rank, world_size))


if _launched_by_torchrun():
    _runtime.set_store_provider(_torch_store)

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


def _fingerprint(value):
    """A 64-bit hash of the elements of an array or tensor."""
    torch = _torch_if_tensor(value)
    if torch is not None:
        value = value.detach().contiguous().cpu()
        # NumPy has no bf16: its bits hash alike.
        if value.dtype == torch.bfloat16:
            value = value.view(torch.int16)
        value = value.numpy()
    elif not _is_numpy(value):
        import numpy
        value = numpy.from_dlpack(value)
    digest = hashlib.blake2b(memoryview(value.copy(order="C")).cast("B"),
                             digest_size=8).digest()
    return int.from_bytes(digest, "little")


def _each(flag, count, what):
    """A flag per tensor: `flag` for each, or `flag` itself as a list."""
    if isinstance(flag, bool):
        return [flag] * count
    flags = [bool(value) for value in flag]
    if len(flags) != count:
        raise ValueError(f"{what} says it for {len(flags)} tensors; there are "
                         f"{count}")
    return flags


def _is_replicated(tensor):
    return all(not axes for axes in tensor["dim_axes"])


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

    def derivative(self, program):
        """{"of": the program a generated derivative program differentiates
        (None for others), "vjp_inputs": for @f__bwd, the inputs of f it
        takes first}."""
        return self._library.derivative(program)

    def outputs(self, program):
        return self._library.outputs(program)

    def reference(self, program, inputs, *, names=None):
        """Runs the unsharded reference of `program` (compiled beside it,
        as fuser-exec --check runs it) on this rank alone over global NumPy
        arrays; returns its outputs whole."""
        return self._library.reference(program, list(inputs),
                                       names=list(names or []))

    def run(self, program, inputs, *, pieces=False, gather=True, stream=None,
            names=None, check_replicated=False):
        """Runs `program` on this rank over `inputs`; returns its outputs.
        `pieces` and `gather` may also be a list, a flag per input and per
        output."""
        inputs = list(inputs)
        names = list(names or [])
        pieces = _each(pieces, len(inputs), "pieces")
        gather = _each(gather, len(self.outputs(program)), "gather")
        if check_replicated:
            self._check_replicated(program, inputs, pieces, names)
        tensors = [not _is_numpy(value) and hasattr(value, "__dlpack__")
                   for value in inputs]
        if not any(tensors):
            return self._library.run_arrays(program, inputs, pieces=pieces,
                                            gather=gather, names=names)
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
            pieces=pieces, gather=gather, names=names)
        if torch is None:
            return outputs
        return [torch.from_dlpack(output) for output in outputs]

    def _check_replicated(self, program, inputs, pieces, names):
        """Raises ValueError on every rank where an input that every rank
        passes alike differs between ranks."""
        try:
            specs = self.inputs(program)
            if len(inputs) != len(specs):
                raise ValueError("wrong input count")
            fingerprints = [
                None if piece and not _is_replicated(spec) else _fingerprint(value)
                for value, spec, piece in zip(inputs, specs, pieces)]
            error = ""
        except Exception as problem:  # reported by the run's own checks
            error = str(problem) or type(problem).__name__
        # Every rank hashes, or none: a rank that cannot leaves the report
        # to the run, whose checks raise on every rank.
        if agree(error) is not None:
            return
        for index, fingerprint in enumerate(fingerprints):
            if fingerprint is None:
                continue
            hashes = _runtime.allgather_uint64(
                fingerprint, "comparing the replicated inputs")
            differing = [rank for rank, found in enumerate(hashes)
                         if found != hashes[0]]
            if differing:
                name = (f"input '{names[index]}' (#{index})"
                        if index < len(names) else f"input #{index}")
                raise ValueError(
                    f"{program}: {name} differs between ranks 0 and "
                    f"{differing[0]}: every rank passes the same "
                    + ("replicated value" if pieces[index] else "global value"))


__all__ = ["Library", "Tensor", "agree", "barrier", "device_index",
           "node_of_rank", "rank", "start_with_store", "uses_store",
           "world_size"]
