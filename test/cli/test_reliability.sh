#!/usr/bin/env bash
# Reliability beyond test_errors.sh: exactly one error line of one form for
# every bad input, from `count` and `estimate`; valid extremes (an 8 Mb read
# on one line, headers without sequence); truncated BGZF; determinism across
# threads and repeated runs on a generated read set; quiet `| head`; signals
# in each phase of `count`; the memory budget (-M) measured.
. "$(dirname "$0")/lib.sh"
EX=$SRC/data/example.fq.gz

# one_error WHAT CODE NAME [RECORD] -- command...: exit CODE and exactly one
# line on stderr, "kmerbloom: error: " naming NAME (and "record N (line L)"
# when RECORD is "record").
one_error() {
  local what=$1 code=$2 name=$3 record=""
  shift 3
  if [ "$1" = record ]; then record=1; shift; fi
  shift  # --
  local rc=0
  "$@" > "$T/stdout" 2> "$T/stderr" || rc=$?
  local lines
  lines=$(awk 'END { print NR }' "$T/stderr")
  if [ "$rc" -ne "$code" ]; then bad "$what: exit $rc, wanted $code ($(head -c 300 "$T/stderr"))"; return; fi
  if [ "$lines" -ne 1 ]; then bad "$what: $lines lines on stderr, wanted 1: $(head -c 400 "$T/stderr")"; return; fi
  if ! grep -q '^kmerbloom: error: ' "$T/stderr"; then bad "$what: not 'kmerbloom: error: ...': $(cat "$T/stderr")"; return; fi
  if ! grep -qF -- "$name" "$T/stderr"; then bad "$what: message does not name '$name': $(cat "$T/stderr")"; return; fi
  if [ -n "$record" ] && ! grep -Eq 'record [0-9]+ \(line [0-9]+\)' "$T/stderr"; then
    bad "$what: message does not name the record and line: $(cat "$T/stderr")"; return
  fi
  ok "$what"
}
# JSON field of a --stats file (integers only): json_int FILE KEY
json_int() { grep -Eo "\"$2\": *[0-9]+" "$1" | head -1 | grep -Eo '[0-9]+$'; }
no_leftovers() {  # no_leftovers WHAT DIR: no output and no temporary file in DIR
  local left
  left=$(ls -A "$2")
  if [ -z "$left" ]; then ok "$1: nothing left behind"; else bad "$1: left behind: $left"; fi
}

# Deterministic random bases (Park-Miller; awk arithmetic is exact here):
# random_bases N SEED prints N bases and a newline.
random_bases() {
  awk -v n="$1" -v seed="$2" 'BEGIN { x = seed; split("A C G T", b, " "); out = ""
    for (i = 1; i <= n; i++) { x = (x * 16807) % 2147483647; out = out b[int(x / 536870912) + 1]
      if (i % 4096 == 0) { printf "%s", out; out = "" } }
    printf "%s\n", out }'
}
# reads_from GENOME_FILE READS LEN SEED: FASTQ reads drawn from the genome,
# one substitution in a third of them.
reads_from() {
  awk -v reads="$2" -v len="$3" -v seed="$4" '{ g = $0 } END { x = seed; split("A C G T", b, " "); q = ""
    for (i = 0; i < len; i++) q = q "I"
    n = length(g) - len
    for (r = 1; r <= reads; r++) {
      x = (x * 16807) % 2147483647; s = substr(g, 1 + x % n, len)
      x = (x * 16807) % 2147483647
      if (x % 3 == 0) { x = (x * 16807) % 2147483647; p = 1 + x % len; s = substr(s, 1, p - 1) b[1 + int(x / 536870912)] substr(s, p + 1) }
      printf "@r%d\n%s\n+\n%s\n", r, s, q } }' "$1"
}

