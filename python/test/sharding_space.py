"""The space of single-op programs: every op of the fuser dialect, with
shardings of its operands and its result on a mesh, written with the
FusionDefinition builder. Each case either compiles and matches its
unsharded reference on every rank (run_sharding_space.py), or the compiler
says what it does not support. test_sharding_space.py runs it on 2 and on
4 CPU ranks.

A case is an op with one sharding per operand and one for the result
(None: left to propagation); a partial result is then resolved by a
`set`, since programs return values, not pending reductions. Operands and results of rank 2 are [4, 8], so
that every split over 2 or 4 devices divides them. Where an op has more
combinations than the budget, a sample seeded by the op's name is taken,
always with the unannotated case; `budget=None` takes them all.
"""

import itertools
import random
import zlib

from fuser_mlir import FusionDefinition, Sharding

MATRIX = [4, 8]

UNARY = ["neg", "abs", "relu", "exp", "log", "sqrt", "rsqrt", "tanh", "sin",
         "cos", "erf", "sigmoid"]
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "pow"]
REDUCTIONS = ["sum", "max", "min", "mean"]


def dim_axes_of(rank, mesh_shape):
    """Every way to split `rank` dims over the mesh axes: each axis splits
    one dim or none, in either order where two split the same dim."""
    ways = []
    for owners in itertools.product([None] + list(range(rank)),
                                    repeat=len(mesh_shape)):
        per_dim = [[axis for axis, owner in enumerate(owners) if owner == dim]
                   for dim in range(rank)]
        for orders in itertools.product(*(itertools.permutations(axes)
                                          for axes in per_dim)):
            ways.append([list(order) for order in orders])
    return ways


def shardings_of(rank, mesh_shape, partial=False):
    """The shardings of a tensor of `rank` dims; with `partial`, also those
    pending a sum over the axes that split no dim."""
    result = []
    for dims in dim_axes_of(rank, mesh_shape):
        used = {axis for axes in dims for axis in axes}
        free = [axis for axis in range(len(mesh_shape)) if axis not in used]
        result.append(Sharding(dims))
        if partial:
            for count in range(1, len(free) + 1):
                for axes in itertools.combinations(free, count):
                    result.append(Sharding(dims, partial=axes))
    return result


