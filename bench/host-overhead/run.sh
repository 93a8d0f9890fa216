#!/usr/bin/env bash
# On a GPU machine with 2 GPUs, after scripts/run-gpu-tests.sh built the
# runtime there: measures what an execution of a launch-bound program costs
# the host, calling the program (each execution issues its ten device
# operations) and replaying it as a CUDA graph (fuser-exec --graph: one
# launch), and writes a markdown table. The program is program.mlir, which
# scripts/build-gpu-artifacts.sh compiled as host-overhead.so. Builds
# nothing.
#
# Each way runs fuser-exec --time --host-time --check on 2 ranks: after the
# warm-up (and the capture), batches of back-to-back executions with no
# synchronization inside; the host's time to issue a batch and the device's
# time for it (CUDA events), per execution, the slowest rank's, median
# (min - max) over the batches, and the device allocations per execution.
# The host time is the CPU cost of an execution as long as the host is not
# made to wait: when the device is the slower, a large batch fills what
# the driver lets a stream hold and the host waits for the device (on 2
# H200s, 50 graph replays in a row took the host 19 us each against 8 us
# in batches of 10 or 1): keep batches small.
#
# Usage: bench/host-overhead/run.sh [artifact-dir] [build-dir] [table.md]
#   (defaults: gpu-artifacts/, build-gpu/ and build-dir/logs/host-overhead.md)
# Environment: FUSER_HOST_OVERHEAD_ITERATIONS (default 2001: the warm-up and
#   2000 timed executions), FUSER_HOST_OVERHEAD_BATCH (default 10).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
artifacts=$(cd "${1:-$root/gpu-artifacts}" && pwd)
build=${2:-$root/build-gpu}
table=${3:-$build/logs/host-overhead.md}
iterations=${FUSER_HOST_OVERHEAD_ITERATIONS:-2001}
batch=${FUSER_HOST_OVERHEAD_BATCH:-10}
fuser_exec="$build/bin/fuser-exec"
library="$artifacts/host-overhead.so"
[ -x "$fuser_exec" ] ||
  { echo "no $fuser_exec: run scripts/run-gpu-tests.sh first, which builds it"; exit 1; }
[ -f "$library" ] ||
  { echo "no $library: run scripts/build-gpu-artifacts.sh where LLVM is, and copy the folder"; exit 1; }
mkdir -p "$(dirname "$table")"
export LD_LIBRARY_PATH="$build/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NCCL_NVLS_ENABLE=0

# field <line prefix> <name> <output>: the value of name=... on the line.
field() {
  grep "^fuser-exec: $1 " <<<"$3" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"
}

rows=()
failed=0
for way in call graph; do
  options=(--iterations "$iterations" --time --host-time --time-batch "$batch" --check)
  [ "$way" = graph ] && options+=(--graph)
  echo "== $way: fuser-exec host-overhead.so ${options[*]}"
  status=0
  output=$(timeout -s KILL 300 mpirun --allow-run-as-root --oversubscribe -np 2 \
    -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH -x FUSER_TIMEOUT_S=120 \
    "$fuser_exec" "$library" "${options[@]}" </dev/null 2>&1) || status=$?
  echo "$output"
  if [ "$status" -ne 0 ]; then
    failed=1
    rows+=("| $way | failed (exit $status) | | | |")
    continue
  fi
  host="$(field 'host timing' median_us "$output") ($(field 'host timing' min_us "$output") - $(field 'host timing' max_us "$output"))"
  device="$(field timing median_us "$output") ($(field timing min_us "$output") - $(field timing max_us "$output"))"
  allocations=$(field 'device allocations' per_execution "$output")
  check=$(grep -o 'check [a-zA-Z]*, max relative error [^ ]*' <<<"$output" || echo "no verdict")
  rows+=("| $way | $host | $device | $allocations | $check |")
done

{
  echo "Host overhead of host_overhead (bench/host-overhead/program.mlir) on 2 GPUs:"
  echo "$((iterations - 1)) executions after the warm-up in batches of $batch; microseconds per execution, median (min - max) over batches."
  echo
  echo "| execution | host us/execution | device us/execution | device allocations/execution | check |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >"$table"
cat "$table"
exit "$failed"
