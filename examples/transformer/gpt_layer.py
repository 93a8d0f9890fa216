#!/usr/bin/env python3
"""Writes a GPT transformer layer, forward and backward, as a fuser program.

The layer is nvFuser's benchmark layer (tests/python/multidevice/
test_transformer.py, from Thunder's NanoGPT block): layer norm, QKV linear,
causal fused attention with dropout, out-projection, dropout, residual,
layer norm, FC1, GELU (tanh), FC2, dropout, residual; layer norms and
residuals in f32, the rest in the layer's element type.

Only the functions' arguments and results are annotated, Megatron style, on
a mesh of `--devices` ranks: QKV and FC1 split by output features
(column-parallel), out-projection and FC2 by input features (row-parallel),
each gradient placed as its weight, the values the forward saves as the
forward computes them. With `--mode sp` (sequence parallelism) the input,
the output and the residual stream are split along the sequence as well.
Sharding propagation finds the rest.

Two functions:
  @gpt_forward(x, 12 weights) -> (out, the 9 values the backward needs)
  @gpt_backward(x, weights, saved values, grad_out) -> (grad_x, 12 weight
      gradients), every derivative written out, attention through
      fuser.sdpa_backward with the forward's seed.
and, with `--function layer` or `all`, the layer alone:
  @gpt_layer(x, 12 weights) -> out, whose backward the compiler can
      generate (fuser-compile --vjp).

Usage: gpt_layer.py [--mode tp|sp] [--devices D] [--batch B] [--sequence S]
                    [--heads H] [--hidden E] [--dtype bf16|f32]
                    [--dropout P] [--attention-dropout P]
                    [--function forward|backward|both|layer|all]
"""

import argparse
import math
import sys


def float_literal(value):
    """An MLIR float literal: repr's digits, with a mantissa dot."""
    text = repr(float(value))
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exponent if exponent else "")


