#!/usr/bin/env python3
"""The host-overhead program in PyTorch, timed as fuser-exec times ours.

Under mpirun, one rank per GPU (bench/host-overhead/run.sh starts it):

    torch_program.py [--executions N] [--batch B]

On 2 ranks it is program.mlir: two tensor-parallel MLP blocks on x [16, 64]
(linear, SiLU, linear, all_reduce of the partial sums over NCCL, adding the
block's input back), the weights split as ours are. On 1 rank it is
local.mlir: the same blocks with their weights whole and no all_reduce.

Each way (eager: each execution issues its operations; graph: one execution
captured as a CUDA graph and replayed) runs a warm-up, then the executions
in batches of back-to-back calls: before a batch the device is drained and
the ranks meet at a host barrier; the host's time to issue the batch and the
device's (CUDA events) are taken per execution, the slowest rank's per
batch. Prints one line per way and measure:

    torch <way>: <host|device> median_us=... min_us=... max_us=...
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "overlap"))
from harness import TorchRanks  # noqa: E402

TOKENS, MODEL, HIDDEN = 16, 64, 128
WARMUP = 20


def make_program(ranks):
    torch, dist = ranks.torch, ranks.dist
    functional = torch.nn.functional
    generator = ranks.generator(0)
    hidden = HIDDEN // ranks.size

    def uniform(*shape):
        return torch.rand(shape, generator=generator, device=ranks.device) * 2 - 1

    x = uniform(TOKENS, MODEL)
    w1 = uniform(HIDDEN, MODEL)[ranks.rank * hidden:(ranks.rank + 1) * hidden]
    w2 = uniform(MODEL, HIDDEN)[:, ranks.rank * hidden:(ranks.rank + 1) * hidden]
    w1, w2 = w1.contiguous(), w2.contiguous()

    def block(value):
        partial = functional.linear(functional.silu(functional.linear(value, w1)), w2)
        if ranks.size > 1:
            dist.all_reduce(partial)
        return value + partial

    return lambda: block(block(x))


def as_graph(ranks, program):
    """One execution of `program` captured as a CUDA graph, replayed by the
    function returned (warmed up on a side stream first, as PyTorch asks)."""
    torch = ranks.torch
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            program()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        program()
    return graph.replay


def time_batches(ranks, execute, executions, batch):
    """Per batch, the slowest rank's host and device microseconds per
    execution."""
    torch, dist = ranks.torch, ranks.dist
    for _ in range(WARMUP):
        execute()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    host, device = [], []
    for done in range(0, executions, batch):
        count = min(batch, executions - done)
        torch.cuda.synchronize()
        dist.barrier(group=ranks.host_group)
        start.record()
        issued = time.perf_counter()
        for _ in range(count):
            execute()
        host.append((time.perf_counter() - issued) * 1e6 / count)
        end.record()
        torch.cuda.synchronize()
        device.append(start.elapsed_time(end) * 1e3 / count)
    times = torch.tensor([host, device], dtype=torch.float64)
    dist.all_reduce(times, op=dist.ReduceOp.MAX, group=ranks.host_group)
    return times.tolist()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--executions", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--port", type=int, default=29541)
    args = parser.parse_args()
    ranks = TorchRanks(args.port)
    program = make_program(ranks)
    for way in ("eager", "graph"):
        execute = program if way == "eager" else as_graph(ranks, program)
        host, device = time_batches(ranks, execute, args.executions, args.batch)
        if ranks.rank == 0:
            for measure, times in (("host", host), ("device", device)):
                print(f"torch {way}: {measure} median_us={statistics.median(times):.3f} "
                      f"min_us={min(times):.3f} max_us={max(times):.3f}", flush=True)
        # A graph that holds NCCL's kernels keeps the process group from
        # being destroyed: it goes first.
        del execute
    ranks.torch.cuda.synchronize()
    ranks.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
