# Helpers for the command-line tests (sourced). $1 of the test is the binary.
set -euo pipefail
export LC_ALL=C
KB=${1:?usage: test_x.sh path/to/kmerbloom}
SRC=${KMERBLOOM_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SHARED=${KMERBLOOM_SHARED:-$SRC/../shared}
T=$(mktemp -d "${TMPDIR:-/tmp}/kb-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
FAILS=0
CHECKS=0

ok() { CHECKS=$((CHECKS + 1)); echo "ok: $*"; }
bad() { CHECKS=$((CHECKS + 1)); FAILS=$((FAILS + 1)); echo "FAIL: $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
same() { if cmp -s "$2" "$3"; then ok "$1"; else bad "$1: $2 and $3 differ"; diff "$2" "$3" | head -5; fi; }
# expect_fail WHAT CODE PATTERN -- command...: exit code CODE, stderr matching PATTERN
expect_fail() {
  local what=$1 code=$2 pattern=$3; shift 4
  local rc=0
  "$@" > "$T/stdout" 2> "$T/stderr" || rc=$?
  if [ "$rc" -ne "$code" ]; then bad "$what: exit $rc, wanted $code ($(head -c 300 "$T/stderr"))"; return; fi
  if ! grep -Eq -- "$pattern" "$T/stderr"; then bad "$what: stderr lacks /$pattern/: $(head -c 300 "$T/stderr")"; return; fi
  ok "$what"
}
finish() {
  echo "$CHECKS checks, $FAILS failed"
  [ "$FAILS" -eq 0 ]
}
