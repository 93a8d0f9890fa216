#!/usr/bin/env bash
# On the GPU machine (PyTorch), after scripts/run-gpu-tests.sh built the
# runtime, with the folder bench/overlap/build.sh wrote: the whole
# AllGather+GEMM / GEMM+ReduceScatter benchmark in one run
# (bench_overlap.py says what each step measures). Writes overlap.md (the
# tables, also printed) and overlap.json (every number).
# FUSER_BENCH_DEVICES=D (default 2) runs it on D GPUs, PyTorch's side too,
# from the folder build.sh wrote with the same D, into overlap-dD.md and
# overlap-dD.json.
# Usage: [FUSER_BENCH_DEVICES=D] bench/overlap/run.sh [artifact-dir] [build-dir]
#          [result-dir]
#   (defaults: gpu-artifacts/overlap/ on 2 GPUs, gpu-artifacts/overlap-dD/
#   on D; build-gpu/; build-dir/logs/)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/bench/overlap/steps.sh"
devices=${FUSER_BENCH_DEVICES:-2}
name=$(benchmark_name overlap "$devices")
build=${2:-$root/build-gpu}
run_benchmark "$root/bench/overlap/bench_overlap.py" "$name" \
  "${1:-$root/gpu-artifacts/$name}" "$build" "${3:-$build/logs}" "$devices"