def _ops():
    """(name, operand (shape, dtype) list, result rank, partial results
    allowed, build(fd, operands, sharding) -> result tensor(s))."""
    f32 = "f32"
    ops = []
    for op in UNARY:
        ops.append((op, [(MATRIX, f32)], 2, True,
                    lambda fd, x, s, op=op: getattr(fd, op)(x[0], sharding=s)))
    ops.append(("gelu", [(MATRIX, f32)], 2, True,
                lambda fd, x, s: fd.gelu(x[0], "tanh", sharding=s)))
    ops.append(("cast", [(MATRIX, f32)], 2, True,
                lambda fd, x, s: fd.cast(x[0], "f64", sharding=s)))
    for op in BINARY:
        ops.append((op, [(MATRIX, f32)] * 2, 2, True,
                    lambda fd, x, s, op=op: getattr(fd, op)(x[0], x[1], sharding=s)))
    ops.append(("compare", [(MATRIX, f32)] * 2, 2, False,
                lambda fd, x, s: fd.compare("lt", x[0], x[1], sharding=s)))
    ops.append(("where", [(MATRIX, "i1"), (MATRIX, f32), (MATRIX, f32)], 2, True,
                lambda fd, x, s: fd.where(x[0], x[1], x[2], sharding=s)))
    for op in REDUCTIONS:
        for dim in (0, 1):
            ops.append(("%s_dim%d" % (op, dim), [(MATRIX, f32)], 1, True,
                        lambda fd, x, s, op=op, dim=dim:
                            getattr(fd, op)(x[0], [dim], sharding=s)))
    ops.append(("sum_keepdim", [(MATRIX, f32)], 2, True,
                lambda fd, x, s: fd.sum(x[0], [1], keepdim=True, sharding=s)))
    ops.append(("var_mean", [(MATRIX, f32)], 1, False,
                lambda fd, x, s: fd.var_mean(x[0], [1], sharding=s)))
    ops.append(("full", [], 2, False,
                lambda fd, x, s: fd.full(MATRIX, 1.5, "f32", sharding=s)))
    ops.append(("iota", [], 2, False,
                lambda fd, x, s: fd.iota(MATRIX, "f32", 1, 2.0, 0.5, sharding=s)))
    ops.append(("uniform", [], 2, False,
                lambda fd, x, s: fd.uniform(MATRIX, "f32", -1.0, 1.0, 7, sharding=s)))
    ops.append(("normal", [], 2, False,
                lambda fd, x, s: fd.normal(MATRIX, "f32", 0.0, 1.0, 7, sharding=s)))
    ops.append(("broadcast", [([8], f32)], 2, False,
                lambda fd, x, s: fd.broadcast(x[0], MATRIX, [1], sharding=s)))
    ops.append(("expand", [([1, 8], f32)], 2, False,
                lambda fd, x, s: fd.expand(x[0], MATRIX, sharding=s)))
    ops.append(("squeeze", [([4, 1, 8], f32)], 2, False,
                lambda fd, x, s: fd.squeeze(x[0], [1], sharding=s)))
    ops.append(("reshape_flat", [(MATRIX, f32)], 1, False,
                lambda fd, x, s: fd.reshape(x[0], [32], sharding=s)))
    ops.append(("reshape_split", [(MATRIX, f32)], 2, False,
                lambda fd, x, s: fd.reshape(x[0], [8, 4], sharding=s)))
    ops.append(("permute", [(MATRIX, f32)], 2, False,
                lambda fd, x, s: fd.permute(x[0], [1, 0], sharding=s)))
    ops.append(("slice", [([8, 16], f32)], 2, False,
                lambda fd, x, s: fd.slice(x[0], [2, 0], [6, 16], [1, 2], sharding=s)))
    for dim in (0, 1):
        ops.append(("cat_dim%d" % dim, [([2, 8] if dim == 0 else [4, 4], f32)] * 2,
                    2, False,
                    lambda fd, x, s, dim=dim: fd.cat([x[0], x[1]], dim, sharding=s)))
    ops.append(("pad", [([4, 4], f32)], 2, False,
                lambda fd, x, s: fd.pad(x[0], [0, 2], [0, 2], 0.5, sharding=s)))
    ops.append(("select", [([4, 4, 8], f32)], 2, False,
                lambda fd, x, s: fd.select(x[0], 1, 2, sharding=s)))
    ops.append(("matmul", [(MATRIX, f32), ([8, 4], f32)], 2, True,
                lambda fd, x, s: fd.matmul(x[0], x[1], sharding=s)))
    ops.append(("linear", [(MATRIX, f32), ([4, 8], f32), ([4], f32)], 2, True,
                lambda fd, x, s: fd.linear(x[0], x[1], x[2], sharding=s)))
    ops.append(("set", [(MATRIX, f32)], 2, True,
                lambda fd, x, s: fd.set(x[0], s if s is not None else Sharding([[], []]))))
    return ops


def cases(mesh_shape, budget=None):
    """The (name, FusionDefinition) cases of every op on `mesh_shape` whose
    shardings the builder's checks (the verifier's rules) accept."""
    found = []
    for op, operands, result_rank, partial, build in _ops():
        operand_choices = [shardings_of(len(shape), mesh_shape)
                           for shape, _ in operands]
        result_choices = [None] + shardings_of(result_rank, mesh_shape, partial)
        combinations = list(itertools.product(*operand_choices, result_choices))
        if budget is not None and len(combinations) > budget:
            sampler = random.Random(zlib.crc32(op.encode()))
            baseline = combinations[0]
            combinations = [baseline] + sampler.sample(combinations[1:], budget - 1)
        for index, choice in enumerate(combinations):
            name = "%s_%d" % (op, index)
            fd = FusionDefinition(name, mesh=mesh_shape)
            try:
                inputs = [fd.input(shape, dtype, sharding)
                          for (shape, dtype), sharding in zip(operands, choice)]
                result = build(fd, inputs, choice[-1])
                if choice[-1] is not None and choice[-1].partial:
                    # A program returns values: the partial result is
                    # resolved where its dims are split the same way.
                    result = fd.set(result, Sharding(choice[-1].dims))
            except ValueError:
                continue  # a sharding the verifier rejects: not a program
            if not operands and choice[-1] is None:
                continue  # nothing annotated: a program of one device
            fd.output(*(result if isinstance(result, tuple) else (result,)))
            found.append((name, fd))
    return found
