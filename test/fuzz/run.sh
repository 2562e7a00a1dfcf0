#!/usr/bin/env bash
# Bounded fuzzing, as CI runs it (test/run-all.sh): builds the libFuzzer
# targets with clang into build-fuzz/, fuzzes each for FUZZ_SECONDS from a
# fresh copy of its seed corpus, then replays every seed and every saved
# input in test/fuzz/regressions/<target>/ (none saved is an error). Exits
# non-zero on any crash, leak, timeout, sanitizer report or oracle failure.
#   bash test/fuzz/run.sh [TARGET...]        (default: every target)
# Environment: FUZZ_SECONDS (per target, default 60; 0 only replays),
# FUZZ_BUILD (default build-fuzz), FUZZ_JOBS (compile jobs, default 2).
# Nothing is written into the source tree: the working corpus is
# $FUZZ_BUILD/corpus/<target>, crash inputs go to $FUZZ_BUILD/crashes/<target>/.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FUZZ=$ROOT/test/fuzz
BUILD=${FUZZ_BUILD:-$ROOT/build-fuzz}
SECS=${FUZZ_SECONDS:-60}
if [ $# -gt 0 ]; then targets=("$@"); else targets=(fuzz_reader fuzz_filter_file fuzz_kff); fi

echo "[fuzz] building ${targets[*]} with clang in $BUILD" >&2
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DKMERBLOOM_FUZZ=ON -DKMERBLOOM_TESTS=OFF -DKMERBLOOM_WERROR=ON >/dev/null
cmake --build "$BUILD" -j"${FUZZ_JOBS:-2}" --target "${targets[@]}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
limits=(-timeout=10 -rss_limit_mb=2048)
failed=()
for t in "${targets[@]}"; do
  bin=$BUILD/test/fuzz/$t
  [ -x "$bin" ] || { echo "[fuzz] unknown target $t" >&2; exit 2; }
  if [ "$SECS" -gt 0 ]; then
    corpus=$BUILD/corpus/$t crashes=$BUILD/crashes/$t log=$BUILD/$t.log
    rm -rf "$corpus"; mkdir -p "$corpus" "$crashes"
    cp "$FUZZ/corpus/$t"/* "$corpus/"
    # The FASTQ conformance corpus (test/data/) seeds the reader as well.
    if [ "$t" = fuzz_reader ]; then cp "$ROOT/test/data/fastq-conformance"/*.f* "$corpus/"; fi
    echo "[fuzz] $t: $SECS s (log: $log)" >&2
    rc=0
    "$bin" "$corpus" -dict="$FUZZ/$t.dict" "${limits[@]}" -max_len=65536 -max_total_time="$SECS" \
      -artifact_prefix="$crashes/" -print_final_stats=1 > "$log" 2>&1 || rc=$?
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | sed "s/^/[fuzz] $t: /" >&2 || true
    if [ "$rc" -ne 0 ]; then
      grep -vE '^#[0-9]+ ' "$log" | tail -50 >&2
      echo "[fuzz] $t: FAILED (exit $rc); input in $crashes/: fix, then keep it in test/fuzz/regressions/$t/" >&2
      failed+=("$t")
    fi
  fi
  # Replay: every seed and every saved input. An empty set is an error (a
  # replay of nothing would pass whatever the code does).
  shopt -s nullglob
  saved=("$FUZZ/corpus/$t"/* "$FUZZ/regressions/$t"/*)
  regressions=("$FUZZ/regressions/$t"/*)
  shopt -u nullglob
  if [ ${#regressions[@]} -eq 0 ]; then
    echo "[fuzz] $t: no saved inputs in test/fuzz/regressions/$t/" >&2
    failed+=("$t:no-regressions")
  fi
  echo "[fuzz] $t: replaying ${#saved[@]} seeds and saved inputs (${#regressions[@]} saved)" >&2
  for f in "${saved[@]}"; do
    "$bin" "${limits[@]}" "$f" > "$BUILD/replay.log" 2>&1 || {
      tail -30 "$BUILD/replay.log" >&2
      failed+=("$t:$(basename "$f")")
    }
  done
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "[fuzz] FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "[fuzz] ok: ${targets[*]}" >&2
