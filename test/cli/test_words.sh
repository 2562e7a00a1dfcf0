#!/usr/bin/env bash
# What the tool says is true, and the paths that would cost a user data are
# refused: units and plurals as the options mean them, the count range and
# estimates said as such, a histogram given where k-mers are expected, MultiQC
# files in a glob of statistics, a histogram of another run, mates filtered
# apart, one file as both mates, k-mers to a terminal, the sample names and
# the spectrum's verdict where the genome size goes.
. "$(dirname "$0")/lib.sh"
EX=$SRC/data/example.fq.gz
gzip -dc "$EX" > "$T/ex.fq"
head -n 2000 "$T/ex.fq" > "$T/small.fq"

# ------------------------------------------------- units, plurals, ranges
expect_fail "-M 10M -t 1 is echoed in MiB, one thread in the singular" 5 \
  "cannot count in 10 MiB: the buffers of 1 thread need [0-9]+ MiB .*; give -M [0-9]+M or more$" \
  -- "$KB" count "$EX" -M 10M -t 1 -o "$T/m.tsv"
check "-M 10M: nothing written" test ! -e "$T/m.tsv"
"$KB" count "$EX" -k 21 -o "$T/c.tsv" --histo "$T/c.histo" --stats "$T/c.json" -t 1 2> "$T/c.err"
check "count's summary says 'count >= 2', not 2..4294967295" grep -q "reported (count >= 2)" "$T/c.err"
"$KB" count "$EX" -k 21 -o "$T/c2.tsv" -c 3 -U 9 -t 1 2> "$T/c2.err"
check "count's summary with -U says 'count 3 to 9'" grep -q "reported (count 3 to 9)" "$T/c2.err"
"$KB" build "$EX" -k 21 -o "$T/b.kbf" 2> "$T/b.err"
check "build says its distinct k-mers are an estimate, one layer in the singular" \
  grep -Eq "about [0-9]+ distinct k-mers in the filter \(estimated from its bits\) \(estimated sizing, 1 layer," "$T/b.err"

"$KB" build "$T/small.fq" -k 21 -o "$T/b2.kbf" -q
expect_fail "merge of filters sized from their own reads says that --expected is what they lack" 2 \
  "sized from its own reads \(estimated sizing\): filters merge only if every build is given the same --expected" \
  -- "$KB" merge "$T/b.kbf" "$T/b2.kbf" -o "$T/bm.kbf"

# ------------------------------------------------- a histogram where k-mers go
expect_fail "merge-counts on a histogram says so and names --histo" 3 \
  "c.histo: line 1: '1' is a number, not a k-mer: this looks like a histogram.*--histo" \
  -- "$KB" merge-counts "$T/c.histo" -o "$T/h.tsv"
check "merge-counts on a histogram: nothing written" test ! -e "$T/h.tsv"
printf 'ACGN\t3\n' > "$T/n.tsv"
expect_fail "merge-counts names a k-mer with a letter other than ACGT" 3 "n.tsv: line 1: k-mer ACGN holds a letter other than A, C, G, T" \
  -- "$KB" merge-counts "$T/n.tsv" -o "$T/n.out"

# ------------------------------------------------- statistics gathered by a glob
mkdir -p "$T/parts"
for i in 0 1 2; do
  "$KB" count "$EX" -k 21 --partition "$i/3" -o "$T/parts/part$i.tsv" --stats "$T/parts/part$i.json" -t 1 -q
done
check "count --partition writes no MultiQC file: a partition is no sample" test ! -e "$T/parts/part0_mqc.json"
"$KB" count "$EX" -k 21 -o /dev/null --stats "$T/parts/part_mqc_source.json" -t 1 -q
mv "$T/parts/part_mqc_source_mqc.json" "$T/parts/part0_mqc.json"  # one that part*.json matches
rm -f "$T/parts/part_mqc_source"*
"$KB" merge-counts --stats "$T"/parts/part*.json -o "$T/all.json" 2> "$T/all.err"
check "merge-counts --stats part*.json skips the MultiQC files and says so" \
  grep -q "part0_mqc.json: MultiQC custom content, not statistics: skipped" "$T/all.err"
for key in kmers_distinct kmers_solid; do
  check "gathered $key equals the unpartitioned count's" \
    test "$(grep -m1 "\"$key\":" "$T/all.json" | tr -dc 0-9)" = "$(grep -m1 "\"$key\":" "$T/c.json" | tr -dc 0-9)"
done

# ------------------------------------------------- report with another run's histogram
"$KB" count "$T/small.fq" -k 21 -o /dev/null --histo "$T/small.histo" -q
expect_fail "report X.json --histo of another run is refused" 3 "small.histo holds [0-9]+ k-mers seen twice or more, but .*c.json counted [0-9]+" \
  -- "$KB" report "$T/c.json" --histo "$T/small.histo" -o "$T/r.html"
check "report with a foreign histogram: nothing written" test ! -e "$T/r.html"
"$KB" report "$T/c.json" --histo "$T/c.histo" -o "$T/r.html" 2> /dev/null
check "report X.json --histo of the same run is accepted" test -s "$T/r.html"

"$KB" count "$EX" -k 21 -o /dev/null --report "$T/rep.html" -q
check "the report says the Bloom layers are sums over the partitions' filters" \
  grep -q "Each of the [0-9,]* partitions has a filter of its own.*summed over them (not memory at once)" "$T/rep.html"
