#!/usr/bin/env bash
# A user's mistakes never cost data, and every message says what to do:
# outputs on an input or on each other, inputs that are streams whatever their
# path, mixed gzip members, every signal a scheduler sends, threads that
# cannot start, help texts and hints for the habits of other k-mer counters.
. "$(dirname "$0")/lib.sh"
EX=$SRC/data/example.fq.gz
gzip -dc "$EX" > "$T/reads.fq"
cp "$T/reads.fq" "$T/reads.orig"
"$KB" count "$T/reads.fq" -o "$T/plain.tsv" -q

# ------------------------------------------------- outputs onto inputs
# (restored afterwards, so that one failure does not spoil the next checks)
intact() { same "$1: the reads are intact" "$T/reads.fq" "$T/reads.orig"; cp "$T/reads.orig" "$T/reads.fq"; }
expect_fail "count -o INPUT refused" 2 "^kmerbloom: error: -o .*reads.fq is the input" \
  -- "$KB" count "$T/reads.fq" -o "$T/reads.fq"
intact "count -o INPUT"
mkdir -p "$T/sub"
expect_fail "count -o sub/../INPUT refused" 2 "-o .*sub/\.\./reads.fq is the input" \
  -- "$KB" count "$T/reads.fq" -o "$T/sub/../reads.fq"
intact "count -o sub/../INPUT"
ln -s "$T/reads.fq" "$T/link.tsv"
expect_fail "count -o LINK-TO-INPUT refused" 2 "-o .*link.tsv is the input" \
  -- "$KB" count "$T/reads.fq" -o "$T/link.tsv"
intact "count -o LINK-TO-INPUT"
KB_ABS=$(cd "$(dirname "$KB")" && pwd)/$(basename "$KB")
cd "$T"
expect_fail "count --stats INPUT (relative) refused" 2 "--stats reads.fq is the input" \
  -- "$KB_ABS" count reads.fq -o out.tsv --stats reads.fq
cd - > /dev/null
intact "count --stats INPUT"
expect_fail "count --histo INPUT refused" 2 "--histo .* is the input" \
  -- "$KB" count "$T/reads.fq" -o "$T/out.tsv" --histo "$T/reads.fq"
expect_fail "count -o - onto the input (stdout redirected to it) refused" 2 "-o - \(standard output\) is the input" \
  -- bash -c '"$0" count "$1" >> "$1"' "$KB" "$T/reads.fq"
intact "count >> INPUT"
expect_fail "filter -o INPUT refused" 2 "-o .*reads.fq is the input" \
  -- "$KB" filter "$T/reads.fq" -o "$T/reads.fq"
intact "filter -o INPUT"
"$KB" count "$T/reads.fq" -o "$T/solid.tsv" -q
cp "$T/solid.tsv" "$T/solid.orig"
expect_fail "filter -O onto --solid refused" 2 "-O .*solid.tsv is the --solid input" \
  -- "$KB" filter "$T/reads.fq" "$T/reads.fq" --drop-weak --solid "$T/solid.tsv" -o "$T/k1.fq" -O "$T/solid.tsv"
same "filter -O onto --solid: the solid k-mers are intact" "$T/solid.tsv" "$T/solid.orig"
cp "$T/solid.orig" "$T/solid.tsv"
expect_fail "estimate -o INPUT refused" 2 "-o .* is the input" -- "$KB" estimate "$T/reads.fq" -o "$T/reads.fq"
expect_fail "merge-counts -o INPUT refused" 2 "-o .*solid.tsv is the input" \
  -- "$KB" merge-counts "$T/solid.tsv" -o "$T/solid.tsv"
same "merge-counts -o INPUT: intact" "$T/solid.tsv" "$T/solid.orig"
cp "$T/solid.orig" "$T/solid.tsv"
intact "every refusal"

# ------------------------------------------------- outputs onto each other
rm -f "$T/X"
expect_fail "count -o X --histo X refused, both options named" 2 "-o .*/X and --histo .*/X are the same file" \
  -- "$KB" count "$T/reads.fq" -o "$T/X" --histo "$T/X"
check "-o X --histo X: X not created" test ! -e "$T/X"
expect_fail "count -o X --stats ./X (new file, two spellings) refused" 2 "-o .* and --stats .* are the same file" \
  -- "$KB" count "$T/reads.fq" -o "$T/X" --stats "$T/sub/../X"
