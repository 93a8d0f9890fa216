#!/usr/bin/env python3
"""The GPT-3 layer, forward and backward, TP and SP, on D GPUs: ours against
PyTorch.

bench/transformer/build.sh runs the first step here, bench/transformer/run.sh
the others on the GPU machine (bench/overlap/harness.py states the timing
method):

    bench_transformer.py [--devices D] build ARTIFACTS FUSER_COMPILE
    mpirun --allow-run-as-root --bind-to none -np D -x NCCL_NVLS_ENABLE=0 \\
        python3 bench_transformer.py [--devices D] torch WORK
    bench_transformer.py [--devices D] ours ARTIFACTS FUSER_EXEC WORK
    bench_transformer.py [--devices D] report WORK transformer.md transformer.json

The layer is examples/transformer/gpt_layer.py's at b=1, s=2048, h=96,
e=12288, bf16, dropout 0.1 (after the out-projection and FC2, and inside
attention). PyTorch runs it Megatron-style by hand: F.layer_norm in f32,
F.linear, F.scaled_dot_product_attention (causal, its best backend), GELU
(tanh), dropout, and NCCL collectives as autograd functions (TP: an
allreduce after each row-parallel linear, whose backward is the identity,
and an allreduce of the input gradient of each column-parallel one; SP: an
allgather before QKV and FC1, a reduce-scatter after the out-projection and
FC2, each the other's backward). Rows: TP and SP, forward and
forward+backward; columns: PyTorch compute only (the layer's per-GPU GEMMs
and attention, forward and backward, nothing else: the ideal), PyTorch
eager, torch.compile of the eager layer (where it compiles), ours (over
NCCL) and, on more than one GPU, ours (IPC rings): compiled with
--backend=cuda_ipc, where pipelining=auto may move the blocks of the
collectives beside GEMMs with the copy engine. Ours
times @gpt_forward and @gpt_backward, which recomputes what the forward did
not save; forward+backward is the sum of their medians. Beside them, in
the same run, ours (generated) times the training pair the compiler derives
from the layer alone (@gpt_layer__fwd and @gpt_layer__bwd,
fuser-compile --vjp-function=gpt_layer). Ours is validated
against PyTorch on PyTorch's inputs with every dropout off: the forward's
output, and the backward's input and weight gradients for PyTorch's output
gradient and the values our forward saved.
"""
import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "..", "overlap"))
import harness  # noqa: E402
import programs  # noqa: E402

BATCH, SEQUENCE, HEADS, HIDDEN = 1, 2048, 96, 12288
DROPOUT = 0.1
SEED = 2028
WARMUP = 3
MODES = (("tp", "tensor parallel"), ("sp", "sequence parallel"))
# The layer's model FLOP (forward; the backward twice it), per GPU.
FORWARD_FLOP = (24 * BATCH * SEQUENCE * HIDDEN ** 2
                + 4 * BATCH * SEQUENCE ** 2 * HIDDEN)
WEIGHTS = ("ln0_w", "ln0_b", "qkv_w", "qkv_b", "out_w", "out_b",
           "ln1_w", "ln1_b", "fc1_w", "fc1_b", "fc2_w", "fc2_b")
SAVED = ("ln0_mean", "ln0_rstd", "qkv", "attn_out", "lse", "attn",
         "ln1_mean", "ln1_rstd", "fc1")
# The backward's gradients, in its result order: the input's, then the
# weights'.
GRADIENTS = ("x",) + WEIGHTS


def layer_source(mode, devices, dropout):
    """The layer's program text (gpt_layer.py's)."""
    import subprocess
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "transformer",
                                      "gpt_layer.py"),
         "--mode", mode, "--devices", str(devices), "--batch", str(BATCH),
         "--sequence", str(SEQUENCE), "--heads", str(HEADS),
         "--hidden", str(HIDDEN), "--dtype", "bf16", "--dropout", str(dropout),
         "--function", "all"],
        check=True, capture_output=True, text=True).stdout


def backends(devices):
    """(suffix, backend, label) of each way ours communicates: over NCCL,
    and on more than one GPU also with `pipelining=auto` free to take rings
    over CUDA IPC (the copy engine) for the collectives beside GEMMs."""
    variants = [("", "nccl", "ours")]
    if devices > 1:
        variants.append(("-ipc", "cuda_ipc", "ours (IPC rings)"))
    return variants


