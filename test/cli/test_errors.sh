#!/usr/bin/env bash
# Bad input, bad output paths and signals: one error line naming the file (and
# record), the documented exit code, and nothing half-written left behind.
. "$(dirname "$0")/lib.sh"
EX=$SRC/data/example.fq.gz
CORPUS=$DATA/fastq-conformance

# Every malformed file of the FASTQ conformance corpus, through the CLI.
if [ ! -d "$CORPUS" ]; then
  bad "conformance corpus not found at $CORPUS (it is part of the repository)"
else
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
expect_fail "empty path" 3 "^kmerbloom: error: .*\(empty path\)" -- "$KB" count "" -o "$T/out.tsv"
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

# Permissions, as an ordinary user (as_user: root reads and writes anything).
U=$(user_dir perm)
cp "$T/ex.fq" "$U/locked.fq"; chmod 000 "$U/locked.fq"
mkdir "$U/ro"; chmod 555 "$U/ro"
expect_fail "unreadable input: exit 3" 3 "locked.fq" -- as_user "$U/kmerbloom" count "$U/locked.fq" -o "$U/out.tsv"
expect_fail "output folder without write permission: exit 4" 4 "ro/out.tsv" -- \
  as_user "$U/kmerbloom" count "$EX" -o "$U/ro/out.tsv"
expect_fail "filter: output folder without write permission: exit 4" 4 "ro/kept.fq" -- \
  as_user "$U/kmerbloom" filter "$EX" -o "$U/ro/kept.fq"
check "no output after permission errors" test ! -e "$U/out.tsv" -a -z "$(ls -A "$U/ro")"

# Records without a final newline: the last record counts, in FASTQ and
# FASTA (one line and wrapped, CRLF too), plain and gzip. The oracle is the
# same file with the newline: same k-mers, same number of reads.
E=$T/eof
mkdir "$E"
head -n 400 "$T/ex.fq" > "$E/with.fq"
awk 'NR % 4 == 1 { print ">" substr($0, 2) } NR % 4 == 2' "$E/with.fq" > "$E/with.fa"
awk 'NR % 4 == 1 { print ">" substr($0, 2) } NR % 4 == 2 { print substr($0, 1, 70); print substr($0, 71) }' "$E/with.fq" \
  > "$E/with.wrapped.fa"
sed 's/$/\r/' "$E/with.fq" > "$E/with.crlf.fq"
for f in with.fq with.fa with.wrapped.fa with.crlf.fq; do
  no=$E/${f/with/no}
  head -c -1 "$E/$f" > "$no"  # drops the final newline
  case $f in *crlf*) head -c -2 "$E/$f" > "$no" ;; esac
  gzip -c "$no" > "$no.gz"
  "$KB" count "$E/$f" -k 25 -c 1 -o "$E/want.tsv" --stats "$E/want.json" --no-multiqc -q
  # The last read's k-mers are the oracle's too: the one at its end is there.
  last=$(awk 'NR % 4 == 2' "$E/with.fq" | tail -1 | tr -d '\r' | tail -c 26 | head -c 25)
  for g in "$no" "$no.gz"; do
    rc=0
    "$KB" count "$g" -k 25 -c 1 -o "$E/got.tsv" --stats "$E/got.json" --no-multiqc -q || rc=$?
    check "$(basename "$g"): counts (exit $rc)" test "$rc" -eq 0
    same "$(basename "$g"): the same k-mers as with a final newline" "$E/got.tsv" "$E/want.tsv"
    check "$(basename "$g"): 100 reads" grep -q '"reads": 100,' "$E/got.json"
  done
  check "$f: the last read's last 25-mer is counted ($last)" \
    grep -q "^$(printf '%s\n' "$last" | awk '{ r = $0; gsub(/A/, "t", r); gsub(/C/, "g", r); gsub(/G/, "c", r);
      gsub(/T/, "a", r); s = ""; for (i = length(r); i > 0; i--) s = s substr(r, i, 1); r = toupper(s);
      print ($0 < r ? $0 : r) }')"$'\t' "$E/want.tsv"
done
"$KB" filter "$E/no.fq.gz" -k 25 -o "$E/kept.fq" --stats "$E/kept.json" -q
check "filter, no final newline: 100 reads in" grep -q '"reads_in": 100,' "$E/kept.json"
"$KB" filter "$E/no.fq" -C 255 -k 25 -o "$E/kept.fq" -q
same "filter, no final newline: every read kept, the last one too, with its newline" "$E/kept.fq" "$E/with.fq"
"$KB" estimate "$E/no.fa.gz" -k 25 -o "$E/est.tsv" -q
check "estimate, no final newline: F1 = 100 x 126 k-mers" grep -qx $'F1\t12600' "$E/est.tsv"
"$KB" build "$E/with.fq" -k 25 --expected 20000 -o "$E/f.kbf" -q
"$KB" query "$E/f.kbf" "$E/no.crlf.fq" -k 25 -q > "$E/q.tsv"
check "query, no final newline: 100 rows, the last one fully present" \
  awk -F'\t' 'END { exit !(NR == 101 && $4 == "1.0000") }' "$E/q.tsv"

# SIGTERM / SIGINT during a long run: exit 128+N, no output, no temporary file.
# The signal goes when this run's log (a fresh file each round) says it is
# counting (-v logs each pass as it starts; main() has its handlers by then),
# and must land before the pass ends.
for i in $(seq 1 40); do gzip -dc "$EX"; done > "$T/big.fq"
for sig in TERM INT; do
  D=$T/sig-$sig
  mkdir "$D"
  if signal_at "SIG$sig" "$sig" "logged '^\[kmerbloom\] pass 1: reading the input'" -- \
    "$KB" count "$T/big.fq" "$T/big.fq" "$T/big.fq" --no-gate -t 1 -v -o "$D/sig.tsv" --histo "$D/sig.histo"; then
    want=$((128 + $(kill -l "$sig")))
    check "SIG$sig: exit $want (got $SIG_RC)" test "$SIG_RC" -eq "$want"
    check "SIG$sig: sent while counting (pass 1 started, not ended)" \
      test "$(grep -c 'pass 1: reading' "$SIG_LOG")" -eq 1 -a "$(grep -c 'pass 1: [0-9]' "$SIG_LOG")" -eq 0
  fi
  check "SIG$sig: no output and no temporary file left" test -z "$(ls -A "$D")$(ls "$T" | grep kmerbloom-tmp)"
done
finish
