#!/usr/bin/env bash
# On a development machine (with LLVM/MLIR): compiles the programs the GPU
# machines run into one folder, with a list of the runs to make and the
# GoogleTest the runtime's tests build against (GPU machines have no LLVM
# and no GoogleTest). Then, on a GPU machine: scripts/run-gpu-tests.sh.
# Usage: scripts/build-gpu-artifacts.sh [artifact-dir] [build-dir]
#   (defaults: gpu-artifacts/ and build/; gpu-artifacts/ is ignored by git)
set -euo pipefail
source "$(dirname "$0")/lib/build.sh"

artifacts=${1:-$FUSER_ROOT/gpu-artifacts}
build=${2:-$FUSER_ROOT/build}
# The tests' plans are the built-in calibration's, not those of whichever
# machine this one calibrated (the benchmarks' builds take the machine's).
export FUSER_CALIBRATION=builtin
fuser_install_packages
fuser_build "$build" -DFUSER_ENABLE_COMPILER=ON >/dev/null
rm -rf "$artifacts"
mkdir -p "$artifacts/gtest/lib"
cp -r /usr/include/gtest "$artifacts/gtest/include"
cp /usr/lib/x86_64-linux-gnu/libgtest.a /usr/lib/x86_64-linux-gnu/libgtest_main.a \
   "$artifacts/gtest/lib/"

compile() { # <library> <program.mlir> [fuser-compile options...]
  local library=$1 source=$2
  shift 2
  "$build/bin/fuser-compile" "$source" -o "$artifacts/$library" --target=cuda "$@"
  rm -f "$artifacts/$library.json"
}
runs="$artifacts/runs.txt"
: >"$runs"
# run <ranks> <library> <program> <iterations> [sanitize] [graph]
# [two-nodes]: a line of the list run-gpu-tests.sh reads; "sanitize" runs it
# under compute-sanitizer too, "graph" once more replaying a CUDA graph of
# one execution (fuser-exec --graph), "two-nodes" once more with half the
# ranks on each of two simulated nodes.
run() { echo "$*" >>"$runs"; }
programs_of() { sed -n 's/^func\.func @\([A-Za-z0-9_]*\).*/\1/p' "$1"; }

# Every program of test/e2e, compiled with the options its .test files give
# (on GPUs the communications go through NCCL, or CUDA IPC for a ring too);
# the kernel tests and the MLPs also run under compute-sanitizer, and every
# one also as graph replays.
e2e="$FUSER_ROOT/test/e2e/Inputs"
compile communications.so "$e2e/communications.mlir"
for program in $(programs_of "$e2e/communications.mlir"); do
  run 2 communications.so "$program" 100 graph
done
for placement in before after; do
  compile "exp-gather-$placement.so" "$e2e/communications.mlir" \
    --program=exp_gather --reshard-placement="$placement"
  run 2 "exp-gather-$placement.so" exp_gather 100 graph
done
compile kernels-e2e.so "$e2e/kernels.mlir"
for program in $(programs_of "$e2e/kernels.mlir"); do
  run 2 kernels-e2e.so "$program" 100 sanitize graph
done
compile pipelines-collective.so "$e2e/pipelines.mlir" --pipelining=collective
compile pipelines-ring-nccl.so "$e2e/pipelines.mlir" --pipelining=ring
compile pipelines-ring-ipc.so "$e2e/pipelines.mlir" --pipelining=ring --backend=cuda_ipc
compile pipelines-none.so "$e2e/pipelines.mlir" --pipelining=none
compile pipelines-auto.so "$e2e/pipelines.mlir" --pipelining=auto --backend=cuda_ipc
for library in pipelines-collective.so pipelines-ring-nccl.so pipelines-ring-ipc.so \
               pipelines-none.so pipelines-auto.so; do
  for program in $(programs_of "$e2e/pipelines.mlir"); do
    run 2 "$library" "$program" 100 graph
  done
done
# Compiled for nodes of one rank: the rings between them move their blocks
# over NCCL (the compiler warns that CUDA IPC cannot reach them), and auto
# weighs the network link.
compile pipelines-ring-two-nodes.so "$e2e/pipelines.mlir" --pipelining=ring \
  --backend=cuda_ipc --ranks-per-node=1 2>/dev/null
compile pipelines-auto-two-nodes.so "$e2e/pipelines.mlir" --pipelining=auto \
  --backend=cuda_ipc --ranks-per-node=1
for library in pipelines-ring-two-nodes.so pipelines-auto-two-nodes.so; do
  for program in $(programs_of "$e2e/pipelines.mlir"); do
    run 2 "$library" "$program" 20 two-nodes
  done
done
volume="$FUSER_ROOT/test/scenarios/communication-volume.mlir"
compile split-reductions.so "$volume" --program=softmax --program=layer_norm \
  --program=layer_norm_var_mean
for program in softmax layer_norm layer_norm_var_mean; do
  run 2 split-reductions.so "$program" 100 graph
