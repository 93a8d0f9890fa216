#!/usr/bin/env bash
# On the GPU machine (D GPUs, PyTorch), after scripts/run-gpu-tests.sh built
# the runtime, with the folder bench/transformer/build.sh wrote for the same
# D: the GPT-3 layer, ours against PyTorch in one run. Writes
# transformer.md (the tables, also printed) and transformer.json (every
# number), or transformer-dD.* on D GPUs.
# Usage: [FUSER_BENCH_DEVICES=D] bench/transformer/run.sh [artifact-dir]
#          [build-dir] [result-dir]
#   (defaults: gpu-artifacts/transformer/ on 2 GPUs,
#   gpu-artifacts/transformer-dD/ on D; build-gpu/; build-dir/logs/)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/bench/overlap/steps.sh"
devices=${FUSER_BENCH_DEVICES:-2}
name=$(benchmark_name transformer "$devices")
build=${2:-$root/build-gpu}
run_benchmark "$root/bench/transformer/bench_transformer.py" "$name" \
  "${1:-$root/gpu-artifacts/$name}" "$build" "${3:-$build/logs}" "$devices"
