#!/usr/bin/env bash
# On a development machine (with LLVM/MLIR): compiles the programs the GPU
# machines run into one folder, with a list of the runs to make and the
# GoogleTest the runtime's tests build against (GPU machines have no LLVM
# and no GoogleTest). Then, on a GPU machine: scripts/run-gpu-tests.sh.
# Usage: scripts/build-gpu-artifacts.sh [artifact-dir] [build-dir]
#   (defaults: gpu-artifacts/ and build/; gpu-artifacts/ is ignored by git)
set -euo pipefail
source "$(dirname "$0")/lib/build.sh"

artifacts=${1:-$FUSER_ROOT/gpu-artifacts}
build=${2:-$FUSER_ROOT/build}
fuser_install_packages
fuser_build "$build" -DFUSER_ENABLE_COMPILER=ON >/dev/null
rm -rf "$artifacts"
mkdir -p "$artifacts/gtest/lib"
cp -r /usr/include/gtest "$artifacts/gtest/include"
cp /usr/lib/x86_64-linux-gnu/libgtest.a /usr/lib/x86_64-linux-gnu/libgtest_main.a \
   "$artifacts/gtest/lib/"

compile() { # <library> <program.mlir> [fuser-compile options...]
  local library=$1 source=$2
  shift 2
  "$build/bin/fuser-compile" "$source" -o "$artifacts/$library" --target=cuda "$@"
  rm -f "$artifacts/$library.json"
}
runs="$artifacts/runs.txt"
: >"$runs"
# run <library> <program> <iterations>: a line of the list run-gpu-tests.sh reads.
run() { echo "$1 $2 $3" >>"$runs"; }

# Every program of the communications test that needs no kernel (the others
# wait for GPU kernels), views at both ends included.
communications="$FUSER_ROOT/test/e2e/Inputs/communications.mlir"
for program in gather_rows slice_rows allreduce reduce_scatter scatter swap \
               reduce view_ends; do
  compile "$program.so" "$communications" --program="$program"
  run "$program.so" "$program" 100
done

# AG+GEMM and GEMM+RS in bf16: collective over NCCL, ring over CUDA IPC and
# over NCCL.
overlap="$FUSER_ROOT/test/gpu/Inputs/overlap.mlir"
# GEMM+RS reduce-scatters its result (the weight stays where it is).
compile overlap-collective.so "$overlap" --backend=nccl --pipelining=collective --reshard-placement=after
compile overlap-ring-ipc.so "$overlap" --backend=cuda_ipc --pipelining=ring --reshard-placement=after
compile overlap-ring-nccl.so "$overlap" --backend=nccl --pipelining=ring --reshard-placement=after
for library in overlap-collective.so overlap-ring-ipc.so overlap-ring-nccl.so; do
  for size in 2048_1024_4096 4096_4096_4096 8192_8192_8192; do
    for program in ag_gemm gemm_rs; do
      run "$library" "${program}_$size" 20
    done
  done
done
echo "$(wc -l <"$runs") runs in $artifacts"
