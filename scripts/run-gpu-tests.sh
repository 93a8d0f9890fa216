#!/usr/bin/env bash
# On a GPU machine (CUDA, NCCL, OpenMPI, CMake; no LLVM): builds the
# runtime-only tree with the CUDA backend, runs the runtime's GPU tests and
# every program scripts/build-gpu-artifacts.sh compiled on as many GPUs as
# it has ranks, each checked against its CPU reference, the programs the
# list marks "graph" once more as CUDA graph replays (fuser-exec --graph),
# the ones it marks "two-nodes" once more on two simulated nodes
# (FUSER_RANKS_PER_NODE, with the runtime's tests of nodes),
# the ones it marks "sanitize" under compute-sanitizer memcheck and
# racecheck, and the TP MLPs from Python with PyTorch tensors on the GPUs
# (where python3 has PyTorch and pybind11).
# Ends with one line: "N passed, N failed". NVLink multicast stays off
# (NCCL_NVLS_ENABLE=0).
# Usage: scripts/run-gpu-tests.sh [artifact-dir] [build-dir] [log-dir]
#   (defaults: gpu-artifacts/, build-gpu/ and build-dir/logs/)
# The log folder gets, as they are written, this script's output
# (run-gpu-tests.log) and one log per sanitizer run (<tool>.<library>.<program>.log).
# Environment:
#   FUSER_GPU_STEPS   which steps to run, of "gtest runs graphs nodes
#                     memcheck racecheck python" (all by default), so that
#                     each can be a command of its own
#   FUSER_GPU_FILTER  an extended regex: only the runs whose line of runs.txt matches
#   FUSER_SANITIZER_OPTIONS  more compute-sanitizer options, e.g.
#                     "--kernel-name-exclude kns=nccl"
#   FUSER_RANKS_PER_GPU  ranks that share each GPU (docs/runtime.md), so
#                     that a machine of fewer GPUs runs the multi-rank
#                     tests: their results are checked, their times mean
#                     nothing
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/tally.sh"

artifacts=$(cd "${1:-$root/gpu-artifacts}" && pwd)
build=${2:-$root/build-gpu}
logs=${3:-$build/logs}
steps=" ${FUSER_GPU_STEPS:-gtest runs graphs nodes memcheck racecheck python} "
filter=${FUSER_GPU_FILTER:-.}
# NCCL probes kernel images it does not ship for every architecture
# (cudaFuncGetAttributes returning cudaErrorNoKernelImageForDevice, which
# it handles); the sanitizers check memory accesses and races, not the
# return codes of the API calls libraries make.
read -ra sanitizer_options <<<"${FUSER_SANITIZER_OPTIONS:---report-api-errors no}"
sanitizer=/usr/local/cuda/bin/compute-sanitizer
export NCCL_NVLS_ENABLE=0
mkdir -p "$build" "$logs"
exec > >(tee -a "$logs/run-gpu-tests.log") 2>&1
has_step() { [[ $steps == *" $1 "* ]]; }
# The Python package (its runtime module) where the step asks for it and
# python3 has pybind11's CMake files.
python_options=(-DFUSER_ENABLE_PYTHON=OFF)
if has_step python && pybind11_dir=$(python3 -m pybind11 --cmakedir 2>/dev/null); then
  python_options=(-DFUSER_ENABLE_PYTHON=ON -Dpybind11_DIR="$pybind11_dir"
                  -DPython_EXECUTABLE="$(command -v python3)")
fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DFUSER_ENABLE_COMPILER=OFF -DFUSER_ENABLE_CUDA=ON -DFUSER_ENABLE_MPI=ON \
  "${python_options[@]}" -DGTEST_ROOT="$artifacts/gtest" \
  >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1 ||
  { tail -n 40 "$build/build.log"; exit 1; }
