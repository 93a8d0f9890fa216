#!/usr/bin/env bash
# On a GPU machine (no LLVM): builds the runtime and its Python module, then
# trains examples/transformer/train_gpt.py from the libraries
# `train_gpt.py --compile-to gpu-artifacts/train --target cuda` wrote where
# the compiler is, beside plain PyTorch (--compare): under torchrun with
# plain tensors and with DTensor weights, and under mpirun. With fewer GPUs
# than ranks the ranks share them (FUSER_RANKS_PER_GPU): the results are
# checked, the times mean nothing.
# Usage: bench/torch/run-on-gpus.sh [ranks] [out-dir]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ranks=${1:-2}
out=${2:-$root/build-gpu/torch}
mkdir -p "$out"
build=$root/build-gpu
pybind11_dir=$(python3 -m pybind11 --cmakedir 2>/dev/null || python3 -c \
  'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "share/cmake"))')
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DFUSER_ENABLE_COMPILER=OFF -DFUSER_ENABLE_CUDA=ON -DFUSER_ENABLE_MPI=ON \
  -DFUSER_ENABLE_PYTHON=ON -Dpybind11_DIR="$pybind11_dir" \
  -DPython_EXECUTABLE="$(command -v python3)" -DFUSER_BUILD_TESTS=OFF \
  >"$out/configure.log" 2>&1 || { tail -n 30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" >"$out/build.log" 2>&1 ||
  { tail -n 40 "$out/build.log"; exit 1; }
gpus=$(nvidia-smi -L | grep -c '^GPU')
export PYTHONPATH=$build/python_packages NCCL_NVLS_ENABLE=0 FUSER_TIMEOUT_S=120
if ((gpus < ranks)); then
  export FUSER_RANKS_PER_GPU=$(((ranks + gpus - 1) / gpus))
fi
train=("$root/examples/transformer/train_gpt.py" --target cuda
       --libraries "$root/gpu-artifacts/train" --compare --steps 50)
status=0
run() {
  local name=$1
  shift
  echo "== $name: $*"
  timeout -s KILL 400 "$@" >"$out/$name.log" 2>&1 || status=1
  grep -E "step (0|49):|rank [0-9]+:|Error|error" "$out/$name.log" | head -20
}
run torchrun torchrun --nproc-per-node "$ranks" "${train[@]}"
run torchrun-dtensor torchrun --nproc-per-node "$ranks" "${train[@]}" --dtensor
run mpirun mpirun --allow-run-as-root --oversubscribe -np "$ranks" \
  -x PYTHONPATH -x NCCL_NVLS_ENABLE -x FUSER_TIMEOUT_S -x FUSER_RANKS_PER_GPU \
  python3 "${train[@]}"
exit $status
