#!/usr/bin/env bash
# The main job: installs what is missing, builds the compiler and the
# runtime, compiles the tensor-parallel MLP example (only its weights are
# annotated) for 2 ranks, prints the host program each rank runs, then runs
# it on 2 MPI ranks on this machine's CPU and checks the result against the
# unsharded program. Where this machine has 2 GPUs it compiles for them
# (--target=cuda: cuBLASLt applies the gelu in the first GEMM's epilogue)
# and runs one rank per GPU.
# Usage: scripts/run-example.sh [build-dir]   (default: build/)
set -euo pipefail
source "$(dirname "$0")/lib/build.sh"

build=${1:-$FUSER_ROOT/build}
fuser_install_packages
fuser_build_reporting "$build" -DFUSER_ENABLE_COMPILER=ON
example="$FUSER_ROOT/examples/tp_mlp.mlir"
echo "the host program each rank runs (fuser-opt --fuser-to-hostir-pipeline):"
"$build/bin/fuser-opt" "$example" --fuser-to-hostir-pipeline
library="$build/examples/tp_mlp.so"
mkdir -p "$build/examples"
target=cpu
if command -v nvidia-smi >/dev/null &&
   [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -ge 2 ]; then
  target=cuda
fi
echo "compiling $example for $target ranks: $library"
"$build/bin/fuser-compile" "$example" --target="$target" -o "$library"
echo "running it on 2 ranks, checked against the unsharded program"
NCCL_NVLS_ENABLE=0 mpirun --allow-run-as-root --oversubscribe -np 2 \
  "$build/bin/fuser-exec" "$library" --iterations 10 --check
