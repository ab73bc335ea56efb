#!/usr/bin/env bash
# Installs the dependencies, builds RigScope and runs the whole test suite through ctest, twice: in the normal build
# (preset `default`) and under AddressSanitizer + UndefinedBehaviorSanitizer (preset `asan`); then a short fixed-time
# fuzz run of the importer (preset `fuzz`, README "Fuzzing"). Every stage runs even when an earlier one failed; the
# exit status is non-zero when any failed.
#
# RIGSCOPE_FUZZ_SECONDS (default 90) sets the fuzz time; 0 skips the fuzz run.
set -uo pipefail
cd "$(dirname "$0")/.."
./packaging/deps.sh || exit 1
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
jobs="$(nproc)"
fuzz_seconds="${RIGSCOPE_FUZZ_SECONDS:-90}"
logs="$(mktemp -d)"

failed_stages=()
passed=0
failed=0
stage_times=()

# run_stage NAME COMMAND...: runs one stage, keeps its time and whether it failed.
run_stage() {
  local name="$1"
  shift
  local start=$SECONDS
  echo "==== $name: $*"
  if ! "$@"; then
    failed_stages+=("$name")
  fi
  stage_times+=("$name $((SECONDS - start))s")
}

# ctest_stage NAME PRESET: ctest through its preset, counting its tests into the totals.
ctest_stage() {
  local name="$1" preset="$2" start=$SECONDS
  echo "==== $name: ctest --preset $preset"
  ctest --preset "$preset" 2>&1 | tee "$logs/$preset.log"
  local status=${PIPESTATUS[0]}
  local summary total bad
  summary="$(grep -E '[0-9]+ tests failed out of [0-9]+' "$logs/$preset.log" | tail -n 1)"
  total="$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$summary")"
  bad="$(sed -E 's/.* ([0-9]+) tests failed out of.*/\1/' <<<"$summary")"
  if [ -n "$summary" ]; then
    passed=$((passed + total - bad))
    failed=$((failed + bad))
  else
    failed=$((failed + 1))
  fi
  if [ "$status" -ne 0 ]; then
    failed_stages+=("$name")
  fi
  stage_times+=("$name $((SECONDS - start))s")
}

# 1. The normal build (RelWithDebInfo, GCC).
run_stage "build" bash -c "cmake --preset default && cmake --build --preset default --parallel $jobs"
ctest_stage "tests" default

# 2. The same suite under ASan + UBSan (GCC; sanitizer options and leak suppressions: tests/CMakeLists.txt).
run_stage "build-asan" bash -c "cmake --preset asan && cmake --build --preset asan --parallel $jobs"
ctest_stage "tests-asan" asan

# 3. The importer fuzzer for a fixed time (clang, libFuzzer + ASan + UBSan), seeded from ../shared/assets, the broken
#    corpus and the regression inputs.
if [ "$fuzz_seconds" -gt 0 ]; then
  run_stage "build-fuzz" bash -c "cmake --preset fuzz && cmake --build --preset fuzz --parallel $jobs"
  start=$SECONDS
  echo "==== fuzz: fuzz/run.sh $fuzz_seconds"
  if fuzz/run.sh "$fuzz_seconds" 65536 -seed=1 > "$logs/fuzz.log" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failed_stages+=("fuzz")
    tail -n 80 "$logs/fuzz.log"
  fi
  grep -E '^stat::|^fuzz/run.sh' "$logs/fuzz.log" || true
  stage_times+=("fuzz $((SECONDS - start))s")
fi

echo "==== times: ${stage_times[*]}; total ${SECONDS}s"
if [ "${#failed_stages[@]}" -gt 0 ]; then
  echo "==== failed stages: ${failed_stages[*]}"
fi
# Totals over both ctest runs (each test once per build) and the fuzz run (one).
echo "rigscope: $passed passed, $failed failed"
[ "${#failed_stages[@]}" -eq 0 ]
