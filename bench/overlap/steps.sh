# The steps of a GPU benchmark (bench_overlap.py, bench/mlp/bench_mlp.py),
# sourced by the build.sh and run.sh beside each of them, and the timing of
# one library that nccl-ctas.sh and profile/gemm_tuning.sh share.

# benchmark_name <benchmark> <devices>: the name of a benchmark's artifact
# folder and reports on that many GPUs: the benchmark's own on 2 (its
# records so far), <benchmark>-dD on D.
benchmark_name() {
  if [ "$2" = 2 ]; then echo "$1"; else echo "$1-d$2"; fi
}

# time_library <ranks> <build-dir> <library> <program> [mpirun options...]:
# times the program as the benchmark times ours (fuser-exec --time, a
# warm-up execution then 30, under mpirun with LD_LIBRARY_PATH forwarded,
# ranks unbound)
# and prints "median_us=... min_us=... max_us=..." (the slowest rank's
# times), or "failed: " and the run's last line.
time_library() {
  local ranks=$1 build=$2 library=$3 program=$4 output timing
  shift 4
  output=$(timeout 300 mpirun --allow-run-as-root --bind-to none -np "$ranks" \
    -x LD_LIBRARY_PATH "$@" "$build/bin/fuser-exec" "$library" \
    --program "$program" --iterations 31 --time 2>&1) || true
  timing=$(echo "$output" | sed -n \
    's/^fuser-exec: timing .* \(median_us=[0-9.]* min_us=[0-9.]* max_us=[0-9.]*\).*/\1/p' |
    head -n1)
  echo "${timing:-failed: $(echo "$output" | tail -n1)}"
}

# build_benchmark <bench.py> <artifact-dir> <build-dir> [devices]: where
# LLVM/MLIR is, compiles the benchmark's libraries into the artifact folder;
# a program a variant cannot compile leaves a .log where its library would
# be. With devices (a benchmark that takes --devices), the programs are for
# that many GPUs.
build_benchmark() {
  local bench=$1 artifacts=$2 build=$3 device_option=()
  [ -z "${4:-}" ] || device_option=(--devices "$4")
  [ -x "$build/bin/fuser-compile" ] ||
    { echo "no $build/bin/fuser-compile: build the compiler first"; return 1; }
  python3 "$bench" "${device_option[@]}" build "$artifacts" "$build/bin/fuser-compile"
}

# run_benchmark <bench.py> <name> <artifact-dir> <build-dir> <result-dir>
# [devices]: on the GPU machine, PyTorch's step under mpirun, then ours
# (each library under mpirun through fuser-exec), then the report: <name>.md
# (also printed) and <name>.json in the result folder, on 2 GPUs or, with
# devices (a benchmark that takes --devices), on that many. Inputs and
# expected outputs live in a temporary folder removed at the end.
# FUSER_BENCH_VARIANTS (comma-separated labels) runs only those of ours.
run_benchmark() {
  local bench=$1 name=$2 artifacts build results=$5 work ranks=${6:-2} device_option=()
  [ -z "${6:-}" ] || device_option=(--devices "$6")
  artifacts=$(cd "$3" && pwd)
  build=$(cd "$4" && pwd)
  [ -x "$build/bin/fuser-exec" ] ||
    { echo "no $build/bin/fuser-exec: run scripts/run-gpu-tests.sh first, which builds it"; return 1; }
  # One rank per GPU: fewer GPUs would fail every run after its start-up.
  local gpus
  if command -v nvidia-smi >/dev/null; then
    gpus=$(nvidia-smi -L | grep -c '^GPU' || true)
    [ "$gpus" -ge "$ranks" ] ||
      { echo "$name runs on $ranks GPUs; this machine has $gpus"; return 1; }
  fi
  mkdir -p "$results"
  work=$(mktemp -d "${TMPDIR:-/tmp}/bench-$name.XXXXXX")
  # Gigabytes of .npy files: gone however the run ends.
  trap "rm -rf '$work'" EXIT
  # No NVLink multicast, for PyTorch and for ours.
  export NCCL_NVLS_ENABLE=0
  local forwarded=(-x NCCL_NVLS_ENABLE)
  [ -z "${CUDA_DEVICE_MAX_CONNECTIONS+set}" ] || forwarded+=(-x CUDA_DEVICE_MAX_CONNECTIONS)
  local started=$SECONDS status=0 only=()
  [ -z "${FUSER_BENCH_VARIANTS:-}" ] || only=(--variants "$FUSER_BENCH_VARIANTS")
  # A failed (or hung: a minute is the norm) PyTorch step leaves ours to
  # run without PyTorch's inputs.
  # NCCL_MAX_CTAS is an experiment on ours: PyTorch runs as users run it,
  # its ranks unbound as torchrun leaves them (and as ours run).
  env -u NCCL_MAX_CTAS timeout --kill-after=30 600 \
    mpirun --allow-run-as-root --bind-to none -np "$ranks" "${forwarded[@]}" \
    python3 "$bench" "${device_option[@]}" torch "$work" ||
    echo "PyTorch's step failed (exit $?): the report has no PyTorch numbers"
  echo "$name: PyTorch took $((SECONDS - started)) s"
  LD_LIBRARY_PATH="$build/runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    python3 "$bench" "${device_option[@]}" ours "$artifacts" "$build/bin/fuser-exec" \
      "$work" "${only[@]}" ||
    status=$?
  echo "$name: PyTorch and ours took $((SECONDS - started)) s"
  python3 "$bench" "${device_option[@]}" report "$work" "$results/$name.md" \
    "$results/$name.json" || status=$?
  return "$status"
}