echo previous > "$T/X"
expect_fail "count -o X --stats X (existing) refused" 2 "are the same file" \
  -- "$KB" count "$T/reads.fq" -o "$T/X" --stats "$T/X"
check "the existing X is untouched" grep -qx previous "$T/X"
expect_fail "count --histo - with the default -o - refused" 2 "-o - \(standard output\) and --histo - \(standard output\) both write to standard output" \
  -- "$KB" count "$T/reads.fq" --histo -
check "nothing reached stdout" test ! -s "$T/stdout"
expect_fail "count --stats - -o /dev/stdout refused" 2 "both write to standard output" \
  -- bash -c 'set -o pipefail; "$0" count "$1" -o /dev/stdout --stats - | cat' "$KB" "$T/reads.fq"
expect_fail "estimate -o - --json - refused" 2 "both write to standard output" -- "$KB" estimate "$T/reads.fq" --json -
expect_fail "filter -o X -O X refused" 2 "-o .* and -O .* are the same file" \
  -- "$KB" filter "$T/reads.fq" "$T/reads.fq" -o "$T/k.fq" -O "$T/sub/../k.fq"
"$KB" count "$T/reads.fq" -o /dev/null --histo /dev/null --stats /dev/null --no-multiqc -q
ok "/dev/null takes any number of outputs"

# ------------------------------------------------- streams by what they are
# A FIFO is read once (one pass, as stdin); the run ends.
mkfifo "$T/in.fifo"
cat "$T/reads.fq" > "$T/in.fifo" &
rc=0
timeout 120 "$KB" count "$T/in.fifo" -o "$T/fifo.tsv" -q 2> "$T/fifo.err" || rc=$?
wait
check "a FIFO input counts and ends (exit $rc: $(head -c 200 "$T/fifo.err"))" test "$rc" -eq 0
"$KB" count - -o "$T/stdin.tsv" -q < "$T/reads.fq"
same "a FIFO input counts as stdin does (one pass)" "$T/fifo.tsv" "$T/stdin.tsv"
# A regular file under /dev (here /dev/shm) is a file: two passes, exact.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  shm=$(mktemp /dev/shm/kb-test.XXXXXX)
  cp "$T/reads.fq" "$shm"
  "$KB" count "$shm" -o "$T/shm.tsv" -v 2> "$T/shm.err" || bad "count on /dev/shm failed"
  rm -f "$shm"
  same "a regular file under /dev/shm counts exactly, as anywhere" "$T/shm.tsv" "$T/plain.tsv"
  check "no one-pass fallback for a regular file under /dev/" test -z "$(grep -i 'stream' "$T/shm.err")"
else
  skip "/dev/shm not writable"
fi

# ------------------------------------------------- gzip members of any kind
bgzip -c "$T/reads.fq" > "$T/a.bgz"
head -8 "$T/reads.fq" > "$T/tail.fq"
gzip -c "$T/tail.fq" > "$T/b.gz"
cat "$T/a.bgz" "$T/b.gz" > "$T/mixed.gz"
gzip -t "$T/mixed.gz" && ok "gzip -t accepts BGZF then plain gzip"
cat "$T/reads.fq" "$T/tail.fq" > "$T/mixed.fq"
"$KB" count "$T/mixed.gz" --min-count 1 -o "$T/mixed_gz.tsv" -q 2> "$T/mixed.err" || bad "BGZF then gzip: $(cat "$T/mixed.err")"
"$KB" count "$T/mixed.fq" --min-count 1 -o "$T/mixed_fq.tsv" -q
same "BGZF member then a plain gzip member: every record" "$T/mixed_gz.tsv" "$T/mixed_fq.tsv"
cat "$T/b.gz" "$T/a.bgz" > "$T/mixed2.gz"
"$KB" count "$T/mixed2.gz" --min-count 1 -o "$T/mixed2.tsv" -q 2> "$T/mixed.err" || bad "gzip then BGZF: $(cat "$T/mixed.err")"
# A BGZF file cut at a block boundary, after a plain member: still refused.
bgzip -c -@1 "$T/reads.fq" | head -c -28 > "$T/noeof.bgz"
cat "$T/b.gz" "$T/noeof.bgz" > "$T/mixed3.gz"
expect_fail "plain gzip then BGZF without its end-of-file block refused" 3 "mixed3.gz: truncated BGZF" \
  -- "$KB" count "$T/mixed3.gz" -o "$T/m3.tsv"