# ---------------------------------------------------------------- bad inputs
B=$T/bad
mkdir -p "$B"
gzip -dc "$EX" > "$T/ex.fq"
printf '@r1\nACGTACGT\n+\nIIIIIIII\n@r2\nACGTACGT\n+\nIIII\n' > "$B/short_qual.fq"
printf '@r1\nACGTACGT\n+\nIIIIIIII\n@r2\nACGTAC' > "$B/truncated.fq"
printf '@r1\nACGT\n+\nIIII\n>r2\nACGT\n' > "$B/fasta_in_fastq.fq"
printf '@r1\nAC\0GT\n+\nIIIII\n' > "$B/nul.fq"
printf '\211PNG\r\n\032\n\0\0\0\rIHDR\0\0\0\1' > "$B/image.png"
printf '##fileformat=VCFv4.2\n#CHROM\tPOS\n' > "$B/calls.vcf"
printf '>c1\nACGT ACGT\n' > "$B/space.fa"
head -c 100000 "$EX" > "$B/truncated.fq.gz"
cp "$EX" "$B/corrupt.fq.gz"
printf 'XXXXXXXX' | dd of="$B/corrupt.fq.gz" bs=1 seek=50000 conv=notrunc 2> /dev/null
{ cat "$EX"; printf 'garbage'; } > "$B/trailing.fq.gz"
printf '\211PNG\r\n\032\n\0\0\0\rIHDR' | gzip -c > "$B/image.png.gz"
mkdir "$B/folder"
have_bgzip=0
if need bgzip tabix; then
  have_bgzip=1
  bgzip -c "$T/ex.fq" > "$T/ex.fq.bgz"
  size=$(stat -c %s "$T/ex.fq.bgz")
  head -c $((size / 2)) "$T/ex.fq.bgz" > "$B/mid_block.fq.bgz"
fi

# One line per bad input, the same form from both subcommands that read
# sequences; the record and line where they are known.
bad_inputs=(short_qual.fq:record truncated.fq:record fasta_in_fastq.fq:record nul.fq:record image.png:
  calls.vcf: space.fa:record truncated.fq.gz: corrupt.fq.gz: trailing.fq.gz: image.png.gz: folder:)
