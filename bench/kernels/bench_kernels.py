#!/usr/bin/env python3
"""Benchmarks the kernels of bench/kernels/kernels.mlir on one GPU.

On a GPU machine, with the library fuser-compile --target=cuda wrote and the
fuser-exec of a runtime built there (bench/kernels/run.sh passes both):

    bench_kernels.py kernels.so fuser-exec table.md [options]

Measures the device's copy bandwidth (a device-to-device copy with torch,
timed with CUDA events: GB/s = 2 * bytes / time), then for every program of
the library: our time from `fuser-exec --time` (the median over batches of
back-to-back executions, each batch between two device synchronizations),
and the same computation in PyTorch eager and under torch.compile (CUDA
events around each call after a warm-up; the median). Prints a markdown
table (time, GB/s and share of the copy bandwidth for ours, time and GB/s
for PyTorch, PyTorch's time over ours) with the environment, and writes it
to table.md. A program's kind comes from its name (bias_gelu_TxH, ...), its
shapes from the metadata the library carries; bytes moved are every input
read once and every output written once.
"""
import argparse
import json
import re
import shlex
import statistics
import subprocess
import sys
import time

ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i32": 4, "i64": 8}
TIMING = re.compile(r"fuser-exec: timing \S+: .* median_us=([\d.]+) ")


def read_metadata(library):
    """The JSON document fuser-compile embeds (fuser_program_metadata), read
    in a process of its own: loading the library loads the runtime and its
    NCCL, which must not stand in for PyTorch's own here."""
    script = ("import ctypes, sys\n"
              "library = ctypes.CDLL(sys.argv[1])\n"
              "text = ctypes.c_char.in_dll(library, 'fuser_program_metadata')\n"
              "sys.stdout.write(ctypes.string_at(ctypes.addressof(text)).decode())")
    return json.loads(subprocess.run(
        [sys.executable, "-c", script, library], capture_output=True,
        text=True, check=True).stdout)


def bytes_moved(program):
    return sum(
        ELEMENT_BYTES[tensor["dtype"]] * _count(tensor["shape"])
        for tensor in program["inputs"] + program["outputs"])


def _count(shape):
    count = 1
    for size in shape:
        count *= size
    return count


def kind_of(name):
    """bias_gelu_65536x8192 -> bias_gelu."""
    return name.rsplit("_", 1)[0]


def run_ours(args, name):
    """fuser-exec --time on one rank: the median time per execution in
    microseconds and the lines it printed, or None and the lines when it
    failed."""
    command = shlex.split(args.mpirun) + [
        args.fuser_exec, args.library, "--program", name,
        "--iterations", str(args.iterations + 1), "--time",
        "--time-batch", str(args.batch)]
    if args.check:
        command.append("--check")
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True,
                              timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return None, [f"timed out after {args.timeout} s: {shlex.join(command)}"]
    lines = (done.stdout + done.stderr).strip().splitlines()
    timing = TIMING.search(done.stdout)
    if done.returncode != 0 or not timing:
        return None, [f"exit {done.returncode}: {shlex.join(command)}"] + lines
    return float(timing.group(1)), lines


