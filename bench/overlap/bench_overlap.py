#!/usr/bin/env python3
"""AllGather+GEMM and GEMM+ReduceScatter on D GPUs: ours against PyTorch.

bench/overlap/build.sh runs the first step where fuser-compile is,
bench/overlap/run.sh the three others on the GPU machine; by hand, in the
repository root, on 2 GPUs:

    python3 bench/overlap/bench_overlap.py build gpu-artifacts/overlap \\
        build/bin/fuser-compile
    mpirun --allow-run-as-root --bind-to none -np 2 -x NCCL_NVLS_ENABLE=0 \\
        python3 bench/overlap/bench_overlap.py torch WORK
    LD_LIBRARY_PATH=build-gpu/runtime python3 bench/overlap/bench_overlap.py \\
        ours gpu-artifacts/overlap build-gpu/bin/fuser-exec WORK
    python3 bench/overlap/bench_overlap.py report WORK overlap.md overlap.json

and on D GPUs (D = 4: gpu-artifacts/overlap-d4), `--devices D` before
every step and `mpirun -np D` for PyTorch's: every step stops where the
artifacts, PyTorch's ranks or its results are of another device count.

build: the programs (programs.py) into ARTIFACTS/overlap.mlir, and every
library of programs.builds beside them; prints the cells of the tables
(variant, op, shape) whose programs cannot exist on D devices, and why.

torch (on every rank, one per GPU): per shape of programs.SHAPES, bf16
inputs A [m, k] and B [k, n] drawn with a seed, then for each op: compute
only (the GEMM one GPU runs), communication only (the NCCL collective
alone, moving 1/D of A or of the partial product per rank), PyTorch
sequential (NCCL all_gather_into_tensor then torch.mm; torch.mm then
reduce_scatter_tensor) and PyTorch's symmetric-memory op
(symm_mem.fused_all_gather_matmul, symm_mem.fused_matmul_reduce_scatter).
Rank 0 writes the inputs as f32 .npy (exact for bf16 values) and
torch.mm(A, B) in bf16, which both ops compute, as the expected output.

ours (one process, which starts mpirun per run): every variant of
programs.builds, through fuser-exec --time on PyTorch's inputs; its output
is compared with PyTorch's at every shape for `auto` and at the shapes
whose output has at most --validate-all-elements elements for the others.
Without PyTorch's inputs (its step failed, or fuser-exec refuses .npy
files for bf16 tensors), seeded inputs, and fuser-exec --check against
the CPU reference where that takes seconds (REFERENCE_FLOP). A run costs
3 s of start-up and, with seeded inputs, about 20 ns per input element
(20 s at 32768x16384x8192): the runs go in RUN_ORDER and stop at
--budget seconds, the rest reported as skipped.

report: per op, median ms and TFLOP/s per GPU, spread, ratios (ours and
the ideal bound max(compute only, communication only), PyTorch's
symmetric-memory op, PyTorch sequential) and the issue's targets, as
markdown (printed and written) and all numbers as JSON.
"""
import os
import sys

import harness
import programs

SEED = 2026
WARMUP = 5
# Outputs of at most this many elements are validated for every variant
# (8192 x 8192: all shapes but the two largest outputs); `auto` everywhere.
VALIDATE_ALL_ELEMENTS = 8192 * 8192
# Where fuser-exec cannot take PyTorch's inputs, the CPU reference checks
# the programs of at most this many FLOP (a few seconds on 8 threads).
REFERENCE_FLOP = 3e11
# Our runs go in this order, so that where the time budget cuts them short
# the targets still get their numbers: auto, no overlap, then the
# variants most likely to be the best.
RUN_ORDER = ("auto", "none", "collective-s4", "ring-ipc-s1", "collective-s2",
             "ring-ipc-s2", "collective-s8", "ring-nccl-s1")
# The module of every program, in the artifact folder.
SOURCE = "overlap.mlir"


# --- build (where fuser-compile is) -------------------------------------------