[ "$have_bgzip" -eq 1 ] && bad_inputs+=(mid_block.fq.bgz:)
subs=(count estimate)
run_sub() { "$KB" "$1" "$2" -k 15 -o "$3/out.tsv"; }  # run_sub SUB INPUT OUTDIR
for s in "${subs[@]}"; do
  for entry in "${bad_inputs[@]}"; do
    f=${entry%%:*}
    kind=${entry#*:}
    out=$T/out-$s
    rm -rf "$out"; mkdir "$out"
    one_error "$s $f: one error line" 3 "$f" $kind -- run_sub "$s" "$B/$f" "$out"
    [ -z "$(ls -A "$out")" ] || bad "$s $f: left in the output folder: $(ls -A "$out")"
  done
  out=$T/out-$s
  one_error "$s missing file" 3 "nope.fq" -- run_sub "$s" "$B/nope.fq" "$out"
  one_error "$s empty path" 3 "(empty path)" -- run_sub "$s" "" "$out"
  # As an ordinary user (as_user), since root reads any file.
  U=$(user_dir "user-$s")
  cp "$T/ex.fq" "$U/locked.fq"; chmod 000 "$U/locked.fq"
  one_error "$s unreadable file" 3 "locked.fq" -- as_user "$U/kmerbloom" "$s" "$U/locked.fq" -k 15 -o "$U/out.tsv"
  check "$s unreadable file: no output" test ! -e "$U/out.tsv"
  [ -z "$(ls -A "$out")" ] || bad "$s: left in the output folder: $(ls -A "$out")"
done
ls "$B" | grep -q -e kmerbloom-tmp -e '\.tmp\.' && bad "temporary files left next to the inputs"

# -------------------------------------------------------- valid extremes
# An 8 Mb read on one line: S (2 Mb, no repeated 31-mer) four times. Its
# 8,000,000 - 30 k-mers are the 2,000,000 of S as a circle: 30 spanning a
# junction are seen 3 times, the others 4 times.
random_bases 2000000 7 > "$T/S.txt"
four_times() { for _ in 1 2 3 4; do tr -d '\n' < "$T/S.txt"; done; echo; }
{ echo '@long'; four_times; echo '+'; head -c 8000000 < /dev/zero | tr '\0' 'I'; echo; } > "$T/long.fq"
{ echo '>long'; four_times; } > "$T/long.fa"
for f in long.fq long.fa; do
  rc=0
  "$KB" count "$T/$f" -k 31 -o "$T/long.tsv" --histo "$T/long.histo" --stats "$T/long.json" -q || rc=$?
  if [ "$rc" -ne 0 ]; then bad "$f: 8 Mb read: exit $rc"; continue; fi
  check "$f: one read" test "$(json_int "$T/long.json" reads)" = 1
  check "$f: 8 Mb bases" test "$(json_int "$T/long.json" bases)" = 8000000
  check "$f: 7,999,970 k-mers" test "$(json_int "$T/long.json" kmers_total)" = 7999970
  check "$f: 2,000,000 solid" test "$(json_int "$T/long.json" kmers_solid)" = 2000000
  check "$f: 2,000,000 output lines" test "$(wc -l < "$T/long.tsv")" = 2000000
  check "$f: histogram rows 3 and 4" test "$(sed -n '3p;4p' "$T/long.histo" | tr '\n' ' ')" = "3 30 4 1999970 "
done

# Headers without sequence are records with no bases.
printf '@a\n\n+\n\n@b\n+\n@c\nACGTACGT\n+\nIIIIIIII\n' > "$T/noseq.fq"
printf '>a\n>b\n\n>c\nACGTACGT\n>d\n' > "$T/noseq.fa"
for f in noseq.fq:3 noseq.fa:4; do
  name=${f%%:*} reads=${f#*:}
  rc=0
  "$KB" count "$T/$name" -k 5 --min-count 1 -o "$T/noseq.tsv" --stats "$T/noseq.json" -q || rc=$?
  if [ "$rc" -ne 0 ]; then bad "$name: headers without sequence: exit $rc"; continue; fi
  check "$name: $reads reads" test "$(json_int "$T/noseq.json" reads)" = "$reads"
  check "$name: 4 k-mers" test "$(json_int "$T/noseq.json" kmers_total)" = 4
  printf 'ACGTA\t2\nCGTAC\t2\n' > "$T/noseq.want"  # ACGTA = rc(TACGT), CGTAC = rc(GTACG)
  same "$name: its k-mers" "$T/noseq.want" "$T/noseq.tsv"
done

# A whole BGZF file counts like its plain text. One cut after a whole block
# reads as a shorter valid file: only the missing end-of-file block (28
# bytes every BGZF writer adds) tells, and that is an error.
if [ "$have_bgzip" -eq 1 ]; then
  head -400 "$T/ex.fq" | bgzip -c > "$T/part.fq.bgz"  # 100 records: one data block + the EOF block
  head -c $(($(stat -c %s "$T/part.fq.bgz") - 28)) "$T/part.fq.bgz" > "$B/no_eof.fq.bgz"
  check "the BGZF EOF block is the last 28 bytes" test "$(tail -c 28 "$T/part.fq.bgz" | od -An -tx1 | tr -d ' \n')" = \
    1f8b08040000000000ff0600424302001b0003000000000000000000
  one_error "BGZF without its end-of-file block" 3 "no_eof.fq.bgz" -- "$KB" count "$B/no_eof.fq.bgz" -o "$T/no_eof.tsv"
  "$KB" count "$T/ex.fq.bgz" -o "$T/bgz.tsv" -q
  "$KB" count "$T/ex.fq" -o "$T/plain.tsv" -q
  same "BGZF counts like plain text" "$T/bgz.tsv" "$T/plain.tsv"
fi

# ----------------------------------------------------------- determinism
cp "$T/S.txt" "$T/G.txt"
reads_from "$T/G.txt" 20000 150 11 > "$T/reads.fq"
gzip -1 -c "$T/reads.fq" > "$T/reads.fq.gz"
# Runs: -t 1, 2, 3, then -t 3 again ("3b").
for run in 1 2 3 3b; do
  t=${run%b}
  "$KB" count "$T/reads.fq.gz" -t "$t" -o "$T/det-$run.tsv" --histo "$T/det-$run.histo" -q
  "$KB" count "$T/reads.fq" -t "$t" --min-count 1 --format fasta -o "$T/det1-$run.fa" -q
  # Through the Bloom gate from stdin, at a false-positive rate high enough
  # that many singletons pass the gate into the tables: still exact.
  "$KB" count - -t "$t" --fpr 0.2 -o "$T/detg-$run.tsv" --stats "$T/detg-$run.json" --no-multiqc -q < "$T/reads.fq"
done
same "--fpr 0.2 from stdin: the exact solid k-mers" "$T/det-1.tsv" "$T/detg-1.tsv"
check "generated reads give k-mers to compare" test "$(wc -l < "$T/det-1.tsv")" -gt 100000
for run in 2 3 3b; do
  same "exact mode: -t ${run%b} like -t 1 (solid k-mers)" "$T/det-1.tsv" "$T/det-$run.tsv"
  same "exact mode: -t ${run%b} like -t 1 (histogram)" "$T/det-1.histo" "$T/det-$run.histo"
  same "no gate (--min-count 1): -t ${run%b} like -t 1" "$T/det1-1.fa" "$T/det1-$run.fa"
  same "--fpr 0.2 from stdin: -t ${run%b} like -t 1" "$T/detg-1.tsv" "$T/detg-$run.tsv"
done
same "exact mode: -t 3 twice (histogram)" "$T/det-3.histo" "$T/det-3b.histo"
"$KB" count "$T/reads.fq" -t 1 -o "$T/again.tsv" --histo "$T/again.histo" -q
same "repeated run, -t 1 (solid k-mers)" "$T/det-1.tsv" "$T/again.tsv"
same "repeated run, -t 1 (histogram)" "$T/det-1.histo" "$T/again.histo"
"$KB" estimate "$T/reads.fq.gz" -t 1 -o "$T/est-1.tsv" -q
"$KB" estimate "$T/reads.fq.gz" -t 3 -o "$T/est-3.tsv" -q
same "estimate: -t 3 like -t 1" "$T/est-1.tsv" "$T/est-3.tsv"

# ------------------------------------------------------- memory budget
# count -M X: the run is planned to fit X, or refused (exit 5) saying what it
# needs; the measured peak resident set stays within X plus the 16 MB the
# README states, on an input whose unlimited peak is above that. The budget
# is the tightest the plan accepts (what a refusal says it needs).
# filter -M X caps the sketch: with --expected far above the input the
# sketch alone would take 213 MB, so the run without -M peaks well above the
# budget, and with it the sketch (statistics) and the measured peak stay
# within it (plus what a run with a tiny sketch takes), the reads unchanged.
if grep -qaE '__(a|t)san_init' "$KB"; then
  skip_build "peak memory checks (sanitizer build: shadow memory counts in the resident set)"
elif [ ! -x /usr/bin/time ]; then
  skip "/usr/bin/time is not installed (Debian package time): no peak memory checks"
else
  peak_mb() {  # peak_mb COMMAND...: runs it, prints its peak resident set in MB (-1 if it fails)
    /usr/bin/time -f %M -o "$T/rss" "$@" > /dev/null || { echo "-1"; return; }
    echo $(($(tail -1 "$T/rss") / 1024))
  }
  # count: 300,000 reads whose 2-bit partitions (about 40 MB) stay in memory
  # without -M, so the unlimited peak is above the smallest budget plus 16 MB;
  # at that budget they go to temporary files and the peak must stay within it.
  # (One thread: the buffers planned for more threads leave no room below the
  # unlimited peak on an input this small.)
  python3 "$SRC/test/cli/simreads.py" --genome 1000000 --reads 300000 --seed 3 > "$T/mem.fq"
  for t in 1; do
    rc=0
    rm -f "$T/m.tsv"
    "$KB" count "$T/mem.fq" -t "$t" -M 1M -o "$T/m.tsv" 2> "$T/m.err" || rc=$?
    need=$(sed -n 's/.*give -M \([0-9]*\)M or more.*/\1/p' "$T/m.err")
    check "-M 1M -t $t: refused with exit 5 saying what it needs (${need:-?} MB), nothing written" \
      test "$rc" -eq 5 -a -n "$need" -a ! -e "$T/m.tsv"
    [ -n "$need" ] || continue
    free=$(peak_mb "$KB" count "$T/mem.fq" -t "$t" -o "$T/free.tsv" -q)
    check "count -t $t without -M: peak $free MB, above $need + 16 MB (else the next check proves nothing)" \
      test "$free" -gt $((need + 16))
    capped=$(peak_mb "$KB" count "$T/mem.fq" -t "$t" -M "${need}M" -o "$T/m.tsv" --stats "$T/m.json" --no-multiqc -q)
    check "-M ${need}M -t $t (the need it stated): runs, peak $capped MB <= $need + 16 MB" \
      test "$capped" -ge 0 -a "$capped" -le $((need + 16))
    check "-M ${need}M -t $t: the partitions went to temporary files" grep -Eq '"disk_bytes_written": [1-9]' "$T/m.json"
    same "-M ${need}M -t $t: same k-mers as without -M" "$T/free.tsv" "$T/m.tsv"
  done
  # One long record: a 4.8 Mbp sequence (1.2 Mbp four times) as one FASTA
  # line and as one FASTQ record is read in pieces, so its peak stays within
  # the budget as reads' does; its k-mers are those of the same sequence cut
  # into records of 10 kb overlapping by k - 1 bases.
  random_bases 1200000 11 | tr -d '\n' > "$T/rec-unit.seq"
  cat "$T/rec-unit.seq" "$T/rec-unit.seq" "$T/rec-unit.seq" "$T/rec-unit.seq" > "$T/rec.seq"
  { echo ">genome"; cat "$T/rec.seq"; echo; } > "$T/rec.fa"
  { echo "@genome"; cat "$T/rec.seq"; printf '\n+\n'; tr ACGT FFFF < "$T/rec.seq"; echo; } > "$T/rec.fq"
  awk -v k=31 '{ for (i = 1; i <= length($0) - k + 1; i += 10000 - k + 1) printf ">c%d\n%s\n", i, substr($0, i, 10000) }' \
    "$T/rec.seq" > "$T/rec-chunks.fa"
  "$KB" count "$T/rec-chunks.fa" -t 1 -o "$T/rec-chunks.tsv" -q
  for f in rec.fa rec.fq; do
    "$KB" count "$T/$f" -t 1 -M 1M -o "$T/rec.tsv" 2> "$T/rec.err" || rc=$?
    need=$(sed -n 's/.*give -M \([0-9]*\)M or more.*/\1/p' "$T/rec.err")
    [ -n "$need" ] || { bad "$f at -M 1M: no need stated: $(cat "$T/rec.err")"; continue; }
    capped=$(peak_mb "$KB" count "$T/$f" -t 1 -M "${need}M" -o "$T/rec.tsv" -q)
    check "$f, one record of 4.8 Mbp, -M ${need}M -t 1: peak $capped MB <= $need + 16 MB" \
      test "$capped" -ge 0 -a "$capped" -le $((need + 16))
    same "$f: the k-mers of the same sequence in 10 kb records" "$T/rec-chunks.tsv" "$T/rec.tsv"
  done
  rm -f "$T/rec.seq" "$T/rec.fa" "$T/rec.fq" "$T/rec-unit.seq" "$T/rec-chunks.fa" "$T/rec-chunks.tsv" "$T/rec.tsv"
  base=$(peak_mb "$KB" filter "$T/reads.fq.gz" -t 2 --expected 100000 -o "$T/f0.fq" -q)
  free=$(peak_mb "$KB" filter "$T/reads.fq.gz" -t 2 --expected 20000000 -o "$T/f1.fq" -q)
  capped=$(peak_mb "$KB" filter "$T/reads.fq.gz" -t 2 --expected 20000000 -M 48M -o "$T/f2.fq" --stats "$T/f2.json" -q)
  check "filter --expected 20000000 without -M: peak $free MB, well above 48 MB + $base MB (else the next check proves nothing)" \
    test "$free" -gt $((48 + base + 48))
  check "filter -M 48M: peak $capped MB <= 48 MB + $base MB (the run with a tiny sketch) + 16 MB" \
    test "$capped" -ge 0 -a "$capped" -le $((48 + base + 16))
  sketch=$(grep -A3 '"sketch": {' "$T/f2.json" | grep -Eo '"bytes": *[0-9]+' | grep -Eo '[0-9]+$')
  check "filter -M 48M: the sketch is ${sketch:-?} bytes, within 48 MiB" test -n "$sketch" -a "${sketch:-0}" -le $((48 << 20))
  same "filter -M 48M: the same reads kept" "$T/f1.fq" "$T/f2.fq"
fi
rc=0
"$KB" count "$T/reads.fq" -t 4 -M 30M -v -o "$T/m.tsv" 2> "$T/m.err" || rc=$?
check "-M 30M -t 4: refused with exit 5 (got $rc)" test "$rc" -eq 5
check "-M 30M -t 4: says what it needs" grep -q 'cannot count in 30 MiB.*need' "$T/m.err"
check "-M 30M -t 4: refused before the input is read" test -z "$(grep 'pass 1' "$T/m.err")"

# ----------------------------------------------------------------- | head
# When stdout's reader stops early, the outputs that go to files are still
# written completely (exit 0 with one of them missing would be a silent loss).
"$KB" count "$T/reads.fq" --min-count 1 -o "$T/all.tsv" --histo "$T/all.histo" --histo-max 200000 -q
for what in "-o FILE --histo -" "-o - --histo FILE"; do
  rm -f "$T/hd.tsv" "$T/hd.histo"
  case $what in
    "-o FILE --histo -") outs=(-o "$T/hd.tsv" --histo -) ;;
    *) outs=(-o - --histo "$T/hd.histo") ;;
  esac
  set +e
  "$KB" count "$T/reads.fq" --min-count 1 --histo-max 200000 "${outs[@]}" --stats "$T/hd.json" -q 2> "$T/head.err" | head -1 > /dev/null
  rc=${PIPESTATUS[0]}
  set -e
  check "count $what | head: exit 0 (got $rc), nothing on stderr" test "$rc" -eq 0 -a ! -s "$T/head.err"
  if [ -e "$T/hd.tsv" ]; then same "count $what | head: -o FILE complete" "$T/all.tsv" "$T/hd.tsv"; fi
  if [ -e "$T/hd.histo" ]; then same "count $what | head: --histo FILE complete" "$T/all.histo" "$T/hd.histo"; fi
  check "count $what | head: the file output and --stats are written" test -s "$T/hd.json" -a \( -e "$T/hd.tsv" -o -e "$T/hd.histo" \)
