"""The space of single-op programs to differentiate: every op of the fuser
dialect that has a derivative, in f64, with shardings of its operands on a
mesh (sharding_space.py's), written with the FusionDefinition builder.
test_derivatives.py compiles each with its generated @f__vjp, @f__fwd and
@f__bwd and checks them against finite differences of the unsharded
program (run_derivatives.py on the mesh's CPU ranks).

A case is an op with one sharding per operand; its result is left to
propagation, and a partial result is resolved as a program's output is.
Where an op has more combinations than the budget, a sample seeded by the
op's name is taken, always with the unannotated case. Each case also names
the interval its floating-point inputs are drawn from: (0.5, 2) where the
op is defined on positive numbers only, (-2, 2) elsewhere, so that the
branches of relu, abs and the extrema are all taken.
"""

import itertools
import random
import zlib

from fuser_mlir import FusionDefinition, Sharding

from sharding_space import shardings_of

MATRIX = [4, 8]
F64 = "f64"

POSITIVE = (0.5, 2.0)
ANY = (-2.0, 2.0)

# Central differences: the step and the relative tolerance of their
# agreement with the gradient. An op computed through a narrower type (a
# cast to f32 and back) is exact to 1e-7 only, so its differences take a
# step that rounding cannot swamp, and a looser tolerance.
PRECISE = (1e-5, 1e-6)
ROUNDED = {"cast": (1e-2, 1e-3)}

UNARY = {"neg": ANY, "abs": ANY, "relu": ANY, "exp": ANY, "log": POSITIVE,
         "sqrt": POSITIVE, "rsqrt": POSITIVE, "tanh": ANY, "sin": ANY,
         "cos": ANY, "erf": ANY, "sigmoid": ANY}
BINARY = {"add": ANY, "sub": ANY, "mul": ANY, "div": POSITIVE,
          "maximum": ANY, "minimum": ANY, "pow": POSITIVE}
REDUCTIONS = ["sum", "max", "min", "mean"]


