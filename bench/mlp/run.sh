#!/usr/bin/env bash
# On the GPU machine (2 GPUs, PyTorch), after scripts/run-gpu-tests.sh
# built the runtime, with the folder bench/mlp/build.sh wrote: the
# tensor- and sequence-parallel MLPs against PyTorch in one run
# (bench_mlp.py says what it measures). Writes mlp.md (the tables, also
# printed) and mlp.json (every number).
# Usage: bench/mlp/run.sh [artifact-dir] [build-dir] [result-dir]
#   (defaults: gpu-artifacts/mlp/, build-gpu/ and build-dir/logs/)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/bench/overlap/steps.sh"
build=${2:-$root/build-gpu}
run_benchmark "$root/bench/mlp/bench_mlp.py" mlp \
  "${1:-$root/gpu-artifacts/mlp}" "$build" "${3:-$build/logs}"
