#!/usr/bin/env python3
"""The programs of the overlap benchmark and how each variant compiles.

    programs.py [--small] [--devices D] [-o overlap.mlir]   (default: stdout)

Two ops on a mesh of D devices (default 2), in bf16, one function per shape
and stream split S (the chunks each rank's block is pipelined in):

* AllGather+GEMM, column-parallel as DDLB defines it: A [m, k] split by rows
  and stream-split on them, B [k, n] and the result [m, n] replicated.
  Each GPU multiplies the gathered A: 2*m*n*k FLOP per GPU.
* GEMM+ReduceScatter, row-parallel: A [m, k] split on k (columns), B [k, n]
  split on k (rows), the result [m, n] split by rows and stream-split on
  them. Each GPU multiplies its 1/D of k: 2*m*n*k/D FLOP per GPU.

Each op is one `fuser.matmul` whose types state the placement; where the
compiler moves data is fixed per op (`--reshard-placement`): AG+GEMM
gathers the matmul's input (before), GEMM+RS reduce-scatters its partial
result (after; moving the inputs instead would all-to-all A and gather B).

A function whose dims do not divide over D devices and S chunks cannot be
written (the sharding verifier refuses the whole module): neither the
module nor the builds have it, and `unavailable` names each cell of the
tables (variant, op, shape) it leaves empty, with the reason.

`builds` lists the libraries: bench_overlap.py build compiles each function
into `<variant>/<function>.so` with its options and times it under its
variant's label.
"""
import argparse
import re
import sys
from dataclasses import dataclass

# The device count of every command that names none: the 2-GPU records.
DEVICES = 2
# (m, k, n): the DDLB shape, square ones, and two where n or k is small
# (communication-bound AG+GEMM and GEMM+RS respectively).
SHAPES = ((32768, 16384, 8192), (8192, 8192, 8192), (4096, 8192, 8192),
          (16384, 8192, 1024), (16384, 1024, 8192))
# Small enough for the CPU reference; m / (D * 8) rows per chunk at S = 8:
# 16 on 2 devices, 8 on 4.
SMALL_SHAPES = ((256, 128, 192),)
STREAM_CHUNKS = (1, 2, 4, 8)


@dataclass(frozen=True)
class Op:
    name: str
    title: str
    placement: str
    # GEMM+RS splits k over the devices (A by columns, B by rows); AG+GEMM
    # splits m only.
    splits_k: bool

    def function(self, shape, chunks):
        m, k, n = shape
        return f"{self.name}_{m}_{k}_{n}_s{chunks}"

    def flop_per_gpu(self, shape, devices):
        """The DDLB convention: the share of 2*m*n*k one GPU computes, all
        of it for AG+GEMM, its 1/devices of k for GEMM+RS."""
        m, k, n = shape
        return 2 * m * n * k / (devices if self.splits_k else 1)

    def split_error(self, shape, chunks, devices):
        """Why the function of `shape` and `chunks` cannot exist on
        `devices`, or None: every split dim must divide over the devices,
        and each rank's block of rows into the chunks."""
        m, k, _ = shape
        if self.splits_k and k % devices:
            return f"k = {k} does not split over {devices} devices"
        if m % devices:
            return f"m = {m} does not split over {devices} devices"
        if m // devices % chunks:
            return (f"a rank's {m // devices} rows do not split into "
                    f"{chunks} chunks")
        return None


AG_GEMM = Op("ag_gemm", "AllGather+GEMM", "before", splits_k=False)
GEMM_RS = Op("gemm_rs", "GEMM+ReduceScatter", "after", splits_k=True)
OPS = (AG_GEMM, GEMM_RS)


@dataclass(frozen=True)
class Variant:
    """A way of compiling: fuser-compile options and the stream splits it
    runs with. Where the compiler chooses the chunks (auto) or runs the op
    whole (none), one function stands for the variant and its label names
    no chunk count."""
    name: str
    options: tuple
    chunks: tuple
    labelled_by_chunks: bool = True

    def runs(self):
        """(label, chunks) of each program the variant times."""
        return [(f"{self.name}-s{chunks}" if self.labelled_by_chunks
                 else self.name, chunks) for chunks in self.chunks]


VARIANTS = (
    Variant("none", ("--pipelining=none",), (1,), labelled_by_chunks=False),
    Variant("collective", ("--pipelining=collective", "--backend=nccl"),
            (2, 4, 8)),
    # A ring of S = 1 moves one chunk per peer.
    Variant("ring-ipc", ("--pipelining=ring", "--backend=cuda_ipc"), (1, 2)),
    Variant("ring-nccl", ("--pipelining=ring", "--backend=nccl"), (1,)),
    Variant("auto", ("--pipelining=auto", "--backend=cuda_ipc"), (1,),
            labelled_by_chunks=False),
)


