#!/usr/bin/env bash
# On a GPU machine: builds the runtime (scripts/run-gpu-tests.sh's build,
# no tests) and measures the machine for pipelining=auto with
# fuser-calibrate, one rank per GPU, timing the whole run. The calibration
# lands in the results folder named by its machine
# (nvidia-h200-2gpu-1node.json), with the tool's output beside it; copy it
# into the calibrations folder of the machine that compiles
# (docs/stream-pipelining.md, "Calibrations") for fuser-compile
# --pipelining=auto to plan with it.
# FUSER_BENCH_DEVICES=D calibrates D GPUs (default: all the machine has);
# FUSER_RANKS_PER_NODE=k measures them as nodes of k ranks (the network
# link between them instead of NVLink).
# Usage: bench/calibrate/run.sh [artifact-dir] [results-dir]
#   (defaults: gpu-artifacts/ and build-gpu/calibrations/)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
artifacts=${1:-$root/gpu-artifacts}
results=${2:-$root/build-gpu/calibrations}
mkdir -p "$results"
FUSER_GPU_STEPS=none "$root/scripts/run-gpu-tests.sh" "$artifacts" \
  "$root/build-gpu" "$results/logs" >/dev/null
devices=${FUSER_BENCH_DEVICES:-$(nvidia-smi -L | grep -c '^GPU')}
export NCCL_NVLS_ENABLE=0 FUSER_CALIBRATION=$results
start=$(date +%s.%N)
mpirun --allow-run-as-root --oversubscribe -np "$devices" \
  -x NCCL_NVLS_ENABLE -x FUSER_CALIBRATION \
  ${FUSER_RANKS_PER_NODE:+-x FUSER_RANKS_PER_NODE} \
  ${FUSER_RANKS_PER_GPU:+-x FUSER_RANKS_PER_GPU} \
  -x LD_LIBRARY_PATH="$root/build-gpu/runtime" \
  "$root/build-gpu/bin/fuser-calibrate" | tee -a "$results/fuser-calibrate.log"
end=$(date +%s.%N)
echo "fuser-calibrate on $devices ranks: $(awk "BEGIN { print $end - $start }") s of wall time, mpirun included" |
  tee -a "$results/fuser-calibrate.log"
