#!/usr/bin/env bash
# On a development machine (with LLVM/MLIR), after
# scripts/build-gpu-artifacts.sh (which empties gpu-artifacts/): compiles
# the overlap benchmark's programs for GPUs, one library per variant and
# program (AllGather+GEMM and GEMM+ReduceScatter at every shape, each
# pipelining variant of programs.py), into a folder the GPU machine gets
# with gpu-artifacts/. A program a variant cannot compile leaves a .log
# beside where its library would be and the others are still built (the
# benchmark reports it as not built). Ends with the count and total size.
# Usage: bench/overlap/build.sh [artifact-dir] [build-dir]
#   (defaults: gpu-artifacts/overlap/ and build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/bench/overlap/steps.sh"
build_benchmark "$root/bench/overlap/bench_overlap.py" \
  "${1:-$root/gpu-artifacts/overlap}" "${2:-$root/build}"