def labels():
    """Every variant's labels, in the order of the tables' columns."""
    return [label for variant in VARIANTS for label, _ in variant.runs()]


def _cells(shapes, ops=OPS):
    """(variant, label, chunks, op, shape) of every cell of the tables."""
    return [(variant, label, chunks, op, shape)
            for variant in VARIANTS for label, chunks in variant.runs()
            for op in ops for shape in shapes]


def builds(shapes, devices):
    """(variant, label, op, shape, function, fuser-compile options) of every
    library build.sh compiles for `devices`: every cell but the unavailable
    ones."""
    return [(variant, label, op, shape, op.function(shape, chunks),
             ("--target=cuda", f"--reshard-placement={op.placement}")
             + variant.options)
            for variant, label, chunks, op, shape in _cells(shapes)
            if op.split_error(shape, chunks, devices) is None]


def unavailable(shapes, devices, ops=OPS):
    """(label, op, shape, reason) of every cell of `ops` whose function
    cannot exist on `devices`."""
    return [(label, op, shape, reason)
            for _, label, chunks, op, shape in _cells(shapes, ops)
            for reason in [op.split_error(shape, chunks, devices)] if reason]


def unavailable_lines(shapes, devices, ops=OPS):
    """One line per cell of `ops` that cannot exist on `devices`, saying
    why."""
    return [f"no {op.name} {'x'.join(map(str, shape))} {label} on {devices} "
            f"devices: {reason}"
            for label, op, shape, reason in unavailable(shapes, devices, ops)]


def _tensor(shape, sharding):
    return f"tensor<{'x'.join(map(str, shape))}xbf16, {sharding}>"


def _function(name, a, b, out):
    """One matmul of A [m, k] by B [k, n]: each argument is (shape, sharding)."""
    a_type, b_type, out_type = (_tensor(*operand) for operand in (a, b, out))
    return (f"func.func @{name}(%a: {a_type}, %b: {b_type}) -> {out_type} {{\n"
            f"  %out = fuser.matmul %a, %b : ({a_type}, {b_type}) -> {out_type}\n"
            f"  return %out : {out_type}\n"
            "}\n")


def _operands(op, shape, chunks):
    """(shape, sharding) of A, B and the result of `op` at `shape`, its
    rows pipelined in `chunks`."""
    m, k, n = shape
    rows = f"#rows_s{chunks}"
    if op is AG_GEMM:
        return ((m, k), rows), ((k, n), "#replicated"), ((m, n), "#replicated")
    return ((m, k), "#cols"), ((k, n), "#rows"), ((m, n), rows)


def program_text(shapes, devices):
    """The module: AG+GEMM and GEMM+RS at every shape and stream split that
    divides over `devices`."""
    lines = [
        "// Generated by bench/overlap/programs.py: AllGather+GEMM and",
        f"// GEMM+ReduceScatter in bf16 on {devices} devices, one function per shape",
        "// (m, k, n) and stream split S (ag_gemm_M_K_N_sS, gemm_rs_M_K_N_sS).",
        f"#mesh = #fuser.mesh<[{devices}]>",
        "#replicated = #fuser.sharding<#mesh, [[], []]>",
        "#rows = #fuser.sharding<#mesh, [[0], []]>",
        "#cols = #fuser.sharding<#mesh, [[], [0]]>",
    ]
    lines += [f"#rows_s{chunks} = #fuser.sharding<#mesh, [[0], []], "
              f"stream = {{0 : {chunks}}}>" for chunks in STREAM_CHUNKS]
    text = "\n".join(lines) + "\n"
    for shape in shapes:
        for chunks in STREAM_CHUNKS:
            for op in OPS:
                if op.split_error(shape, chunks, devices) is None:
                    text += "\n" + _function(op.function(shape, chunks),
                                             *_operands(op, shape, chunks))
    return text


def device_count(text):
    """A --devices value: a positive count."""
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


def mesh_devices(text):
    """The device count of a module program_text wrote, or None."""
    mesh = re.search(r"^#mesh = #fuser\.mesh<\[(\d+)\]>", text, re.MULTILINE)
    return int(mesh.group(1)) if mesh else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true",
                        help=f"the shapes {SMALL_SHAPES} (CPU checks)")
    parser.add_argument("--devices", type=device_count, default=DEVICES,
                        help=f"devices of the mesh (default {DEVICES})")
    parser.add_argument("-o", "--output", help="file to write")
    args = parser.parse_args()
    shapes = SMALL_SHAPES if args.small else SHAPES
    for line in unavailable_lines(shapes, args.devices):
        print(f"programs.py: {line}", file=sys.stderr)
    text = program_text(shapes, args.devices)
    if args.output:
        with open(args.output, "w") as output:
            output.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
