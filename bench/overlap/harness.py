"""What the GPU benchmarks (bench_overlap.py on 2 or more GPUs,
bench/mlp/bench_mlp.py on 2) share: PyTorch's timing loop, ours through
fuser-exec, validation against PyTorch's outputs, the environment and
markdown tables.

The method (the same for PyTorch and for ours): warm-up first; before each
timed iteration the devices are drained and the ranks meet at a host
barrier; the device time of the iteration comes from CUDA events on the
current stream (fuser-exec --time: events around each execution with
--time-batch 1); per iteration the slowest rank's time counts; the median,
minimum and maximum of those are reported.

Only the standard library is imported at module level, so that the
programs, the report and the tests run where there is no PyTorch or numpy.
"""
import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "kernels"))
from bench_kernels import driver_version  # noqa: E402
from programs import DEVICES  # noqa: E402

# fuser-exec's lines (runtime/exec/fuser-exec.cpp).
TIMING = re.compile(r"^fuser-exec: timing (\S+): executions=(\d+) batch=(\d+) "
                    r"median_us=([\d.]+) min_us=([\d.]+) max_us=([\d.]+)",
                    re.MULTILINE)
ALLOCATIONS = re.compile(
    r"^fuser-exec: device allocations \S+: executions=\d+ per_execution=(\d+)",
    re.MULTILINE)
PEAK_MEMORY = re.compile(r"^fuser-exec: device memory \S+: peak_bytes=(\d+)",
                         re.MULTILINE)
CHECK = re.compile(r"check (passed|FAILED), max relative error (\S+)")
# fuser-exec reads .npy inputs only for f32 tensors of the program.
INPUTS_REFUSED = "--inputs reads f32 .npy files"
# Max |ours - PyTorch| over max |PyTorch|: a few bf16 roundings (2^-8 each)
# of values as large as the largest; an error in the data moved (a chunk in
# the wrong place, a missing partial sum) is of order 1.
BF16_TOLERANCE = 2e-2
# NCCL_MAX_CTAS bounds the SMs NCCL's kernels take from a GEMM running
# beside them (the collective pipeline's overlap).
FORWARDED_VARIABLES = ("LD_LIBRARY_PATH", "NCCL_NVLS_ENABLE",
                       "CUDA_DEVICE_MAX_CONNECTIONS", "NCCL_MAX_CTAS")
ENVIRONMENT_VARIABLES = ("CUDA_DEVICE_MAX_CONNECTIONS", "NCCL_NVLS_ENABLE",
                         "NCCL_ALGO", "NCCL_PROTO",
                         "TORCH_SYMM_MEM_DISABLE_MULTICAST",
                         "TORCH_SYMM_MEM_ENABLE_NATIVE_ASYNC_TP")


def stats(times_ms):
    """Median, minimum and maximum of per-iteration times in ms."""
    return {"median_ms": statistics.median(times_ms), "min_ms": min(times_ms),
            "max_ms": max(times_ms), "iterations": len(times_ms)}


def shape_name(shape):
    return "x".join(map(str, shape))


