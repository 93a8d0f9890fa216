#!/usr/bin/env bash
# On a development machine (with LLVM/MLIR), after
# scripts/build-gpu-artifacts.sh (which empties gpu-artifacts/): compiles
# the MLPs of bench/mlp/mlp.mlir for GPUs, one library per pipelining
# variant (bench_mlp.py) and MLP, into a folder the GPU machine gets with
# gpu-artifacts/. A failed build leaves a .log in the library's place.
# Usage: bench/mlp/build.sh [artifact-dir] [build-dir]
#   (defaults: gpu-artifacts/mlp/ and build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/bench/overlap/steps.sh"
build_benchmark "$root/bench/mlp/bench_mlp.py" \
  "${1:-$root/gpu-artifacts/mlp}" "${2:-$root/build}"
