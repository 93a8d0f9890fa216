"""PyTorch's scaled_dot_product_attention with each of its GPU backends
(cudnn, flash, efficient) on the shapes sdpa_bench.cpp times: b = 1,
s = 2048, d = 128, causal, bf16, for each h given. Each direction timed
alone on CUDA events after a warm-up, median of 25; prints lines as
sdpa_bench does: "<backend> <forward|backward> h=<h> <median ms> <TFLOP/s>"
(FlashAttention's FLOP count)."""
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BATCH, SEQUENCE, DEPTH = 1, 2048, 128
WARMUP, RUNS = 3, 25
BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION,
            "flash": SDPBackend.FLASH_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


def median_ms(call):
    for _ in range(WARMUP):
        call()
    times = []
    for _ in range(RUNS):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def main():
    for heads in [int(h) for h in sys.argv[1:]] or [48, 24]:
        shape = (BATCH, heads, SEQUENCE, DEPTH)
        q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16,
                               requires_grad=True) for _ in range(3))
        grad = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
        flops = 4.0 * BATCH * heads * SEQUENCE**2 * DEPTH / 2
        for name, backend in BACKENDS.items():
            with sdpa_kernel(backend):
                forward = median_ms(
                    lambda: F.scaled_dot_product_attention(q, k, v,
                                                           is_causal=True))
                out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                backward = median_ms(lambda: torch.autograd.grad(
                    out, (q, k, v), grad, retain_graph=True))
            print(f"{name} forward h={heads} {forward:.4f} "
                  f"{flops / forward / 1e9:.1f}")
            print(f"{name} backward h={heads} {backward:.4f} "
                  f"{2.5 * flops / backward / 1e9:.1f}")


if __name__ == "__main__":
    main()
