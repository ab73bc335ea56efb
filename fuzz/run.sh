#!/usr/bin/env bash
# Runs fuzz_import for a fixed time: fuzz/run.sh SECONDS [MAX_LEN] [more libFuzzer flags...]
#
# Needs the `fuzz` preset built (cmake --preset fuzz && cmake --build --preset fuzz). Seeds: every model file in
# RIGSCOPE_ASSETS_DIR (default ../shared/assets) and tests/data/broken, each as is and re-exported by Assimp to every
# fuzzed format (fuzz_seeds), plus tests/data/fuzz-regressions. New coverage goes to build-fuzz/fuzz-work/corpus (kept
# between runs), new crashes/timeouts/OOMs to build-fuzz/fuzz-work/artifacts/. Exits non-zero when the run found one
# outside Assimp (see the triage below): copy the artifact into tests/data/fuzz-regressions/ (the suite replays it) and
# fix the bug.
#
# The fuzzer runs in an empty folder, so that relative references inside inputs (a glTF buffer "x.bin") find nothing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:?usage: fuzz/run.sh SECONDS [MAX_LEN] [libFuzzer flags...]}"
shift
max_len=65536
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then max_len="$1"; shift; fi

build="${RIGSCOPE_FUZZ_BUILD:-$root/build-fuzz}"
assets="${RIGSCOPE_ASSETS_DIR:-$root/../shared/assets}"
work="$build/fuzz-work"
fuzzer="$build/bin/fuzz_import"
[ -x "$fuzzer" ] || { echo "fuzz/run.sh: $fuzzer not built (cmake --preset fuzz && cmake --build --preset fuzz)" >&2; exit 2; }

mkdir -p "$work/corpus" "$work/artifacts" "$work/cwd"
rm -rf "$work/seeds"
models=()
if [ -d "$assets" ]; then
  while IFS= read -r -d '' f; do models+=("$f"); done < <(find "$assets" -type f \( -iname '*.gltf' -o -iname '*.glb' \
    -o -iname '*.fbx' -o -iname '*.dae' -o -iname '*.x' -o -iname '*.obj' \) -print0 | sort -z)
else
  echo "fuzz/run.sh: no assets folder at $assets; seeding from tests/data only" >&2
