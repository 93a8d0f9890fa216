#!/usr/bin/env python3
"""PyTorch's layer (bench_transformer.py's, Megatron-style, on one rank)
forward and backward a few times, for ncu to time each kernel of, on one
rank (RANK=0 WORLD_SIZE=1). A spin kernel (torch.cuda._sleep) ends each
iteration, so that summary.py finds the last one.

Usage: torch_layer.py [--mode tp|sp] [--iterations N]
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "overlap"))
import bench_transformer  # noqa: E402
import harness  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=["tp", "sp"], default="tp")
    parser.add_argument("--iterations", type=int, default=2)
    args = parser.parse_args()
    ranks = harness.TorchRanks(29541)
    torch = ranks.torch
    generator = ranks.generator(bench_transformer.SEED)
    weights = bench_transformer.local_weights(
        ranks, bench_transformer.global_weights(ranks, generator))
    x = ranks.random((bench_transformer.BATCH, bench_transformer.SEQUENCE,
                      bench_transformer.HIDDEN), generator)
    layer = bench_transformer.torch_layer(ranks, weights, args.mode,
                                          bench_transformer.DROPOUT)
    for _ in range(args.iterations):
        for weight in weights.values():
            weight.grad = None
        out = layer(x)
        out.backward(torch.ones_like(out))
        torch.cuda._sleep(1)
    torch.cuda.synchronize()
    ranks.finish()


if __name__ == "__main__":
    main()