# ------------------------------------------------- signals
# Each signal once this run logs its first pass (its handlers are in place by
# then) and its temporary output exists.
tmp_output() { ls "$T/sig" | grep -q kmerbloom-tmp; }
for i in $(seq 1 40); do cat "$T/reads.fq"; done > "$T/big.fq"
for sig in HUP QUIT XCPU XFSZ USR1 USR2; do
  rm -rf "$T/sig"; mkdir "$T/sig"
  signal_at "SIG$sig" "$sig" "logged '^\[kmerbloom\] pass 1: reading' && tmp_output" -- \
    "$KB" count "$T/big.fq" "$T/big.fq" "$T/big.fq" --no-gate -t 1 -o "$T/sig/out.tsv" --histo "$T/sig/h" -v || continue
  want=$((128 + $(kill -l "$sig")))
  check "SIG$sig: exit $want (got $SIG_RC)" test "$SIG_RC" -eq "$want"
  check "SIG$sig: no temporary output left ($(ls "$T/sig" | tr '\n' ' '))" test -z "$(ls "$T/sig")"
done

# ------------------------------------------------- threads that cannot start
# A sanitizer build reserves terabytes of shadow address space at start, so it
# cannot run under ulimit -v at all; the release build runs this check.
if grep -qaE '__(a|t)san_init' "$KB"; then
  skip_build "thread start failure under ulimit -v (sanitizer build: shadow memory needs the address space)"
else
  rm -rf "$T/thr"; mkdir "$T/thr"
  rc=0
  (ulimit -v 1500000; exec "$KB" count "$T/reads.fq" -t 1000 -o "$T/thr/out.tsv") 2> "$T/thr.err" || rc=$?
  check "-t 1000 under ulimit -v: a clean error, exit 1 (got $rc: $(head -c 300 "$T/thr.err"))" \
    test "$rc" -eq 1
  check "-t 1000 under ulimit -v: one error line naming the threads" grep -Eq "^kmerbloom: error: cannot start thread [0-9]+ of 1000" "$T/thr.err"
  check "-t 1000 under ulimit -v: no terminate" test -z "$(grep -i terminate "$T/thr.err")"
  check "-t 1000 under ulimit -v: no temporary output left" test -z "$(ls "$T/thr")"
fi

# ------------------------------------------------- reader: what other tools accept
printf '>s1 \nACGTACGTAC \t\nGGTTAACC\t\n>s2\nACGTACGTACGG  \n' > "$T/ws.fa"
printf '>s1\nACGTACGTACGGTTAACC\n>s2\nACGTACGTACGG\n' > "$T/clean.fa"
"$KB" count "$T/ws.fa" -k 5 --min-count 1 -o "$T/ws.tsv" -q 2> "$T/ws.err" || bad "FASTA with trailing spaces: $(cat "$T/ws.err")"
"$KB" count "$T/clean.fa" -k 5 --min-count 1 -o "$T/clean.tsv" -q
same "spaces and tabs ending FASTA sequence lines are skipped" "$T/ws.tsv" "$T/clean.tsv"
printf '@r\nACGTA \n+\nIIIIII\n' > "$T/ws.fq"
expect_fail "a space in a FASTQ sequence stays an error" 3 "ws.fq: record 1 \(line 2\): invalid character ' '" \
  -- "$KB" count "$T/ws.fq" -k 3 -o "$T/o.tsv"
head -8 "$T/reads.fq" | tr '\n' '\r' > "$T/mac.fq"
expect_fail "CR-only line ends named" 3 "mac.fq: line 1: lines end in a carriage return alone" \
  -- "$KB" count "$T/mac.fq" -o "$T/o.tsv"

# ------------------------------------------------- -M, one parser
for cmd in count filter; do
  expect_fail "$cmd -M '' (an unset variable) refused naming -M" 2 "-M/--max-memory wants a memory size .* empty value" \
    -- "$KB" $cmd "$T/reads.fq" -M '' -o "$T/o.out"
  expect_fail "$cmd -M 1K: the budget cannot be met, exit 5" 5 "cannot (count|filter) in" \
    -- "$KB" $cmd "$T/reads.fq" -M 1K -o "$T/o.out"
  expect_fail "$cmd -M 12Q refused" 2 "wants a memory size such as 500M or 4G, got '12Q'" \
    -- "$KB" $cmd "$T/reads.fq" -M 12Q -o "$T/o.out"
