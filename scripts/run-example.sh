#!/usr/bin/env bash
# The main job: installs what is missing, builds the compiler and compiles
# the tensor-parallel MLP example (weights annotated) through the fuser-level
# pipeline (sharding propagation, resharding decomposition, layouts), checks
# the result's stage contract and prints it. Execution on ranks arrives with the runtime.
# Usage: scripts/run-example.sh [build-dir]   (default: build/)
set -euo pipefail
source "$(dirname "$0")/lib/build.sh"

build=${1:-$FUSER_ROOT/build}
fuser_install_packages
fuser_build "$build" -DFUSER_ENABLE_COMPILER=ON >/dev/null
"$build/bin/fuser-opt" "$FUSER_ROOT/examples/tp_mlp.mlir" \
  -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings,fuser-reorder-sharded-axis,fuser-mark-aliases,fuser-infer-allocation-order,fuser-finalize-layouts,fuser-verify-stage{stage=laid-out}))'
echo "examples/tp_mlp.mlir: compiled for 2 ranks (shardings propagated, one allreduce, buffers laid out)"
