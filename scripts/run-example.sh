#!/usr/bin/env bash
# The main job: installs what is missing, builds the compiler and the
# runtime, compiles the tensor-parallel MLP example (only its weights are
# annotated) for 2 ranks, prints the host program each rank runs, then runs
# it on 2 MPI ranks on this machine's CPU and checks the result against the
# unsharded program. (The example's gelu is a fused kernel, and kernels
# are generated for CPUs only so far: it runs on CPU ranks everywhere; GPU
# runs of kernel-free programs are scripts/run-gpu-tests.sh's.)
# Usage: scripts/run-example.sh [build-dir]   (default: build/)
set -euo pipefail
source "$(dirname "$0")/lib/build.sh"

build=${1:-$FUSER_ROOT/build}
fuser_install_packages
fuser_build "$build" -DFUSER_ENABLE_COMPILER=ON >/dev/null
example="$FUSER_ROOT/examples/tp_mlp.mlir"
"$build/bin/fuser-opt" "$example" --fuser-to-hostir-pipeline
library="$build/examples/tp_mlp.so"
mkdir -p "$build/examples"
"$build/bin/fuser-compile" "$example" -o "$library"
mpirun --allow-run-as-root --oversubscribe -np 2 \
  "$build/bin/fuser-exec" "$library" --iterations 10 --check
