#!/usr/bin/env bash
# Installs what is missing, configures, builds and runs every test: the unit
# tests (GoogleTest), the Python binding tests and the lit suite, plus a runtime-only build without
# MLIR as the GPU machines have it. Ends with one line: "N passed, N failed".
# The compiler tree, where every test but the runtime-only tree's runs, is
# built with AddressSanitizer and UndefinedBehaviorSanitizer (assertions on,
# as always): a memory error, a leak or undefined behaviour fails a test.
# Usage: scripts/test.sh [build-dir]   (default: build/)
set -euo pipefail
source "$(dirname "$0")/lib/build.sh"

build=${1:-$FUSER_ROOT/build}
fuser_install_packages
fuser_build "$build" -DFUSER_ENABLE_COMPILER=ON -DFUSER_SANITIZE=address,undefined
fuser_build "$build-runtime-only" -DFUSER_ENABLE_COMPILER=OFF
source "$build/sanitizer-environment.sh"

source "$FUSER_ROOT/scripts/lib/tally.sh"

run_gtest "$build/unittests/FuserSupportTests"
run_gtest "$build/unittests/FuserDialectTests"
run_gtest "$build/unittests/FuserProgramMetadataTests"
run_gtest "$build-runtime-only/unittests/FuserSupportTests"
# The runtime's tests need every rank: 2 ranks, and 4 for the 2x2 mesh teams.
for ranks in 2 4; do
  for tree in "$build" "$build-runtime-only"; do
    run_gtest mpirun --allow-run-as-root --oversubscribe -x FUSER_TIMEOUT_S=2 \
      "${fuser_sanitizer_mpirun_options[@]}" -np "$ranks" "$tree/runtime/test/FuserRuntimeTests"
  done
done

# 4 ranks as 2 simulated nodes (FUSER_RANKS_PER_NODE): the topology and
# the teams across nodes.
for tree in "$build" "$build-runtime-only"; do
  run_gtest mpirun --allow-run-as-root --oversubscribe -x FUSER_TIMEOUT_S=2 \
    -x FUSER_RANKS_PER_NODE=2 "${fuser_sanitizer_mpirun_options[@]}" -np 4 \
    "$tree/runtime/test/FuserRuntimeTests" --gtest_filter='Topology.*:Teams.*'
done

# Python bindings, through ctest so that the interpreter is the one CMake
# built the module for.
python_output=$(ctest --test-dir "$build" -R '^python-tests$' -V 2>&1) || true
python_ran=$(echo "$python_output" | sed -n 's/.*Ran \([0-9]*\) tests\?.*/\1/p' | head -n1)
if [ -z "$python_ran" ]; then
  echo "$python_output" | tail -n 20
  echo "python tests did not run"
  failed=$((failed + 1))
else
  python_failed=0
  for kind in failures errors; do
    count=$(echo "$python_output" | sed -n "s/.*FAILED (.*$kind=\([0-9]*\).*/\1/p" | head -n1)
    python_failed=$((python_failed + ${count:-0}))
  done
  echo "$python_output" | grep -E '^[0-9]+: (FAIL|ERROR):' || true
  passed=$((passed + python_ran - python_failed))
  failed=$((failed + python_failed))
fi

lit_output=$("$FUSER_LLVM_PREFIX/bin/lit" -sv "$build/test" 2>&1) || true
echo "$lit_output" | grep -E '^(FAIL|UNRESOLVED|XPASS|TIMEOUT)|^\*\*\*|error:' || true
lit_count() {
  echo "$lit_output" | sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" | head -n1
}
lit_passed=$(( $(lit_count Passed || true) + 0 ))
lit_failed=0
for kind in Failed Unresolved "Timed Out" "Unexpectedly Passed"; do
  lit_failed=$((lit_failed + $(lit_count "$kind" || true) + 0))
done
if [ "$lit_passed" -eq 0 ] && [ "$lit_failed" -eq 0 ]; then
  echo "lit ran no tests"
  lit_failed=1
fi
passed=$((passed + lit_passed))
failed=$((failed + lit_failed))

tally_report