def run_build(args):
    os.makedirs(args.artifacts, exist_ok=True)
    source = os.path.join(args.artifacts, SOURCE)
    with open(source, "w") as output:
        output.write(programs.program_text(programs.SHAPES, args.devices))
    for line in programs.unavailable_lines(programs.SHAPES, args.devices):
        print(line)
    return harness.compile_libraries(
        args.fuser_compile, source,
        [(variant.name, function, options) for variant, _, _, _, function, options
         in programs.builds(programs.SHAPES, args.devices)], args.artifacts)


def check_artifact_devices(artifacts, devices):
    """Stops with a message where the artifact folder was built for another
    device count (each of its runs would fail after seconds of start-up)."""
    path = os.path.join(artifacts, SOURCE)
    if not os.path.exists(path):
        raise SystemExit(f"no {path}: run bench/overlap/build.sh first")
    with open(path) as source:
        built_for = programs.mesh_devices(source.read())
    if built_for != devices:
        raise SystemExit(f"{artifacts} holds programs for {built_for} devices, "
                         f"not {devices}: build them with --devices {devices}")


# --- PyTorch -----------------------------------------------------------------

def enable_symmetric_memory(ranks):
    """Importing PyTorch's symmetric-memory module defines its ops; before
    PyTorch 2.11 a group's symmetric memory also needs setting up, which
    2.11 does itself (and deprecates the call)."""
    from torch.distributed import _symmetric_memory
    version = tuple(int(part) for part in
                    ranks.torch.__version__.split("+")[0].split(".")[:2])
    if version < (2, 11):
        _symmetric_memory.enable_symm_mem_for_group(ranks.group_name)


def measure_op(ranks, functions, iterations):
    """stats per name of `functions` (name -> callable); a callable that
    raises gives {"error": ...} instead."""
    results = {}
    for name, function in functions.items():
        try:
            results[name] = ranks.time_ms(function, WARMUP, iterations)
        except Exception as error:  # PyTorch's ops raise many kinds
            results[name] = {"error": f"{type(error).__name__}: {error}".strip()}
    return results