def libraries(devices):
    """(folder, mode, dropout, backend) of every library: timed with
    dropout, validated without, for each backend."""
    return [(f"{mode}-{'dropout' if dropout else 'validate'}{suffix}", mode,
             dropout, backend)
            for suffix, backend, _ in backends(devices)
            for mode, _ in MODES for dropout in (DROPOUT, 0.0)]


# The hand-written programs, and the library of the generated ones: the
# layer alone with its derivative programs.
HANDWRITTEN = ("gpt_forward", "gpt_backward")
GENERATED = "gpt_layer"
GENERATED_PAIR = ("gpt_layer__fwd", "gpt_layer__bwd")


def run_build(args):
    status = 0
    for folder, mode, dropout, backend in libraries(args.devices):
        source = os.path.join(args.artifacts, folder + ".mlir")
        os.makedirs(args.artifacts, exist_ok=True)
        with open(source, "w") as output:
            output.write(layer_source(mode, args.devices, dropout))
        options = ("--target=cuda", f"--backend={backend}")
        builds = [(folder, function, options) for function in HANDWRITTEN]
        # The generated pair is timed beside the hand-written one (its
        # gradients match them on CPU ranks: test_generated_backwards.py).
        if dropout:
            builds.append((folder, GENERATED,
                           options + (f"--vjp-function={GENERATED}",)))
        status |= harness.compile_libraries(args.fuser_compile, source, builds,
                                            args.artifacts)
        os.remove(source)
    return status


# --- PyTorch -----------------------------------------------------------------

def torch_layer(ranks, weights, mode, dropout):
    """The Megatron-style layer on this rank's shards as a function of the
    input (the whole x with TP, this rank's rows of the sequence with SP)."""
    torch, dist = ranks.torch, ranks.dist
    from torch.nn import functional
    d, r = ranks.size, ranks.rank
    e, h = HIDDEN, HEADS // d

    class AllReduce(torch.autograd.Function):
        """Sums the partial products of a row-parallel linear; its
        gradient reaches every rank whole."""
        @staticmethod
        def forward(context, value):
            value = value.contiguous()
            dist.all_reduce(value)
            return value

        @staticmethod
        def backward(context, gradient):
            return gradient

    class CopyToRanks(torch.autograd.Function):
        """The input of a column-parallel linear: each rank's gradient is a
        partial sum."""
        @staticmethod
        def forward(context, value):
            return value

        @staticmethod
        def backward(context, gradient):
            gradient = gradient.contiguous()
            dist.all_reduce(gradient)
            return gradient

    class GatherSequence(torch.autograd.Function):
        @staticmethod
        def forward(context, piece):
            piece = piece.contiguous()
            # Rank blocks of the sequence are contiguous blocks of the
            # whole at b = 1.
            whole = piece.new_empty((piece.shape[0], piece.shape[1] * d,
                                     piece.shape[2]))
            dist.all_gather_into_tensor(whole.view(-1), piece.view(-1))
            return whole

        @staticmethod
        def backward(context, gradient):
            return ScatterSequence.apply(gradient)

    class ScatterSequence(torch.autograd.Function):
        @staticmethod
        def forward(context, whole):
            whole = whole.contiguous()
            piece = whole.new_empty((whole.shape[0], whole.shape[1] // d,
                                     whole.shape[2]))
            dist.reduce_scatter_tensor(piece.view(-1), whole.view(-1))
            return piece

        @staticmethod
        def backward(context, gradient):
            return GatherSequence.apply(gradient)

    w = weights
    sp = mode == "sp"

    def enter(value):
        return GatherSequence.apply(value) if sp else CopyToRanks.apply(value)

    def leave(value):
        return ScatterSequence.apply(value) if sp else AllReduce.apply(value)

    def norm(value, weight, bias):
        return functional.layer_norm(value, (e,), weight.float(), bias.float(),
                                     eps=1e-5).to(torch.bfloat16)

    def layer(x):
        x32 = x.float()
        qkv = functional.linear(enter(norm(x32, w["ln0_w"], w["ln0_b"])),
                                w["qkv_w"], w["qkv_b"])
        b, s = qkv.shape[:2]
        q, k, v = qkv.view(b, s, h, -1).transpose(1, 2).chunk(3, dim=-1)
        o = functional.scaled_dot_product_attention(
            q, k, v, dropout_p=dropout, is_causal=True)
        o = o.transpose(1, 2).reshape(b, s, -1)
        attn = leave(functional.linear(o, w["out_w"])) + w["out_b"]
        x1 = x32 + functional.dropout(attn.float(), dropout)
        fc1 = functional.linear(enter(norm(x1, w["ln1_w"], w["ln1_b"])),
                                w["fc1_w"], w["fc1_b"])
        act = functional.gelu(fc1.float(), approximate="tanh").to(torch.bfloat16)
        fc2 = leave(functional.linear(act, w["fc2_w"])) + w["fc2_b"]
        return (x1 + functional.dropout(fc2.float(), dropout)).to(torch.bfloat16)

    return layer


