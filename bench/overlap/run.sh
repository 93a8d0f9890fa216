#!/usr/bin/env bash
# On the GPU machine (2 GPUs, PyTorch), after scripts/run-gpu-tests.sh
# built the runtime, with the folder bench/overlap/build.sh wrote: the
# whole AllGather+GEMM / GEMM+ReduceScatter benchmark in one run
# (bench_overlap.py says what each step measures). Writes overlap.md (the
# tables, also printed) and overlap.json (every number).
# Usage: bench/overlap/run.sh [artifact-dir] [build-dir] [result-dir]
#   (defaults: gpu-artifacts/overlap/, build-gpu/ and build-dir/logs/)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/bench/overlap/steps.sh"
build=${2:-$root/build-gpu}
run_benchmark "$root/bench/overlap/bench_overlap.py" overlap \
  "${1:-$root/gpu-artifacts/overlap}" "$build" "${3:-$build/logs}"