def torch_shape(ranks, shape, seed, iterations, directory):
    """Both ops at one shape; returns their results and writes the inputs
    and the expected output to `directory`."""
    torch, dist = ranks.torch, ranks.dist
    ops = torch.ops.symm_mem
    m, k, n = shape
    d, r = ranks.size, ranks.rank
    generator = ranks.generator(seed)
    a = ranks.random((m, k), generator)
    b = ranks.random((k, n), generator)
    results = {}

    # AllGather+GEMM: A split by rows, B replicated.
    a_rows = a[r * m // d:(r + 1) * m // d].contiguous()
    gathered = torch.empty_like(a)
    out = torch.empty((m, n), dtype=a.dtype, device=a.device)
    compute = lambda: torch.mm(a, b, out=out)
    communicate = lambda: dist.all_gather_into_tensor(gathered, a_rows)

    def sequential():
        communicate()
        torch.mm(gathered, b, out=out)

    def symmetric_memory():
        return ops.fused_all_gather_matmul(a_rows, [b], 0, ranks.group_name,
                                           return_A=False)[1][0]

    results["ag_gemm"] = measure_op(ranks, {
        "compute": compute, "communication": communicate,
        "sequential": sequential, "symmetric_memory": symmetric_memory},
        iterations)
    # torch.mm(A, B): what both ops compute.
    sequential()
    expected = out.clone()
    if "error" not in results["ag_gemm"]["symmetric_memory"]:
        results["ag_gemm"]["relative_errors"] = {
            "symmetric_memory": ranks.relative_error(symmetric_memory(), expected)}
    del gathered, out, a_rows

    # GEMM+ReduceScatter: A split by columns, B by rows, out by rows.
    a_cols = a[:, r * k // d:(r + 1) * k // d].contiguous()
    b_rows = b[r * k // d:(r + 1) * k // d].contiguous()
    partial = torch.empty((m, n), dtype=a.dtype, device=a.device)
    scattered = torch.empty((m // d, n), dtype=a.dtype, device=a.device)
    compute = lambda: torch.mm(a_cols, b_rows, out=partial)
    communicate = lambda: dist.reduce_scatter_tensor(scattered, partial)

    def sequential():
        compute()
        communicate()

    def symmetric_memory():
        return ops.fused_matmul_reduce_scatter(a_cols, b_rows, "sum", 0,
                                               ranks.group_name)

    results["gemm_rs"] = measure_op(ranks, {
        "compute": compute, "communication": communicate,
        "sequential": sequential, "symmetric_memory": symmetric_memory},
        iterations)
    sequential()
    errors = {"sequential": ranks.relative_error(ranks.gather_rows(scattered),
                                                 expected)}
    if "error" not in results["gemm_rs"]["symmetric_memory"]:
        errors["symmetric_memory"] = ranks.relative_error(
            ranks.gather_rows(symmetric_memory()), expected)
    results["gemm_rs"]["relative_errors"] = errors

    paths = {name: os.path.join(directory, f"{name}.npy")
             for name in ("a", "b", "expected")}
    ranks.save_npy(a, paths["a"])
    ranks.save_npy(b, paths["b"])
    ranks.save_npy(expected, paths["expected"])
    results["inputs"] = [paths["a"], paths["b"]]
    results["expected"] = paths["expected"]
    del a, b, a_cols, b_rows, partial, scattered, expected
    torch.cuda.empty_cache()
    return results


def run_torch(args):
    ranks = harness.TorchRanks(args.port)
    if ranks.size != args.devices:
        raise SystemExit(f"PyTorch runs on {ranks.size} ranks, --devices is "
                         f"{args.devices}: start it with mpirun -np {args.devices}")
    enable_symmetric_memory(ranks)
    shapes = {}
    for index, shape in enumerate(programs.SHAPES):
        if harness.shape_name(shape) not in args.shapes:
            continue
        # Both ops share the inputs; the report names the cells left empty.
        reasons = [op.split_error(shape, 1, ranks.size) for op in programs.OPS]
        if any(reasons):
            if ranks.rank == 0:
                print(f"== PyTorch skips {harness.shape_name(shape)}: "
                      + "; ".join(filter(None, reasons)), flush=True)
            continue
        directory = os.path.join(args.work, harness.shape_name(shape))
        os.makedirs(directory, exist_ok=True)
        if ranks.rank == 0:
            print(f"== PyTorch {harness.shape_name(shape)}", flush=True)
        shapes[harness.shape_name(shape)] = torch_shape(
            ranks, shape, SEED + index, args.iterations, directory)
    if ranks.rank == 0:
        harness.write_json(os.path.join(args.work, "torch.json"), {
            "environment": ranks.environment(),
            "method": {"warmup": WARMUP, "iterations": args.iterations,
                       "seed": SEED},
            "shapes": shapes})
    ranks.finish()
    return 0


# --- ours --------------------------------------------------------------------

def run_ours(args):
    harness.check_variants(args.variants, programs.labels())
    check_artifact_devices(args.artifacts, args.devices)
    torch_shapes = harness.load_results(args.work)[0].get("shapes", {})
    runner = harness.FuserExec(args.fuser_exec, args.mpirun, args.iterations,
                               args.timeout, args.devices)
    budget = harness.TimeBudget(args.budget)
    runs = {op.name: {} for op in programs.OPS}
    builds = sorted(programs.builds(programs.SHAPES, args.devices),
                    key=lambda build: RUN_ORDER.index(build[1]))
    for variant, label, op, shape, function, _ in builds:
        key = harness.shape_name(shape)
        if key not in args.shapes or (args.variants and
                                      label not in args.variants):
            continue
        torch_shape_results = torch_shapes.get(key, {})
        m, k, n = shape
        validated = label == "auto" or m * n <= args.validate_all_elements
        runs[op.name].setdefault(key, {})[label] = harness.run_library(
            runner, budget, key, args.artifacts, variant.name, function,
            torch_shape_results.get("inputs", ()),
            torch_shape_results.get("expected") if validated else None,
            os.path.join(args.work, "ours.npy"), 2 * m * n * k <= REFERENCE_FLOP)
        harness.write_ours(args, runner, runs)
    return 0


# --- report ------------------------------------------------------------------

def shape_summary(op, torch_op, ours):
    """The numbers the ratios and the targets read."""
    compute = harness.median(torch_op.get("compute"))
    communication = harness.median(torch_op.get("communication"))
    ideal = (None if compute is None or communication is None
             else max(compute, communication))
    labels = programs.labels()
    best_label, best = harness.best_of(ours, labels)
    _, best_collective = harness.best_of(
        ours, [label for label in labels if label.startswith("collective")])
    auto = ours.get("auto", {})
    return {"compute": compute, "communication": communication,
            "ideal": ideal, "sequential": harness.median(torch_op.get("sequential")),
            "symmetric_memory": harness.median(torch_op.get("symmetric_memory")),
            "best_label": best_label, "best": best,
            "best_collective": best_collective,
            "auto": harness.median(auto) if harness.validated_ok(auto) else None}


def targets(summary, ours):
    """The issue's targets this shape misses (an empty list: all met)."""
    misses = []
    ideal, symmetric = summary["ideal"], summary["symmetric_memory"]
    for name in ("best", "auto"):
        ours_ms = summary[name]
        if ours_ms is None:
            misses.append(f"{name}: no valid time")
            continue
        if ideal is not None and ours_ms > 1.05 * ideal:
            misses.append(f"{name} {ours_ms / ideal:.2f}x ideal")
        if symmetric is not None and ours_ms > symmetric:
            misses.append(f"{name} slower than symm_mem")
    if summary["auto"] is not None and summary["sequential"] is not None \
            and summary["auto"] > summary["sequential"]:
        misses.append("auto slower than sequential")
    if summary["best_collective"] is None:
        misses.append("collective: no valid time")
    elif summary["sequential"] is not None \
            and summary["best_collective"] > summary["sequential"]:
        misses.append("collective slower than sequential")
    allocating = harness.allocating(ours)
    if allocating:
        misses.append("device allocations per execution: " + ", ".join(allocating))
    return misses


def op_report(op, torch_shapes, ours_runs, devices):
    labels = programs.labels()
    times, spreads, ratios = [], [], []
    notes = []
    for shape in programs.SHAPES:
        key = harness.shape_name(shape)
        torch_op = torch_shapes.get(key, {}).get(op.name, {})
        ours = ours_runs.get(op.name, {}).get(key, {})
        summary = shape_summary(op, torch_op, ours)
        row_name = ", ".join(map(str, shape))
        flop = op.flop_per_gpu(shape, devices)
        times.append([row_name,
                      harness.time_cell(summary["compute"], flop),
                      harness.time_cell(summary["communication"]),
                      harness.time_cell(summary["ideal"], flop),
                      harness.time_cell(summary["sequential"], flop),
                      harness.time_cell(summary["symmetric_memory"], flop)]
                     + [harness.time_cell(harness.median(ours.get(label)), flop)
                        for label in labels])
        spreads.append([row_name]
                       + [harness.spread_cell(torch_op.get(name)) for name in
                          ("compute", "communication", "sequential",
                           "symmetric_memory")]
                       + [harness.spread_cell(ours.get(label)) for label in labels])
        misses = targets(summary, ours)
        ratios.append([
            row_name, summary["best_label"] or "n/a",
            harness.cell(harness.ratio(summary["best"], summary["ideal"]), ".3f"),
            harness.cell(harness.ratio(summary["auto"], summary["ideal"]), ".3f"),
            harness.cell(harness.ratio(summary["symmetric_memory"], summary["best"]), ".3f"),
            harness.cell(harness.ratio(summary["symmetric_memory"], summary["auto"]), ".3f"),
            harness.cell(harness.ratio(summary["sequential"], summary["auto"]), ".3f"),
            harness.cell(harness.ratio(summary["sequential"],
                                       summary["best_collective"]), ".3f"),
            harness.validation_cell(ours),
            "met" if not misses else "; ".join(misses)])
        notes += harness.error_notes(key, {
            name: result for name, result in torch_op.items()
            if name != "relative_errors"})
        notes += harness.error_notes(key, ours)
        errors = torch_op.get("relative_errors", {})
        if errors:
            notes.append(f"{key} PyTorch's own error against torch.mm(A, B): "
                         + ", ".join(f"{name} {value:.2g}"
                                     for name, value in errors.items()))
    notes += programs.unavailable_lines(programs.SHAPES, devices, (op,))
    lines = [f"## {op.title}", "",
             "Median ms / TFLOP/s per GPU (communication only: ms):", ""]
    lines += harness.markdown_table(
        ["m, k, n", "compute only", "comm only", "ideal", "PyTorch sequential",
         "PyTorch symm_mem"] + labels, times)
    lines += ["", "Spread, min–max ms:", ""]
    lines += harness.markdown_table(
        ["m, k, n", "compute only", "comm only", "PyTorch sequential",
         "PyTorch symm_mem"] + labels, spreads)
    lines += ["", "Ratios of times (ours ÷ ideal: at most 1.05 is the target; "
              "A ÷ ours: above 1, ours is faster):", ""]
    lines += harness.markdown_table(
        ["m, k, n", "best ours", "best ÷ ideal", "auto ÷ ideal",
         "symm_mem ÷ best", "symm_mem ÷ auto", "sequential ÷ auto",
         "sequential ÷ best collective", "validated", "targets"], ratios)
    if notes:
        lines += ["", "Notes:", ""] + [f"- {note}" for note in notes]
    return lines + [""]


def run_report(args):
    torch_results, ours_results = harness.load_results(args.work)
    torch_devices = torch_results.get("environment", {}).get("gpus", args.devices)
    if torch_devices != args.devices:
        raise SystemExit(f"PyTorch's results in {args.work} are of {torch_devices} "
                         f"GPUs, --devices is {args.devices}")
    method = torch_results.get("method", {})
    lines = ["# AllGather+GEMM and GEMM+ReduceScatter on "
             f"{args.devices} GPUs: ours and PyTorch", ""]
    lines += harness.environment_lines(torch_results.get("environment"),
                                       ours_results)
    lines += [
        f"- PyTorch: {method.get('warmup', '?')} warm-up iterations, then "
        f"{method.get('iterations', '?')} timed; ours: fuser-exec --time, one "
        f"warm-up execution, then {ours_results.get('iterations', '?')} timed; "
        "each timed iteration after a device synchronization and a host "
        "barrier, CUDA events around it, the slowest rank's time; median and "
        "min–max over the iterations",
        "- TFLOP/s per GPU: AllGather+GEMM 2·m·n·k, GEMM+ReduceScatter "
        f"2·m·n·k/{args.devices} (the DDLB convention); ideal = max(compute only, "
        "communication only), both measured with PyTorch (torch.mm, NCCL)",
        "- bf16 inputs drawn with seed "
        f"{method.get('seed', '?')}; ours run on PyTorch's inputs "
        "and are validated against torch.mm(A, B) (max |ours − PyTorch| / "
        f"max |PyTorch| ≤ {harness.BF16_TOLERANCE})",
        "- variants: " + "; ".join(
            f"{variant.name} ({' '.join(variant.options)}, S = "
            f"{', '.join(map(str, variant.chunks))})"
            for variant in programs.VARIANTS),
    ]
    if ours_results.get("inputs_refused"):
        lines.append("- fuser-exec refused PyTorch's .npy inputs for the bf16 "
                     "programs: ours ran on seeded inputs, checked against the "
                     f"CPU reference where 2·m·n·k ≤ {REFERENCE_FLOP:.0e}")
    lines.append("")
    for op in programs.OPS:
        lines += op_report(op, torch_results.get("shapes", {}),
                           ours_results.get("runs", {}), args.devices)
    harness.write_report(lines, args, torch_results, ours_results)
    return 0


def parse_args(argv=None):
    parser, steps = harness.step_parser(__doc__.split("\n\n")[0], 29531)
    parser.add_argument("--devices", type=programs.device_count,
                        default=programs.DEVICES,
                        help="GPUs, one rank each (default %(default)s)")
    all_shapes = ",".join(map(harness.shape_name, programs.SHAPES))
    for step in ("torch", "ours"):
        steps[step].add_argument(
            "--shapes", type=lambda text: text.split(","), default=all_shapes.split(","),
            help=f"comma-separated MxKxN to measure (default: all, {all_shapes})")
    steps["ours"].add_argument(
        "--validate-all-elements", type=int, default=VALIDATE_ALL_ELEMENTS,
        help="validate every variant where m*n is at most this")
    return parser.parse_args(argv)


def main():
    args = parse_args()
    return {"build": run_build, "torch": run_torch, "ours": run_ours,
            "report": run_report}[args.step](args)


if __name__ == "__main__":
    sys.exit(main())