def global_weights(ranks, generator):
    """The layer's weights, whole and the same on every rank, in bf16:
    linears scaled as nn.Linear initializes them, layer norms near 1."""
    torch = ranks.torch
    e = HIDDEN

    def random(shape, scale):
        return ranks.random(shape, generator, scale)

    return dict(
        ln0_w=1 + random((e,), 0.1), ln0_b=random((e,), 0.1),
        qkv_w=random((3 * e, e), 1 / math.sqrt(e)), qkv_b=random((3 * e,), 0.02),
        out_w=random((e, e), 1 / math.sqrt(e)), out_b=random((e,), 0.02),
        ln1_w=1 + random((e,), 0.1), ln1_b=random((e,), 0.1),
        fc1_w=random((4 * e, e), 1 / math.sqrt(e)),
        fc1_b=random((4 * e,), 0.02),
        fc2_w=random((e, 4 * e), 1 / math.sqrt(4 * e)),
        fc2_b=random((e,), 0.02))


def local_weights(ranks, whole):
    """This rank's shards, Megatron's: QKV and FC1 (and their biases) by
    output features, out-projection and FC2 by input features; the rest
    whole. Leaves that want gradients."""
    d, r = ranks.size, ranks.rank

    def rows(t):
        n = t.shape[0] // d
        return t[r * n:(r + 1) * n]

    def columns(t):
        n = t.shape[1] // d
        return t[:, r * n:(r + 1) * n]

    split = dict(qkv_w=rows, qkv_b=rows, fc1_w=rows, fc1_b=rows,
                 out_w=columns, fc2_w=columns)
    # Leaves of their own (a whole weight's shard on one GPU is the whole
    # tensor, which must stay a plain tensor).
    return {name: split.get(name, lambda t: t)(t).detach().contiguous()
            .requires_grad_() for name, t in whole.items()}


def compute_only(ranks, weights, x):
    """(forward, backward) of the layer's per-GPU GEMMs and attention alone,
    on this rank's shards, without communication: the ideal."""
    torch = ranks.torch
    from torch.nn import functional
    w = {name: t.detach() for name, t in weights.items()}
    b, s, e = x.shape
    h = HEADS // ranks.size
    x = x.reshape(b * s, e)
    qkv = functional.linear(x, w["qkv_w"]).view(b, s, h, -1).transpose(1, 2)
    q, k, v = [t.contiguous().requires_grad_() for t in qkv.chunk(3, dim=-1)]
    o = functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    o2 = o.detach().transpose(1, 2).reshape(b * s, -1)
    fc1 = functional.linear(x, w["fc1_w"])
    grad_e = torch.randn_like(x)
    grad_f = torch.randn_like(fc1)
    grad_o = torch.randn_like(o)
    grad_qkv = torch.randn(b * s, w["qkv_w"].shape[0], device=x.device,
                           dtype=x.dtype)

    def forward():
        # q, k and v want gradients for the backward's attention: without
        # this, every forward would also record an autograd graph.
        with torch.no_grad():
            functional.linear(x, w["qkv_w"])
            functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            functional.linear(o2, w["out_w"])
            functional.linear(x, w["fc1_w"])
            functional.linear(fc1, w["fc2_w"])

    def backward():
        # Each linear's input and weight gradients.
        for gradient, weight, inputs in ((grad_e, w["fc2_w"], fc1),
                                         (grad_f, w["fc1_w"], x),
                                         (grad_e, w["out_w"], o2)):
            torch.mm(gradient, weight)
            torch.mm(gradient.t(), inputs)
        torch.autograd.grad(o, (q, k, v), grad_o, retain_graph=True)
        torch.mm(grad_qkv, w["qkv_w"])
        torch.mm(grad_qkv.t(), x)

    return forward, backward


