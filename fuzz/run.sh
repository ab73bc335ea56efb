#!/usr/bin/env bash
# Runs fuzz_import for a fixed time: fuzz/run.sh SECONDS [MAX_LEN] [more libFuzzer flags...]
#
# Needs the `fuzz` preset built (cmake --preset fuzz && cmake --build --preset fuzz). Seeds: every model file in
# RIGSCOPE_ASSETS_DIR (default ../shared/assets) and tests/data/broken, each as is and re-exported by Assimp to every
# fuzzed format (fuzz_seeds), plus tests/data/fuzz-regressions. New coverage goes to build-fuzz/fuzz-work/corpus (kept
# between runs), new crashes/timeouts/OOMs to build-fuzz/fuzz-work/artifacts/. Exits non-zero when the run found one:
# copy the artifact into tests/data/fuzz-regressions/ (the suite replays it) and fix the bug.
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
fuzzer="$build/fuzz/fuzz_import"
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
"$build/fuzz/fuzz_seeds" "$work/seeds" "$max_len" "${models[@]}" "$root"/tests/data/broken/*.gltf

before="$(ls "$work/artifacts" | wc -l)"
cd "$work/cwd"
status=0
# -rss_limit_mb / -malloc_limit_mb: the import budget here is 256 MiB (hostile_pipeline.h); 2 GiB catches runaway
# allocations inside Assimp too. -timeout: one input may take at most 60 s (the slowest seed takes ~1 s).
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}" \
LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/fuzz/lsan.supp:print_suppressions=0}" \
UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}" \
"$fuzzer" -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=60 \
  -dict="$root/fuzz/rigscope.dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
  "$@" "$work/corpus" "$work/seeds" "$root/tests/data/fuzz-regressions" || status=$?
after="$(ls "$work/artifacts" | wc -l)"
if [ "$status" -ne 0 ] || [ "$after" -ne "$before" ]; then
  echo "fuzz/run.sh: the fuzzer found a problem (exit $status); new artifacts in $work/artifacts:" >&2
  ls -t "$work/artifacts" | head -n $(( after - before > 0 ? after - before : 1 )) >&2
  exit 1
fi
echo "fuzz/run.sh: ${seconds}s, no crash, hang or OOM (corpus: $(ls "$work/corpus" | wc -l) inputs)"
