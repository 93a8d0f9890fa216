#!/usr/bin/env bash
# On a development machine (with LLVM/MLIR), after
# scripts/build-gpu-artifacts.sh (which empties gpu-artifacts/): compiles
# the GPT-3 layer of examples/transformer for D GPUs, TP and SP, forward
# and backward, with dropout (timed) and without (validated against
# PyTorch), into a folder the GPU machine gets with gpu-artifacts/
# (bench_transformer.py says what each step measures).
# Usage: [FUSER_BENCH_DEVICES=D] bench/transformer/build.sh [artifact-dir] [build-dir]
#   (defaults: gpu-artifacts/transformer/ on 2 GPUs, gpu-artifacts/transformer-dD/
#   on D; build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/bench/overlap/steps.sh"
devices=${FUSER_BENCH_DEVICES:-2}
name=$(benchmark_name transformer "$devices")
build_benchmark "$root/bench/transformer/bench_transformer.py" \
  "${1:-$root/gpu-artifacts/$name}" "${2:-$root/build}" "$devices"
