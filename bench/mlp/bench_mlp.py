#!/usr/bin/env python3
"""Tensor- and sequence-parallel MLPs on 2 GPUs: ours against PyTorch.

bench/mlp/build.sh runs the first step here, bench/mlp/run.sh the others on
the GPU machine (bench/overlap/harness.py states the timing method):

    bench_mlp.py build ARTIFACTS FUSER_COMPILE           (fuser-compile)
    mpirun --allow-run-as-root --bind-to none -np 2 -x NCCL_NVLS_ENABLE=0 \\
        python3 bench_mlp.py torch WORK
    bench_mlp.py ours ARTIFACTS FUSER_EXEC WORK
    bench_mlp.py report WORK mlp.md mlp.json

The layer (mlp.mlir): x [T, H] -> linear (w1 [F, H], column-parallel) ->
gelu (tanh) -> linear (w2 [H, F], row-parallel), T = H = 8192, F = 4H, bf16.
PyTorch runs it with F.linear, F.gelu(approximate="tanh") and NCCL: an
all_reduce of the output (TP, x replicated), or all_gather_into_tensor of
x and reduce_scatter_tensor of the output (SP, x and the output split by
tokens); "compute only" is the layer on one GPU's weights without
communication. Ours runs each variant on PyTorch's inputs and is validated
against PyTorch's output of the same MLP.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "overlap"))
import harness  # noqa: E402
from programs import DEVICES, Variant  # noqa: E402

TOKENS, HIDDEN, FFN = 8192, 8192, 4 * 8192
MLPS = (("tp", "tensor parallel"), ("sp", "sequence parallel"))
SEED = 2027
WARMUP = 5
VARIANTS = (
    Variant("none", ("--pipelining=none",), (1,), labelled_by_chunks=False),
    Variant("collective", ("--pipelining=collective", "--backend=nccl"), (4,)),
    Variant("ring-ipc", ("--pipelining=ring", "--backend=cuda_ipc"), (1,)),
    Variant("auto", ("--pipelining=auto", "--backend=cuda_ipc"), (1,),
            labelled_by_chunks=False),
)
# Two linears, each 2*T*H*F/d FLOP per GPU.
FLOP_PER_GPU = 2 * 2 * TOKENS * HIDDEN * FFN / DEVICES


def labels():
    return [label for variant in VARIANTS for label, _ in variant.runs()]


def builds():
    """(variant, label, mlp, function, fuser-compile options) of every
    library."""
    return [(variant, label, mlp, f"{mlp}_mlp_s{chunks}",
             ("--target=cuda",) + variant.options)
            for variant in VARIANTS for label, chunks in variant.runs()
            for mlp, _ in MLPS]


def run_build(args):
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mlp.mlir")
    return harness.compile_libraries(
        args.fuser_compile, source,
        [(variant.name, function, options)
         for variant, _, _, function, options in builds()], args.artifacts)


# --- PyTorch -----------------------------------------------------------------

def run_torch(args):
    ranks = harness.TorchRanks(args.port)
    torch, dist = ranks.torch, ranks.dist
    from torch.nn import functional
    d, r = ranks.size, ranks.rank
    generator = ranks.generator(SEED)
    # Weights scaled as nn.Linear initializes them, so that the gelu sees
    # values of order 1 (where its tanh approximation matters).
    x = ranks.random((TOKENS, HIDDEN), generator)
    w1 = ranks.random((FFN, HIDDEN), generator, 1 / math.sqrt(HIDDEN))
    w2 = ranks.random((HIDDEN, FFN), generator, 1 / math.sqrt(FFN))
    w1_rows = w1[r * FFN // d:(r + 1) * FFN // d].contiguous()
    w2_cols = w2[:, r * FFN // d:(r + 1) * FFN // d].contiguous()
    x_rows = x[r * TOKENS // d:(r + 1) * TOKENS // d].contiguous()
    gathered = torch.empty_like(x)
    scattered = torch.empty_like(x_rows)

    def layer(inputs):
        hidden = functional.gelu(functional.linear(inputs, w1_rows),
                                 approximate="tanh")
        return functional.linear(hidden, w2_cols)

    def tensor_parallel():
        out = layer(x)
        dist.all_reduce(out)
        return out

    def sequence_parallel():
        dist.all_gather_into_tensor(gathered, x_rows)
        dist.reduce_scatter_tensor(scattered, layer(gathered))
        return scattered

    # Both MLPs compute the layer on all tokens and one GPU's weights.
    compute = ranks.time_ms(lambda: layer(x), WARMUP, args.iterations)
    results = {}
    for mlp, function in (("tp", tensor_parallel), ("sp", sequence_parallel)):
        if r == 0:
            print(f"== PyTorch {mlp}_mlp", flush=True)
        results[mlp] = {
            "compute": compute,
            "pytorch": ranks.time_ms(function, WARMUP, args.iterations)}
        expected = os.path.join(args.work, f"{mlp}_expected.npy")
        out = function()
        ranks.save_npy(out if mlp == "tp" else ranks.gather_rows(out), expected)
        results[mlp]["expected"] = expected
    inputs = [os.path.join(args.work, f"{name}.npy") for name in ("x", "w1", "w2")]
    for tensor, path in zip((x, w1, w2), inputs):
        ranks.save_npy(tensor, path)
    if r == 0:
        harness.write_json(os.path.join(args.work, "torch.json"), {
            "environment": ranks.environment(),
            "method": {"warmup": WARMUP, "iterations": args.iterations,
                       "seed": SEED},
            "inputs": inputs, "mlps": results})
    ranks.finish()
    return 0


# --- ours and the report -----------------------------------------------------

def run_ours(args):
    harness.check_variants(args.variants, labels())
    torch_results = harness.load_results(args.work)[0]
    runner = harness.FuserExec(args.fuser_exec, args.mpirun, args.iterations,
                               args.timeout)
    budget = harness.TimeBudget(args.budget)
    runs = {mlp: {} for mlp, _ in MLPS}
    for variant, label, mlp, function, _ in builds():
        if args.variants and label not in args.variants:
            continue
        # The CPU reference of a 4.4 TFLOP layer would take minutes.
        runs[mlp][label] = harness.run_library(
            runner, budget, "mlp", args.artifacts, variant.name, function,
            torch_results.get("inputs", ()),
            torch_results.get("mlps", {}).get(mlp, {}).get("expected"),
            os.path.join(args.work, "ours.npy"), False)
        harness.write_ours(args, runner, runs)
    return 0


def mlp_rows(torch_mlps, ours_runs):
    """The rows of the three tables and the notes."""
    times, spreads, ratios, notes = [], [], [], []
    for mlp, title in MLPS:
        torch_mlp = torch_mlps.get(mlp, {})
        ours = ours_runs.get(mlp, {})
        pytorch = harness.median(torch_mlp.get("pytorch"))
        best_label, best = harness.best_of(ours, labels())
        auto = harness.median(ours.get("auto"))
        if not harness.validated_ok(ours.get("auto", {})):
            auto = None
        times.append([title] + [
            harness.time_cell(harness.median(result), FLOP_PER_GPU)
            for result in [torch_mlp.get("compute"), torch_mlp.get("pytorch")]
            + [ours.get(label) for label in labels()]])
        spreads.append([title] + [
            harness.spread_cell(result)
            for result in [torch_mlp.get("compute"), torch_mlp.get("pytorch")]
            + [ours.get(label) for label in labels()]])
        misses = []
        for name, value in (("best", best), ("auto", auto)):
            if value is None:
                misses.append(f"{name}: no valid time")
            elif pytorch is not None and value > pytorch:
                misses.append(f"{name} slower than PyTorch")
        if harness.allocating(ours):
            misses.append("device allocations per execution: "
                          + ", ".join(harness.allocating(ours)))
        ratios.append([
            title, best_label or "n/a",
            harness.cell(harness.ratio(pytorch, best), ".3f"),
            harness.cell(harness.ratio(pytorch, auto), ".3f"),
            harness.validation_cell(ours),
            "met" if not misses else "; ".join(misses)])
        notes += harness.error_notes(mlp, ours)
    return times, spreads, ratios, notes


def run_report(args):
    torch_results, ours_results = harness.load_results(args.work)
    method = torch_results.get("method", {})
    times, spreads, ratios, notes = mlp_rows(torch_results.get("mlps", {}),
                                             ours_results.get("runs", {}))
    columns = ["PyTorch compute only", "PyTorch (NCCL)"] + labels()
    lines = ["# Tensor- and sequence-parallel MLPs on 2 GPUs: ours and PyTorch", ""]
    lines += harness.environment_lines(torch_results.get("environment"),
                                       ours_results)
    lines += [
        f"- T = {TOKENS} tokens, H = {HIDDEN}, F = {FFN}, bf16; "
        f"{FLOP_PER_GPU / 1e12:.2f} TFLOP per GPU (two linears, 2·T·H·F/2 "
        "each)",
        f"- PyTorch: {method.get('warmup', '?')} warm-up iterations, then "
        f"{method.get('iterations', '?')} timed; ours: fuser-exec --time, one "
        f"warm-up execution, then {ours_results.get('iterations', '?')} timed; "
        "the method of bench/overlap (device synchronization and host barrier "
        "before each iteration, CUDA events, the slowest rank, median)",
        "- variants: " + "; ".join(
            f"{variant.name} ({' '.join(variant.options)}, S = "
            f"{', '.join(map(str, variant.chunks))})" for variant in VARIANTS),
        f"- ours validated against PyTorch's output (tolerance {harness.BF16_TOLERANCE})",
        "",
        "Median ms / TFLOP/s per GPU:", ""]
    lines += harness.markdown_table(["MLP"] + columns, times)
    lines += ["", "Spread, min–max ms:", ""]
    lines += harness.markdown_table(["MLP"] + columns, spreads)
    lines += ["", "PyTorch's time ÷ ours (above 1: ours is faster):", ""]
    lines += harness.markdown_table(
        ["MLP", "best ours", "PyTorch ÷ best", "PyTorch ÷ auto", "validated",
         "targets"], ratios)
    if ours_results.get("inputs_refused"):
        notes.append("fuser-exec refused PyTorch's .npy inputs for the bf16 "
                     "programs: ours ran on seeded inputs, not validated")
    if notes:
        lines += ["", "Notes:", ""] + [f"- {note}" for note in notes]
    harness.write_report(lines, args, torch_results, ours_results)
    return 0


def main():
    parser, _ = harness.step_parser(__doc__.split("\n\n")[0], 29532)
    args = parser.parse_args()
    return {"build": run_build, "torch": run_torch, "ours": run_ours,
            "report": run_report}[args.step](args)


if __name__ == "__main__":
    sys.exit(main())