class TorchRanks:
    """PyTorch on the ranks mpirun started: one GPU each, an NCCL process
    group for the work and a gloo group for the host barrier."""

    def __init__(self, port):
        import torch
        import torch.distributed as dist
        self.torch, self.dist = torch, dist
        self.rank = int(_first_env("OMPI_COMM_WORLD_RANK", "PMI_RANK", "RANK"))
        self.size = int(_first_env("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "WORLD_SIZE"))
        local = int(_first_env("OMPI_COMM_WORLD_LOCAL_RANK", "LOCAL_RANK",
                               default=str(self.rank)))
        self.device = torch.device("cuda", local)
        torch.cuda.set_device(self.device)
        dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}",
                                rank=self.rank, world_size=self.size,
                                device_id=self.device)
        self.group_name = dist.group.WORLD.group_name
        self.host_group = dist.new_group(backend="gloo")

    def time_ms(self, function, warmup, iterations):
        """Per-iteration device times of `function()` (the slowest rank's),
        as `stats` gives them."""
        torch = self.torch
        for _ in range(warmup):
            function()
        events = [(torch.cuda.Event(enable_timing=True),
                   torch.cuda.Event(enable_timing=True))
                  for _ in range(iterations)]
        for start, end in events:
            torch.cuda.synchronize()
            self.dist.barrier(group=self.host_group)
            start.record()
            function()
            end.record()
        torch.cuda.synchronize()
        times = torch.tensor([start.elapsed_time(end) for start, end in events],
                             dtype=torch.float64)
        self.dist.all_reduce(times, op=self.dist.ReduceOp.MAX,
                             group=self.host_group)
        return stats(times.tolist())

    def random(self, shape, generator, scale=1.0):
        """bf16 values uniform in [-scale, scale), the same on every rank."""
        torch = self.torch
        values = torch.rand(shape, generator=generator, device=self.device,
                            dtype=torch.float32)
        return ((values * 2 - 1) * scale).to(torch.bfloat16)

    def generator(self, seed):
        return self.torch.Generator(device=self.device).manual_seed(seed)

    def gather_rows(self, piece):
        """The rows every rank holds, in rank order."""
        whole = piece.new_empty((piece.shape[0] * self.size, *piece.shape[1:]))
        self.dist.all_gather_into_tensor(whole, piece.contiguous())
        return whole

    def save_npy(self, tensor, path):
        """f32 .npy of a bf16 tensor (exact), written by rank 0."""
        if self.rank == 0:
            import numpy
            numpy.save(path, tensor.float().cpu().numpy())

    def relative_error(self, actual, expected):
        """max |actual - expected| / max |expected|, computed in f32."""
        expected = expected.float()
        difference = (actual.float() - expected).abs().max()
        return float(difference / expected.abs().max().clamp_min(1e-30))

    def environment(self):
        torch = self.torch
        properties = torch.cuda.get_device_properties(self.device)
        nccl = torch.cuda.nccl.version()
        return {
            "date": time.strftime("%Y-%m-%d %H:%M %Z"),
            "gpu": properties.name,
            "gpu_memory_gib": round(properties.total_memory / 2**30),
            "gpus": self.size,
            "driver": driver_version(),
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "torch_nccl": ".".join(map(str, nccl)) if isinstance(nccl, tuple) else str(nccl),
            "variables": {name: os.environ.get(name, "unset")
                          for name in ENVIRONMENT_VARIABLES},
        }

    def finish(self):
        self.dist.barrier(group=self.host_group)
        self.dist.destroy_process_group()


def _first_env(*names, default=None):
    for name in names:
        if name in os.environ:
            return os.environ[name]
    if default is None:
        raise SystemExit(f"none of {', '.join(names)} is set: run under mpirun")
    return default


def runtime_nccl(fuser_exec):
    """The NCCL library fuser-exec's runtime loads (ldd), which may differ
    from PyTorch's own."""
    try:
        listing = subprocess.run(["ldd", fuser_exec], capture_output=True,
                                 text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError) as error:
        return f"unknown ({error})"
    found = [line.split("=>")[-1].split("(")[0].strip()
             for line in listing.splitlines() if "libnccl" in line]
    # The file behind libnccl.so.2 names the full version.
    return os.path.realpath(found[0]) if found else "not linked"


def mpirun_command(devices):
    """What starts fuser-exec on one rank per GPU. Unbound: OpenMPI binds
    each of up to 2 ranks to one core by default, where the threads that
    draw, read and convert a layer's gigabytes of inputs (and NCCL's own)
    would take turns with the rank's."""
    return f"mpirun --allow-run-as-root --bind-to none -np {devices}"


