#!/usr/bin/env bash
# Bad input, bad output paths and signals: one error line naming the file (and
# record), the documented exit code, and nothing half-written left behind.
. "$(dirname "$0")/lib.sh"
EX=$SRC/data/example.fq.gz
CORPUS=$SHARED/testdata/fastq-conformance

# Every malformed file of the FASTQ conformance corpus, through the CLI.
if [ -d "$CORPUS" ]; then
  for f in "$CORPUS"/error_*.fastq; do
    expect_fail "$(basename "$f") refused" 3 "^kmerbloom: error: .*$(basename "$f"): record [0-9]+ \(line [0-9]+\)" \
      -- "$KB" count "$f" -k 5 -o "$T/out.tsv"
    [ ! -e "$T/out.tsv" ] || bad "$(basename "$f"): output left behind"
  done
  ls "$T" | grep -q kmerbloom-tmp && bad "temporary files left behind"
  # valid corpus files all count
  for f in "$CORPUS"/*.fastq "$CORPUS"/*.fasta "$CORPUS"/*.gz "$CORPUS"/*.bgz; do
    case "$(basename "$f")" in error_*) continue ;; esac
    "$KB" count "$f" -k 5 --min-count 1 -o "$T/v.tsv" -q 2> "$T/err" || bad "$(basename "$f") should count: $(cat "$T/err")"
  done
  ok "every valid conformance file counts"
else
  echo "skip: conformance corpus not found at $CORPUS"
fi

# Compression damage.
gzip -dc "$EX" > "$T/ex.fq"
head -c 100000 "$EX" > "$T/trunc.fq.gz"
expect_fail "truncated gzip refused" 3 "trunc.fq.gz: truncated gzip" -- "$KB" count "$T/trunc.fq.gz" -o "$T/out.tsv"
check "no output after truncated gzip" test ! -e "$T/out.tsv"
cp "$EX" "$T/corrupt.fq.gz"
printf 'XXXXXXXX' | dd of="$T/corrupt.fq.gz" bs=1 seek=50000 conv=notrunc 2>/dev/null
expect_fail "corrupt gzip refused" 3 "corrupt.fq.gz" -- "$KB" count "$T/corrupt.fq.gz" -o "$T/out.tsv"
cat "$EX" "$EX" > "$T/multi.fq.gz"
"$KB" count "$T/multi.fq.gz" --min-count 1 -o "$T/multi.tsv" -q
"$KB" count "$T/ex.fq" "$T/ex.fq" --min-count 1 -o "$T/twice.tsv" -q
same "multi-member gzip reads every member" "$T/multi.tsv" "$T/twice.tsv"

# Files that are not sequences, or not there.
head -c 5000 /dev/urandom > "$T/noise.bin"
expect_fail "binary noise refused" 3 "noise.bin" -- "$KB" count "$T/noise.bin" -o "$T/out.tsv"
printf '@r1\nAC\0GT\n+\nIIIII\n' > "$T/nul.fq"
expect_fail "NUL byte refused" 3 "nul.fq: record 1" -- "$KB" count "$T/nul.fq" -o "$T/out.tsv"
printf '@r1\nACGT\n+\nIIII\n>r2\nACGT\n' > "$T/mixed.fq"
expect_fail "FASTA record inside FASTQ refused" 3 "mixed.fq: record 2" -- "$KB" count "$T/mixed.fq" -o "$T/out.tsv"
expect_fail "missing file" 3 "nope.fq: cannot open" -- "$KB" count "$T/nope.fq" -o "$T/out.tsv"
expect_fail "directory" 3 "is a directory" -- "$KB" count "$T" -o "$T/out.tsv"
expect_fail "empty path" 3 "" -- "$KB" count "" -o "$T/out.tsv"
check "no output after any input error" test ! -e "$T/out.tsv"

# An existing result survives a failed run untouched.
echo "previous result" > "$T/keep.tsv"
"$KB" count "$T/trunc.fq.gz" -o "$T/keep.tsv" 2>/dev/null || true
check "failed run leaves the previous output intact" grep -qx "previous result" "$T/keep.tsv"

# Valid edge cases.
: > "$T/empty.fq"
"$KB" count "$T/empty.fq" -o "$T/e.tsv" --stats "$T/e.json" -q
check "empty input: empty output" test -e "$T/e.tsv" -a ! -s "$T/e.tsv"
printf '>short\nACG\n>none\n' > "$T/short.fa"
"$KB" count "$T/short.fa" -k 31 --min-count 1 -o "$T/s.tsv" -q
check "reads shorter than k: no k-mers, no error" test ! -s "$T/s.tsv"

# Output paths.
expect_fail "/dev/full is an error" 4 "/dev/full" -- "$KB" count "$EX" -o /dev/full
check "/dev/full is still a character device" test -c /dev/full
check "/dev/stdout is still a link" test -L /dev/stdout
"$KB" count "$EX" -o /dev/stdout -q > "$T/devstdout.tsv"
"$KB" count "$EX" -o "$T/plain.tsv" -q
same "-o /dev/stdout writes in place" "$T/devstdout.tsv" "$T/plain.tsv"
expect_fail "output in a missing folder" 4 "nofolder" -- "$KB" count "$EX" -o "$T/nofolder/x.tsv"
mkfifo "$T/fifo"
cat "$T/fifo" > "$T/from_fifo.tsv" &
"$KB" count "$EX" -o "$T/fifo" -q
wait
same "a FIFO is written in place" "$T/from_fifo.tsv" "$T/plain.tsv"
check "the FIFO is still a FIFO" test -p "$T/fifo"

# | head ends quietly.
rc=0
"$KB" count "$EX" --min-count 1 2> "$T/head.err" | head -1 > /dev/null || rc=$?
check "| head: exit 0, nothing on stderr but the summary" test "$rc" -eq 0 -a -z "$(grep -v '^\[kmerbloom\]' "$T/head.err")"

# SIGTERM / SIGINT during a long run: exit 128+N, no output, no temporary file.
for i in $(seq 1 40); do gzip -dc "$EX"; done > "$T/big.fq"
for sig in TERM INT; do
  "$KB" count "$T/big.fq" "$T/big.fq" "$T/big.fq" --no-gate -t 1 -o "$T/sig.tsv" --histo "$T/sig.histo" -q &
  pid=$!
  # Signal once the run is under way (its temporary output exists): before
  # main() installs its handlers, a background job ignores SIGINT.
  for _ in $(seq 1 300); do ls "$T" | grep -q kmerbloom-tmp && break; sleep 0.1; done
  sleep 0.2
  kill -s "$sig" "$pid"
  rc=0; wait "$pid" || rc=$?
  want=$((128 + $(kill -l "$sig")))
  check "SIG$sig: exit $want (got $rc)" test "$rc" -eq "$want"
  check "SIG$sig: no output and no temporary file left" test -z "$(ls "$T" | grep -E 'sig\.|kmerbloom-tmp')"
done
finish
