#!/usr/bin/env python3
"""The overlap benchmark's programs on D CPU ranks, checked.

    check_cpu.py [--devices D] WORK FUSER_COMPILE FUSER_EXEC [--mpirun CMD]

Every library of programs.builds at programs.SMALL_SHAPES, compiled with
its variant's options for CPU ranks into WORK, runs under mpirun on D
ranks with fuser-exec --check against the unsharded program, so that the
programs a D-GPU run will time are known correct before a GPU sees them.
CPU ranks have no CUDA IPC: the variants that run their rings over it on
GPUs run them over NCCL (over MPI here). A program passes when its check
passes and its executions after the first allocate nothing. Prints the
cells that cannot exist on D devices, a line per program, then "N of M
programs passed on D CPU ranks"; exits 1 unless all did.
"""
import argparse
import os
import sys

import harness
import programs

# The first execution is the warm-up: two more show the allocation cache.
ITERATIONS = 2
TIMEOUT_S = 120


def cpu_options(options):
    """A variant's fuser-compile options (for GPUs) for CPU ranks."""
    on_cpu = {"--target=cuda": "--target=cpu",
              "--backend=cuda_ipc": "--backend=nccl"}
    return tuple(on_cpu.get(option, option) for option in options)


def verdict(result):
    """None where a run passed, else why not."""
    lines = result.get("lines", [])
    # fuser-exec's own lines say why, not mpirun's after them.
    said = " / ".join([line for line in lines if line.startswith("fuser-exec:")][-2:]
                      or lines[-3:])
    if "error" in result:
        return f"{result['error']}: {said}"
    if not result.get("reference_check", {}).get("passed"):
        return f"check failed: {said}"
    if result.get("allocations_per_execution") != 0:
        return (f"{result.get('allocations_per_execution', 'unknown')} "
                "allocations per execution")
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", type=programs.device_count,
                        default=programs.DEVICES,
                        help="CPU ranks (default %(default)s)")
    parser.add_argument("work", help="folder for the module and libraries")
    parser.add_argument("fuser_compile")
    parser.add_argument("fuser_exec")
    parser.add_argument("--mpirun", help="what starts the ranks (default: "
                        "mpirun --allow-run-as-root --oversubscribe -np D)")
    args = parser.parse_args()
    mpirun = args.mpirun or (f"mpirun --allow-run-as-root --oversubscribe "
                             f"-np {args.devices}")
    os.makedirs(args.work, exist_ok=True)
    source = os.path.join(args.work, "overlap.mlir")
    with open(source, "w") as output:
        output.write(programs.program_text(programs.SMALL_SHAPES, args.devices))
    for line in programs.unavailable_lines(programs.SMALL_SHAPES, args.devices):
        print(line)
    builds = programs.builds(programs.SMALL_SHAPES, args.devices)
    harness.compile_libraries(
        args.fuser_compile, source,
        [(variant.name, function, cpu_options(options))
         for variant, _, _, _, function, options in builds], args.work)
    runner = harness.FuserExec(args.fuser_exec, mpirun, ITERATIONS, TIMEOUT_S)
    # Variants that differ only in what CPU ranks lack (ring-ipc-s1 and
    # ring-nccl-s1) build the same program here: it runs once.
    verdicts = {}
    passed = 0
    for variant, label, _, _, function, options in builds:
        library = os.path.join(args.work, variant.name, function + ".so")
        program = (function, cpu_options(options))
        if program not in verdicts:
            verdicts[program] = (
                verdict(runner.run(library, function, check=True))
                if os.path.exists(library) else harness.build_log_reason(library))
        print(f"{label} {function}: {verdicts[program] or 'passed'}", flush=True)
        passed += verdicts[program] is None
    print(f"{passed} of {len(builds)} programs passed on {args.devices} CPU ranks")
    return 0 if passed == len(builds) else 1


if __name__ == "__main__":
    sys.exit(main())