done
compile tp-mlp.so "$FUSER_ROOT/examples/tp_mlp.mlir"
run 2 tp-mlp.so tp_mlp 100 sanitize graph
compile sp-mlp.so "$FUSER_ROOT/test/scenarios/sp-mlp.mlir"
run 2 sp-mlp.so sp_mlp 100 sanitize graph
compile tp-mlp-bf16.so "$e2e/tp-mlp-bf16.mlir"
run 2 tp-mlp-bf16.so tp_mlp_bf16 100 sanitize graph
# Fused attention (cuDNN) and the GPT layer of examples/transformer,
# forward and backward, TP and SP, in bf16 at a size the CPU reference
# checks in seconds, without dropout inside attention (cuDNN draws its own
# mask); the layer's full GPT-3 size runs in bench/transformer.
compile attention-bf16.so "$e2e/attention-bf16.mlir"
for program in $(programs_of "$e2e/attention-bf16.mlir"); do
  run 2 attention-bf16.so "$program" 20 graph
done
layer="$FUSER_ROOT/examples/transformer/gpt_layer.py"
for mode in tp sp; do
  python3 "$layer" --mode "$mode" --devices 2 --sequence 64 --heads 4 \
    --hidden 256 --dtype bf16 --attention-dropout 0 >"$artifacts/gpt-$mode.mlir"
  compile "gpt-$mode.so" "$artifacts/gpt-$mode.mlir"
  # Every collective beside a GEMM pipelined (a calibration whose link is
  # slow beside its GEMMs), the rings over CUDA IPC.
  compile "gpt-$mode-ipc-rings.so" "$artifacts/gpt-$mode.mlir" --backend=cuda_ipc \
    --pipelining=auto --pipelining-calibration="$e2e/slow-link-calibration.json"
  rm "$artifacts/gpt-$mode.mlir"
  for program in gpt_forward gpt_backward; do
    run 2 "gpt-$mode.so" "$program" 20 graph
    run 2 "gpt-$mode-ipc-rings.so" "$program" 20 graph
  done
done
# More ranks than 2: run-gpu-tests.sh runs them where there are as many GPUs.
compile three-ranks.so "$e2e/three-ranks.mlir"
run 3 three-ranks.so shift 100 graph
compile two-axes.so "$e2e/two-axes.mlir"
run 4 two-axes.so swap_axes 100 graph
compile dp-tp-mlp.so "$FUSER_ROOT/test/scenarios/dp-tp-mlp.mlir"
run 4 dp-tp-mlp.so dp_tp_mlp 100 sanitize graph

# The benchmark's kernels on one GPU: checked at small shapes (tails
# included), timed at 1 GiB by bench/kernels/run.sh.
kernels="$FUSER_ROOT/bench/kernels"
compile kernels-small.so "$kernels/kernels-small.mlir"
for program in $(programs_of "$kernels/kernels-small.mlir"); do
  run 1 kernels-small.so "$program" 100 sanitize graph
done
compile kernels.so "$kernels/kernels.mlir"

# The host's cost per execution of a launch-bound program on 2 GPUs and,
# unsharded, on 1, called and replayed as a CUDA graph: checked here,
# measured by bench/host-overhead/run.sh.
compile host-overhead.so "$FUSER_ROOT/bench/host-overhead/program.mlir"
run 2 host-overhead.so host_overhead 100 graph
compile host-overhead-local.so "$FUSER_ROOT/bench/host-overhead/local.mlir"
run 1 host-overhead-local.so host_overhead_local 100 graph

# AG+GEMM and GEMM+RS in bf16: collective over NCCL, ring over CUDA IPC and
# over NCCL.
overlap="$FUSER_ROOT/test/gpu/Inputs/overlap.mlir"
# GEMM+RS reduce-scatters its result (the weight stays where it is).
compile overlap-collective.so "$overlap" --backend=nccl --pipelining=collective --reshard-placement=after
compile overlap-ring-ipc.so "$overlap" --backend=cuda_ipc --pipelining=ring --reshard-placement=after
compile overlap-ring-nccl.so "$overlap" --backend=nccl --pipelining=ring --reshard-placement=after
for library in overlap-collective.so overlap-ring-ipc.so overlap-ring-nccl.so; do
  for size in 2048_1024_4096 4096_4096_4096 8192_8192_8192; do
    for program in ag_gemm gemm_rs; do
      run 2 "$library" "${program}_$size" 20
    done
  done
done
# auto for two nodes of one GPU: what it plans between them runs over NCCL.
compile overlap-auto-two-nodes.so "$overlap" --backend=cuda_ipc --pipelining=auto \
  --ranks-per-node=1 --reshard-placement=after
for program in ag_gemm gemm_rs; do
  run 2 overlap-auto-two-nodes.so "${program}_8192_8192_8192" 20 two-nodes
done
echo "$(wc -l <"$runs") runs in $artifacts"