class FuserExec:
    """Runs programs with fuser-exec --time under mpirun, one at a time:
    `mpirun` starts the ranks (None: one per GPU of `devices`; empty: no
    mpirun, one process)."""

    def __init__(self, fuser_exec, mpirun, iterations, timeout,
                 devices=DEVICES):
        self.fuser_exec = fuser_exec
        # The variables the runs depend on reach every rank; a hung run
        # ends itself (fuser-exec's watchdog) before our timeout kills it.
        self.mpirun = shlex.split(mpirun_command(devices) if mpirun is None
                                  else mpirun)
        if self.mpirun:
            self.mpirun += [option for name in FORWARDED_VARIABLES
                            if name in os.environ for option in ("-x", name)]
            self.mpirun += ["-x", "FUSER_TIMEOUT_S=120"]
        self.iterations = iterations
        self.timeout = timeout
        # Set when fuser-exec refuses .npy inputs for the programs' bf16
        # tensors: later runs take seeded inputs and the CPU reference.
        self.inputs_refused = False

    def run(self, library, program, inputs=(), output=None, check=False):
        """Times `program`; returns a dict with median_ms, min_ms, max_ms,
        iterations and allocations_per_execution, or error, and always the
        command and the lines it printed. `inputs` are .npy files of the
        global inputs, `output` where the global output is written."""
        command = self.mpirun + [
            self.fuser_exec, library, "--program", program,
            # The first execution is the warm-up.
            "--iterations", str(self.iterations + 1), "--time"]
        if inputs:
            command += ["--inputs", ",".join(inputs)]
        if output:
            command += ["--outputs", output]
        if check:
            command.append("--check")
        result = {"command": shlex.join(command)}
        started = time.monotonic()
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        try:
            text, _ = process.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            # mpirun ends its ranks on SIGTERM, which frees the GPUs.
            process.terminate()
            try:
                text, _ = process.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                text, _ = process.communicate()
            result["error"] = f"timed out after {self.timeout} s"
        result["lines"] = text.strip().splitlines()
        result["wall_s"] = round(time.monotonic() - started, 1)
        timing = TIMING.search(text)
        if "error" not in result and (process.returncode != 0 or not timing):
            result["error"] = f"exit {process.returncode}"
        if INPUTS_REFUSED in text:
            result["inputs_refused"] = True
        if timing:
            median, low, high = (float(value) / 1000 for value in timing.groups()[3:])
            result.update(median_ms=median, min_ms=low, max_ms=high,
                          iterations=int(timing.group(2)))
        allocations = ALLOCATIONS.search(text)
        if allocations:
            result["allocations_per_execution"] = int(allocations.group(1))
        peak = PEAK_MEMORY.search(text)
        if peak:
            result["peak_gib"] = int(peak.group(1)) / 2**30
        verdict = CHECK.search(text)
        if verdict:
            result["reference_check"] = {"passed": verdict.group(1) == "passed",
                                         "relative_error": float(verdict.group(2))}
        return result

    def run_validated(self, library, program, inputs, expected, output,
                      reference_affordable):
        """`run` on PyTorch's inputs, its output compared with `expected`
        (a .npy of PyTorch's output) when given. Without PyTorch's inputs
        (its step failed, or fuser-exec refuses them): seeded inputs,
        checked against the CPU reference when `reference_affordable`."""
        if inputs and not self.inputs_refused:
            result = self.run(library, program, inputs,
                              output if expected else None)
            if not result.get("inputs_refused"):
                if expected and "error" not in result:
                    result["validation"] = compare_npy(output, expected)
                if expected and os.path.exists(output):
                    os.remove(output)
                return result
            self.inputs_refused = True
        result = self.run(library, program, check=reference_affordable)
        if "reference_check" in result:
            result["validation"] = dict(result["reference_check"],
                                        against="CPU reference, seeded inputs")
        return result


def compile_libraries(fuser_compile, source, libraries, artifacts):
    """Compiles each (folder, function, options) of `libraries` from
    `source` into artifacts/folder/function.so; where fuser-compile fails,
    artifacts/folder/function.log holds its command and output instead, and
    the other libraries are still built. Prints a summary with the total
    size (the folder travels to the GPU machine); returns 0 when every
    library was built."""
    failures, size = [], 0
    for folder, function, options in libraries:
        os.makedirs(os.path.join(artifacts, folder), exist_ok=True)
        library = os.path.join(artifacts, folder, function + ".so")
        log = library[:-len(".so")] + ".log"
        if os.path.exists(log):
            os.remove(log)
        command = [fuser_compile, source, "-o", library,
                   f"--program={function}", *options]
        done = subprocess.run(command, capture_output=True, text=True)
        # The metadata is inside the library too.
        if os.path.exists(library + ".json"):
            os.remove(library + ".json")
        if done.returncode == 0:
            size += os.path.getsize(library)
            continue
        if os.path.exists(library):
            os.remove(library)
        output = (done.stdout + done.stderr).strip()
        with open(log, "w") as text:
            text.write(shlex.join(command) + "\n" + output + "\n")
        first = output.splitlines()[0] if output else f"exit {done.returncode}"
        failures.append(f"{folder}/{function}: {first}")
    print(f"{len(libraries) - len(failures)} of {len(libraries)} libraries "
          f"built in {artifacts}, {size / 2**20:.1f} MiB")
    for failure in failures:
        print(f"  not built: {failure}")
    return 1 if failures else 0


def build_log_reason(library):
    """Why `library` is not there: the first lines of the log
    compile_libraries left in its place."""
    log = library[:-len(".so")] + ".log"
    if not os.path.exists(log):
        return "not built (no log: run the benchmark's build.sh)"
    with open(log) as source:
        lines = [line.strip() for line in source if line.strip()]
    return "not built: " + " / ".join(lines[:3])