class Torch:
    """PyTorch's side: the copy bandwidth, each kind as PyTorch writes it,
    eager and compiled timings. `problem` says why torch is not there."""

    def __init__(self, args):
        self.args = args
        self.problem = None
        try:
            import torch
            import torch.nn.functional as functional
        except ImportError as error:
            self.problem = f"PyTorch is not available: {error}"
            return
        if not torch.cuda.is_available():
            self.problem = "PyTorch sees no CUDA device"
            return
        self.torch, self.functional = torch, functional
        self.compile_problem = (None if hasattr(torch, "compile") else
                                "this PyTorch has no torch.compile")

    def kernel(self, kind):
        """The computation of a program of `kind`, on its inputs in the
        program's order, with the program's constants."""
        torch, functional = self.torch, self.functional
        kernels = {
            "bias_gelu": lambda x, b: functional.gelu(x + b, approximate="tanh"),
            "softmax": lambda x: torch.softmax(x, dim=-1),
            "layer_norm": lambda x, w, b: functional.layer_norm(
                x, (x.shape[-1],), w, b, eps=1e-5),
            "rms_norm": lambda x, w: functional.rms_norm(
                x, (x.shape[-1],), w, eps=1e-6),
            # The backward kernels autograd runs: the gradient of the input
            # only (the weight gradients are reductions over the rows).
            "gelu_backward": lambda dy, x: torch.ops.aten.gelu_backward(
                dy, x, approximate="tanh"),
            "layer_norm_backward":
                lambda dy, x, w, mean, rstd: torch.ops.aten.native_layer_norm_backward(
                    dy, x, (x.shape[-1],), mean.unsqueeze(-1),
                    rstd.unsqueeze(-1), w, None, [True, False, False])[0],
            "dropout_residual": lambda x, r: r + functional.dropout(
                x, 0.1, training=True),
        }
        return kernels.get(kind)

    def time_us(self, function, inputs):
        """Median over the timed calls, CUDA events around each."""
        torch = self.torch
        for _ in range(self.args.warmup):
            function(*inputs)
        torch.cuda.synchronize()
        events = [(torch.cuda.Event(enable_timing=True),
                   torch.cuda.Event(enable_timing=True))
                  for _ in range(self.args.torch_iterations)]
        for start, end in events:
            start.record()
            function(*inputs)
            end.record()
        torch.cuda.synchronize()
        return statistics.median(start.elapsed_time(end) * 1000
                                 for start, end in events)

    def copy_bandwidth(self):
        """GB/s of a device-to-device copy of --copy-bytes (read + write)."""
        torch = self.torch
        source = torch.empty(self.args.copy_bytes, dtype=torch.uint8,
                             device="cuda")
        target = torch.empty_like(source)
        microseconds = self.time_us(lambda: target.copy_(source), [])
        del source, target
        torch.cuda.empty_cache()
        return 2 * self.args.copy_bytes / (microseconds * 1e3)

    def inputs(self, program):
        """Uniform values in [-1, 1), as fuser-exec draws them."""
        torch = self.torch
        dtypes = {"f16": torch.float16, "bf16": torch.bfloat16,
                  "f32": torch.float32, "f64": torch.float64}
        return [torch.rand(tensor["shape"], dtype=dtypes[tensor["dtype"]],
                           device="cuda") * 2 - 1
                for tensor in program["inputs"]]

    def measure(self, program):
        """(eager µs, compiled µs, notes); a time is None where it could
        not be taken, with the reason in the notes."""
        function = self.kernel(kind_of(program["name"]))
        if function is None:
            return None, None, [f"no PyTorch version of {program['name']}"]
        inputs = self.inputs(program)
        notes = []
        eager = self.time_us(function, inputs)
        compiled = None
        if self.compile_problem:
            notes.append(self.compile_problem)
        else:
            try:
                compiled = self.time_us(
                    self.torch.compile(function, dynamic=False,
                                       mode=self.args.compile_mode), inputs)
            # Whatever stops the compiler (no Triton, no C compiler, ...)
            # leaves the eager numbers standing.
            except Exception as error:
                notes.append("torch.compile failed: " +
                             (str(error).strip().splitlines() or [repr(error)])[0])
        del inputs
        self.torch.cuda.empty_cache()
        return eager, compiled, notes

    def environment(self):
        torch = self.torch
        properties = torch.cuda.get_device_properties(0)
        return [
            f"GPU: {properties.name}, {properties.total_memory / 2**30:.0f} GiB, "
            f"{properties.multi_processor_count} SMs; driver {driver_version()}",
            f"PyTorch {torch.__version__} (CUDA {torch.version.cuda}), "
            f"Triton {triton_version()}",
        ]


def driver_version():
    try:
        return subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader",
             "--id=0"], capture_output=True, text=True, timeout=60,
            check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError) as error:
        return f"unknown ({error})"


def triton_version():
    try:
        import triton
        return triton.__version__
    except ImportError:
        return "not installed"


def gigabytes_per_second(moved, microseconds):
    return moved / (microseconds * 1e3)


def cell(value, format_spec):
    return "n/a" if value is None else format(value, format_spec)


