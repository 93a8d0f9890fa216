# Counts passed and failed tests across the test runners of a script.
# Source it; call run_gtest / run_check; print the total with tally_report.

passed=0
failed=0

# run_gtest <command...>: runs a GoogleTest binary (possibly under mpirun) and
# adds its test counts; a crash or a non-zero exit counts as a failure.
run_gtest() {
  local output status=0 ran failures skipped
  output=$("$@" --gtest_brief=1 --gtest_color=no 2>&1) || status=$?
  echo "$output" | grep -v '^\[       OK \]' || true
  ran=$(echo "$output" | sed -n 's/^\[==========\] \([0-9]*\) tests\? from .* ran.*/\1/p')
  failures=$(echo "$output" | sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\?, listed below:/\1/p')
  if [ -z "$ran" ]; then
    echo "$* did not finish (exit $status)"
    failed=$((failed + 1))
    return
  fi
  failures=${failures:-0}
  skipped=$(echo "$output" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\?.*/\1/p')
  passed=$((passed + ran - failures - ${skipped:-0}))
  failed=$((failed + failures))
  if [ "$status" -ne 0 ] && [ "$failures" -eq 0 ]; then
    failed=$((failed + 1))
  fi
}

# run_check <command...>: one test that passes when the command exits 0.
run_check() {
  if "$@"; then
    passed=$((passed + 1))
  else
    echo "FAILED (exit $?): $*"
    failed=$((failed + 1))
  fi
}

tally_report() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