export LD_LIBRARY_PATH="$build/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# on_ranks <ranks> <mpirun options and command...>: a run that outlives its
# bound is killed and counted as failed, so that a hang costs minutes, not
# the machine.
on_ranks() {
  local ranks=$1
  shift
  timeout -s KILL 300 mpirun --allow-run-as-root --oversubscribe -np "$ranks" \
    -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH "${share_options[@]}" "$@"
}
# logged <file> <command...>: the command's output goes to the file as it
# comes.
logged() {
  local log=$1
  shift
  "$@" >"$log" 2>&1
}
# The GPUs a run can take: the ones CUDA_VISIBLE_DEVICES leaves, or all.
if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
  IFS=, read -ra visible <<<"$CUDA_VISIBLE_DEVICES"
  gpus=${#visible[@]}
else
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
fi
# The ranks they take.
share_options=()
[ -z "${FUSER_RANKS_PER_GPU:-}" ] || share_options=(-x FUSER_RANKS_PER_GPU)
capacity=$((gpus * ${FUSER_RANKS_PER_GPU:-1}))

# The tests include a wait that must time out: keep the bound short. The
# host tests and each GPU suite run in processes of their own, so that a
# suite starts from a fresh backend.
if has_step gtest; then
  # The host backend's suites on two ranks; the CUDA ones on as many ranks
  # as the GPUs take, up to two (the tests skip what needs more ranks).
  cuda_ranks=$((capacity < 2 ? 1 : 2))
  for suite in -Cuda'*' CudaStart'.*' CudaCollectives'.*' CudaMemory'.*' CudaLibrary'.*' CudaIpc'.*' CudaKernels'.*' CudaGraphs'.*' CudaTimers'.*' CudaAttention'.*'; do
    ranks=$cuda_ranks
    [[ $suite == -Cuda'*' ]] && ranks=2
    run_gtest on_ranks "$ranks" -x FUSER_TIMEOUT_S=5 -x FUSER_EXPECT_GPU=1 \
      "$build/runtime/test/FuserRuntimeTests" --gtest_filter="$suite" </dev/null
  done
fi

# Two simulated nodes of half the ranks each: what the runtime knows of
# them, and CUDA IPC refused between them.
if has_step nodes && ((capacity >= 2)); then
  run_gtest on_ranks 2 -x FUSER_TIMEOUT_S=5 -x FUSER_EXPECT_GPU=1 \
    -x FUSER_RANKS_PER_NODE=1 "$build/runtime/test/FuserRuntimeTests" \
    --gtest_filter='Topology.*:CudaIpc.TeamsAcrossNodesCannotShare:CudaCollectives.*' </dev/null
fi

# Each line: <ranks> <library> <program> <iterations> [sanitize] [graph]
# [two-nodes].
# As graph replays, the iterations after the first replay a graph captured
# after it. Under a sanitizer a program runs twice (the first execution
# allocates, the second reuses), each rank wrapped, and any report fails
# the run.
not_run=()
while read -r ranks library program iterations flags; do
  if ((ranks > capacity)); then
    not_run+=("$library $program ($ranks ranks)")
    continue
  fi
  exec_program=("$build/bin/fuser-exec" "$artifacts/$library" --program "$program" --check)
  if has_step runs; then
    echo "== $library $program"
    run_check on_ranks "$ranks" -x FUSER_TIMEOUT_S=120 \
      "${exec_program[@]}" --iterations "$iterations" </dev/null
  fi
  if has_step graphs && [[ " $flags " == *" graph "* ]]; then
    echo "== $library $program --graph"
    run_check on_ranks "$ranks" -x FUSER_TIMEOUT_S=120 \
      "${exec_program[@]}" --iterations "$iterations" --graph </dev/null
  fi
  if has_step nodes && [[ " $flags " == *" two-nodes "* ]]; then
    echo "== $library $program on two nodes"
    run_check on_ranks "$ranks" -x FUSER_TIMEOUT_S=120 \
      -x FUSER_RANKS_PER_NODE=$((ranks / 2)) "${exec_program[@]}" \
      --iterations "$iterations" </dev/null
  fi
  [[ " $flags " == *" sanitize "* ]] || continue
  for tool in memcheck racecheck; do
    has_step "$tool" || continue
    log="$logs/$tool.${library%.so}.$program.log"
    echo "== $tool $library $program (log: $log)"
    run_check logged "$log" on_ranks "$ranks" --tag-output -x FUSER_TIMEOUT_S=240 \
      "$sanitizer" --tool "$tool" --error-exitcode 1 "${sanitizer_options[@]}" \
      "${exec_program[@]}" --iterations 2 </dev/null
    grep -h -e 'ERROR SUMMARY' -e 'RACECHECK SUMMARY' -e 'fuser-exec:' "$log" || true
  done
done < <(grep -E "$filter" "$artifacts/runs.txt")
# The TP MLPs (f32 and bf16) from Python: PyTorch tensors on each rank's
# GPU, global and as pieces, on PyTorch's stream and on a side stream.
if has_step python && ((capacity < 2)); then
  not_run+=("python run_tp_mlp_tensors.py (2 ranks)")
elif has_step python; then
  if [ -d "$build/python_packages/fuser_mlir" ] && python3 -c "import torch" 2>/dev/null; then
    for library in tp-mlp.so tp-mlp-bf16.so; do
      echo "== python $library"
      run_check on_ranks 2 -x FUSER_TIMEOUT_S=120 -x TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
        -x PYTHONPATH="$build/python_packages" python3 \
        "$root/python/test/run_tp_mlp_tensors.py" "$artifacts/$library" --torch </dev/null
    done
  else
    echo "python: not run (the package needs pybind11, the runs PyTorch)"
    failed=$((failed + 1))
  fi
fi
if ((${#not_run[@]})); then
  echo "not run, more ranks than the $gpus GPUs here take ($capacity):"
  printf '  %s\n' "${not_run[@]}"
fi
tally_report