def gathered(ranks, tensor, dim):
    """The whole of a tensor each rank holds a block of along `dim`."""
    torch = ranks.torch
    pieces = [torch.empty_like(tensor) for _ in range(ranks.size)]
    ranks.dist.all_gather(pieces, tensor.contiguous())
    return torch.cat(pieces, dim)


def whole_gradient(ranks, name, gradient):
    """A weight's gradient put together from the ranks' shards."""
    if name in ("qkv_w", "qkv_b", "fc1_w", "fc1_b"):
        return gathered(ranks, gradient, 0)
    if name in ("out_w", "fc2_w"):
        return gathered(ranks, gradient, 1)
    return gradient


def run_torch(args):
    ranks = harness.TorchRanks(args.port)
    torch = ranks.torch
    if ranks.size != args.devices:
        raise SystemExit(f"PyTorch runs on {ranks.size} ranks, --devices is "
                         f"{args.devices}: start it with mpirun -np {args.devices}")
    d, r = ranks.size, ranks.rank
    generator = ranks.generator(SEED)
    whole = global_weights(ranks, generator)
    x = ranks.random((BATCH, SEQUENCE, HIDDEN), generator)
    grad_out = ranks.random((BATCH, SEQUENCE, HIDDEN), generator)
    inputs = {"x": os.path.join(args.work, "x.npy"),
              "grad_out": os.path.join(args.work, "grad_out.npy")}
    inputs.update({name: os.path.join(args.work, f"{name}.npy") for name in WEIGHTS})
    for name, tensor in [("x", x), ("grad_out", grad_out)] + list(whole.items()):
        ranks.save_npy(tensor, inputs[name])
    weights = local_weights(ranks, whole)
    del whole
    rows = slice(r * SEQUENCE // d, (r + 1) * SEQUENCE // d)
    forward_ideal, backward_ideal = compute_only(ranks, weights, x)
    ideal_forward = ranks.time_ms(forward_ideal, WARMUP, args.iterations)
    ideal_backward = ranks.time_ms(backward_ideal, WARMUP, args.iterations)
    ideal = {"forward": ideal_forward,
             "forward_backward": {"median_ms": ideal_forward["median_ms"]
                                  + ideal_backward["median_ms"]}}
    pieces = {"tp": (x, grad_out), "sp": (x[:, rows], grad_out[:, rows])}
    results = {mode: {"ideal": ideal} for mode, _ in MODES}

    def timed(layer, mode, label):
        piece, gradient = pieces[mode]

        def forward_backward():
            for weight in weights.values():
                weight.grad = None
            layer(piece).backward(gradient)
        torch.cuda.reset_peak_memory_stats()
        results[mode][label] = {
            "forward": ranks.time_ms(lambda: layer(piece), WARMUP, args.iterations),
            "forward_backward": ranks.time_ms(forward_backward, WARMUP,
                                              args.iterations),
            "peak_gib": torch.cuda.max_memory_allocated() / 2**30}

    def write():
        if r == 0:
            harness.write_json(os.path.join(args.work, "torch.json"), {
                "environment": ranks.environment(),
                "method": {"warmup": WARMUP, "iterations": args.iterations,
                           "seed": SEED},
                "inputs": inputs, "modes": results})

    # Eager first, then what ours is validated against, then torch.compile,
    # whose compilation takes longest: a run cut short keeps the rest.
    for mode, _ in MODES:
        if r == 0:
            print(f"== PyTorch {mode} eager", flush=True)
        timed(torch_layer(ranks, weights, mode, DROPOUT), mode, "eager")
    write()
    for mode, _ in MODES:
        # Every dropout off: PyTorch's output and gradients.
        piece, gradient = pieces[mode]
        piece = piece.detach().requires_grad_()
        for weight in weights.values():
            weight.grad = None
        out = torch_layer(ranks, weights, mode, 0.0)(piece)
        out.backward(gradient)
        sequence_split = mode == "sp"
        expected = {
            "out": gathered(ranks, out, 1) if sequence_split else out,
            "x": gathered(ranks, piece.grad, 1) if sequence_split else piece.grad}
        for name, weight in weights.items():
            expected[name] = whole_gradient(ranks, name, weight.grad)
        results[mode]["expected"] = {}
        for name, tensor in expected.items():
            path = os.path.join(args.work, f"{mode}_expected_{name}.npy")
            ranks.save_npy(tensor.detach(), path)
            results[mode]["expected"][name] = path
        del expected, out
        torch.cuda.empty_cache()
    write()
    for mode, _ in MODES:
        if r == 0:
            print(f"== PyTorch {mode} torch.compile", flush=True)
        try:
            timed(torch.compile(torch_layer(ranks, weights, mode, DROPOUT)),
                  mode, "compile")
        except Exception as error:  # dynamo's refusals vary by version
            results[mode]["compile"] = {
                "error": f"{type(error).__name__}: {str(error).splitlines()[0]}"}
        write()
    ranks.finish()
    return 0


# --- ours --------------------------------------------------------------------

def run_ours(args):
    torch_results = harness.load_results(args.work)[0]
    inputs = torch_results.get("inputs", {})
    runner = harness.FuserExec(args.fuser_exec, args.mpirun, args.iterations,
                               args.timeout, args.devices)
    # runs[mode + suffix]: each backend's runs of a mode (the suffix of
    # backends()); a backend whose libraries were not built is skipped.
    variants = [(suffix, mode) for suffix, _, _ in backends(args.devices)
                for mode, _ in MODES
                if os.path.isdir(os.path.join(args.artifacts,
                                              f"{mode}-dropout{suffix}"))]
    runs = {mode + suffix: {} for suffix, mode in variants}
    # Every time first, then the validations, which read and write
    # gigabytes of .npy: a run cut short keeps the times. A full-size run
    # takes 20-25 s of wall time, so a device call may hold only one of
    # the parts (--parts).
    for suffix, mode in variants if "timing" in args.parts else ():
        timed = os.path.join(args.artifacts, f"{mode}-dropout{suffix}")
        programs_to_time = [(function, function) for function in HANDWRITTEN]
        if os.path.exists(os.path.join(timed, GENERATED + ".so")):
            programs_to_time += [(GENERATED, function) for function in GENERATED_PAIR]
        for library, function in programs_to_time:
            print(f"== ours {mode}{suffix} {function}", flush=True)
            runs[mode + suffix][function] = runner.run(
                os.path.join(timed, library + ".so"), function)
            harness.write_ours(args, runner, runs)
    for suffix, mode in variants if "validation" in args.parts else ():
        expected = torch_results.get("modes", {}).get(mode, {}).get("expected")
        if inputs and expected:
            print(f"== ours {mode}{suffix} validation", flush=True)
            runs[mode + suffix]["validation"] = validate(
                args, runner, mode, suffix, inputs, expected)
            harness.write_ours(args, runner, runs)
    return 0


def validate(args, runner, mode, suffix, inputs, expected):
    """Our forward on PyTorch's inputs, then our backward on what it saved
    and PyTorch's output gradient, every dropout off; each result compared
    with PyTorch's."""
    folder = os.path.join(args.artifacts, f"{mode}-validate{suffix}")
    saved = [os.path.join(args.work, f"{mode}_ours_{name}.npy")
             for name in ("out",) + SAVED]
    weights = [inputs[name] for name in WEIGHTS]
    forward = runner.run(os.path.join(folder, "gpt_forward.so"), "gpt_forward",
                         [inputs["x"]] + weights, ",".join(saved))
    result = {"forward": forward.get("error", "ran")}
    if "error" in forward:
        return result
    comparisons = {"out": harness.compare_npy(saved[0], expected["out"])}
    gradients = [os.path.join(args.work, f"{mode}_ours_grad_{name}.npy")
                 for name in GRADIENTS]
    backward = runner.run(os.path.join(folder, "gpt_backward.so"), "gpt_backward",
                          [inputs["x"]] + weights + saved[1:] + [inputs["grad_out"]],
                          ",".join(gradients))
    result["backward"] = backward.get("error", "ran")
    if "error" not in backward:
        for name, path in zip(GRADIENTS, gradients):
            if name in expected:
                comparisons[f"grad_{name}"] = harness.compare_npy(path, expected[name])
    for path in saved + gradients:
        if os.path.exists(path):
            os.remove(path)
    result["comparisons"] = comparisons
    result["passed"] = all(c.get("passed") for c in comparisons.values()) and \
        "error" not in backward
    return result


# --- the report --------------------------------------------------------------

def ours_times(runs, pair=HANDWRITTEN):
    """{step: ms} of one backend's runs of a mode: the forward's median,
    and its sum with the backward's, of `pair` (the hand-written programs
    or the generated ones)."""
    forward = harness.median(runs.get(pair[0]))
    backward = harness.median(runs.get(pair[1]))
    return {"forward": forward,
            "forward_backward": None if forward is None or backward is None
            else forward + backward}


def ours_notes(title, label, runs):
    """The report's notes on one backend's runs of a mode: failures,
    allocations, validation, peak memory."""
    notes = []
    for name in HANDWRITTEN + GENERATED_PAIR:
        run = runs.get(name, {})
        if not run:
            continue
        if "error" in run:
            notes.append(f"{label}, {title} {name}: {run['error']}: "
                         + " / ".join(run.get("lines", [])[-2:]))
        elif run.get("allocations_per_execution"):
            notes.append(f"{label}, {title} {name}: "
                         f"{run['allocations_per_execution']} device "
                         "allocations per execution")
    validation = runs.get("validation")
    if validation:
        worst = max((c.get("relative_error", float("inf"))
                     for c in validation.get("comparisons", {}).values()),
                    default=None)
        notes.append(
            f"{label}, {title}: validation against PyTorch (dropout off) "
            f"{'passed' if validation.get('passed') else 'FAILED'}; "
            f"forward {validation.get('forward')}, backward "
            f"{validation.get('backward', 'not run')}; largest relative "
            f"error {harness.cell(worst, '.2e')} over "
            f"{len(validation.get('comparisons', {}))} tensors")
    peaks = [runs.get(name, {}).get("peak_gib") for name in HANDWRITTEN]
    peak = max((p for p in peaks if p is not None), default=None)
    if peak is not None:
        notes.append(f"{label}, {title}: peak device memory per GPU "
                     f"{harness.cell(peak, '.1f')} GiB (the larger of "
                     "@gpt_forward's and @gpt_backward's, inputs and outputs "
                     "included)")
    return notes


def run_report(args):
    torch_results, ours_results = harness.load_results(args.work)
    method = torch_results.get("method", {})
    d = args.devices
    variants = backends(d)
    # Each backend's hand-written programs, then its generated pair.
    columns_of_ours = [(suffix, label + name, pair)
                       for suffix, _, label in variants
                       for name, pair in (("", HANDWRITTEN),
                                          (" (generated)", GENERATED_PAIR))]
    rows, ratios, notes = [], [], []
    for mode, title in MODES:
        torch_mode = torch_results.get("modes", {}).get(mode, {})
        ours = [(label, ours_results.get("runs", {}).get(mode + suffix, {}))
                for suffix, _, label in variants]
        times = [ours_times(ours_results.get("runs", {}).get(mode + suffix, {}),
                            pair)
                 for suffix, _, pair in columns_of_ours]
        for step, factor in (("forward", 1), ("forward_backward", 3)):
            flop = factor * FORWARD_FLOP / d
            ideal = harness.median(torch_mode.get("ideal", {}).get(step))
            eager = harness.median(torch_mode.get("eager", {}).get(step))
            compiled = torch_mode.get("compile", {})
            compiled_ms = harness.median(compiled.get(step))
            label = f"{title}, {step.replace('_', '+')}"
            rows.append([label] + [harness.time_cell(value, flop) for value in
                                   [ideal, eager, compiled_ms]
                                   + [t[step] for t in times]])
            row = [label, harness.cell(harness.ratio(eager, ideal), ".3f")]
            for t in times:
                row += [harness.cell(harness.ratio(t[step], ideal), ".3f"),
                        harness.cell(harness.ratio(eager, t[step]), ".3f"),
                        harness.cell(harness.ratio(compiled_ms, t[step]), ".3f")]
            ratios.append(row)
            if "error" in compiled and step == "forward":
                notes.append(f"torch.compile of the {title} layer: {compiled['error']}")
        peak = torch_mode.get("eager", {}).get("peak_gib")
        if peak is not None:
            notes.append(f"{title}: peak device memory per GPU, PyTorch eager "
                         f"{harness.cell(peak, '.1f')} GiB (its "
                         "forward+backward)")
        for label, runs in ours:
            notes += ours_notes(title, label, runs)
            generated, handwritten = (ours_times(runs, GENERATED_PAIR),
                                      ours_times(runs))
            if generated["forward"] is not None:
                notes.append(
                    f"{label} (generated) ÷ {label}, {title}: " + ", ".join(
                        f"{step.replace('_', '+')} " + harness.cell(
                            harness.ratio(generated[step], handwritten[step]),
                            ".3f")
                        for step in ("forward", "forward_backward")))
    columns = ["PyTorch compute only (ideal)", "PyTorch eager", "torch.compile"]
    columns += [label for _, label, _ in columns_of_ours]
    ratio_columns = ["layer", "eager ÷ ideal"]
    for _, label, _ in columns_of_ours:
        ratio_columns += [f"{label} ÷ ideal", f"eager ÷ {label}",
                          f"compile ÷ {label}"]
    lines = [f"# The GPT-3 layer on {d} GPUs: ours and PyTorch", ""]
    lines += harness.environment_lines(torch_results.get("environment"),
                                       ours_results)
    lines += [
        f"- b={BATCH}, s={SEQUENCE}, h={HEADS}, e={HIDDEN}, bf16, dropout "
        f"{DROPOUT}; {FORWARD_FLOP / d / 1e12:.2f} TFLOP per GPU forward, "
        "three times that forward+backward",
        f"- PyTorch: {method.get('warmup', '?')} warm-up iterations, then "
        f"{method.get('iterations', '?')} timed; ours: fuser-exec --time, one "
        f"warm-up execution, then {ours_results.get('iterations', '?')} timed "
        "(bench/overlap/harness.py's method); ours forward+backward is "
        "@gpt_forward's median plus @gpt_backward's (generated: "
        "@gpt_layer__fwd's plus @gpt_layer__bwd's); compute only's "
        "forward+backward likewise",
        "", "Median ms / model TFLOP/s per GPU:", ""]
    lines += harness.markdown_table(["layer"] + columns, rows)
    lines += ["", "Ratios (time ÷ time):", ""]
    lines += harness.markdown_table(ratio_columns, ratios)
    if notes:
        lines += ["", "Notes:", ""] + [f"- {note}" for note in notes]
    harness.write_report(lines, args, torch_results, ours_results)
    return 0


# The parts of the ours step, in the order they run.
OURS_PARTS = ("timing", "validation")


def ours_parts(text):
    """--parts: a comma-separated subset of OURS_PARTS."""
    parts = text.split(",")
    unknown = [part for part in parts if part not in OURS_PARTS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown parts {', '.join(unknown)}; the parts are "
            f"{', '.join(OURS_PARTS)}")
    return parts


def parse_args(argv=None):
    parser, steps = harness.step_parser(__doc__.split("\n\n")[0], 29533)
    steps["ours"].add_argument(
        "--parts", type=ours_parts, default=list(OURS_PARTS),
        help="comma-separated parts of the ours step to run: timing "
             "(with dropout), validation (without, against PyTorch's "
             "results in the work folder); default both")
    parser.add_argument("--devices", type=programs.device_count,
                        default=programs.DEVICES,
                        help="GPUs, one rank each (default %(default)s)")
    return parser.parse_args(argv)


def main():
    args = parse_args()
    return {"build": run_build, "torch": run_torch, "ours": run_ours,
            "report": run_report}[args.step](args)


if __name__ == "__main__":
    sys.exit(main())