class TimeBudget:
    """Seconds our runs may take in all. A fuser-exec run costs seconds
    beyond the program (start-up, NCCL, making the inputs; about 20 s at
    the largest shapes): a run is skipped when the one before it of the
    same size would no longer fit, so that the benchmark ends in time
    however slow its runs turn out."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.started = time.monotonic()
        self.last_run = {}

    def allows(self, size):
        elapsed = time.monotonic() - self.started
        return elapsed + self.last_run.get(size, 0) <= self.seconds

    def record(self, size, result):
        self.last_run[size] = result.get("wall_s", 0)


def run_library(runner, budget, size, artifacts, folder, function,
                *validation):
    """Times artifacts/folder/function.so with `runner.run_validated(...,
    *validation)` where `budget` allows a run of `size` (a key for runs
    that take about as long), or says why it did not run; prints the last
    lines fuser-exec printed."""
    library = os.path.join(artifacts, folder, function + ".so")
    print(f"== {folder} {function}", flush=True)
    if not os.path.exists(library):
        result = {"error": build_log_reason(library)}
    elif not budget.allows(size):
        result = {"error": f"skipped: our runs' time budget of "
                           f"{budget.seconds} s was spent"}
    else:
        result = runner.run_validated(library, function, *validation)
        budget.record(size, result)
    for line in result.get("lines", [])[-3:]:
        print(f"    {line}", flush=True)
    if "wall_s" in result:
        print(f"    ({result['wall_s']} s)", flush=True)
    return result


def write_ours(args, runner, runs):
    """ours.json: every run's result so far and what they ran with (after
    each run, so that a run cut short still reports the others)."""
    write_json(os.path.join(args.work, "ours.json"), {
        "fuser_exec": args.fuser_exec,
        "runtime_nccl": runtime_nccl(args.fuser_exec),
        "nccl_max_ctas": os.environ.get("NCCL_MAX_CTAS", "unset"),
        "iterations": args.iterations,
        "inputs_refused": runner.inputs_refused,
        "runs": runs})


def compare_npy(actual_path, expected_path, rows_per_block=4096):
    """max |actual - expected| / max |expected| of two f32 .npy files of the
    same shape, a block of rows at a time."""
    import numpy
    actual = numpy.load(actual_path, mmap_mode="r")
    expected = numpy.load(expected_path, mmap_mode="r")
    if actual.shape != expected.shape:
        return {"passed": False, "against": "PyTorch",
                "error": f"shape {actual.shape}, PyTorch's {expected.shape}"}
    difference = scale = 0.0
    for first in range(0, expected.shape[0], rows_per_block):
        block = numpy.asarray(expected[first:first + rows_per_block])
        scale = max(scale, float(numpy.abs(block).max()))
        difference = max(difference, float(numpy.abs(
            numpy.asarray(actual[first:first + rows_per_block]) - block).max()))
    error = difference / scale if scale > 0 else difference
    return {"passed": bool(error <= BF16_TOLERANCE), "relative_error": error,
            "against": "PyTorch"}


def check_variants(variants, labels):
    """Stops with a message naming the labels of --variants that are not a
    variant's (a typo would otherwise run nothing)."""
    unknown = [label for label in variants or () if label not in labels]
    if unknown:
        raise SystemExit(f"unknown variants {', '.join(unknown)}; the variants "
                         f"are {', '.join(labels)}")


def step_parser(description, port):
    """The command line of a benchmark: its steps and their options."""
    parser = argparse.ArgumentParser(description=description)
    steps = parser.add_subparsers(dest="step", required=True)
    build = steps.add_parser("build", help="our libraries (fuser-compile)")
    build.add_argument("artifacts", help="folder to write")
    build.add_argument("fuser_compile")
    torch = steps.add_parser("torch", help="PyTorch, under mpirun, one rank per GPU")
    torch.add_argument("work", help="folder for inputs and results")
    torch.add_argument("--iterations", type=int, default=30)
    torch.add_argument("--port", type=int, default=port,
                       help="TCP port of the process group's store")
    ours = steps.add_parser("ours", help="ours, through fuser-exec")
    ours.add_argument("artifacts", help="the folder build.sh wrote")
    ours.add_argument("fuser_exec")
    ours.add_argument("work")
    ours.add_argument("--iterations", type=int, default=30)
    ours.add_argument("--mpirun", help="what starts fuser-exec on the ranks "
                      "(default: mpirun --allow-run-as-root --bind-to none -np D, one rank "
                      "per GPU)")
    ours.add_argument("--timeout", type=int, default=300,
                      help="seconds one fuser-exec run may take")
    ours.add_argument("--budget", type=int, default=400,
                      help="seconds all our runs may take; the runs that "
                           "would not fit are reported as skipped")
    ours.add_argument("--variants", type=lambda text: text.split(","),
                      help="comma-separated labels to run (default: all)")
    report = steps.add_parser("report", help="the tables")
    report.add_argument("work")
    report.add_argument("table", help="markdown file to write")
    report.add_argument("json", help="JSON file of every number")
    return parser, {"build": build, "torch": torch, "ours": ours,
                    "report": report}


