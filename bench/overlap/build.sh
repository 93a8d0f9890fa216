#!/usr/bin/env bash
# On a development machine (with LLVM/MLIR), after
# scripts/build-gpu-artifacts.sh (which empties gpu-artifacts/): compiles
# the overlap benchmark's programs for GPUs, one library per variant and
# program (AllGather+GEMM and GEMM+ReduceScatter at every shape, each
# pipelining variant of programs.py), into a folder the GPU machine gets
# with gpu-artifacts/. A program a variant cannot compile leaves a .log
# beside where its library would be and the others are still built (the
# benchmark reports it as not built). Ends with the count and total size.
# FUSER_BENCH_DEVICES=D (default 2) builds them for D GPUs, and names the
# programs that cannot exist there (dims that do not divide).
# Usage: [FUSER_BENCH_DEVICES=D] bench/overlap/build.sh [artifact-dir] [build-dir]
#   (defaults: gpu-artifacts/overlap/ on 2 GPUs, gpu-artifacts/overlap-dD/
#   on D; build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/bench/overlap/steps.sh"
devices=${FUSER_BENCH_DEVICES:-2}
build_benchmark "$root/bench/overlap/bench_overlap.py" \
  "${1:-$root/gpu-artifacts/$(benchmark_name overlap "$devices")}" "${2:-$root/build}" "$devices"