def _ops():
    """(name, operand (shape, dtype) list, input interval,
    build(fd, operands) -> result tensor(s))."""
    ops = []
    for op, interval in UNARY.items():
        ops.append((op, [(MATRIX, F64)], interval,
                    lambda fd, x, op=op: getattr(fd, op)(x[0])))
    for approximation in ("none", "tanh"):
        ops.append(("gelu_" + approximation, [(MATRIX, F64)], ANY,
                    lambda fd, x, a=approximation: fd.gelu(x[0], a)))
    ops.append(("cast", [(MATRIX, F64)], ANY,
                lambda fd, x: fd.cast(fd.cast(x[0], "f32"), F64)))
    for op, interval in BINARY.items():
        ops.append((op, [(MATRIX, F64)] * 2, interval,
                    lambda fd, x, op=op: getattr(fd, op)(x[0], x[1])))
    ops.append(("where", [(MATRIX, F64)] * 2, ANY,
                lambda fd, x: fd.where(fd.compare("lt", x[0], x[1]), x[0], x[1])))
    for op in REDUCTIONS:
        for dim in (0, 1):
            ops.append(("%s_dim%d" % (op, dim), [(MATRIX, F64)], ANY,
                        lambda fd, x, op=op, dim=dim: getattr(fd, op)(x[0], [dim])))
    ops.append(("sum_keepdim", [(MATRIX, F64)], ANY,
                lambda fd, x: fd.sum(x[0], [1], keepdim=True)))
    ops.append(("var_mean", [(MATRIX, F64)], ANY,
                lambda fd, x: fd.var_mean(x[0], [1])))
    ops.append(("var_mean_keepdim", [(MATRIX, F64)], ANY,
                lambda fd, x: fd.var_mean(x[0], [1], keepdim=True, correction=0)))
    ops.append(("broadcast", [([8], F64)], ANY,
                lambda fd, x: fd.broadcast(x[0], MATRIX, [1])))
    ops.append(("broadcast_unit", [([1, 8], F64)], ANY,
                lambda fd, x: fd.broadcast(x[0], [4, 2, 8], [0, 2])))
    ops.append(("expand", [([1, 8], F64)], ANY,
                lambda fd, x: fd.expand(x[0], MATRIX)))
    ops.append(("squeeze", [([4, 1, 8], F64)], ANY,
                lambda fd, x: fd.squeeze(x[0], [1])))
    ops.append(("reshape", [(MATRIX, F64)], ANY,
                lambda fd, x: fd.reshape(x[0], [8, 4])))
    ops.append(("permute", [(MATRIX, F64)], ANY,
                lambda fd, x: fd.permute(x[0], [1, 0])))
    ops.append(("slice", [([8, 16], F64)], ANY,
                lambda fd, x: fd.slice(x[0], [2, 1], [6, 16], [1, 3])))
    for dim in (0, 1):
        ops.append(("cat_dim%d" % dim, [([2, 8] if dim == 0 else [4, 4], F64)] * 2,
                    ANY, lambda fd, x, dim=dim: fd.cat([x[0], x[1]], dim)))
    ops.append(("pad", [([4, 4], F64)], ANY,
                lambda fd, x: fd.pad(x[0], [0, 2], [0, 2], 0.5)))
    ops.append(("select", [([4, 4, 8], F64)], ANY,
                lambda fd, x: fd.select(x[0], 1, 2)))
    ops.append(("matmul", [(MATRIX, F64), ([8, 4], F64)], ANY,
                lambda fd, x: fd.matmul(x[0], x[1])))
    ops.append(("matmul_batched", [([2, 4, 8], F64), ([8, 4], F64)], ANY,
                lambda fd, x: fd.matmul(x[0], x[1])))
    ops.append(("matmul_relu", [(MATRIX, F64), ([8, 4], F64)], ANY,
                lambda fd, x: fd.matmul(x[0], x[1], activation="relu")))
    ops.append(("linear", [(MATRIX, F64), ([4, 8], F64), ([4], F64)], ANY,
                lambda fd, x: fd.linear(x[0], x[1], x[2])))
    ops.append(("linear_gelu", [([2, 4, 8], F64), ([4, 8], F64)], ANY,
                lambda fd, x: fd.linear(x[0], x[1], activation="gelu_tanh")))
    ops.append(("linear_vector", [(MATRIX, F64), ([8], F64)], ANY,
                lambda fd, x: fd.linear(x[0], x[1])))
    ops.append(("sdpa", [([1, 2, 8, 4], F64)] * 3, ANY,
                lambda fd, x: fd.sdpa(x[0], x[1], x[2], causal=True)[0]))
    ops.append(("embedding", [([6, 8], F64)], ANY,
                lambda fd, x: fd.embedding(x[0], fd.iota([2, 4], "i64", 1))))
    ops.append(("set", [(MATRIX, F64)], ANY,
                lambda fd, x: fd.set(x[0], Sharding([[], []]))))
    return ops


def cases(mesh_shape, budget=None):
    """(name, FusionDefinition, input interval, (finite-difference step,
    tolerance)) of every op on `mesh_shape` for the operand shardings the
    builder's checks accept."""
    found = []
    for op, operands, interval, build in _ops():
        choices = list(itertools.product(*(shardings_of(len(shape), mesh_shape)
                                           for shape, _ in operands)))
        if budget is not None and len(choices) > budget:
            sampler = random.Random(zlib.crc32(op.encode()))
            choices = [choices[0]] + sampler.sample(choices[1:], budget - 1)
        for index, choice in enumerate(choices):
            name = "%s_%d" % (op, index)
            fd = FusionDefinition(name, mesh=mesh_shape)
            try:
                inputs = [fd.input(shape, dtype, sharding)
                          for (shape, dtype), sharding in zip(operands, choice)]
                result = build(fd, inputs)
            except ValueError:
                continue  # a sharding the verifier rejects: not a program
            fd.output(*(result if isinstance(result, tuple) else (result,)))
            found.append((name, fd, interval, ROUNDED.get(op, PRECISE)))
    return found
