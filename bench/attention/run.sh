#!/usr/bin/env bash
# On a GPU machine: times the runtime's cuDNN attention (sdpa_bench.cpp,
# built here against the runtime in the build folder) beside PyTorch's
# scaled_dot_product_attention with each of its backends (torch_sdpa.py)
# on b = 1, h = 48 and 24, s = 2048, d = 128, causal, bf16, and prints a
# markdown table: median ms and TFLOP/s per direction, and ours against
# PyTorch's fastest backend.
#
# Usage: bench/attention/run.sh [build-dir]   (default: build-gpu/, a
#   runtime-only build with the CUDA backend and cuDNN)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build-gpu}" && pwd)
here="$root/bench/attention"
bench="$build/sdpa_bench"
g++ -O2 -std=c++17 -I"$root/include" "$here/sdpa_bench.cpp" \
  -L"$build/runtime" -lFuserRuntime -Wl,-rpath,"$build/runtime" -o "$bench"
results=$(mktemp)
for heads in 48 24; do
  NCCL_NVLS_ENABLE=0 mpirun --allow-run-as-root -np 1 "$bench" "$heads" >>"$results"
done
python3 "$here/torch_sdpa.py" 48 24 >>"$results"
python3 - "$results" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    name, direction, heads, ms, tflops = line.split()
    rows.setdefault((heads, direction), {})[name] = (float(ms), float(tflops))
names = ["ours", "cudnn", "flash", "efficient"]
print("| shape | direction | " + " | ".join(f"{n} ms (TFLOP/s)" for n in names)
      + " | ours / PyTorch's best |")
print("|---|---|" + "---|" * (len(names) + 1))
for (heads, direction), times in rows.items():
    cells = [f"{times[n][0]:.3f} ({times[n][1]:.0f})" if n in times else "-"
             for n in names]
    best = min(times[n][0] for n in names[1:] if n in times)
    print(f"| b=1 {heads} s=2048 d=128 causal | {direction} | "
          + " | ".join(cells) + f" | {best / times['ours'][0]:.2f} |")
PY
rm -f "$results"
