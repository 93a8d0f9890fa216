#!/usr/bin/env python3
"""Trains a small GPT model built from compiled programs with torch.optim.

The model: a token embedding, `--layers` GPT layers (gpt_layer.py's, tensor
parallel on the ranks), and a language-model head with its cross-entropy
loss; each piece a compiled program used as a fuser_mlir.torch.Module, its
backward the generated one. Every step runs the model forward, autograd's
backward through the generated backward programs, and AdamW.

    mpirun -np 2 python3 train_gpt.py                 # CPU ranks
    mpirun -np 2 python3 train_gpt.py --compare       # and plain PyTorch beside it
    torchrun --nproc-per-node 2 train_gpt.py --target cuda --dtensor

With `--compare`, each rank also trains the same model written in plain
PyTorch (on the same device, in the same element type) from the same
initial weights on the same batch, and the step's two losses are printed
side by side; the run fails when they differ by more than `--tolerance`
of the first step's loss (a loss near zero makes relative differences
noise). `--dtensor` makes the weights DTensors
placed as the programs take them (their pieces on each rank). The
programs compile on first use into the cache; on machines without the
compiler, `--compile-to DIR` (where it is, no ranks needed) writes the
libraries that `--libraries DIR` then loads.
"""

import argparse
import os
import subprocess
import sys

import torch
import torch.nn.functional as F

from fuser_mlir import FusionDefinition, Mesh, programs, runtime, shard
from fuser_mlir.torch import Function, Module, placements_of

HERE = os.path.dirname(os.path.abspath(__file__))
LAYER_WEIGHTS = ["ln0_w", "ln0_b", "qkv_w", "qkv_b", "out_w", "out_b",
                 "ln1_w", "ln1_b", "fc1_w", "fc1_b", "fc2_w", "fc2_b"]


def layer_text(a):
    """gpt_layer.py's @gpt_layer, without dropout (so that plain PyTorch
    computes the same function)."""
    return subprocess.run(
        [sys.executable, os.path.join(HERE, "gpt_layer.py"), "--function", "layer",
         "--mode", "tp", "--devices", str(a.devices), "--batch", str(a.batch),
         "--sequence", str(a.sequence), "--heads", str(a.heads),
         "--hidden", str(a.hidden), "--dtype", a.dtype, "--dropout", "0"],
        check=True, capture_output=True, text=True).stdout


def embedding_definition(a):
    with FusionDefinition("embed", mesh=Mesh([a.devices])) as fd:
        table = fd.input([a.vocabulary, a.hidden], a.dtype, name="table")
        tokens = fd.input([a.batch, a.sequence], "i64", name="tokens")
        fd.output(fd.embedding(table, tokens))
    return fd


def loss_definition(a):
    """The language-model head and the mean cross-entropy of its logits
    against one-hot targets (log-softmax shifted by the largest logit, in
    f32)."""
    b, s, v = a.batch, a.sequence, a.vocabulary
    with FusionDefinition("lm_loss", mesh=Mesh([a.devices]),
                          broadcasting="numpy") as fd:
        h = fd.input([b, s, a.hidden], a.dtype, name="h")
        head = fd.input([v, a.hidden], a.dtype, name="head")
        targets = fd.input([b, s, v], "f32", name="targets")
        logits = fd.cast(fd.linear(h, head), "f32")
        largest = fd.max(logits, -1, keepdim=True)
        shifted = logits - largest
        log_normalizer = fd.log(fd.sum(fd.exp(shifted), -1))
        picked = fd.sum(shifted * targets, -1)
        fd.output(fd.mean(log_normalizer - picked, [0, 1]))
    return fd


def initial_weights(a, generator):
    e, v = a.hidden, a.vocabulary

    def normal(*shape):
        return torch.randn(*shape, generator=generator) * 0.02

    layers = []
    for _ in range(a.layers):
        layers.append(dict(
            ln0_w=torch.ones(e), ln0_b=torch.zeros(e),
            qkv_w=normal(3 * e, e), qkv_b=torch.zeros(3 * e),
            out_w=normal(e, e), out_b=torch.zeros(e),
            ln1_w=torch.ones(e), ln1_b=torch.zeros(e),
            fc1_w=normal(4 * e, e), fc1_b=torch.zeros(4 * e),
            fc2_w=normal(e, 4 * e), fc2_b=torch.zeros(e)))
    return dict(table=normal(v, e), head=normal(v, e), layers=layers)


