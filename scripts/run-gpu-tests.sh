#!/usr/bin/env bash
# On a GPU machine (CUDA, NCCL, OpenMPI, CMake; no LLVM): builds the
# runtime-only tree with the CUDA backend, runs the runtime's GPU tests and
# every program scripts/build-gpu-artifacts.sh compiled, on 2 GPUs under
# mpirun, each checked against its CPU reference. Ends with one line:
# "N passed, N failed". NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
# Usage: scripts/run-gpu-tests.sh [artifact-dir] [build-dir]
#   (defaults: gpu-artifacts/ and build-gpu/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/tally.sh"

artifacts=$(cd "${1:-$root/gpu-artifacts}" && pwd)
build=${2:-$root/build-gpu}
export NCCL_NVLS_ENABLE=0
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DFUSER_ENABLE_COMPILER=OFF -DFUSER_ENABLE_CUDA=ON -DFUSER_ENABLE_MPI=ON \
  -DFUSER_ENABLE_PYTHON=OFF -DGTEST_ROOT="$artifacts/gtest" \
  >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1 ||
  { tail -n 40 "$build/build.log"; exit 1; }
export LD_LIBRARY_PATH="$build/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# A run that outlives its bound is killed and counted as failed, so that a
# hang costs minutes, not the machine.
mpirun_2=(timeout -s KILL 300 mpirun --allow-run-as-root --oversubscribe -np 2
          -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH)

# The tests include a wait that must time out: keep the bound short. The
# host tests and each GPU suite run in processes of their own, so that a
# suite starts from a fresh backend.
for suite in -Cuda'*' CudaCollectives'.*' CudaMemory'.*' CudaLibrary'.*' CudaIpc'.*'; do
  run_gtest "${mpirun_2[@]}" -x FUSER_TIMEOUT_S=5 -x FUSER_EXPECT_GPU=1 \
    "$build/runtime/test/FuserRuntimeTests" --gtest_filter="$suite" </dev/null
done

while read -r library program iterations; do
  echo "== $library $program"
  run_check "${mpirun_2[@]}" -x FUSER_TIMEOUT_S=120 \
    "$build/bin/fuser-exec" "$artifacts/$library" \
    --program "$program" --iterations "$iterations" --check </dev/null
done <"$artifacts/runs.txt"
tally_report