done
"$KB" count "$T/reads.fq" -M 1GiB -o "$T/m.tsv" -q && "$KB" filter "$T/reads.fq" -M 512MB -o "$T/m.fq" -q &&
  ok "-M takes 1GiB and 512MB"

# ------------------------------------------------- help that says what the run does
"$KB" count --help > "$T/help.txt"
# The default --fpr the help names is the one the runs use (bloom.target_fpr in the statistics).
help_fpr=$(grep -A2 -- '--fpr' "$T/help.txt" | grep -o 'default [0-9.]*' | head -1 | cut -d' ' -f2)
"$KB" count "$T/reads.fq" -o /dev/null --stats "$T/fpr.json" -q --no-multiqc
check "count --help: the exact mode's --fpr default ($help_fpr) is the run's" python3 -c '
import json, sys
assert abs(json.load(open(sys.argv[1]))["bloom"]["target_fpr"] - float(sys.argv[2])) < 1e-12' "$T/fpr.json" "${help_fpr:-x}"
check "count --help: no fixed 0.01 default for --fpr" test -z "$(grep -A2 -- '--fpr' "$T/help.txt" | grep 'default 0.01')"
check "count --help lists -q and -v" grep -Eq -- "-q,.*--quiet" "$T/help.txt"
check "count --help lists -v" grep -Eq -- "-v,.*--verbose" "$T/help.txt"
check "count --help: --bloom-growth range" grep -q "1.25 to 16" "$T/help.txt"
"$KB" count "$T/reads.fq" --bloom-growth 3 -o "$T/g3.tsv" -q
same "--bloom-growth 3 counts as the help says" "$T/g3.tsv" "$T/plain.tsv"
expect_fail "--bloom-growth 1 refused before reading" 2 "bloom-growth" -- "$KB" count "$T/reads.fq" --bloom-growth 1 -o "$T/o.tsv"

# ------------------------------------------------- aligned reads: named, with samtools fastq
printf '@HD\tVN:1.6\n@SQ\tSN:c\tLN:9\nr\t0\tc\t1\t60\t4M\t*\t0\t0\tACGT\tIIII\n' > "$T/aln.sam"
printf 'BAM\001\000\000\000\000' | gzip -c > "$T/aln.bam"  # BGZF is gzip: the magic lies inside
printf 'CRAM\003\000\000\000' > "$T/aln.cram"
for f in sam bam cram; do
  F=$(echo $f | tr a-z A-Z)
  expect_fail "a $F file is named, with samtools fastq" 3 "aln.$f: a $F file \(aligned reads\), not FASTA or FASTQ reads; give its reads: samtools fastq" \
    -- "$KB" count "$T/aln.$f" -o "$T/aln.tsv"
done

# ------------------------------------------------- reads where k-mer counts belong
printf '>chr1\nACGTACGTACGTACGTACGTACGTACGTACGTACGT\n' > "$T/seq.fa"
expect_fail "qv --reads given reads: count them first" 3 "reads.fq: line 1: a FASTQ record: these are reads, not k-mer counts \(count them first: kmerbloom count" \
  -- "$KB" qv "$T/seq.fa" --reads "$T/reads.fq" -o "$T/q"
expect_fail "sets given sequences: count them first" 3 "seq.fa: line 1: a FASTA record named 'chr1': these are sequences, not k-mer counts" \
  -- "$KB" sets union "$T/seq.fa" "$T/seq.fa" -o "$T/u.tsv"

# ------------------------------------------------- hints for other counters' habits
expect_fail "jellyfish -m/-C/-s get hints" 2 "hint: the k-mer length is -k in kmerbloom \(Jellyfish's -m\): -k 31" \
  -- "$KB" count -C -m 31 -s 100M "$T/reads.fq"
check "hint: -C is the default" grep -q "canonical k-mers are the default" "$T/stderr"
check "hint: -s is not needed" grep -q "no hash size is needed" "$T/stderr"
check "one error line, hints after it" test "$(grep -c '^kmerbloom: error:' "$T/stderr")" -eq 1
expect_fail "KMC -ci 2 (a space) gets -c 2" 2 "hint: -ci 2 is KMC's spelling; kmerbloom writes -c 2" -- "$KB" count -ci 2 "$T/reads.fq"
expect_fail "KMC -fq is named whole, and not needed" 2 "^kmerbloom: error: -fq is not an option of kmerbloom count$" \
  -- "$KB" count -fq "$T/reads.fq"