class Program:
    """SSA text of one function: values are named in order and typed."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.lines = []
        self.count = 0

    def tensor(self, shape, dtype=None, sharding=None):
        dims = "x".join(str(s) for s in shape)
        text = "tensor<%s%s%s>" % (dims, "x" if dims else "", dtype or self.dtype)
        if sharding:
            text = text[:-1] + ", " + sharding + ">"
        return text

    def emit(self, op, operands, types, result_types, attributes="",
             functional=True, prefix=""):
        """One op: `fuser.<op> <prefix><operands> <attributes> : <types>`,
        the types functional `(operands) -> results` or, for ops printed
        that way, `operand -> results`."""
        name = "%%v%d" % self.count
        self.count += 1
        results = name if len(result_types) == 1 else "%s:%d" % (
            name, len(result_types))
        if functional:
            outputs = result_types[0] if len(result_types) == 1 else (
                "(" + ", ".join(result_types) + ")")
            signature = "(%s) -> %s" % (", ".join(types), outputs)
        else:
            signature = "%s -> %s" % (types[0], ", ".join(result_types))
        self.lines.append("  %s = fuser.%s %s%s%s : %s" % (
            results, op, prefix, ", ".join(operands),
            (" " + attributes) if attributes else "", signature))
        if len(result_types) == 1:
            return Value(name, result_types[0])
        return [Value("%s#%d" % (name, i), t) for i, t in enumerate(result_types)]

    def constant(self, op, attributes, type):
        """A creation op (full, uniform) of `type`."""
        name = "%%v%d" % self.count
        self.count += 1
        self.lines.append("  %s = fuser.%s %s : %s" % (name, op, attributes, type))
        return Value(name, type)


class Value:
    def __init__(self, name, type):
        self.name = name
        self.type = type

    @property
    def shape(self):
        body = self.type[len("tensor<"):-1].split(",")[0]
        parts = body.split("x")
        return [int(p) for p in parts[:-1]]

    @property
    def dtype(self):
        body = self.type[len("tensor<"):-1].split(",")[0]
        return body.split("x")[-1]


class Layer:
    def __init__(self, p, args):
        self.p = p
        self.a = args
        self.seed = 0

    # Elementwise and shape helpers ----------------------------------------

    def typed(self, shape, dtype=None):
        return self.p.tensor(shape, dtype)

    def unary(self, op, x, attributes=""):
        return self.p.emit(op, [x.name], [x.type], [self.typed(x.shape, x.dtype)],
                           attributes, functional=False)

    def binary(self, op, x, y):
        return self.p.emit(op, [x.name, y.name], [x.type, y.type],
                           [self.typed(x.shape, x.dtype)])

    def add(self, x, y):
        return self.binary("add", x, y)

    def sub(self, x, y):
        return self.binary("sub", x, y)

    def mul(self, x, y):
        return self.binary("mul", x, y)

    def full(self, value, shape, dtype):
        return self.p.constant("full", float_literal(value), self.typed(shape, dtype))

    def scale(self, x, value):
        return self.mul(x, self.full(value, x.shape, x.dtype))

    def cast(self, x, dtype):
        if x.dtype == dtype:
            return x
        return self.p.emit("cast", [x.name], [x.type],
                           [self.typed(x.shape, dtype)], functional=False)

    def broadcast(self, x, shape, dims):
        return self.p.emit("broadcast", [x.name], [x.type],
                           [self.typed(shape, x.dtype)],
                           "dims = [%s]" % ", ".join(map(str, dims)),
                           functional=False)

    def reshape(self, x, shape):
        return self.p.emit("reshape", [x.name], [x.type],
                           [self.typed(shape, x.dtype)], functional=False)

    def permute(self, x, perm):
        shape = [x.shape[i] for i in perm]
        return self.p.emit("permute", [x.name], [x.type],
                           [self.typed(shape, x.dtype)],
                           "perm = [%s]" % ", ".join(map(str, perm)),
                           functional=False)

    def slice_last(self, x, start, limit):
        rank = len(x.shape)
        starts = [0] * (rank - 1) + [start]
        limits = x.shape[:-1] + [limit]
        shape = x.shape[:-1] + [limit - start]
        return self.p.emit(
            "slice", [x.name], [x.type], [self.typed(shape, x.dtype)],
            "starts = [%s] limits = [%s] steps = [%s]" % (
                ", ".join(map(str, starts)), ", ".join(map(str, limits)),
                ", ".join(["1"] * rank)),
            functional=False)

    def cat_last(self, parts):
        shape = parts[0].shape[:-1] + [sum(p.shape[-1] for p in parts)]
        return self.p.emit("cat", [x.name for x in parts], [x.type for x in parts],
                           [self.typed(shape, parts[0].dtype)],
                           "dim = %d" % (len(shape) - 1))

    def sum(self, x, dims):
        shape = [s for i, s in enumerate(x.shape) if i not in dims]
        return self.p.emit("sum", [x.name], [x.type], [self.typed(shape, x.dtype)],
                           "dims = [%s]" % ", ".join(map(str, dims)),
                           functional=False)

    def linear(self, x, w, b=None):
        shape = x.shape[:-1] + [w.shape[0]]
        types = [x.type, w.type] + ([b.type] if b else [])
        return self.p.emit("linear", [x.name, w.name], types,
                           [self.typed(shape, x.dtype)],
                           ("bias " + b.name) if b else "")

    def matmul(self, x, y):
        shape = x.shape[:-1] + [y.shape[-1]]
        return self.p.emit("matmul", [x.name, y.name], [x.type, y.type],
                           [self.typed(shape, x.dtype)])

    def dropout_mask(self, shape):
        """A keep mask (f32 1/(1-p) or 0) of the layer's dropout probability,
        drawn from the next seed."""
        self.seed += 1
        type = self.typed(shape, "f32")
        u = self.p.constant(
            "uniform", "low = 0.0, high = 1.0, seed = %d" % self.seed, type)
        p = self.a.dropout
        keep = self.p.emit("compare", [u.name, self.full(p, shape, "f32").name],
                           [type, type], [self.typed(shape, "i1")], prefix="ge, ")
        return self.p.emit(
            "where", [keep.name, self.full(1.0 / (1.0 - p), shape, "f32").name,
                      self.full(0.0, shape, "f32").name],
            [keep.type, type, type], [type])

    # Layer pieces -----------------------------------------------------------

    def layer_norm(self, x32, weight, bias):
        """(normalized in the layer's type, mean, rstd) of f32 x [b, s, e]."""
        b, s, e = x32.shape
        var, mean = self.p.emit("var_mean", [x32.name], [x32.type],
                                [self.typed([b, s], "f32")] * 2,
                                "dims = [2] {correction = 0 : i64}",
                                functional=False)
        rstd = self.unary("rsqrt", self.add(var, self.full(1e-5, [b, s], "f32")))
        return self.normalize(x32, mean, rstd, weight, bias), mean, rstd

    def normalize(self, x32, mean, rstd, weight, bias):
        b, s, e = x32.shape
        centered = self.sub(x32, self.broadcast(mean, [b, s, e], [0, 1]))
        xhat = self.mul(centered, self.broadcast(rstd, [b, s, e], [0, 1]))
        w = self.cast(self.broadcast(weight, [b, s, e], [2]), "f32")
        bb = self.cast(self.broadcast(bias, [b, s, e], [2]), "f32")
        return self.cast(self.add(self.mul(xhat, w), bb), self.p.dtype)

    def gelu_tanh(self, x32):
        return self.unary("gelu", x32, "approximation = tanh")

    def heads(self, qkv):
        """q, k, v [b, h, s, d] of the QKV projection [b, s, 3e]."""
        b, s, _ = qkv.shape
        h, d = self.a.heads, self.a.hidden // self.a.heads
        per_head = self.reshape(qkv, [b, s, h, 3 * d])
        return [self.permute(self.slice_last(per_head, i * d, (i + 1) * d), [0, 2, 1, 3])
                for i in range(3)]

    def merge_heads(self, x):
        """[b, h, s, d] -> [b, s, e]."""
        b, h, s, d = x.shape
        return self.reshape(self.permute(x, [0, 2, 1, 3]), [b, s, h * d])

    def attention_flags(self):
        text = "causal"
        if self.a.attention_dropout:
            text += " dropout = %s seed = %d" % (
                float_literal(self.a.attention_dropout), ATTENTION_SEED)
        return text

    def forward(self, x, w):
        p = self.p
        x32 = self.cast(x, "f32")
        ln0, ln0_mean, ln0_rstd = self.layer_norm(x32, w["ln0_w"], w["ln0_b"])
        qkv = self.linear(ln0, w["qkv_w"], w["qkv_b"])
        q, k, v = self.heads(qkv)
        b, h, s, d = q.shape
        o, lse = p.emit("sdpa", [q.name, k.name, v.name], [q.type, k.type, v.type],
                        [q.type, self.typed([b, h, s], "f32")], self.attention_flags())
        attn = self.linear(self.merge_heads(o), w["out_w"], w["out_b"])
        mask0 = self.dropout_mask(attn.shape)
        x1 = self.add(x32, self.mul(self.cast(attn, "f32"), mask0))
        ln1, ln1_mean, ln1_rstd = self.layer_norm(x1, w["ln1_w"], w["ln1_b"])
        fc1 = self.linear(ln1, w["fc1_w"], w["fc1_b"])
        act = self.cast(self.gelu_tanh(self.cast(fc1, "f32")), p.dtype)
        fc2 = self.linear(act, w["fc2_w"], w["fc2_b"])
        mask1 = self.dropout_mask(fc2.shape)
        out = self.cast(self.add(x1, self.mul(self.cast(fc2, "f32"), mask1)), p.dtype)
        saved = dict(ln0_mean=ln0_mean, ln0_rstd=ln0_rstd, qkv=qkv, attn_out=o,
                     lse=lse, attn=attn, ln1_mean=ln1_mean, ln1_rstd=ln1_rstd,
                     fc1=fc1)
        return out, saved

    # Backward -----------------------------------------------------------------

    def linear_backward(self, x, w, grad):
        """(grad_x, grad_w, grad_b) of y = x w^T + b, x [b, s, k], w [n, k]."""
        b, s, k = x.shape
        n = w.shape[0]
        grad_x = self.matmul(grad, w)
        g2 = self.reshape(grad, [b * s, n])
        x2 = self.reshape(x, [b * s, k])
        grad_w = self.matmul(self.permute(g2, [1, 0]), x2)
        grad_b = self.sum(grad, [0, 1])
        return grad_x, grad_w, grad_b

    def layer_norm_backward(self, x32, mean, rstd, weight, grad):
        """(grad_x f32, grad_w, grad_b) of the affine layer norm, grad in the
        layer's type."""
        b, s, e = x32.shape
        g32 = self.cast(grad, "f32")
        xhat = self.mul(self.sub(x32, self.broadcast(mean, [b, s, e], [0, 1])),
                        self.broadcast(rstd, [b, s, e], [0, 1]))
        grad_w = self.cast(self.sum(self.mul(g32, xhat), [0, 1]), self.p.dtype)
        grad_b = self.cast(self.sum(g32, [0, 1]), self.p.dtype)
        wg = self.mul(g32, self.cast(self.broadcast(weight, [b, s, e], [2]), "f32"))
        # dx = rstd * (wg - mean(wg) - xhat * mean(wg * xhat))
        mean_wg = self.scale(self.sum(wg, [2]), 1.0 / e)
        mean_wgx = self.scale(self.sum(self.mul(wg, xhat), [2]), 1.0 / e)
        inner = self.sub(self.sub(wg, self.broadcast(mean_wg, [b, s, e], [0, 1])),
                         self.mul(xhat, self.broadcast(mean_wgx, [b, s, e], [0, 1])))
        grad_x = self.mul(inner, self.broadcast(rstd, [b, s, e], [0, 1]))
        return grad_x, grad_w, grad_b

    def gelu_tanh_backward(self, x32, grad32):
        """d/dx 0.5 x (1 + tanh(c (x + 0.044715 x^3))) times grad, f32."""
        c = math.sqrt(2.0 / math.pi)
        shape = x32.shape
        x3 = self.mul(self.mul(x32, x32), x32)
        inner = self.scale(self.add(x32, self.scale(x3, 0.044715)), c)
        t = self.unary("tanh", inner)
        one = self.full(1.0, shape, "f32")
        sech2 = self.sub(one, self.mul(t, t))
        dinner = self.scale(self.add(one, self.scale(self.mul(x32, x32), 3 * 0.044715)), c)
        derivative = self.add(self.scale(self.add(one, t), 0.5),
                              self.mul(self.scale(x32, 0.5), self.mul(sech2, dinner)))
        return self.mul(grad32, derivative)

    def backward(self, x, w, saved, grad_out):
        p = self.p
        dtype = p.dtype
        x32 = self.cast(x, "f32")
        # Recomputed: what the forward's saved values give without a GEMM
        # or a communication.
        ln0 = self.normalize(x32, saved["ln0_mean"], saved["ln0_rstd"],
                             w["ln0_w"], w["ln0_b"])
        q, k, v = self.heads(saved["qkv"])
        attn_in = self.merge_heads(saved["attn_out"])
        mask0 = self.dropout_mask(saved["attn"].shape)
        x1 = self.add(x32, self.mul(self.cast(saved["attn"], "f32"), mask0))
        ln1 = self.normalize(x1, saved["ln1_mean"], saved["ln1_rstd"],
                             w["ln1_w"], w["ln1_b"])
        fc1_32 = self.cast(saved["fc1"], "f32")
        act = self.cast(self.gelu_tanh(fc1_32), dtype)
        mask1 = self.dropout_mask(grad_out.shape)

        g_out32 = self.cast(grad_out, "f32")
        # out = x1 + dropout(fc2): FC2 and the MLP.
        g_fc2 = self.cast(self.mul(g_out32, mask1), dtype)
        g_act, g_fc2_w, g_fc2_b = self.linear_backward(act, w["fc2_w"], g_fc2)
        g_fc1 = self.cast(self.gelu_tanh_backward(fc1_32, self.cast(g_act, "f32")), dtype)
        g_ln1, g_fc1_w, g_fc1_b = self.linear_backward(ln1, w["fc1_w"], g_fc1)
        g_x1_ln, g_ln1_w, g_ln1_b = self.layer_norm_backward(
            x1, saved["ln1_mean"], saved["ln1_rstd"], w["ln1_w"], g_ln1)
        g_x1 = self.add(g_out32, g_x1_ln)
        # x1 = x + dropout(attn): attention.
        g_attn = self.cast(self.mul(g_x1, mask0), dtype)
        g_attn_in, g_out_w, g_out_b = self.linear_backward(attn_in, w["out_w"], g_attn)
        b, h, s, d = q.shape
        g_o = self.permute(self.reshape(g_attn_in, [b, s, h, d]), [0, 2, 1, 3])
        g_q, g_k, g_v = p.emit(
            "sdpa_backward",
            [q.name, k.name, v.name, saved["attn_out"].name, g_o.name, saved["lse"].name],
            [q.type, k.type, v.type, saved["attn_out"].type, g_o.type, saved["lse"].type],
            [q.type] * 3, self.attention_flags())
        per_head = [self.permute(g, [0, 2, 1, 3]) for g in (g_q, g_k, g_v)]
        g_qkv = self.reshape(self.cat_last(per_head), [b, s, 3 * self.a.hidden])
        g_ln0, g_qkv_w, g_qkv_b = self.linear_backward(ln0, w["qkv_w"], g_qkv)
        g_x_ln, g_ln0_w, g_ln0_b = self.layer_norm_backward(
            x32, saved["ln0_mean"], saved["ln0_rstd"], w["ln0_w"], g_ln0)
        g_x = self.cast(self.add(g_x1, g_x_ln), dtype)
        grads = dict(ln0_w=g_ln0_w, ln0_b=g_ln0_b, qkv_w=g_qkv_w, qkv_b=g_qkv_b,
                     out_w=g_out_w, out_b=g_out_b, ln1_w=g_ln1_w, ln1_b=g_ln1_b,
                     fc1_w=g_fc1_w, fc1_b=g_fc1_b, fc2_w=g_fc2_w, fc2_b=g_fc2_b)
        return g_x, grads


# The seed of attention's dropout; the residual dropouts draw from 1 and 2.
ATTENTION_SEED = 100

WEIGHTS = ["ln0_w", "ln0_b", "qkv_w", "qkv_b", "out_w", "out_b",
           "ln1_w", "ln1_b", "fc1_w", "fc1_b", "fc2_w", "fc2_b"]
SAVED = ["ln0_mean", "ln0_rstd", "qkv", "attn_out", "lse", "attn", "ln1_mean",
         "ln1_rstd", "fc1"]


def weight_shapes(e):
    return dict(ln0_w=[e], ln0_b=[e], qkv_w=[3 * e, e], qkv_b=[3 * e],
                out_w=[e, e], out_b=[e], ln1_w=[e], ln1_b=[e],
                fc1_w=[4 * e, e], fc1_b=[4 * e], fc2_w=[e, 4 * e], fc2_b=[e])


def saved_shardings(mode):
    """Where the forward leaves what the backward reads: attention's output
    and log-sum-exp by heads, the QKV and FC1 projections by features (heads
    and FC1's columns), the out-projection and the layer norms' statistics
    as the residual stream (whole, or split along the sequence with SP)."""
    stats = "#fuser.sharding<#mesh, [[], [0]]>" if mode == "sp" else (
        "#fuser.sharding<#mesh, [[], []]>")
    stream = "#sequence" if mode == "sp" else "#whole"
    return dict(ln0_mean=stats, ln0_rstd=stats, ln1_mean=stats, ln1_rstd=stats,
                qkv="#features", fc1="#features", attn=stream,
                attn_out="#fuser.sharding<#mesh, [[], [0], [], []]>",
                lse="#fuser.sharding<#mesh, [[], [0], []]>")


def weight_shardings():
    """Megatron's: column-parallel QKV and FC1 (weights and biases split by
    output features), row-parallel out-projection and FC2."""
    return dict(qkv_w="#columns", qkv_b="#columns", fc1_w="#columns",
                fc1_b="#columns", out_w="#rows", fc2_w="#rows")


def annotated(p, value, sharding):
    """(name, type) of `value` as a function result placed by `sharding`:
    a fuser.set to it, which propagation folds where the value is placed so
    already."""
    type = value.type[:-1] + ", " + sharding + ">"
    name = "%%v%d" % p.count
    p.count += 1
    p.lines.append("  %s = fuser.set %s : %s -> %s" % (name, value.name, value.type,
                                                       type))
    return name, type


def signature(entries):
    return ", ".join("%s: %s" % (name, type) for name, type in entries)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=["tp", "sp"], default="tp")
    parser.add_argument("--devices", type=int, default=2)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--sequence", type=int, default=16)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--dtype", choices=["bf16", "f32"], default="f32")
    parser.add_argument("--dropout", type=float, default=0.1,
                        help="after the out-projection and FC2")
    parser.add_argument("--attention-dropout", type=float, default=None,
                        help="inside attention (default: --dropout); on GPUs "
                             "its mask is cuDNN's, which CPU references do not "
                             "draw, so checks there use 0")
    parser.add_argument("--function",
                        choices=["forward", "backward", "both", "layer", "all"],
                        default="both",
                        help="both: @gpt_forward and @gpt_backward; layer: "
                             "@gpt_layer; all: the three")
    a = parser.parse_args()
    if a.attention_dropout is None:
        a.attention_dropout = a.dropout
    if a.hidden % a.heads or a.heads % a.devices or (
            a.mode == "sp" and a.sequence % a.devices):
        sys.exit("gpt_layer.py: heads must divide hidden, devices must divide "
                 "heads (and the sequence with --mode sp)")
    b, s, e = a.batch, a.sequence, a.hidden
    shapes = weight_shapes(e)
    shardings = weight_shardings()
    stream = "#sequence" if a.mode == "sp" else "#whole"

    out = []
    out.append("// GPT layer, %s on %d devices: b=%d s=%d heads=%d e=%d %s, "
               "dropout %g (attention %g)." % (
                   a.mode.upper(), a.devices, b, s, a.heads, e, a.dtype,
                   a.dropout, a.attention_dropout))
    out.append("// Written by examples/transformer/gpt_layer.py %s." % " ".join(sys.argv[1:]))
    out.append("#mesh = #fuser.mesh<[%d]>" % a.devices)
    out.append("#columns = #fuser.sharding<#mesh, [[0], []]>")
    out.append("#rows = #fuser.sharding<#mesh, [[], [0]]>")
    out.append("#sequence = #fuser.sharding<#mesh, [[], [0], []]>")
    out.append("#features = #fuser.sharding<#mesh, [[], [], [0]]>")
    out.append("#whole = #fuser.sharding<#mesh, [[], [], []]>")
    saved_sharding = saved_shardings(a.mode)

    def weight_sharding(name):
        """The weights' Megatron placement; vectors split like the matrix
        they bias, the others whole."""
        sharding = shardings.get(name)
        if len(shapes[name]) == 2:
            return sharding
        return ("#fuser.sharding<#mesh, [[0]]>" if sharding == "#columns"
                else "#fuser.sharding<#mesh, [[]]>")

    def weight_args(p):
        args = []
        values = {}
        for name in WEIGHTS:
            type = p.tensor(shapes[name], None, weight_sharding(name))
            args.append(("%" + name, type))
            values[name] = Value("%" + name, type)
        return args, values

    if a.function in ("layer", "all"):
        p = Program(a.dtype)
        layer = Layer(p, a)
        x_type = p.tensor([b, s, e], None, stream)
        args, w = weight_args(p)
        result, _ = layer.forward(Value("%x", x_type), w)
        name, type = annotated(p, result, stream)
        out.append("func.func @gpt_layer(%s) -> %s {" % (
            signature([("%x", x_type)] + args), type))
        out += p.lines
        out.append("  return %s : %s" % (name, type))
        out.append("}")

    if a.function in ("forward", "both", "all"):
        p = Program(a.dtype)
        layer = Layer(p, a)
        x_type = p.tensor([b, s, e], None, stream)
        args, w = weight_args(p)
        result, saved = layer.forward(Value("%x", x_type), w)
        results = [annotated(p, result, stream)] + [
            annotated(p, saved[n], saved_sharding[n]) for n in SAVED]
        out.append("func.func @gpt_forward(%s) -> (%s) {" % (
            signature([("%x", x_type)] + args), ", ".join(t for _, t in results)))
        out += p.lines
        out.append("  return %s : %s" % (", ".join(n for n, _ in results),
                                         ", ".join(t for _, t in results)))
        out.append("}")

    if a.function in ("backward", "both", "all"):
        p = Program(a.dtype)
        layer = Layer(p, a)
        x_type = p.tensor([b, s, e], None, stream)
        args, w = weight_args(p)
        h, d = a.heads, e // a.heads
        saved_shapes = dict(
            ln0_mean=([b, s], "f32"), ln0_rstd=([b, s], "f32"),
            qkv=([b, s, 3 * e], None), attn_out=([b, h, s, d], None),
            lse=([b, h, s], "f32"), attn=([b, s, e], None),
            ln1_mean=([b, s], "f32"),
            ln1_rstd=([b, s], "f32"), fc1=([b, s, 4 * e], None))
        saved_types = {n: p.tensor(shape, dtype, saved_sharding[n])
                       for n, (shape, dtype) in saved_shapes.items()}
        saved = {n: Value("%" + n, saved_types[n]) for n in SAVED}
        grad_type = p.tensor([b, s, e], None, stream)
        grad_x, grads = layer.backward(Value("%x", x_type), w, saved,
                                       Value("%grad_out", grad_type))
        # Each gradient is placed as what it is the gradient of.
        results = [annotated(p, grad_x, stream)] + [
            annotated(p, grads[n], weight_sharding(n)) for n in WEIGHTS]
        entries = ([("%x", x_type)] + args + [("%" + n, saved_types[n]) for n in SAVED]
                   + [("%grad_out", grad_type)])
        out.append("func.func @gpt_backward(%s) -> (%s) {" % (
            signature(entries), ", ".join(t for _, t in results)))
        out += p.lines
        out.append("  return %s : %s" % (", ".join(n for n, _ in results),
                                         ", ".join(t for _, t in results)))
        out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
