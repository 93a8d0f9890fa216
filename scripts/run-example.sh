#!/usr/bin/env bash
# The main job: installs what is missing, builds the compiler and runs the
# tensor-parallel MLP example through fuser-opt, which parses and verifies the
# sharded program (shardings, shapes, the allreduce's partial-to-replicated
# step) and prints it back. Execution on ranks arrives with the runtime.
# Usage: scripts/run-example.sh [build-dir]   (default: build/)
set -euo pipefail
source "$(dirname "$0")/lib/build.sh"

build=${1:-$FUSER_ROOT/build}
fuser_install_packages
fuser_build "$build" -DFUSER_ENABLE_COMPILER=ON >/dev/null
"$build/bin/fuser-opt" "$FUSER_ROOT/examples/tp_mlp.mlir"
echo "examples/tp_mlp.mlir: verified (2-rank tensor-parallel MLP, one allreduce)"
