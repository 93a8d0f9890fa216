#!/usr/bin/env bash
# On one GPU of the GPU machine, after scripts/run-gpu-tests.sh built the
# runtime, with bench/mlp/profile/compute-only.so compiled here
# (fuser-compile --target=cuda --backend=cuda_ipc compute-only.mlir -o
# compute-only.so): the time of each kernel of our compute-only MLP and of
# PyTorch's (ncu, clocks left alone), our layer's time, and the cuBLAS /
# cuBLASLt survey of its GEMMs.
# Usage: bench/mlp/profile/profile.sh [build-dir] [result-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../../build-gpu}
results=${2:-$build/logs}
mkdir -p "$results"
export LD_LIBRARY_PATH="$build/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
metrics=(--clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel)
ncu "${metrics[@]}" "$build/bin/fuser-exec" "$here/compute-only.so" --iterations 3 \
  >"$results/ncu.txt" 2>&1
ncu "${metrics[@]}" python3 "$here/torch_layer.py" >>"$results/ncu.txt" 2>&1
"$build/bin/fuser-exec" "$here/compute-only.so" --iterations 30 --time \
  >"$results/compute-only.log" 2>&1
nvcc -arch=sm_90 -O2 -std=c++17 "$here/gemm_survey.cu" -lcublasLt -lcublas \
  -o "$build/gemm_survey"
"$build/gemm_survey" >"$results/survey.txt" 2>&1
