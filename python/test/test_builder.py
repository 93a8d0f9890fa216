"""Tests of fuser_mlir.builder: programs built in Python print exactly as the
hand-written files they mirror, and bad programs fail naming the op."""

import importlib.util
import os
import re
import subprocess
import sys
import unittest

from fuser_mlir import FusionDefinition, Mesh, Sharding

# Without the compiler the builder still writes text; parsing needs it.
if importlib.util.find_spec("fuser_mlir._ir") is not None:
    from fuser_mlir import ir
else:
    ir = None

try:
    import numpy
except ImportError:
    numpy = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def interpreter_with_numpy():
    """This Python, or the system's (same version: the modules load in
    both), whichever has NumPy."""
    for python in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(python) and subprocess.run(
                [python, "-c", "import numpy"], capture_output=True).returncode == 0:
            return python
    return None


class TorchDtype:
    """Stands in for torch.dtype (str(torch.float32) is "torch.float32"):
    the builder knows PyTorch's dtypes without importing torch."""

    __module__ = "torch"

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name

    __repr__ = __str__


def read(*path):
    with open(os.path.join(ROOT, *path)) as source:
        return source.read()


def ops_of(fd):
    """The op lines of the definition's text, without signature and return."""
    return [line.strip() for line in fd.text().splitlines()[1:-2]]


def printed_function(module_text, name):
    """One function of a printed module, from its signature to its brace."""
    match = re.search(r"^  func\.func @%s\(.*?^  }$" % re.escape(name),
                      module_text, re.MULTILINE | re.DOTALL)
    assert match, "no function @%s in\n%s" % (name, module_text)
    return match.group(0)


def tp_mlp():
    fd = FusionDefinition("tp_mlp", mesh=Mesh([2]))
    x = fd.input([8, 64], "f32")
    w1 = fd.input([256, 64], "f32", sharding=[[0], []])
    w2 = fd.input([64, 256], "f32", sharding=[[], [0]])
    h = fd.linear(x, w1)
    a = fd.gelu(h, approximation="tanh")
    fd.output(fd.linear(a, w2))
    return fd


def sp_mlp():
    fd = FusionDefinition("sp_mlp", mesh=Mesh([2]))
    x = fd.input([8, 64], "f32", sharding=[[0], []])
    w1 = fd.input([256, 64], "f32", sharding=[[0], []])
    w2 = fd.input([64, 256], "f32", sharding=[[], [0]])
    a = fd.gelu(fd.linear(x, w1))
    y = fd.linear(a, w2)
    mask = fd.uniform([8, 64], "f32", low=0.0, high=1.0, seed=7)
    fd.output(fd.add(fd.mul(y, mask), x))
    return fd


# The functions of test/Dialect/Fuser/ops.mlir, op for op.
def ops_pointwise():
    fd = FusionDefinition("pointwise")
    a, b = fd.input([4, 8], "f32"), fd.input([4, 8], "f32")
    i, c = fd.input([4, 8], "i32"), fd.input([4, 8], "i1")
    fd.neg(a), fd.abs(i), fd.relu(a), fd.exp(a), fd.log(a), fd.sqrt(a)
    fd.rsqrt(a), fd.tanh(a), fd.sin(a), fd.cos(a), fd.erf(a), fd.sigmoid(a)
    fd.gelu(a), fd.gelu(a, approximation="tanh")
    fd.add(a, b), fd.sub(a, b), fd.mul(i, i), fd.div(a, b)
    fd.maximum(a, b), fd.minimum(a, b), fd.pow(a, b)
    fd.compare("lt", a, b), fd.compare("eq", i, i)
    fd.where(c, a, b)
    fd.cast(a, "bf16"), fd.cast(i, "f16")
    return fd


def ops_reductions():
    fd = FusionDefinition("reductions")
    a = fd.input([4, 8, 16], "f32")
    fd.sum(a, [1])
    fd.max(a, [0, 2], keepdim=True)
    fd.min(a, [2])
    fd.mean(a, [2], keepdim=True)
    fd.var_mean(a, [2])
    fd.var_mean(a, [1, 2], keepdim=True, correction=0)
    return fd


def ops_creation():
    fd = FusionDefinition("creation")
    fd.full([4, 8], 1.5, "f32")
    fd.full([4], 3, "i32")
    fd.iota([2, 8], "i64", dim=1)
    fd.iota([8], "f32", dim=0, start=1.0, step=2.0)
    fd.uniform([4, 8], "f32", low=0.0, high=1.0, seed=42)
    fd.normal([4, 8], "bf16", mean=0.0, std=0.02, seed=7)
    return fd


