#!/usr/bin/env bash
# The main job: installs what is missing, builds the compiler and compiles
# the tensor-parallel MLP example (weights annotated) through the whole
# pipeline (sharding propagation, resharding decomposition, layouts,
# segmentation, lowering) and prints the host program each rank runs. Execution on ranks arrives with the runtime.
# Usage: scripts/run-example.sh [build-dir]   (default: build/)
set -euo pipefail
source "$(dirname "$0")/lib/build.sh"

build=${1:-$FUSER_ROOT/build}
fuser_install_packages
fuser_build "$build" -DFUSER_ENABLE_COMPILER=ON >/dev/null
"$build/bin/fuser-opt" "$FUSER_ROOT/examples/tp_mlp.mlir" --fuser-to-hostir-pipeline
echo "examples/tp_mlp.mlir: compiled for 2 ranks: host program with one allreduce and its kernel module"