fi
"$build/bin/fuzz_seeds" "$work/seeds" "$max_len" "${models[@]}" "$root"/tests/data/broken/*.gltf

touch "$work/run.stamp" # the artifacts written (or written again) by this run are newer
cd "$work/cwd"
status=0
# Past crashes, timeouts and OOMs it keeps going (one worker process, restarted after each), so that a crash inside
# Assimp does not end the run; every artifact is triaged below.
# -rss_limit_mb / -malloc_limit_mb: the import budget here is 256 MiB (hostile_pipeline.h); 2 GiB catches runaway
# allocations inside Assimp too (in the product the worker's address-space limit refuses them). -timeout: one input may take at most 60 s (the slowest seed takes ~1 s).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/fuzz/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
"$fuzzer" -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=60 \
  -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
  -dict="$root/fuzz/rigscope.dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
  "$@" "$work/corpus" "$work/seeds" "$root/tests/data/fuzz-regressions" 2>&1 | tee "$work/run.log" || status=$?

# Triage: reproduce each new artifact. A report whose first frame past the sanitizer runtime, libFuzzer's hooks, the
# allocator and the C/C++ runtime libraries lies in libassimp is Assimp's own fault (a SEGV, an over-read, an
# allocation past the limit, one of its ai_assert aborts): the product imports in its worker process
# (rig/io/worker/import_worker.h), which contains it; it is reported, and keeping it as a regression input is still
# worthwhile. Anything else fails the run: a broken contract of ours, a sanitizer report in our code, a leak, a
# timeout, an OOM outside Assimp.
# assimp_site REPORT: prints the libassimp frame that decides, or nothing.
assimp_site() {
  awk '
    /ai_assert failure in/ { match($0, /ai_assert failure in [^ ]+/); print substr($0, RSTART, RLENGTH); exit }
    /^ *#[0-9]+ 0x/ {
      line = $0
      if (line ~ / in (__interceptor_|__asan|__sanitizer|__lsan|__ubsan|__msan|fuzzer::|malloc|calloc|realloc|free|operator new|operator delete|mem(cpy|move|set|cmp)|str(len|cmp|ncmp|dup|ndup)|__libc|abort|raise|__GI_|__pthread|pthread_kill|_start)/) next
      if (line ~ /\((\/[^ )]*\/)?(libc|libstdc\+\+|libm|libgcc_s|ld-linux)[^ )]*\)/) next
      if (line ~ /libassimp\.so/) { match(line, /libassimp\.so\.[0-9]+\+0x[0-9a-f]+/); print substr(line, RSTART, RLENGTH) }
      exit
    }'
}
# ours_in_run: the worker's crash lines in the run's log (with -ignore_crashes libFuzzer prints each crashed worker's
# lines holding "ERROR:" or "runtime error:") that may lie in RigScope's code: a sanitizer report whose pc is in the
# fuzzer executable (RigScope and the sanitizer runtime are linked into it; under PIE the kernel maps it at
# 0x555555554000 plus up to 2^40 bytes of randomisation: a pc of 12 hex digits from 0x55 or 0x56), one without a pc
# (a leak, libFuzzer's deadly signal — our contract aborts end so — or its OOM), or a runtime error in our sources.
# Assimp and the C/C++ runtime are shared libraries, mapped below the stack's randomised base: mostly 0x7f..., but
# 0x7e... too. A 40-minute run had 4 of its 275 crash lines at 0x7efc.../0x7efd... (in Assimp, by their offset) and
# an OOM that did not reproduce alone (Assimp takes 1.8 GB on that 8.7 KB input before it finds no reader), which the
# old test (no pc 0x7f...) then reported as ours. So a pc is named ours by where the executable lies.
ours_in_run() { # (no {n} in the awk regex: Debian's mawk lacks intervals)
  grep -E 'ERROR:|runtime error:' "$work/run.log" | awk '
    match($0, /pc 0x[0-9a-f]+/) { pc = substr($0, RSTART + 3, RLENGTH - 3); if (length(pc) == 14 && pc ~ /^0x5[56]/) print; next }
    { print }' || true
}
new=0
contained=0
unreproduced=()
for a in $(find "$work/artifacts" -type f -newer "$work/run.stamp" -printf '%f\n' | sort); do
  report="$("$fuzzer" -runs=1 -timeout=60 -rss_limit_mb=2048 -malloc_limit_mb=2048 "$work/artifacts/$a" 2>&1 || true)"
  site="$(assimp_site <<<"$report")"
  if [ -n "$site" ] && ! grep -q 'rigscope contract broken' <<<"$report"; then
    contained=$((contained + 1))
    echo "fuzz/run.sh: Assimp-internal fault ($site), contained by the import worker: $work/artifacts/$a"
  elif ! grep -qE 'ERROR|runtime error|rigscope contract broken|SUMMARY|Test unit written' <<<"$report"; then
    # Clean when run alone: the worker crashed on it only after earlier inputs (state left in a library, an
    # uninitialised read that found other bytes). Decided below from the run's crash lines.
    unreproduced+=("$a")
  else
    new=$((new + 1))
    echo "fuzz/run.sh: NEW problem: $work/artifacts/$a" >&2
    grep -m3 -E 'rigscope contract broken|SUMMARY|ERROR' <<<"$report" >&2 || true
  fi
done
if [ "${#unreproduced[@]}" -gt 0 ]; then
  ours="$(ours_in_run)"
  for a in "${unreproduced[@]}"; do
    if [ -n "$ours" ]; then
      new=$((new + 1))
      echo "fuzz/run.sh: NEW problem: $work/artifacts/$a (not reproduced alone; the run has a crash line that may be ours)" >&2
    else
      contained=$((contained + 1))
      echo "fuzz/run.sh: not reproduced alone, and every crash line of the run has its pc in a shared library" \
        "(Assimp or the C/C++ runtime; the import worker contains it): $work/artifacts/$a"
    fi
  done
  [ -z "$ours" ] || { echo "fuzz/run.sh: the run's crash lines that may lie in RigScope's code:" >&2; echo "$ours" >&2; }
fi
if [ "$new" -gt 0 ] || { [ "$status" -ne 0 ] && [ "$contained" -eq 0 ]; }; then
  echo "fuzz/run.sh: the fuzzer found $new new problem(s) (exit $status); reproduce with $fuzzer ARTIFACT" >&2
  exit 1
fi
echo "fuzz/run.sh: ${seconds}s, no problem in RigScope code ($contained Assimp-internal crashes; corpus: $(ls "$work/corpus" | wc -l) inputs)"
