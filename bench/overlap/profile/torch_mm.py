#!/usr/bin/env python3
"""torch.mm's time for bf16 products on one GPU: median ms of 20 calls
after 3 warm-up calls, one line per product, and the BLAS library PyTorch
prefers.

    python3 torch_mm.py MxKxN...   (A [M, K] x B [K, N]; a matmul_ prefix,
                                    as gemms.mlir names them, is dropped)
"""
import sys

import torch


def median_ms(run):
    start, end = torch.cuda.Event(True), torch.cuda.Event(True)
    times = []
    for iteration in range(23):
        start.record()
        run()
        end.record()
        end.synchronize()
        if iteration >= 3:
            times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def main(names):
    if not names:
        sys.exit(__doc__)
    print("preferred BLAS:", torch.backends.cuda.preferred_blas_library())
    for name in names:
        m, k, n = map(int, name.removeprefix("matmul_").split("x"))
        a = torch.rand(m, k, device="cuda", dtype=torch.bfloat16) * 2 - 1
        b = torch.rand(k, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
        out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        milliseconds = median_ms(lambda: torch.mm(a, b, out=out))
        print(f"torch.mm {m}x{k}x{n} median_ms={milliseconds:.3f}")
        del a, b, out
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1:])