check "and what its memory figure is" grep -q "at once (each thread's largest partition filter, summed)" "$T/rep.html"

# ------------------------------------------------- mates
awk 'NR % 8 >= 1 && NR % 8 <= 4' "$T/ex.fq" > "$T/lib_R1.fq"
awk 'NR % 8 >= 5 || NR % 8 == 0' "$T/ex.fq" > "$T/lib_R2.fq"
expect_fail "filter R1 R2 without -O is refused, naming -O and --unpaired" 2 "look like the mates of one library, but no -O.*--unpaired" \
  -- "$KB" filter "$T/lib_R1.fq" "$T/lib_R2.fq" -o "$T/kept.fq"
check "filter R1 R2 without -O: nothing written" test ! -e "$T/kept.fq"
"$KB" filter "$T/lib_R1.fq" "$T/lib_R2.fq" --unpaired -o "$T/kept.fq" -q
check "filter R1 R2 --unpaired runs as single reads" test -s "$T/kept.fq"
ln -s "$T/lib_R1.fq" "$T/lib_R1_again.fq"
expect_fail "one file (by another name) as mate 1 and mate 2 is refused" 2 "are the same file, given as mate 1 and mate 2" \
  -- "$KB" filter "$T/lib_R1.fq" "$T/lib_R1_again.fq" -o "$T/p1.fq" -O "$T/p2.fq"
check "same file as both mates: nothing written" test ! -e "$T/p1.fq" -a ! -e "$T/p2.fq"

# ------------------------------------------------- k-mers to a terminal
if command -v script > /dev/null; then
  rc=0
  script -qec "'$KB' count '$EX' -k 21" /dev/null > "$T/tty.out" 2>&1 || rc=$?
  check "count without -o on a terminal: exit 2 ($rc)" test "$rc" -eq 2
  check "count without -o on a terminal: says to give -o" grep -q "standard output is a terminal: the k-mers would scroll past; give -o FILE" "$T/tty.out"
  check "count without -o on a terminal: no k-mer printed" bash -c "! grep -Eq '^[ACGT]{21}' '$T/tty.out'"
  script -qec "'$KB' count '$EX' -k 21 -o - -q" /dev/null > "$T/tty2.out" 2>&1
  check "count -o - on a terminal prints the k-mers as asked" grep -Eq '^[ACGT]{21}' "$T/tty2.out"
  rc=0
  script -qec "'$KB' filter '$EX'" /dev/null > "$T/tty3.out" 2>&1 || rc=$?
  check "filter without -o on a terminal: exit 2 ($rc)" test "$rc" -eq 2
  # The same rule for every subcommand that writes k-mers or a page to stdout.
  "$KB" count "$EX" -k 21 -o "$T/w.tsv" --stats "$T/w.json" -q
  for cmd in "sets union '$T/w.tsv' '$T/w.tsv'" "merge-counts '$T/w.tsv'" "report '$T/w.json'"; do
    rc=0
    script -qec "'$KB' $cmd" /dev/null > "$T/tty4.out" 2>&1 || rc=$?
    check "${cmd%% *} without -o on a terminal: exit 2, says to give -o ($rc)" \
      eval "[ $rc -eq 2 ] && grep -q 'standard output is a terminal' '$T/tty4.out'"
  done
  script -qec "'$KB' sets union '$T/w.tsv' '$T/w.tsv' -o -" /dev/null > "$T/tty5.out" 2>&1
  check "sets -o - on a terminal prints the k-mers as asked" grep -Eq '^[ACGT]{21}' "$T/tty5.out"
else
  skip "script (Debian package bsdutils) is missing: no pseudo-terminal"
fi
"$KB" count "$EX" -k 21 -q > "$T/pipe.out"
check "count without -o into a pipe writes the k-mers" grep -Eq '^[ACGT]{21}' "$T/pipe.out"

# ------------------------------------------------- samples and verdicts
mkdir -p "$T/s1" "$T/s2"
"$KB" count "$EX" -k 21 -o /dev/null --stats "$T/s1/stats.json" -q
"$KB" count "$T/lib_R1.fq" "$T/lib_R2.fq" -k 21 -o /dev/null --stats "$T/s2/stats.json" -q
check "MultiQC sample named after the reads (example.fq.gz: example)" grep -q '"example": {' "$T/s1/stats_mqc.json"
check "MultiQC sample of mates lib_R1 lib_R2: lib" grep -q '"lib": {' "$T/s2/stats_mqc.json"
check "MultiQC general statistics carry the spectrum's verdict" grep -Eq '"spectrum": "(not )?reliable"' "$T/s1/stats_mqc.json"
# A spectrum GenomeScope could not fit either: 2,000 reads at about 1x.
"$KB" count "$T/small.fq" -k 21 -o /dev/null --stats "$T/small.json" 2> "$T/small.err"
if grep -q '"reliable": false' "$T/small.json"; then
  check "an unreliable spectrum is said on stderr" grep -q "warning: the k-mer spectrum is not reliable" "$T/small.err"
  check "and in MultiQC" grep -q '"spectrum": "not reliable"' "$T/small_mqc.json"
else
  bad "the 1x spectrum was expected to be unreliable: $(grep -m1 reliable "$T/small.json")"
fi
finish
