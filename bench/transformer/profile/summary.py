#!/usr/bin/env python3
"""One execution's launches from profile.sh's ncu CSVs: each launch's
device time in launch order, what it is (GEMM, attention, our kernel,
NCCL, other), and the totals per kind.

Usage: summary.py ncu-<mode>-forward.csv ncu-<mode>-backward.csv
                  ncu-<mode>-torch.csv
  Ours (fuser-exec, three executions): the last execution is the shortest
  suffix that repeats. PyTorch's (torch_layer.py): the launches between
  the last two spin kernels.
"""
import csv
import sys

SPIN = "spin_kernel"


def launches(path):
    """[(kernel name, microseconds)] of a CSV ncu wrote with
    --metrics gpu__time_duration.sum --csv."""
    rows = []
    with open(path) as lines:
        quoted = [line for line in lines if line.startswith('"')]
    for row in csv.DictReader(quoted):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "nsecond")
        scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3}.get(unit, 1e-3)
        rows.append((row["Kernel Name"], value * scale))
    return rows


def last_execution(rows):
    """The shortest suffix that the launches before it end with too: the
    last of two identical executions, since each of our kernels has a name
    of its own (an execution ending in a repeated run of library kernels
    would be cut short)."""
    names = [name for name, _ in rows]
    for length in range(1, len(names) // 2 + 1):
        if names[-length:] == names[-2 * length:-length]:
            return rows[-length:]
    raise SystemExit("no repeated execution in the profile")


def last_iteration(rows):
    spins = [i for i, (name, _) in enumerate(rows) if SPIN in name]
    if len(spins) < 2:
        raise SystemExit("torch profile: fewer than two spin kernels")
    return rows[spins[-2] + 1:spins[-1]]


def kind(name):
    lowered = name.lower()
    if "nccl" in lowered:
        return "nccl"
    if any(word in lowered for word in ("gemm", "sm90_xmma", "cutlass", "nvjet")):
        return "gemm"
    if any(word in lowered for word in ("flash", "fmha", "cudnn", "attention",
                                        "sdpa")):
        return "attention"
    if "_kernel_" in name and ("gpt_forward" in name or "gpt_backward" in name):
        return "ours"
    return "other"


def report(title, rows):
    print(f"## {title}: {len(rows)} launches, {sum(t for _, t in rows):.0f} us")
    totals = {}
    for index, (name, time) in enumerate(rows):
        totals[kind(name)] = totals.get(kind(name), 0.0) + time
        print(f"{index:3d} {time:9.1f} us  {kind(name):9s} {name[:110]}")
    print("totals: " + ", ".join(f"{k} {v:.0f} us" for k, v in
                                 sorted(totals.items(), key=lambda kv: -kv[1])))
    print()


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    forward, backward, torch = sys.argv[1:]
    report("ours forward", last_execution(launches(forward)))
    report("ours backward", last_execution(launches(backward)))
    report("PyTorch forward+backward", last_iteration(launches(torch)))


if __name__ == "__main__":
    main()
