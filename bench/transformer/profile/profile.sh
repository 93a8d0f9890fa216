#!/usr/bin/env bash
# On one GPU of the GPU machine, after scripts/run-gpu-tests.sh built the
# runtime, with the layer built for one GPU here
# (FUSER_BENCH_DEVICES=1 bench/transformer/build.sh): the device time of
# each kernel, cuBLASLt GEMM and cuDNN call of our @gpt_forward and
# @gpt_backward and of PyTorch's layer (ncu, clocks left alone, one CSV row
# a launch in launch order), and our two programs' times.
# Usage: bench/transformer/profile/profile.sh [mode] [artifact-dir]
#          [build-dir] [result-dir]
#   (defaults: tp; gpu-artifacts/transformer-d1/; build-gpu/; build-dir/logs/)
# Writes <result-dir>/ncu-<mode>-{forward,backward,torch}.csv and
# times-<mode>.log; summary.py prints one execution's launches from the CSVs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mode=${1:-tp}
artifacts=$(cd "${2:-$root/gpu-artifacts/transformer-d1}" && pwd)/$mode-dropout
build=$(cd "${3:-$root/build-gpu}" && pwd)
results=${4:-$build/logs}
mkdir -p "$results"
export LD_LIBRARY_PATH="$build/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NCCL_NVLS_ENABLE=0
exec_=$build/bin/fuser-exec
metrics=(--clock-control none --metrics gpu__time_duration.sum --csv)
: >"$results/times-$mode.log"
for function in forward backward; do
  "$exec_" "$artifacts/gpt_$function.so" --program "gpt_$function" \
    --iterations 11 --time >>"$results/times-$mode.log" 2>&1
  # Three executions: the first also tunes the GEMMs' algorithms, the
  # last two launch the same kernels, which is how the summary finds one.
  ncu "${metrics[@]}" "$exec_" "$artifacts/gpt_$function.so" --program "gpt_$function" \
    --iterations 3 >"$results/ncu-$mode-$function.csv" 2>"$results/ncu-$mode-$function.log"
done
# One rank: the layer's collectives are NCCL calls on a team of one.
RANK=0 WORLD_SIZE=1 ncu "${metrics[@]}" python3 "$here/torch_layer.py" --mode "$mode" \
  >"$results/ncu-$mode-torch.csv" 2>"$results/ncu-$mode-torch.log"