def ops_meta():
    fd = FusionDefinition("meta")
    a, b, c = (fd.input([4, 8], "f32"), fd.input([4, 1, 8], "f32"),
               fd.input([4, 3], "f32"))
    fd.broadcast(a, [4, 5, 8], dims=[0, 2])
    fd.expand(b, [4, 6, 8])
    fd.squeeze(b, [1])
    fd.reshape(a, [2, 2, 8])
    fd.permute(a, [1, 0])
    fd.slice(a, starts=[1, 0], limits=[3, 8], steps=[1, 3])
    fd.cat([a, c], dim=1)
    fd.pad(a, low=[0, 1], high=[2, 0])
    fd.pad(a, low=[1, 1], high=[1, 1], value=-1.0)
    fd.select(a, dim=0, index=3)
    return fd


def ops_matmul_linear():
    fd = FusionDefinition("matmul_linear")
    a, b = fd.input([2, 4, 8], "bf16"), fd.input([2, 8, 16], "bf16")
    x, w = fd.input([4, 8], "f32"), fd.input([16, 8], "f32")
    bias, v = fd.input([16], "f32"), fd.input([8], "f32")
    s, b2 = fd.input([], "f32"), fd.input([8, 16], "bf16")
    fd.matmul(a, b)
    fd.linear(x, w)
    fd.linear(x, w, bias=bias)
    fd.linear(x, v, bias=s)
    fd.matmul(a, b2)
    fd.matmul(a, b, activation="relu")
    fd.linear(x, w, bias=bias, activation="gelu_tanh")
    return fd


def ops_attention():
    fd = FusionDefinition("attention")
    q, k = fd.input([1, 4, 64, 32], "bf16"), fd.input([1, 4, 128, 32], "bf16")
    v, o = fd.input([1, 4, 128, 32], "bf16"), fd.input([1, 4, 64, 32], "bf16")
    lse = fd.input([1, 4, 64], "f32")
    fd.sdpa(q, k, v)
    fd.sdpa(q, k, v, causal=True, scale=0.125, dropout=0.1, seed=7)
    fd.sdpa_backward(q, k, v, o, o, lse, causal=True, dropout=0.1, seed=7)
    return fd


def ops_embedding():
    fd = FusionDefinition("embedding")
    table, tokens = fd.input([100, 8], "bf16"), fd.input([2, 16], "i64")
    fd.output(fd.embedding(table, tokens))
    return fd


