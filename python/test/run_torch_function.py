"""One rank of test_torch.py: the tensor-parallel MLP as a
fuser_mlir.torch.Function, its outputs and gradients (through the generated
backward) against PyTorch's autograd, with global tensors and with each
rank's pieces; as a Module, trained a step; and without gradients."""

import torch

from fuser_mlir import FusionDefinition, Mesh, runtime, shard
from fuser_mlir.torch import Function, Module
from rank_support import expect_error


def mlp_definition():
    with FusionDefinition("mlp", mesh=Mesh([2])) as fd:
        x = fd.input([8, 16], "f32", name="x")
        w1 = fd.input([64, 16], "f32", sharding=[[0], []], name="w1")
        w2 = fd.input([16, 64], "f32", sharding=[[], [0]], name="w2")
        fd.output(fd.linear(fd.gelu(fd.linear(x, w1), approximation="tanh"), w2))
    return fd


def reference(x, w1, w2):
    hidden = torch.nn.functional.gelu(x @ w1.T, approximate="tanh")
    return hidden @ w2.T


def close(found, expected, what):
    error = (found - expected).abs().max() / expected.abs().max()
    assert error < 1e-5, "%s: relative error %g" % (what, error)


def main():
    rank = runtime.rank()
    mesh = Mesh([2])
    generator = torch.Generator().manual_seed(5)
    x, w1, w2 = (torch.randn(*shape, generator=generator)
                 for shape in ([8, 16], [64, 16], [16, 64]))
    leaves = [value.clone().requires_grad_() for value in (x, w1, w2)]
    expected = reference(*leaves)
    expected.square().sum().backward()

    mlp = Function(mlp_definition())
    inputs = [value.clone().requires_grad_() for value in (x, w1, w2)]
    y = mlp(*inputs)
    close(y, expected, "output")
    y.square().sum().backward()
    for name, found, leaf in zip(("x", "w1", "w2"), inputs, leaves):
        close(found.grad, leaf.grad, "gradient of " + name)

    # Each rank's pieces in, its pieces out (gradients too).
    by_pieces = Function(mlp_definition(), pieces=True)
    shardings = [[[], []], [[0], []], [[], [0]]]
    pieces = [shard(value, sharding, mesh, rank).clone().requires_grad_()
              for value, sharding in zip((x, w1, w2), shardings)]
    y_piece = by_pieces(*pieces)
    close(y_piece, expected, "output from pieces")  # y is replicated
    y_piece.square().sum().backward()
    for name, piece, leaf, sharding in zip(("x", "w1", "w2"), pieces, leaves,
                                           shardings):
        close(piece.grad, shard(leaf.grad, sharding, mesh, rank),
              "piece of the gradient of " + name)

    with torch.no_grad():
        close(mlp(x, w1, w2), expected, "output without gradients")

    module = Module(mlp, {"w1": w1.clone(), "w2": w2.clone()})
    assert [name for name, _ in module.named_parameters()] == ["w1", "w2"]
    optimizer = torch.optim.SGD(module.parameters(), lr=0.1)
    module(x).square().sum().backward()
    optimizer.step()
    close(module.w1.data, w1 - 0.1 * leaves[1].grad, "w1 after a step")
    expect_error(ValueError, "mlp has no inputs named w3",
                 lambda: Module(mlp, {"w3": w1}))
    expect_error(TypeError, "mlp takes 3 inputs (x, w1, w2), not 2",
                 lambda: mlp(x, w1))
    print(f"rank {rank}: torch function ok")


if __name__ == "__main__":
    main()
