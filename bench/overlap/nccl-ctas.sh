#!/usr/bin/env bash
# On the GPU machine, after scripts/run-gpu-tests.sh built fuser-exec: times
# libraries of the overlap benchmark with NCCL's CTAs bounded
# (NCCL_MAX_CTAS), to tell whether NCCL's kernels taking SMs from the GEMM
# beside them is what slows the collective pipeline. Each run is timed as
# the benchmark times ours (a warm-up execution, then 30, the slowest
# rank's median). Prints and appends to the result file one line per run:
# "<ctas> <variant>/<function> median_us=... min_us=... max_us=...".
# Usage: bench/overlap/nccl-ctas.sh <artifact-dir> <build-dir> <result-file>
#          <ctas,...> <variant>/<function>...
#   ctas: a CTA bound, or "unset" for NCCL's default
set -euo pipefail
[ $# -ge 5 ] || { sed -n '2,11p' "$0"; exit 2; }
source "$(dirname "$0")/steps.sh"
artifacts=$1 build=$2 results=$3 bounds=$4
shift 4
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH="$build/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for run in "$@"; do
  [ -f "$artifacts/$run.so" ] || { echo "no $artifacts/$run.so"; exit 1; }
done
for ctas in ${bounds//,/ }; do
  bound=()
  [ "$ctas" = unset ] || bound=(-x "NCCL_MAX_CTAS=$ctas")
  for run in "$@"; do
    timing=$(time_library 2 "$build" "$artifacts/$run.so" "${run##*/}" \
      -x NCCL_NVLS_ENABLE -x FUSER_TIMEOUT_S=120 "${bound[@]}")
    echo "$ctas $run $timing" | tee -a "$results"
  done
done
