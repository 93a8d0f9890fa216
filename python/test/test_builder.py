"""Tests of fuser_mlir.builder: programs built in Python print exactly as the
hand-written files they mirror, and bad programs fail naming the op."""

import importlib.util
import os
import re
import unittest

from fuser_mlir import FusionDefinition, Mesh, Sharding

# Without the compiler the builder still writes text; parsing needs it.
if importlib.util.find_spec("fuser_mlir._ir") is not None:
    from fuser_mlir import ir
else:
    ir = None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read(*path):
    with open(os.path.join(ROOT, *path)) as source:
        return source.read()


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
        self.assert_fails(r"^fuser\.cast: unknown dtype 'f8'", lambda: fd.cast(x, "f8"))
        self.assert_fails(r"^fuser\.full: unknown dtype 'float32'",
                          lambda: fd.full([2], 0.0, "float32"))
        self.assert_fails(r"^fuser\.gelu: unknown approximation 'erf'",
                          lambda: fd.gelu(x, approximation="erf"))
        self.assert_fails(r"^fuser\.compare: unknown kind '<'",
                          lambda: fd.compare("<", x, x))
        self.assert_fails(r"^fuser\.relu: input must be a tensor of this definition",
                          lambda: fd.relu(FusionDefinition("other").input([2], "f32")))

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