def definitions(a):
    """{program: (its text, its inputs' names)} of the model's pieces."""
    embed, loss = embedding_definition(a), loss_definition(a)
    return {"embed": (embed.text(), embed.input_names),
            "gpt_layer": (layer_text(a), ["x"] + LAYER_WEIGHTS),
            "lm_loss": (loss.text(), loss.input_names)}


def compile_to(folder, a):
    """Writes each program's library, with its derivative programs, to
    `folder` (for machines without the compiler)."""
    from fuser_mlir import ir

    os.makedirs(folder, exist_ok=True)
    for name, (text, _) in definitions(a).items():
        ir.compile(ir.Module.parse(text, ir.Context()),
                   os.path.join(folder, name + ".so"), target=a.target,
                   vjp_functions=[name])


def functions(a):
    """{program: Function}, from `--libraries` or compiled on first use."""
    made = {}
    for name, (text, names) in definitions(a).items():
        library = (os.path.join(a.libraries, name + ".so") if a.libraries else
                   programs.load(text, target=a.target, vjp_functions=[name]))
        made[name] = Function(library=library, program=name, names=names)
    return made


class CompiledGPT(torch.nn.Module):
    """The model from compiled programs."""

    def __init__(self, a, weights):
        super().__init__()
        made = functions(a)
        self.embed = Module(made["embed"], {"table": weights["table"].clone()})
        self.layers = torch.nn.ModuleList(
            Module(made["gpt_layer"],
                   {name: value.clone() for name, value in w.items()})
            for w in weights["layers"])
        self.loss = Module(made["lm_loss"], {"head": weights["head"].clone()})

    def distribute(self, mesh):
        """Each parameter a DTensor on `mesh`: this rank's piece, placed as
        the program takes it."""
        from torch.distributed.tensor import DTensor

        for module in [self.embed, *self.layers, self.loss]:
            function = module.function
            for name, parameter in list(module.named_parameters()):
                spec = function.inputs[function.names.index(name)]
                piece = shard(parameter.data, spec["dim_axes"],
                              Mesh(spec["mesh_shape"], spec["devices"]),
                              runtime.rank()).contiguous()
                distributed = DTensor.from_local(
                    piece, mesh, placements_of(spec), run_check=False)
                setattr(module, name, torch.nn.Parameter(distributed))

    def forward(self, tokens, targets):
        h = self.embed(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.loss(h, targets)


class PlainGPT(torch.nn.Module):
    """The same model in plain PyTorch."""

    def __init__(self, a, weights):
        super().__init__()
        self.a = a
        self.table = torch.nn.Parameter(weights["table"].clone())
        self.head = torch.nn.Parameter(weights["head"].clone())
        self.layers = torch.nn.ModuleList()
        for w in weights["layers"]:
            layer = torch.nn.Module()
            for name, value in w.items():
                layer.register_parameter(name, torch.nn.Parameter(value.clone()))
            self.layers.append(layer)

    def layer(self, x, w):
        """gpt_layer.py's layer: layer norms, residuals and gelu in f32, the
        rest in the layer's element type."""
        b, s, e = x.shape
        h = self.a.heads
        d = e // h
        dtype = x.dtype
        x32 = x.float()

        def layer_norm(x32, weight, bias):
            return F.layer_norm(x32, (e,), weight.float(), bias.float(),
                                eps=1e-5).to(dtype)

        ln0 = layer_norm(x32, w.ln0_w, w.ln0_b)
        per_head = F.linear(ln0, w.qkv_w, w.qkv_b).view(b, s, h, 3 * d)
        q, k, v = [per_head[..., i * d:(i + 1) * d].permute(0, 2, 1, 3).float()
                   for i in range(3)]
        scores = q @ k.transpose(-1, -2) / d ** 0.5
        causal = torch.ones(s, s, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        o = (torch.softmax(scores, -1) @ v).to(dtype)
        attn = F.linear(o.permute(0, 2, 1, 3).reshape(b, s, e), w.out_w, w.out_b)
        x1 = x32 + attn.float()
        ln1 = layer_norm(x1, w.ln1_w, w.ln1_b)
        fc1 = F.linear(ln1, w.fc1_w, w.fc1_b)
        act = F.gelu(fc1.float(), approximate="tanh").to(dtype)
        return (x1 + F.linear(act, w.fc2_w, w.fc2_b).float()).to(dtype)

    def forward(self, tokens, targets):
        h = F.embedding(tokens, self.table)
        for layer in self.layers:
            h = self.layer(h, layer)
        logits = F.linear(h, self.head).float()
        return -(torch.log_softmax(logits, -1) * targets).sum(-1).mean()


def train(model, tokens, targets, steps, learning_rate):
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = model(tokens, targets)
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
    return losses


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--sequence", type=int, default=8)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--vocabulary", type=int, default=64)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--learning-rate", type=float, default=3e-3)
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--tolerance", type=float, default=None,
                        help="default: 1e-3 in f32, 5e-2 in bf16")
    parser.add_argument("--target", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--dtensor", action="store_true")
    parser.add_argument("--dtype", choices=["f32", "bf16"], default=None,
                        help="of the weights and activations (default: f32 "
                             "on CPUs, bf16 on GPUs, whose fused attention "
                             "takes 16-bit types)")
    parser.add_argument("--devices", type=int, default=2,
                        help="with --compile-to: the ranks to compile for")
    parser.add_argument("--compile-to", metavar="DIR")
    parser.add_argument("--libraries", metavar="DIR")
    a = parser.parse_args()
    if a.dtype is None:
        a.dtype = "bf16" if a.target == "cuda" else "f32"
    if a.tolerance is None:
        a.tolerance = 1e-3 if a.dtype == "f32" else 5e-2
    if a.compile_to:
        compile_to(a.compile_to, a)
        return
    a.devices = runtime.world_size()
    rank = runtime.rank()
    device = (torch.device("cuda", runtime.device_index())
              if a.target == "cuda" else torch.device("cpu"))

    # Every rank draws the same weights and batch.
    generator = torch.Generator().manual_seed(0)
    weights = initial_weights(a, generator)
    element = {"f32": torch.float32, "bf16": torch.bfloat16}[a.dtype]
    weights = dict(table=weights["table"].to(element),
                   head=weights["head"].to(element),
                   layers=[{name: value.to(element) for name, value in w.items()}
                           for w in weights["layers"]])
    tokens = torch.randint(0, a.vocabulary, (a.batch, a.sequence),
                           generator=generator)
    # The next token of each position is the target.
    targets = F.one_hot(tokens.roll(-1, dims=1), a.vocabulary).float()

    model = CompiledGPT(a, weights).to(device)
    if a.dtensor:
        from torch.distributed.device_mesh import init_device_mesh

        torch.distributed.init_process_group(
            "gloo", rank=rank, world_size=a.devices)
        model.distribute(init_device_mesh(device.type, (a.devices,)))
    losses = train(model, tokens.to(device), targets.to(device), a.steps,
                   a.learning_rate)
    reference = (train(PlainGPT(a, weights).to(device), tokens.to(device),
                       targets.to(device), a.steps, a.learning_rate)
                 if a.compare else None)
    worst = 0.0
    for step, loss in enumerate(losses):
        line = "step %d: loss %.6f" % (step, loss)
        if reference:
            difference = abs(loss - reference[step]) / abs(reference[0])
            worst = max(worst, difference)
            line += " (PyTorch %.6f)" % reference[step]
        if rank == 0:
            print(line)
    if reference:
        verdict = "matches" if worst <= a.tolerance else "DIFFERS"
        print("rank %d: %s PyTorch over %d steps: largest difference %.2e of "
              "the first loss" % (rank, verdict, a.steps, worst))
        if worst > a.tolerance:
            sys.exit(1)


if __name__ == "__main__":
    main()
