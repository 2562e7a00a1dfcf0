# Helpers for the command-line tests (sourced). $1 of the test is the binary.
set -euo pipefail
export LC_ALL=C
KB=${1:?usage: test_x.sh path/to/kmerbloom}
SRC=${KMERBLOOM_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
DATA=$SRC/test/data
T=$(mktemp -d "${TMPDIR:-/tmp}/kb-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
FAILS=0
CHECKS=0

ok() { CHECKS=$((CHECKS + 1)); echo "ok: $*"; }
bad() { CHECKS=$((CHECKS + 1)); FAILS=$((FAILS + 1)); echo "FAIL: $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
# same WHAT A B: A and B hold the same bytes. When they differ: each one's
# size and checksum and the first line that differs, never whole files (a diff
# of two large outputs can take gigabytes). A and B may be pipes (<(...)).
same() {
  local a=$2 b=$3
  [ -f "$a" ] || { cat "$a" > "$T/same.a"; a=$T/same.a; }
  [ -f "$b" ] || { cat "$b" > "$T/same.b"; b=$T/same.b; }
  if cmp -s "$a" "$b"; then ok "$1"; else bad "$1: $2 and $3 differ"; first_difference "$a" "$b"; fi
}
# first_difference A B (regular files that differ): prints the digests and the first differing line of each.
first_difference() {
  local f at n
  for f in "$1" "$2"; do
    echo "  $f: $(wc -c < "$f") bytes, $(wc -l < "$f") lines, cksum $(cksum < "$f" | cut -d' ' -f1)"
  done
  at=$(cmp "$1" "$2" 2>&1 | head -1 || true)  # "... differ: byte B, line L" or "cmp: EOF on F after byte B, line L"
  n=$(echo "$at" | grep -Eo 'line [0-9]+' | grep -Eo '[0-9]+' || echo 0)
  case $at in *EOF*", line "*) n=$((n + 1)) ;; esac  # L is the shorter file's last whole line
  [ "$n" -gt 0 ] || n=1  # "EOF on F which is empty"
  echo "  first difference at line $n (${at#cmp: }):"
  for f in "$1" "$2"; do
    echo "    $f: $(awk -v n="$n" 'NR == n { print "[" substr($0, 1, 200) "]" (length($0) > 200 ? "..." : ""); found = 1; exit }
      END { if (!found) print "(end of file)" }' "$f")"
  done
}
# expect_fail WHAT CODE PATTERN -- command...: exit code CODE, stderr matching PATTERN
expect_fail() {
  local what=$1 code=$2 pattern=$3; shift 4
  local rc=0
  "$@" > "$T/stdout" 2> "$T/stderr" || rc=$?
  if [ "$rc" -ne "$code" ]; then bad "$what: exit $rc, wanted $code ($(head -c 300 "$T/stderr"))"; return; fi
  if ! grep -Eq -- "$pattern" "$T/stderr"; then bad "$what: stderr lacks /$pattern/: $(head -c 300 "$T/stderr")"; return; fi
  ok "$what"
}
# json_field FILE KEY.KEY...: the value at that path of a JSON file (a
# command's --stats), printed as Python prints it.
json_field() {
  python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for key in sys.argv[2].split("."): v = v[key]
print(v)' "$1" "$2"
}
# Strict mode (on in CI: CI=true, as .ci/run sets; or KMERBLOOM_STRICT=1): a
# check that does not run is a failure, not a pass. Only skip_build may skip
# there: its reason is the kind of build under test (a sanitizer build, which
# CI runs on purpose), not something missing from the machine.
case "${KMERBLOOM_STRICT:-${CI:-}}" in true | 1 | yes) STRICT=1 ;; *) STRICT=0 ;; esac
skip() { if [ "$STRICT" -eq 1 ]; then bad "not run, and strict (CI) mode allows no skip: $*"; else echo "skip: $*"; fi; }
skip_build() { echo "skip (this build): $*"; }
# need COMMAND [DEBIAN_PACKAGE]: true if COMMAND is on PATH, else a skip and false.
need() {
  command -v "$1" > /dev/null && return 0
  skip "$1 is not installed (Debian package ${2:-$1})"
  return 1
}
# as_user COMMAND...: run as an ordinary user (nobody) when the tests run as
# root, who may read and write any file, so that the permission checks mean
# something; as the caller otherwise. Files it needs must be reachable by
# anyone: user_dir makes such a folder, with a copy of the binary in it.
as_user() {
  if [ "$(id -u)" -ne 0 ]; then "$@"; else setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; fi
}
user_dir() {  # user_dir NAME: prints the folder; $KB copied into it as kmerbloom
  chmod 755 "$T"
  mkdir -p "$T/$1"
  chmod 777 "$T/$1"
  cp "$KB" "$T/$1/kmerbloom"
  chmod 755 "$T/$1/kmerbloom"
  echo "$T/$1"
}
# signal_at WHAT SIG READY -- command...: starts the command in the
# background (SIG_PID) with its stderr in a fresh file (SIG_LOG: new for each
# call, so no earlier run's log can be read), polls until the command string
# READY succeeds (logged PATTERN: a phase line of this run's -v log; a file it
# writes), sends SIG and waits for the run: SIG_RC is its exit code. No fixed
# sleep, and a bounded wait: a run that ends first, or is not ready within
# SIGNAL_WAIT seconds (default 300; it is then killed), is a failure, and
# signal_at returns 1.
SIG_RUNS=0
signal_at() {
  local what=$1 sig=$2 ready=$3 deadline=$((SECONDS + ${SIGNAL_WAIT:-300}))
  shift 4
  SIG_RUNS=$((SIG_RUNS + 1))
  SIG_LOG=$T/signal.$SIG_RUNS.err
  "$@" 2> "$SIG_LOG" &
  SIG_PID=$!
  until eval "$ready"; do
    if ! kill -0 "$SIG_PID" 2> /dev/null; then
      wait "$SIG_PID" || true
      bad "$what: the run ended before it was ready for SIG$sig ($(tail -c 300 "$SIG_LOG"))"
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      kill -s KILL "$SIG_PID" 2> /dev/null || true
      wait "$SIG_PID" || true
      bad "$what: not ready for SIG$sig after ${SIGNAL_WAIT:-300} s ($(tail -c 300 "$SIG_LOG"))"
      return 1
    fi
    sleep 0.01
  done
  SIG_RC=0
  kill -s "$sig" "$SIG_PID" 2> /dev/null || true  # if it has just ended, its exit code tells
  wait "$SIG_PID" || SIG_RC=$?
}
# screenshot HTML PNG [WIDTH,HEIGHT]: headless Chromium renders the page into
# PNG (read it with test/cli/png_rows.py); false, with a skip, when Chromium
# is missing, and a failure when it writes nothing.
screenshot() {
  local chrome
  chrome=$(command -v chromium || command -v chromium-browser || true)
  if [ -z "$chrome" ]; then skip "rendering $1 (chromium is not installed: Debian package chromium)"; return 1; fi
  mkdir -p "$T/chromium-profile"
  timeout 180 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$T/chromium-profile" \
    --screenshot="$2" --window-size="${3:-1200,1600}" "file://$1" > "$T/chromium.log" 2>&1 || true
  [ -s "$2" ] && return 0
  bad "chromium wrote no screenshot of $1: $(tail -3 "$T/chromium.log")"
  return 1
}
logged() { grep -qs -- "$1" "$SIG_LOG"; }
finish() {
  echo "$CHECKS checks, $FAILS failed"
  [ "$FAILS" -eq 0 ]
}