class BuilderTextTest(unittest.TestCase):
    """What the builder checks and writes itself, without the compiler."""

    def test_text_spells_the_ops_as_written_by_hand(self):
        text = tp_mlp().text()
        self.assertIn("func.func @tp_mlp(%arg0: tensor<8x64xf32>, %arg1: "
                      "tensor<256x64xf32, #fuser.sharding<#fuser.mesh<[2]>, "
                      "[[0], []]>>", text)
        self.assertIn("fuser.gelu %0 approximation = tanh : tensor<8x256xf32> "
                      "-> tensor<8x256xf32>", text)
        self.assertIn("return %2 : tensor<8x64xf32>", text)
        self.assertNotIn("loc(", text)
        self.assertIn('loc("%s":' % os.path.abspath(__file__),
                      tp_mlp().text(locations=True))

    def test_inferred_shapes(self):
        fd = FusionDefinition("shapes")
        x = fd.input([2, 3, 4], "f16")
        self.assertEqual(fd.sum(x, [0, 2]).shape, [3])
        self.assertEqual(fd.mean(x, [1], keepdim=True).shape, [2, 1, 4])
        self.assertEqual(fd.permute(x, [2, 0, 1]).shape, [4, 2, 3])
        self.assertEqual(fd.slice(x, [0, 1, 0], [2, 3, 4], [1, 1, 3]).shape, [2, 2, 2])
        self.assertEqual(fd.matmul(x, fd.input([4, 5], "f16")).shape, [2, 3, 5])
        self.assertEqual(fd.linear(x, fd.input([4], "f16")).shape, [2, 3])
        self.assertEqual(fd.compare("gt", x, x).dtype, "i1")
        variance, mean = fd.var_mean(x, [2])
        self.assertEqual((variance.name, mean.name, mean.shape), ("%7#0", "%7#1", [2, 3]))

    def test_sharding_fields_in_canonical_form(self):
        fd = FusionDefinition("fields", mesh=Mesh([2, 2], devices=[0, 2, 1, 3]))
        x = fd.input([8, 16], "f32", sharding=Sharding(
            [[], [1]], partial=[0], partial_kind="max", stream=(0, 4),
            order=[1, 0], contiguity=[True, False]))
        self.assertEqual(
            x.type, "tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2, 2], devices = "
            "[0, 2, 1, 3]>, [[], [1]], partial = {0 : max}, stream = {0 : 4}, "
            "order = [1, 0], contiguity = [true, false]>>")
        # Defaults are left out, as the attribute prints them.
        y = fd.input([8, 16], "f32", sharding=Sharding([[0, 1], []], order=[0, 1],
                                                       contiguity=[True, True]))
        self.assertTrue(y.type.endswith("[[0, 1], []]>>"))

    def assert_fails(self, message, build):
        with self.assertRaisesRegex(ValueError, message):
            build()

    def test_builder_errors_name_the_op(self):
        fd = FusionDefinition("bad", mesh=Mesh([2]))
        x = fd.input([8, 64], "f32")
        row = fd.input([64], "f32")
        self.assert_fails(r"^fuser\.linear: contracted sizes differ: input K is 64 "
                          r"but weight K is 32",
                          lambda: fd.linear(x, fd.input([16, 32], "f32")))
        self.assert_fails(r"^fuser\.add: operand 'lhs' has shape \[8, 64\] but 'rhs' "
                          r"has shape \[64\]", lambda: fd.add(x, row))
        self.assert_fails(r"^fuser\.mul: .* convert one with fuser\.cast",
                          lambda: fd.mul(x, fd.input([8, 64], "bf16")))
        self.assert_fails(r"^fuser\.sum: reduction dim 2 is out of range for rank 2",
                          lambda: fd.sum(x, [2]))
        self.assert_fails(r"^fuser\.matmul: operands need rank >= 2",
                          lambda: fd.matmul(x, row))
        self.assert_fails(r"^fuser\.reshape: changes the number of elements",
                          lambda: fd.reshape(x, [8, 8]))
        self.assert_fails(r"^fuser\.squeeze: squeezed dim 0 has size 8, not 1",
                          lambda: fd.squeeze(x, [0]))
        self.assert_fails(r"^fuser\.gelu: unknown approximation 'erf'",
                          lambda: fd.gelu(x, approximation="erf"))
        self.assert_fails(r"^fuser\.compare: unknown kind '<'",
                          lambda: fd.compare("<", x, x))
        self.assert_fails(r"^fuser\.relu: input must be a tensor of this definition",
                          lambda: fd.relu(FusionDefinition("other").input([2], "f32")))

    def test_with_statement_gives_the_definition(self):
        with FusionDefinition("f", mesh=Mesh([2])) as fd:
            x = fd.input([4], "f32")
            fd.output(fd.relu(x))
        self.assertIsInstance(fd, FusionDefinition)
        self.assertIs(x.definition, fd)
        self.assertIn("fuser.relu %arg0", fd.text())
        with self.assertRaises(ZeroDivisionError):  # errors are not swallowed
            with FusionDefinition("g"):
                1 / 0

    def test_operators_emit_the_ops(self):
        fd = FusionDefinition("operators")
        x, y = fd.input([4, 8], "f32"), fd.input([4, 8], "f32")
        w = fd.input([8, 2], "f32")
        x + y, x - y, x * y, x / y, x ** y, -x, abs(x)
        self.assertEqual((x @ w).shape, [4, 2])
        self.assertEqual((x < y).dtype, "i1")
        x <= y, x > y, x >= y
        t, r = "tensor<4x8xf32>", "(tensor<4x8xf32>, tensor<4x8xf32>) -> "
        self.assertEqual(ops_of(fd), [
            "%0 = fuser.add %arg0, %arg1 : " + r + t,
            "%1 = fuser.sub %arg0, %arg1 : " + r + t,
            "%2 = fuser.mul %arg0, %arg1 : " + r + t,
            "%3 = fuser.div %arg0, %arg1 : " + r + t,
            "%4 = fuser.pow %arg0, %arg1 : " + r + t,
            "%5 = fuser.neg %arg0 : " + t + " -> " + t,
            "%6 = fuser.abs %arg0 : " + t + " -> " + t,
            "%7 = fuser.matmul %arg0, %arg2 : (tensor<4x8xf32>, tensor<8x2xf32>) "
            "-> tensor<4x2xf32>",
            "%8 = fuser.compare lt, %arg0, %arg1 : " + r + "tensor<4x8xi1>",
            "%9 = fuser.compare le, %arg0, %arg1 : " + r + "tensor<4x8xi1>",
            "%10 = fuser.compare gt, %arg0, %arg1 : " + r + "tensor<4x8xi1>",
            "%11 = fuser.compare ge, %arg0, %arg1 : " + r + "tensor<4x8xi1>"])
        self.assert_fails(r"^fuser\.add: rhs must be a tensor of this definition",
                          lambda: x + FusionDefinition("other").input([4, 8], "f32"))

    def test_tensor_equality_is_identity(self):
        fd = FusionDefinition("identity")
        x, y = fd.input([4], "f32"), fd.input([4], "f32")
        self.assertTrue(x == x)
        self.assertFalse(x == y)
        self.assertTrue(x != y)
        self.assertEqual({x: "x", y: "y"}[y], "y")  # tensors key dicts
        self.assertEqual(len(fd.text().splitlines()), 3)  # no op emitted
        self.assertEqual(fd.eq(x, y).dtype, "i1")
        fd.ne(x, 1.0)
        self.assertIn("fuser.compare eq, %arg0, %arg1", fd.text())
        self.assertIn("fuser.compare ne, %arg0, %1", fd.text())

    def test_python_scalars_become_fulls(self):
        fd = FusionDefinition("scalars", mesh=Mesh([2]))
        x = fd.input([4, 8], "f32", sharding=[[0], []])
        i = fd.input([4], "i32")
        self.assertEqual((0.5 * x).shape, [4, 8])
        1 - x, x ** 2, fd.maximum(x, 0), fd.add(i, 3), 2.0 < x
        fd.where(x > 0, x, 0.0), fd.where(True, i, i)
        tx = "tensor<4x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>>"
        t, b, ti = "tensor<4x8xf32>", "tensor<4x8xi1>", "tensor<4xi32>"
        self.assertEqual(ops_of(fd), [
            # The tensor's shape and element type, its sharding left to
            # propagation.
            "%0 = fuser.full 0.5 : " + t,
            "%%1 = fuser.mul %%0, %%arg0 : (%s, %s) -> %s" % (t, tx, t),
            "%2 = fuser.full 1.0 : " + t,
            "%%3 = fuser.sub %%2, %%arg0 : (%s, %s) -> %s" % (t, tx, t),
            "%4 = fuser.full 2.0 : " + t,
            "%%5 = fuser.pow %%arg0, %%4 : (%s, %s) -> %s" % (tx, t, t),
            "%6 = fuser.full 0.0 : " + t,
            "%%7 = fuser.maximum %%arg0, %%6 : (%s, %s) -> %s" % (tx, t, t),
            "%8 = fuser.full 3.0 : " + ti,
            "%%9 = fuser.add %%arg1, %%8 : (%s, %s) -> %s" % (ti, ti, ti),
            "%10 = fuser.full 2.0 : " + t,
            "%%11 = fuser.compare gt, %%arg0, %%10 : (%s, %s) -> %s" % (tx, t, b),
            "%12 = fuser.full 0.0 : " + t,
            "%%13 = fuser.compare gt, %%arg0, %%12 : (%s, %s) -> %s" % (tx, t, b),
            "%14 = fuser.full 0.0 : " + t,
            "%%15 = fuser.where %%13, %%arg0, %%14 : (%s, %s, %s) -> %s" % (b, tx, t, t),
            "%16 = fuser.full 1.0 : tensor<4xi1>",
            "%%17 = fuser.where %%16, %%arg1, %%arg1 : (tensor<4xi1>, %s, %s) -> %s"
            % (ti, ti, ti)])
        self.assert_fails(r"^fuser\.add: lhs and rhs are both Python scalars; one "
                          r"must be a tensor", lambda: fd.add(1, 2.0))
        self.assert_fails(r"^fuser\.compare: lhs and rhs are both Python scalars",
                          lambda: fd.compare("lt", 1, 2))
        self.assert_fails(r"^fuser\.where: on_true and on_false are both Python "
                          r"scalars", lambda: fd.where(x > 0, 1.0, 0.0))
        self.assert_fails(r"^fuser\.mul: rhs must be a tensor of this definition, "
                          r"got 'two'", lambda: x * "two")

    def test_negative_dims_count_from_the_end(self):
        fd = FusionDefinition("dims", mesh=Mesh([2]))
        x = fd.input([2, 3, 4], "f32")
        self.assertEqual(fd.sum(x, [-1]).shape, [2, 3])
        self.assertEqual(fd.var_mean(x, [0, -2], keepdim=True)[1].shape, [1, 1, 4])
        self.assertEqual(fd.iota([2, 8], "i64", dim=-1).shape, [2, 8])
        self.assertEqual(fd.squeeze(fd.input([2, 1], "f32"), [-1]).shape, [2])
        self.assertEqual(fd.permute(x, [-1, 0, 1]).shape, [4, 2, 3])
        self.assertEqual(fd.cat([x, x], dim=-1).shape, [2, 3, 8])
        self.assertEqual(fd.select(x, -2, 2).shape, [2, 4])
        self.assertEqual(fd.broadcast(fd.input([4], "f32"), [2, 4], dims=[-1]).shape,
                         [2, 4])
        streamed = fd.set(x, Sharding([[], [], [0]], stream=(-3, 2), order=[-1, 0, 1]))
        self.assertEqual(ops_of(fd)[:8], [
            "%0 = fuser.sum %arg0 dims = [2] : tensor<2x3x4xf32> -> tensor<2x3xf32>",
            "%1:2 = fuser.var_mean %arg0 dims = [0, 1] keepdim : tensor<2x3x4xf32> "
            "-> tensor<1x1x4xf32>, tensor<1x1x4xf32>",
            "%3 = fuser.iota dim = 1 : tensor<2x8xi64>",
            "%4 = fuser.squeeze %arg1 dims = [1] : tensor<2x1xf32> -> tensor<2xf32>",
            "%5 = fuser.permute %arg0 perm = [2, 0, 1] : tensor<2x3x4xf32> "
            "-> tensor<4x2x3xf32>",
            "%6 = fuser.cat %arg0, %arg0 dim = 2 : (tensor<2x3x4xf32>, "
            "tensor<2x3x4xf32>) -> tensor<2x3x8xf32>",
            "%7 = fuser.select %arg0 dim = 1 index = 2 : tensor<2x3x4xf32> "
            "-> tensor<2x4xf32>",
            "%8 = fuser.broadcast %arg2 dims = [1] : tensor<4xf32> -> tensor<2x4xf32>"])
        self.assertTrue(streamed.type.endswith(
            "[[], [], [0]], stream = {0 : 2}, order = [2, 0, 1]>>"))
        for message, build in [
                (r"^fuser\.sum: reduction dim -4 is out of range for rank 3",
                 lambda: fd.sum(x, [-4])),
                (r"^fuser\.var_mean: reduction dim 3 is out of range for rank 3",
                 lambda: fd.var_mean(x, [3])),
                (r"^fuser\.sum: reduction dims \[2, -1\] name dim 2 twice",
                 lambda: fd.sum(x, [2, -1])),
                (r"^fuser\.iota: dim -3 is out of range for rank 2",
                 lambda: fd.iota([2, 8], "i64", dim=-3)),
                (r"^fuser\.squeeze: squeezed dim -4 is out of range for rank 3",
                 lambda: fd.squeeze(x, [-4])),
                (r"^fuser\.permute: perm dim 3 is out of range for rank 3",
                 lambda: fd.permute(x, [3, 0, 1])),
                (r"^fuser\.permute: perm \[0, 1\] is not a permutation",
                 lambda: fd.permute(x, [0, 1])),
                (r"^fuser\.cat: cat dim -4 is out of range for rank 3",
                 lambda: fd.cat([x, x], dim=-4)),
                (r"^fuser\.select: select dim 3 is out of range for rank 3",
                 lambda: fd.select(x, 3, 0)),
                (r"^fuser\.broadcast: input dim 0 maps to result dim -3, out of "
                 r"range for rank 2",
                 lambda: fd.broadcast(fd.input([4], "f32"), [2, 4], dims=[-3])),
                (r"^fuser\.set: stream split of dim -4, but the tensor has rank 3",
                 lambda: fd.set(x, Sharding([[], [], []], stream=(-4, 1))))]:
            with self.subTest(message=message):
                self.assert_fails(message, build)

    def test_one_dim_for_a_list_and_dim_keyword(self):
        fd = FusionDefinition("dim")
        x = fd.input([2, 3, 4], "f32")
        self.assertEqual(fd.sum(x, 1).shape, [2, 4])
        self.assertEqual(fd.max(x, dim=-1).shape, [2, 3])
        self.assertEqual(fd.min(x, dim=[0, 1]).shape, [4])
        self.assertEqual(fd.mean(x, dim=0, keepdim=True).shape, [1, 3, 4])
        self.assertEqual(fd.var_mean(x, dim=2, correction=0)[0].shape, [2, 3])
        self.assertEqual(fd.squeeze(fd.input([2, 1], "f32"), 1).shape, [2])
        self.assertEqual(fd.broadcast(fd.input([4], "f32"), [2, 4], 1).shape, [2, 4])
        with self.assertRaisesRegex(TypeError, r"^fuser\.sum: give dims or dim, "
                                               r"not both"):
            fd.sum(x, [0], dim=1)
        with self.assertRaisesRegex(TypeError, r"^fuser\.mean: needs dims"):
            fd.mean(x)

    def test_dtypes_of_pytorch_without_importing_it(self):
        torch_imported = "torch" in sys.modules
        fd = FusionDefinition("torch_dtypes")
        x = fd.input([4], TorchDtype("float32"))
        self.assertEqual(x.dtype, "f32")
        for name, dtype in [("float16", "f16"), ("bfloat16", "bf16"),
                            ("float64", "f64"), ("int64", "i64"), ("int32", "i32"),
                            ("int8", "i8"), ("bool", "i1")]:
            self.assertEqual(fd.cast(x, TorchDtype(name)).dtype, dtype)
        self.assertEqual(fd.full([2], 1, TorchDtype("int64")).dtype, "i64")
        self.assertEqual(fd.iota([2], TorchDtype("int32"), 0).dtype, "i32")
        self.assertEqual(fd.uniform([2], TorchDtype("bfloat16")).dtype, "bf16")
        self.assertEqual(fd.normal([2], TorchDtype("float64")).dtype, "f64")
        self.assertEqual("torch" in sys.modules, torch_imported)
        if importlib.util.find_spec("torch") is not None:
            import torch
            self.assertEqual(fd.input([2], torch.bfloat16).dtype, "bf16")
            self.assertEqual(fd.cast(x, torch.bool).dtype, "i1")

    @unittest.skipIf(numpy is None, "NumPy is missing; "
                     "test_numpy_dtypes_in_an_interpreter_with_numpy runs this")
    def test_numpy_dtypes(self):
        fd = FusionDefinition("numpy_dtypes")
        x = fd.input([4], numpy.float32)
        self.assertEqual(x.dtype, "f32")
        for dtype, expected in [(numpy.dtype("float16"), "f16"), (numpy.float64, "f64"),
                                (numpy.int64, "i64"), (numpy.dtype(numpy.int32), "i32"),
                                (numpy.int8, "i8"), (numpy.bool_, "i1")]:
            self.assertEqual(fd.cast(x, dtype).dtype, expected)
        self.assertEqual(fd.full([2], 0, numpy.int32).dtype, "i32")
        self.assertEqual(fd.iota([2], numpy.dtype("int64"), 0).dtype, "i64")
        self.assertEqual(fd.uniform([2], numpy.float16).dtype, "f16")
        self.assertEqual(fd.normal([2], numpy.dtype("float32")).dtype, "f32")
        with self.assertRaisesRegex(TypeError, r"^fuser\.cast: unknown dtype "
                                               r"<class 'numpy\.uint16'>"):
            fd.cast(x, numpy.uint16)

    @unittest.skipUnless(numpy is None and interpreter_with_numpy(),
                         "NumPy is here (test_numpy_dtypes runs) or nowhere")
    def test_numpy_dtypes_in_an_interpreter_with_numpy(self):
        result = subprocess.run(
            [interpreter_with_numpy(), "-m", "unittest",
             "test_builder.BuilderTextTest.test_numpy_dtypes"],
            cwd=HERE, capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("skipped", result.stderr)

    def test_unknown_dtypes_list_the_accepted_names(self):
        fd = FusionDefinition("bad_dtypes")
        x = fd.input([4], "f32")
        accepted = (r"expected one of f32, f16, bf16, f64, i64, i32, i8, i1, or "
                    r"the NumPy or PyTorch dtype of one \(float32, float16, bfloat16, "
                    r"float64, int64, int32, int8, bool\)")
        for message, build in [
                (r"^fuser\.cast: unknown dtype 'f8'; " + accepted,
                 lambda: fd.cast(x, "f8")),
                (r"^fuser\.full: unknown dtype 'float32'",
                 lambda: fd.full([2], 0.0, "float32")),
                (r"^fuser\.cast: unknown dtype torch\.complex64",
                 lambda: fd.cast(x, TorchDtype("complex64"))),
                (r"^fuser\.iota: unknown dtype <class 'float'>",
                 lambda: fd.iota([2], float, 0)),
                (r"^func\.func @bad_dtypes argument #1: unknown dtype None",
                 lambda: fd.input([2], None))]:
            with self.subTest(message=message):
                with self.assertRaisesRegex(TypeError, message):
                    build()

    def test_named_inputs(self):
        fd = FusionDefinition("named")
        x = fd.input([4], "f32", name="x")
        unnamed = fd.input([4], "f32")
        bias = fd.input([4], "f32", None, "bias")
        fd.output(fd.add(fd.add(x, bias), unnamed))
        text = fd.text()
        self.assertIn("func.func @named(%x: tensor<4xf32>, %arg1: tensor<4xf32>, "
                      "%bias: tensor<4xf32>)", text)
        self.assertIn("fuser.add %x, %bias", text)
        self.assertEqual(fd.input_names, ["x", "arg1", "bias"])
        for message, name in [
                (r"^func\.func @named argument #3: name 'x' is taken by argument #0",
                 "x"),
                (r"argument #3: name 'arg1' is taken by argument #1", "arg1"),
                (r"argument #3: name 'arg5' is the name of unnamed argument #5",
                 "arg5"),
                (r"argument #3: name '1x' is not an identifier", "1x"),
                (r"argument #3: name 'a-b' is not an identifier", "a-b"),
                (r"argument #3: name '' is not an identifier", "")]:
            with self.subTest(name=name):
                self.assert_fails(message, lambda: fd.input([4], "f32", name=name))
        self.assertEqual(fd.input([4], "f32", name="arg3").name, "%arg3")
        self.assertEqual(len(fd.inputs), 4)

    def test_numpy_broadcasting(self):
        fd = FusionDefinition("numpy", mesh=Mesh([2]), broadcasting="numpy")
        x = fd.input([4, 8], "f32", sharding=[[0], []])
        row, column = fd.input([8], "f32"), fd.input([4, 1], "f32")
        self.assertEqual((x + row).shape, [4, 8])
        self.assertEqual((column * row).shape, [4, 8])
        self.assertEqual(fd.where(row > 0, column, 1.0).shape, [4, 8])
        tx = "tensor<4x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>>"
        t = "tensor<4x8xf32>"
        self.assertEqual(ops_of(fd), [
            "%0 = fuser.broadcast %arg1 dims = [1] : tensor<8xf32> -> " + t,
            "%%1 = fuser.add %%arg0, %%0 : (%s, %s) -> %s" % (tx, t, t),
            "%2 = fuser.expand %arg2 : tensor<4x1xf32> -> " + t,
            "%3 = fuser.broadcast %arg1 dims = [1] : tensor<8xf32> -> " + t,
            "%%4 = fuser.mul %%2, %%3 : (%s, %s) -> %s" % (t, t, t),
            "%5 = fuser.full 0.0 : tensor<8xf32>",
            "%6 = fuser.compare gt, %arg1, %5 : (tensor<8xf32>, tensor<8xf32>) "
            "-> tensor<8xi1>",
            "%7 = fuser.broadcast %6 dims = [1] : tensor<8xi1> -> tensor<4x8xi1>",
            "%8 = fuser.expand %arg2 : tensor<4x1xf32> -> " + t,
            "%9 = fuser.full 1.0 : " + t,
            "%%10 = fuser.where %%7, %%8, %%9 : (tensor<4x8xi1>, %s, %s) -> %s"
            % (t, t, t)])
        self.assert_fails(r"^fuser\.sub: operand 'lhs' of shape \[4, 8\] and operand "
                          r"'rhs' of shape \[3\] do not broadcast",
                          lambda: x - fd.input([3], "f32"))
        self.assert_fails(r"^fuser\.where: operand 'on_true' of shape \[4, 1\] and "
                          r"operand 'on_false' of shape \[2, 8\] do not broadcast",
                          lambda: fd.where(row > 0, column, fd.input([2, 8], "f32")))
        self.assert_fails(r"^FusionDefinition: unknown broadcasting 'torch'; expected "
                          r"explicit or numpy",
                          lambda: FusionDefinition("f", broadcasting="torch"))
        explicit = FusionDefinition("explicit")
        self.assert_fails(r"^fuser\.add: operand 'lhs' has shape \[4, 8\] but 'rhs' "
                          r"has shape \[8\]; broadcasting is explicit",
                          lambda: explicit.input([4, 8], "f32") + explicit.input([8], "f32"))

    def test_sharding_errors_name_the_op_or_argument(self):
        fd = FusionDefinition("bad", mesh=Mesh([2]))
        x = fd.input([8, 64], "f32")
        self.assert_fails(r"^func\.func @bad argument #1: dim 0 uses mesh axis 1, "
                          r"but the mesh has 1 axes",
                          lambda: fd.input([8, 64], "f32", sharding=[[1], []]))
        self.assert_fails(r"^fuser\.set: sharding describes 1 dims but the tensor "
                          r"has rank 2", lambda: fd.set(x, [[0]]))
        self.assert_fails(r"^fuser\.set: mesh axis 0 is used twice: by dim 0 and by "
                          r"the partial state",
                          lambda: fd.set(x, Sharding([[0], []], partial=[0])))
        self.assert_fails(r"^fuser\.relu: dim 0 of size 3 is not divisible",
                          lambda: fd.relu(fd.input([3], "f32"), sharding=[[0]]))
        self.assert_fails(r"^fuser\.set: stream split of dim 0 into 3 chunks",
                          lambda: fd.set(x, Sharding([[0], []], stream=(0, 3))))
        self.assert_fails(r"^fuser\.set: unknown reduction kind 'mean'",
                          lambda: fd.set(x, Sharding([[], []], partial=[0],
                                                     partial_kind="mean")))
        unsharded = FusionDefinition("no_mesh")
        self.assert_fails(r"a sharding needs a mesh",
                          lambda: unsharded.input([8], "f32", sharding=[[0]]))


@unittest.skipIf(ir is None, "built without the compiler")
class BuilderIRTest(unittest.TestCase):
    """Built programs against hand-written files, through the parser."""

    def setUp(self):
        self.context = ir.Context()

    def printed(self, text):
        return str(ir.Module.parse(text, self.context))

    def assert_round_trip(self, fd):
        printed = str(fd.module(self.context))
        self.assertEqual(self.printed(fd.text()), printed)
        self.assertEqual(self.printed(printed), printed)
        return printed

    def test_tp_mlp_equals_the_example(self):
        self.assertEqual(self.assert_round_trip(tp_mlp()),
                         self.printed(read("examples", "tp_mlp.mlir")))

    def test_sp_mlp_equals_the_scenario(self):
        self.assertEqual(self.assert_round_trip(sp_mlp()),
                         self.printed(read("test", "scenarios", "sp-mlp.mlir")))

    def test_every_op_family_equals_the_op_tests(self):
        reference = self.printed(read("test", "Dialect", "Fuser", "ops.mlir"))
        for build in (ops_pointwise, ops_reductions, ops_creation, ops_meta,
                      ops_matmul_linear, ops_attention, ops_embedding):
            fd = build()
            with self.subTest(function=fd.name):
                self.assertEqual(
                    printed_function(self.assert_round_trip(fd), fd.name),
                    printed_function(reference, fd.name))

    def test_set_reshards(self):
        fd = FusionDefinition("reshard", mesh=Mesh([2]))
        x = fd.input([4, 8], "f32", sharding=[[0], []])
        replicated = fd.set(x, [[], []])
        fd.output(fd.set(replicated, Sharding([[], [0]], stream=(0, 2))))
        mesh = "#fuser.mesh<[2]>"
        expected = """
func.func @reshard(%x: tensor<4x8xf32, #fuser.sharding<{0}, [[0], []]>>)
    -> tensor<4x8xf32, #fuser.sharding<{0}, [[], [0]], stream = {{0 : 2}}>> {{
  %r = fuser.set %x : tensor<4x8xf32, #fuser.sharding<{0}, [[0], []]>>
      -> tensor<4x8xf32, #fuser.sharding<{0}, [[], []]>>
  %c = fuser.set %r : tensor<4x8xf32, #fuser.sharding<{0}, [[], []]>>
      -> tensor<4x8xf32, #fuser.sharding<{0}, [[], [0]], stream = {{0 : 2}}>>
  return %c : tensor<4x8xf32, #fuser.sharding<{0}, [[], [0]], stream = {{0 : 2}}>>
}}""".format(mesh)
        self.assertEqual(self.assert_round_trip(fd), self.printed(expected))

    def test_sugar_verifies_as_the_explicit_program(self):
        with FusionDefinition("sugar", mesh=Mesh([2]), broadcasting="numpy") as fd:
            x = fd.input([4, 8], "f32", name="x")
            w = fd.input([8, 8], "f32", sharding=[[], [0]], name="w")
            bias = fd.input([8], "f32", name="bias")
            h = abs(-(x @ w)) ** 2 / 2 + bias
            fd.output(fd.where(h >= 1, 1 - h, 0.0), fd.sum(h, dim=-1))
        sharded = "tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], [0]]>>"
        expected = """
func.func @sugar(%x: tensor<4x8xf32>, %w: {0}, %bias: tensor<8xf32>)
    -> (tensor<4x8xf32>, tensor<4xf32>) {{
  %0 = fuser.matmul %x, %w : (tensor<4x8xf32>, {0}) -> tensor<4x8xf32>
  %1 = fuser.neg %0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = fuser.abs %1 : tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = fuser.full 2.0 : tensor<4x8xf32>
  %4 = fuser.pow %2, %3 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = fuser.full 2.0 : tensor<4x8xf32>
  %6 = fuser.div %4, %5 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = fuser.broadcast %bias dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %8 = fuser.add %6, %7 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %9 = fuser.full 1.0 : tensor<4x8xf32>
  %10 = fuser.compare ge, %8, %9 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %11 = fuser.full 1.0 : tensor<4x8xf32>
  %12 = fuser.sub %11, %8 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %13 = fuser.full 0.0 : tensor<4x8xf32>
  %14 = fuser.where %10, %12, %13
      : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %15 = fuser.sum %8 dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %14, %15 : tensor<4x8xf32>, tensor<4xf32>
}}""".format(sharded)
        self.assertEqual(self.assert_round_trip(fd), self.printed(expected))
        self.assertEqual(fd.input_names, ["x", "w", "bias"])

    def test_special_floats_read_back(self):
        fd = FusionDefinition("floats")
        fd.output(fd.full([2], float("-inf"), "f32"), fd.full([2], 1e-05, "f32"))
        printed = self.assert_round_trip(fd)
        self.assertIn("fuser.full 0xFFF0000000000000 : tensor<2xf32>", printed)
        self.assertIn("fuser.full 1.000000e-05 : tensor<2xf32>", printed)

    def test_verifier_errors_name_the_op_and_the_python_line(self):
        fd = FusionDefinition("bad")
        fd.uniform([4], "f32", low=1.0, high=0.0)
        with self.assertRaises(ir.MLIRError) as raised:
            fd.module(self.context)
        severity, location, message = raised.exception.diagnostics[0]
        self.assertEqual(severity, "error")
        self.assertIn(os.path.abspath(__file__), location)
        self.assertIn("'fuser.uniform' op low 1.000000e+00 must be below high", message)

        fd = FusionDefinition("bad")
        fd.exp(fd.input([4], "i32"))
        with self.assertRaisesRegex(ir.MLIRError, r"'fuser\.exp' op operand #0 must "
                                                  r"be ranked tensor of floating-point"):
            fd.module(self.context)


if __name__ == "__main__":
    unittest.main()