done

# ------------------------------------------------------------- signals
# sig_during WHAT SIGNAL READY NEXT -- command...: runs the command with
# lib.sh's signal_at (its outputs in a fresh $T/sig/), which sends the signal
# once READY succeeds (a line this run logs as a phase starts, or a file it
# writes: no fixed sleep), and checks the exit code (128 + signal number),
# that the signal landed in that phase (this run's log has no NEXT line, the
# phase after it) and that nothing is left in $T/sig/.
sig_during() {
  local what=$1 sig=$2 ready=$3 next=$4
  shift 4
  rm -rf "$T/sig"; mkdir "$T/sig"
  signal_at "$what" "$sig" "$ready" "$@" || return 0
  local want=$((128 + $(kill -l "$sig")))
  check "$what: SIG$sig gives exit $want (got $SIG_RC)" test "$SIG_RC" -eq "$want"
  if [ -n "$next" ]; then
    check "$what: SIG$sig landed in that phase (no '$next' logged)" test -z "$(grep -e "$next" "$SIG_LOG")"
  fi
  no_leftovers "$what: SIG$sig" "$T/sig"
}
in_pass1() { logged '^\[kmerbloom\] pass 1: reading'; }
in_pass2() { logged '^\[kmerbloom\] pass 2: counting'; }
writing() { [ -n "$(find "$T/sig" -name '*kmerbloom-tmp*' -size +0 2> /dev/null)" ]; }
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$T/reads.fq"; done > "$T/big.fq"
for sig in TERM INT; do
  big=("$KB" count "$T/big.fq" "$T/big.fq" -t 1 -v -o "$T/sig/out.tsv" --histo "$T/sig/out.histo" --stats "$T/sig/out.json")
  sig_during "count, pass 1" "$sig" in_pass1 'pass 2:' -- "${big[@]}"
  sig_during "count, pass 2 (partitions)" "$sig" in_pass2 'pass 3:' -- "${big[@]}"
  sig_during "count, writing the output" "$sig" writing "" -- \
    "$KB" count "$T/long.fq" -t 1 -o "$T/sig/out.tsv" --histo "$T/sig/out.histo"
done

finish
