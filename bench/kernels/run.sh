#!/usr/bin/env bash
# On a GPU machine, after scripts/run-gpu-tests.sh built the runtime there:
# benchmarks the kernels of bench/kernels/kernels.mlir (kernels.so, which
# scripts/build-gpu-artifacts.sh compiled) on one GPU against PyTorch eager
# and torch.compile, and writes the markdown table. Builds nothing.
# Usage: bench/kernels/run.sh [artifact-dir] [build-dir] [table.md] [bench_kernels.py options...]
#   (defaults: gpu-artifacts/, build-gpu/ and build-dir/logs/kernels.md;
#   options only after all three, see bench_kernels.py --help)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
artifacts=$(cd "${1:-$root/gpu-artifacts}" && pwd)
build=${2:-$root/build-gpu}
table=${3:-$build/logs/kernels.md}
shift $(($# < 3 ? $# : 3))
fuser_exec="$build/bin/fuser-exec"
[ -x "$fuser_exec" ] ||
  { echo "no $fuser_exec: run scripts/run-gpu-tests.sh first, which builds it"; exit 1; }
mkdir -p "$(dirname "$table")"
# Where the library finds the runtime, and where fuser-exec does.
export LD_LIBRARY_PATH="$build/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
python3 "$root/bench/kernels/bench_kernels.py" "$artifacts/kernels.so" "$fuser_exec" \
  "$table" "$@"