def table(rows, copy_bandwidth):
    header = ("| kernel | shape | GB moved | ours µs | ours GB/s | ours % of copy"
              " | eager µs | eager GB/s | compile µs | compile GB/s"
              " | eager ÷ ours | compile ÷ ours |")
    lines = [header, "|" + "---|" * header.count(" | ") + "---|"]
    for row in rows:
        ours, eager, compiled = row["ours"], row["eager"], row["compiled"]
        rate = lambda us: None if us is None else gigabytes_per_second(
            row["moved"], us)
        share = (None if ours is None or copy_bandwidth is None else
                 100 * rate(ours) / copy_bandwidth)
        ratio = lambda us: None if us is None or ours is None else us / ours
        lines.append(
            f"| {row['kind']} | {row['shape']} | {row['moved'] / 1e9:.2f}"
            f" | {cell(ours, '.1f')} | {cell(rate(ours), '.0f')}"
            f" | {cell(share, '.1f')} | {cell(eager, '.1f')}"
            f" | {cell(rate(eager), '.0f')} | {cell(compiled, '.1f')}"
            f" | {cell(rate(compiled), '.0f')} | {cell(ratio(eager), '.2f')}"
            f" | {cell(ratio(compiled), '.2f')} |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("library", help="kernels.so (fuser-compile --target=cuda)")
    parser.add_argument("fuser_exec", help="fuser-exec of the runtime built here")
    parser.add_argument("output", help="the markdown file to write")
    parser.add_argument("--mpirun", default="mpirun --allow-run-as-root -np 1",
                        help="what starts fuser-exec on one rank ('' for none)")
    parser.add_argument("--iterations", type=int, default=100,
                        help="our timed executions, after one warm-up")
    parser.add_argument("--batch", type=int, default=5,
                        help="our executions between two synchronizations")
    parser.add_argument("--torch-iterations", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5,
                        help="PyTorch calls before the timed ones")
    parser.add_argument("--copy-bytes", type=int, default=2**30)
    parser.add_argument("--compile-mode", default="default",
                        help="torch.compile mode (max-autotune-no-cudagraphs, ...)")
    parser.add_argument("--programs", default="",
                        help="comma-separated programs (default: all)")
    parser.add_argument("--check", action="store_true",
                        help="also check ours against the CPU reference "
                             "(about a minute a program at 1 GiB)")
    parser.add_argument("--timeout", type=int, default=900,
                        help="seconds one fuser-exec run may take")
    args = parser.parse_args()

    programs = read_metadata(args.library)["programs"]
    if args.programs:
        chosen = args.programs.split(",")
        programs = [p for p in programs if p["name"] in chosen]
    torch = Torch(args)
    notes = []
    copy_bandwidth = None
    environment = [time.strftime("%Y-%m-%d %H:%M %Z")]
    if torch.problem:
        notes.append(torch.problem)
    else:
        environment += torch.environment()
        copy_bandwidth = torch.copy_bandwidth()
    rows, details = [], []
    for program in programs:
        name = program["name"]
        print(f"== {name}", flush=True)
        ours, lines = run_ours(args, name)
        details += [f"{name}:"] + [f"    {line}" for line in lines]
        if ours is None:
            notes.append(f"{name}: fuser-exec failed (details below)")
        eager = compiled = None
        if not torch.problem:
            eager, compiled, program_notes = torch.measure(program)
            notes += [f"{name}: {note}" for note in program_notes]
        rows.append({"kind": kind_of(name),
                     "shape": "x".join(map(str, program["inputs"][0]["shape"])),
                     "moved": bytes_moved(program),
                     "ours": ours, "eager": eager,
                     "compiled": compiled})

    report = ["# Kernels on one GPU: ours, PyTorch eager, torch.compile", ""]
    report += [f"- {line}" for line in environment]
    report.append("- copy bandwidth (device to device, 2 x "
                  f"{args.copy_bytes / 2**30:g} GiB moved): "
                  + (f"{copy_bandwidth:.0f} GB/s" if copy_bandwidth else "n/a"))
    report.append(
        f"- ours: fuser-exec --time, median over batches of {args.batch} "
        f"back-to-back executions ({args.iterations} after a warm-up), the "
        "device synchronized before and after each batch"
        + (", checked against the CPU reference" if args.check else ""))
    report.append(
        f"- PyTorch: median of {args.torch_iterations} calls after "
        f"{args.warmup} warm-up calls, CUDA events around each; "
        f"torch.compile(dynamic=False, mode={args.compile_mode})")
    report.append("- GB = 1e9 bytes; A ÷ ours is A's time over ours "
                  "(above 1: ours is faster)")
    report += [""] + table(rows, copy_bandwidth)
    if notes:
        report += ["", "Notes:", ""] + [f"- {note}" for note in notes]
    report += ["", "fuser-exec output:", "", "```"] + details + ["```", ""]
    text = "\n".join(report)
    print(text)
    with open(args.output, "w") as output:
        output.write(text)
    return 0 if all(row["ours"] is not None for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