check "hint: the format comes from the content" grep -q "hint: KMC's -fq (the input format) is not needed" "$T/stderr"
expect_fail "KMC -ci2 gets -c 2" 2 "hint: -ci2 is KMC's spelling; kmerbloom writes -c 2" -- "$KB" count -ci2 "$T/reads.fq"
expect_fail "bare kmerbloom lists the subcommands" 2 "a subcommand is required, one of: count, estimate, filter" -- "$KB"
expect_fail "a word that is no subcommand is named, with the closest" 2 "'coutn' is not a subcommand; did you mean count\?" \
  -- "$KB" coutn "$T/reads.fq"
expect_fail "histo is the count's --histo" 2 "'histo' is not a subcommand: the histogram is written by the count" \
  -- "$KB" histo "$T/reads.fq"
expect_fail "an unknown option is named before a missing input" 2 "--bogus is not an option of kmerbloom count" \
  -- "$KB" count --bogus
expect_fail "a misspelt option gets the closest" 2 "--hsito is not an option of kmerbloom count; did you mean --histo\?" \
  -- "$KB" count "$T/reads.fq" --hsito h.histo
expect_fail "report -t: -t is named, not the statistics file" 2 "^kmerbloom: error: -t is not an option of kmerbloom report$" \
  -- "$KB" report -t 2 "$T/stats.json"
expect_fail "a missing count file says what to give" 2 "no input given: lookup needs a sorted count file" -- "$KB" lookup
expect_fail "a missing input says what to give" 2 "no input given: count needs input files \(FASTA or FASTQ" -- "$KB" count -o "$T/o.tsv"
expect_fail "filter -c 3 alone refused" 2 "-c/--min-count applies to weak k-mers only: add --drop-weak or --trim-weak" \
  -- "$KB" filter "$T/reads.fq" -c 3 -o "$T/o.fq"

# ------------------------------------------------- warnings for runs that did nothing useful
: > "$T/empty.fq"
"$KB" count "$T/empty.fq" -o "$T/e.tsv" --stats "$T/e.json" 2> "$T/e.err"
check "empty input: a warning on stderr" grep -q "warning: the input holds no reads" "$T/e.err"
check "empty input: the warning in the statistics" grep -q "the input holds no reads" "$T/e.json"
printf '@a\nACGTACGT\n+\nIIIIIIII\n' > "$T/short.fq"
"$KB" count "$T/short.fq" -o "$T/s.tsv" --stats "$T/s.json" 2> "$T/s.err"
check "reads shorter than k: a warning naming k" grep -q "every read is shorter than k = 31" "$T/s.err"
check "reads shorter than k: in the statistics" grep -q "shorter than k = 31" "$T/s.json"
"$KB" count "$T/reads.fq" --expected 50000000 -o "$T/x.tsv" 2> "$T/x.err"
check "--expected far above the input: a warning" grep -q "warning: --expected 50000000 is" "$T/x.err"
"$KB" count "$T/reads.fq" --partition 0/2 --format fasta -o "$T/p.fa" 2> "$T/p.err"
check "--partition with --format fasta: a warning" grep -q "neither sort -m nor merge-counts gathers FASTA" "$T/p.err"
"$KB" count "$T/reads.fq" -o "$T/n.tsv" --stats "$T/n.json" 2> "$T/n.err"
check "a normal run has no warning" test -z "$(grep -i warning "$T/n.err")"
"$KB" estimate "$T/short.fq" 2> "$T/est.err" > /dev/null
check "estimate with no k-mers: a warning, no inf" test -z "$(grep -i 'inf' "$T/est.err")" -a -n "$(grep 'warning: no k-mers' "$T/est.err")"

# ------------------------------------------------- Ctrl-C ends the progress line and says so
rm -rf "$T/sig"; mkdir "$T/sig"
if signal_at "SIGINT with --progress" INT "logged '^\[kmerbloom\] pass 1: reading' && tmp_output" -- \
  "$KB" count "$T/big.fq" "$T/big.fq" --no-gate -t 1 -o "$T/sig/out.tsv" --progress -v; then
  check "SIGINT: exit 130 (got $SIG_RC)" test "$SIG_RC" -eq 130
  check "SIGINT: stderr says the run was interrupted" grep -q "^kmerbloom: interrupted by SIGINT" "$SIG_LOG"
fi

finish