def load_results(work):
    """(PyTorch's results, ours) from the work folder; {} for a step that
    did not run."""
    return tuple(read_json(path) if os.path.exists(path) else {}
                 for path in (os.path.join(work, "torch.json"),
                              os.path.join(work, "ours.json")))


def write_report(lines, args, torch_results, ours_results):
    """Prints the markdown and writes it and every number."""
    text = "\n".join(lines) + "\n"
    print(text)
    with open(args.table, "w") as table:
        table.write(text)
    write_json(args.json, {"torch": torch_results, "ours": ours_results})


def read_json(path):
    with open(path) as source:
        return json.load(source)


def write_json(path, value):
    with open(path, "w") as target:
        json.dump(value, target, indent=1)
        target.write("\n")


def median(result):
    return result.get("median_ms") if result else None


def time_cell(milliseconds, flop=None):
    """"ms / TFLOP/s" (per GPU, for `flop` per GPU), or "ms" alone."""
    if milliseconds is None:
        return "n/a"
    if flop is None:
        return f"{milliseconds:.3f}"
    return f"{milliseconds:.3f} / {flop / (milliseconds * 1e-3) / 1e12:.0f}"


def spread_cell(result):
    if median(result) is None:
        return "n/a"
    return f"{result['min_ms']:.3f}–{result['max_ms']:.3f}"


def validated_ok(result):
    """A run counts unless its validation failed."""
    return result.get("validation", {}).get("passed", True)


def best_of(runs, labels):
    """(label, ms) of the fastest of `runs` (label -> result) among
    `labels` with a time that did not fail validation, or (None, None)."""
    timed = [(runs[label]["median_ms"], label) for label in labels
             if median(runs.get(label)) is not None
             and validated_ok(runs[label])]
    if not timed:
        return None, None
    milliseconds, label = min(timed)
    return label, milliseconds


def validation_cell(runs):
    """How many of `runs` were validated and passed, naming failures."""
    checked = {label: result["validation"] for label, result in runs.items()
               if "validation" in result}
    failed = sorted(label for label, validation in checked.items()
                    if not validation.get("passed"))
    if not checked:
        return "none"
    text = f"{len(checked) - len(failed)}/{len(checked)} passed"
    return text + (" (failed: " + ", ".join(failed) + ")" if failed else "")


def allocating(runs):
    """Labels of the runs whose timed executions asked the device for memory."""
    return sorted(label for label, result in runs.items()
                  if result.get("allocations_per_execution", 0) > 0)


def error_notes(prefix, results):
    """Notes on the results (name -> result) that have no time: one for all
    the runs the time budget skipped, one per other error."""
    skipped = [name for name, result in results.items()
               if result.get("error", "").startswith("skipped")]
    notes = [f"{prefix} {name}: {result['error']}"
             for name, result in results.items()
             if "error" in result and name not in skipped]
    if skipped:
        notes.append(f"{prefix}: skipped, the time budget of our runs being "
                     f"spent: {', '.join(skipped)}")
    return notes


def cell(value, format_spec="", missing="n/a"):
    return missing if value is None else format(value, format_spec)


def ratio(numerator, denominator):
    """numerator / denominator, or None when either is missing."""
    if numerator is None or denominator is None:
        return None
    return numerator / denominator


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def environment_lines(environment, ours=None):
    """The environment as markdown list items: PyTorch's, and what ours
    (ours.json) ran with."""
    if not environment:
        return ["- environment: not recorded (PyTorch did not run)"]
    variables = ", ".join(f"{name}={value}" for name, value
                          in environment["variables"].items())
    lines = [
        f"- {environment['date']}: {environment['gpus']} x {environment['gpu']} "
        f"({environment['gpu_memory_gib']} GiB), driver {environment['driver']}",
        f"- PyTorch {environment['torch']} (CUDA {environment['cuda']}, "
        f"NCCL {environment['torch_nccl']})",
        f"- environment: {variables}",
    ]
    if ours and "runtime_nccl" in ours:
        lines.append(f"- our runtime's NCCL: {ours['runtime_nccl']}, "
                     f"NCCL_MAX_CTAS={ours.get('nccl_max_ctas', 'unset')}")
    return lines
