#!/usr/bin/env bash
# On a GPU machine, after scripts/run-gpu-tests.sh built fuser-exec: the
# runtime's bf16 products (gemms.mlir, compiled with fuser-compile
# --target=cuda) with cuBLASLt's first heuristic choice
# (FUSER_MATMUL_TUNING=off) and tuned (on, the default: another of its
# first candidates where clearly faster), each program's two runs back to
# back, then torch.mm at the sizes of the single products. Each of ours:
# fuser-exec --time on one rank, a warm-up execution (where the plan is
# made) and 30 timed, the median. Prints one line per run.
# Usage: bench/overlap/profile/gemm_tuning.sh <gemms.so> <build-dir>
set -euo pipefail
[ $# -eq 2 ] || { sed -n '2,10p' "$0"; exit 2; }
library=$1 build=$2
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../steps.sh"
export LD_LIBRARY_PATH="$build/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
programs=$(sed -n 's/^func\.func @\([a-z]*_[0-9x]*\).*/\1/p' "$here/gemms.mlir")
for program in $programs; do
  for tuning in off on; do
    echo "ours tuning=$tuning $program $(FUSER_MATMUL_TUNING=$tuning \
      time_library 1 "$build" "$library" "$program" -x FUSER_MATMUL_TUNING)"
  done
done
python3 "$here/torch_mm.py" $(echo "$programs" | grep '^matmul_')
