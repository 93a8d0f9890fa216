#!/usr/bin/env bash
# On a GPU machine, after scripts/run-gpu-tests.sh built the runtime there:
# measures what an execution of a launch-bound program costs the host, ours
# and the same program in PyTorch, side by side, and writes a markdown
# table. Ours is called (each execution issues its ten device operations)
# and replayed as a CUDA graph (fuser-exec --graph: one launch); PyTorch's
# runs eager and replayed as a CUDA graph (torch_program.py). On 2 GPUs the
# program is program.mlir (tensor parallel, two allreduces), on 1
# local.mlir (the same blocks unsharded), which
# scripts/build-gpu-artifacts.sh compiled as host-overhead.so and
# host-overhead-local.so. Builds nothing.
#
# Each way runs after a warm-up (and the capture), batches of back-to-back
# executions with no synchronization inside (ours: fuser-exec --time
# --host-time --check): the host's time to issue a batch and the device's
# time for it (CUDA events), per execution, the slowest rank's, median
# (min - max) over the batches, and for ours the device allocations per
# execution. The host time is the CPU cost of an execution as long as the
# host is not made to wait: when the device is the slower, a large batch
# fills what the driver lets a stream hold and the host waits for the
# device (on 2 H200s, 50 graph replays in a row took the host 19 us each
# against 8 us in batches of 10 or 1): keep batches small.
#
# Usage: bench/host-overhead/run.sh [artifact-dir] [build-dir] [table.md]
#   (defaults: gpu-artifacts/, build-gpu/ and build-dir/logs/host-overhead.md)
# Environment: FUSER_HOST_OVERHEAD_RANKS (2, the default, or 1),
#   FUSER_HOST_OVERHEAD_ITERATIONS (default 2001: the warm-up and 2000 timed
#   executions), FUSER_HOST_OVERHEAD_BATCH (default 10).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
artifacts=$(cd "${1:-$root/gpu-artifacts}" && pwd)
build=${2:-$root/build-gpu}
table=${3:-$build/logs/host-overhead.md}
ranks=${FUSER_HOST_OVERHEAD_RANKS:-2}
iterations=${FUSER_HOST_OVERHEAD_ITERATIONS:-2001}
batch=${FUSER_HOST_OVERHEAD_BATCH:-10}
case $ranks in
  2) library="$artifacts/host-overhead.so" program=host_overhead source=program.mlir ;;
  1) library="$artifacts/host-overhead-local.so" program=host_overhead_local source=local.mlir ;;
  *) echo "FUSER_HOST_OVERHEAD_RANKS is '$ranks'; it takes 1 or 2"; exit 2 ;;
esac
fuser_exec="$build/bin/fuser-exec"
[ -x "$fuser_exec" ] ||
  { echo "no $fuser_exec: run scripts/run-gpu-tests.sh first, which builds it"; exit 1; }
[ -f "$library" ] ||
  { echo "no $library: run scripts/build-gpu-artifacts.sh where LLVM is, and copy the folder"; exit 1; }
mkdir -p "$(dirname "$table")"
export LD_LIBRARY_PATH="$build/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NCCL_NVLS_ENABLE=0
on_ranks() {
  timeout -s KILL 300 mpirun --allow-run-as-root --oversubscribe -np "$ranks" \
    -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH -x FUSER_TIMEOUT_S=120 "$@" </dev/null 2>&1
}

# field <line prefix> <name> <output>: the value of name=... on the line
# that starts with the prefix (fuser-exec's and torch_program.py's lines).
field() {
  grep "^$1 " <<<"$3" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"
}
# spread <line prefix> <output>: "median (min - max)" of the line.
spread() {
  echo "$(field "$1" median_us "$2") ($(field "$1" min_us "$2") - $(field "$1" max_us "$2"))"
}

rows=()
failed=0
for way in call graph; do
  options=(--program "$program" --iterations "$iterations" --time --host-time
           --time-batch "$batch" --check)
  [ "$way" = graph ] && options+=(--graph)
  echo "== ours, $way: fuser-exec $(basename "$library") ${options[*]}"
  status=0
  output=$(on_ranks "$fuser_exec" "$library" "${options[@]}") || status=$?
  echo "$output"
  label="ours, $([ "$way" = call ] && echo called || echo "CUDA graph")"
  if [ "$status" -ne 0 ]; then
    failed=1
    rows+=("| $label | failed (exit $status) | | | |")
    continue
  fi
  allocations=$(field 'fuser-exec: device allocations' per_execution "$output")
  check=$(grep -o 'check [a-zA-Z]*, max relative error [^ ]*' <<<"$output" || echo "no verdict")
  rows+=("| $label | $(spread 'fuser-exec: host timing' "$output") | $(spread 'fuser-exec: timing' "$output") | $allocations | $check |")
done

echo "== PyTorch: torch_program.py --executions $((iterations - 1)) --batch $batch"
status=0
output=$(on_ranks python3 "$root/bench/host-overhead/torch_program.py" \
  --executions "$((iterations - 1))" --batch "$batch") || status=$?
echo "$output"
for way in eager graph; do
  label="PyTorch, $([ "$way" = eager ] && echo eager || echo "CUDA graph")"
  if [ "$status" -ne 0 ] || [ -z "$(field "torch $way: host" median_us "$output")" ]; then
    failed=1
    rows+=("| $label | failed (exit $status) | | | |")
    continue
  fi
  rows+=("| $label | $(spread "torch $way: host" "$output") | $(spread "torch $way: device" "$output") | n/a | the reference |")
done

{
  echo "Host overhead of $program (bench/host-overhead/$source) on $ranks GPU(s), ours and PyTorch's:"
  echo "$((iterations - 1)) executions after the warm-up in batches of $batch; microseconds per execution, median (min - max) over batches."
  echo
  echo "| execution | host us/execution | device us/execution | device allocations/execution | check |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >"$table"
cat "$table"
exit "$failed"
