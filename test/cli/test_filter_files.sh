#!/usr/bin/env bash
# Filter files and mergeable results end to end: build, query, merge, info,
# merge-counts, with the errors a user can run into.
. "$(dirname "$0")/lib.sh"
EX=$SRC/data/example.fq.gz

for cmd in build query merge info merge-counts; do
  "$KB" "$cmd" --help > "$T/help.$cmd" || bad "$cmd --help fails"
done
for opt in --kmer-size --output --min-count --fpr --expected --threads --no-canonical; do
  grep -q -- "$opt" "$T/help.build" || bad "build --help lacks $opt"
done
for opt in --kmers --output --summary --threshold --kmer-size --threads; do
  grep -q -- "$opt" "$T/help.query" || bad "query --help lacks $opt"
done
grep -q -- --intersect "$T/help.merge" || bad "merge --help lacks --intersect"
grep -q -- --json "$T/help.info" || bad "info --help lacks --json"
grep -q -- --histo "$T/help.merge-counts" || bad "merge-counts --help lacks --histo"
ok "every command documents its options"

# --- build and info -----------------------------------------------------------
"$KB" build "$EX" -o "$T/all.kbf" -t 2 -q
check "build writes a filter file" test -s "$T/all.kbf"
check "filter file starts with the magic" grep -q KMBLOOM <(head -c 8 "$T/all.kbf")
"$KB" build "$EX" -o "$T/all.kbf.gz" -t 2 -q
same "a filter file named .gz is the same file, not gzip-compressed" "$T/all.kbf" "$T/all.kbf.gz"
"$KB" build "$EX" -o - -t 2 -q > "$T/stdout.kbf"
same "build -o - writes the filter file to stdout" "$T/all.kbf" "$T/stdout.kbf"
"$KB" info "$T/all.kbf" > "$T/info.txt"
for key in k canonical hash min_count layers 'layer 0' bytes estimated_keys estimated_fpr; do
  grep -q "^$key" "$T/info.txt" || bad "info lacks '$key'"
done
check "info: k 31, canonical" grep -qx $'k\t31' "$T/info.txt"
"$KB" info "$T/all.kbf" --json > "$T/info.json"
for key in '"k": 31' '"canonical": true' '"murmur3-fmix64"' '"layers"' '"fill"' '"estimated_keys"' '"estimated_fpr"' \
           '"blocks"' '"hashes"' '"capacity"' '"target_fpr"'; do
  grep -q "$key" "$T/info.json" || bad "info --json lacks $key"
done
ok "info text and JSON give parameters, layers, fill, estimates"
# Sized from the data: 28187 distinct 31-mers in the example (README), estimated within a few per mille.
keys=$(awk -F'\t' '$1 == "estimated_keys" { print $2 }' "$T/info.txt")
check "estimated keys near the 28187 distinct k-mers ($keys)" awk -v n="$keys" 'BEGIN { exit !(n > 27600 && n < 28800) }'

# Same bits whatever the thread count.
"$KB" build "$EX" -o "$T/t1.kbf" -t 1 -q
same "build -t 1 and -t 2 give the same file" "$T/t1.kbf" "$T/all.kbf"

# --- chunks merged by union equal the whole (same --expected) --------------------
gzip -dc "$EX" > "$T/ex.fq"
head -n 4000 "$T/ex.fq" > "$T/c1.fq"
sed -n 4001,6000p "$T/ex.fq" > "$T/c2.fq"
tail -n +6001 "$T/ex.fq" | gzip -c > "$T/c3.fq.gz"
"$KB" build "$EX" --expected 40000 -o "$T/whole.kbf" -t 2 -q
"$KB" build "$T/c1.fq" --expected 40000 -o "$T/c1.kbf" -t 1 -q
"$KB" build "$T/c2.fq" --expected 40000 -o "$T/c2.kbf" -t 2 -q
"$KB" build - --expected 40000 -o "$T/c3.kbf" -q < <(gzip -dc "$T/c3.fq.gz")
"$KB" merge "$T/c1.kbf" "$T/c2.kbf" "$T/c3.kbf" -o "$T/merged.kbf" -q
same "union of chunk filters equals the whole filter, byte for byte" "$T/merged.kbf" "$T/whole.kbf"
"$KB" merge "$T/whole.kbf" "$T/whole.kbf" --intersect -o "$T/self.kbf" -q
same "intersection of a filter with itself is itself" "$T/self.kbf" "$T/whole.kbf"
"$KB" merge "$T/c1.kbf" "$T/c2.kbf" --intersect -o "$T/inter.kbf" -q
ik=$(awk -F'\t' '$1 == "estimated_keys" { print $2 }' <("$KB" info "$T/inter.kbf"))
uk=$(awk -F'\t' '$1 == "estimated_keys" { print $2 }' <("$KB" info "$T/c1.kbf"))
check "intersection holds fewer k-mers than either input ($ik < $uk)" test "${ik%.*}" -lt "${uk%.*}"
# The bits of an intersection do not count the k-mers in common: the run
# says at most the smallest input's, not "about N distinct".
"$KB" merge "$T/c1.kbf" "$T/c2.kbf" --intersect -o "$T/inter2.kbf" 2> "$T/inter.log"
small=$(for f in c1 c2; do "$KB" info "$T/$f.kbf" | awk -F'\t' '$1 == "estimated_keys" { print $2 }'; done | sort -n | head -1)
check "merge --intersect: at most the smaller input's k-mers in common ($small)" \
  grep -q "at most ${small%.*} k-mers in common (the smallest input's)" "$T/inter.log"
check "merge --intersect: no count of distinct k-mers from its bits" eval "! grep -q 'distinct k-mers' '$T/inter.log'"

# Shapes that differ: the error names the parameter.
"$KB" build "$T/c1.fq" -k 25 --expected 40000 -o "$T/k25.kbf" -q
"$KB" build "$T/c1.fq" --expected 50000 -o "$T/e50.kbf" -q
"$KB" build "$T/c1.fq" --expected 40000 --no-canonical -o "$T/nc.kbf" -q
expect_fail "merge: different k" 2 "k differs: 31 in .*c1.kbf, 25 in .*k25.kbf" -- "$KB" merge "$T/c1.kbf" "$T/k25.kbf" -o "$T/x.kbf"
expect_fail "merge: different --expected" 2 "layer 0 blocks differs" -- "$KB" merge "$T/c1.kbf" "$T/e50.kbf" -o "$T/x.kbf"
expect_fail "merge: canonical and not" 2 "canonical differs" -- "$KB" merge "$T/c1.kbf" "$T/nc.kbf" -o "$T/x.kbf"
expect_fail "merge: filters sized from the data rarely match" 2 "differs" -- "$KB" merge "$T/all.kbf" "$T/c1.kbf" -o "$T/x.kbf"
check "failed merges leave no output" test ! -e "$T/x.kbf"

# --- query ------------------------------------------------------------------------
"$KB" query "$T/all.kbf" "$EX" -o "$T/q.tsv" --summary "$T/q.json" -t 2 2> "$T/q.err"
check "query TSV header" test "$(head -1 "$T/q.tsv")" = $'read\tkmers\tkmers_present\tfraction'
awk 'NR % 4 == 1 { print substr($1, 2) }' "$T/ex.fq" > "$T/names"
tail -n +2 "$T/q.tsv" | cut -f1 > "$T/qnames"
same "one row per read, in input order" "$T/qnames" "$T/names"
check "every read of the filter's own input is fully present" \
  awk -F'\t' 'NR > 1 && ($2 != 120 || $3 != 120 || $4 != "1.0000") { exit 1 }' "$T/q.tsv"
for key in '"reads": 2400' '"reads_hit": 2400' '"mean_fraction": 1' '"threshold": 0.5' '"kmers_present": 288000'; do
  grep -q "$key" "$T/q.json" || bad "query summary lacks $key"
done
check "summary on stderr" grep -q "2400 reads, 2400 with fraction >= 0.5" "$T/q.err"
"$KB" query "$T/all.kbf" "$EX" -t 1 -q > "$T/q1.tsv"
same "query output identical with 1 thread, on stdout" "$T/q1.tsv" "$T/q.tsv"
# Reads of another sequence (the reads reversed, not complemented) are absent
# but for false positives near the filter's 1%.
awk 'NR % 4 == 2' "$T/ex.fq" | rev | awk '{ print ">r" NR; print }' > "$T/other.fa"
"$KB" query "$T/all.kbf" "$T/other.fa" --threshold 0.2 --summary "$T/o.json" -q > "$T/o.tsv"
check "foreign reads: no hit at threshold 0.2" grep -q '"reads_hit": 0' "$T/o.json"
check "foreign reads: k-mers present near the 1% rate" \
  awk -F'\t' 'NR > 1 { k += $2; p += $3 } END { exit !(p / k < 0.03) }' "$T/o.tsv"

# --kmers: count's output against a filter of the solid k-mers.
"$KB" count "$EX" -o "$T/solid.tsv" -t 2 -q
"$KB" build "$EX" -c 2 -o "$T/solid.kbf" -t 2 -q
"$KB" query "$T/solid.kbf" --kmers "$T/solid.tsv" -q > "$T/k.tsv"
check "--kmers: one line per k-mer, all present" \
  awk -F'\t' -v n="$(wc -l < "$T/solid.tsv")" '$2 != 1 { exit 1 } END { exit NR != n }' "$T/k.tsv"
cut -f1 "$T/solid.tsv" > "$T/solid.k"
cut -f1 "$T/k.tsv" > "$T/k.k"
same "--kmers keeps the k-mers as listed, in order" "$T/k.k" "$T/solid.k"
check "solid filter records min_count 2" grep -qx $'min_count\t2' <("$KB" info "$T/solid.kbf")
printf 'ACGT\n' > "$T/short.txt"
expect_fail "--kmers: wrong length names the line" 3 "short.txt: line 1: k-mer of 4 bases" -- \
  "$KB" query "$T/solid.kbf" --kmers "$T/short.txt"

# --- errors ---------------------------------------------------------------------
expect_fail "query -k other than the filter's" 2 "-k 25 differs from the filter's k = 31" -- \
  "$KB" query "$T/all.kbf" "$EX" -k 25 -o "$T/x.tsv"
check "no output after a usage error" test ! -e "$T/x.tsv"
cp "$T/all.kbf" "$T/corrupt.kbf"
printf '\xff\xff\xff\xff' | dd of="$T/corrupt.kbf" bs=1 seek=2000 conv=notrunc status=none
expect_fail "corrupt filter file" 3 "corrupt.kbf: .*checksum" -- "$KB" query "$T/corrupt.kbf" "$EX" -o "$T/x.tsv"
head -c 1000 "$T/all.kbf" > "$T/trunc.kbf"
expect_fail "truncated filter file" 3 "trunc.kbf: truncated" -- "$KB" info "$T/trunc.kbf"
expect_fail "not a filter file" 3 "bad magic" -- "$KB" merge "$T/all.kbf" "$EX" -o "$T/x.kbf"
expect_fail "missing filter file" 3 "nope.kbf: cannot open" -- "$KB" info "$T/nope.kbf"
expect_fail "unwritable output" 4 "no/such/dir" -- "$KB" build "$EX" -o "$T/no/such/dir/x.kbf"
expect_fail "query with neither reads nor --kmers" 2 "needs reads" -- "$KB" query "$T/all.kbf"
expect_fail "bad --fpr" 2 "fpr" -- "$KB" build "$EX" --fpr 0.7 -o "$T/x.kbf"
check "no output after errors" test ! -e "$T/x.kbf" -a ! -e "$T/x.tsv"

# --- merge-counts -----------------------------------------------------------------
"$KB" count "$EX" -o /dev/null --histo "$T/whole.histo" -t 2 -q
for i in 0 1 2 3; do
  "$KB" count "$EX" --partition "$i/4" -o "$T/p$i.tsv" --histo "$T/p$i.histo" -t 2 -q
done
gzip "$T/p2.tsv"
"$KB" merge-counts "$T/p0.tsv" "$T/p1.tsv" "$T/p2.tsv.gz" "$T/p3.tsv" -o "$T/pm.tsv" -q
same "merge-counts of count --partition I/4 equals the unpartitioned count" "$T/pm.tsv" "$T/solid.tsv"
"$KB" merge-counts --histo "$T"/p[0-3].histo -o "$T/pm.histo" -q
tail -n +2 "$T/pm.histo" > "$T/pm2.histo"; tail -n +2 "$T/whole.histo" > "$T/whole2.histo"
same "summed partition histograms: rows >= 2 equal the whole" "$T/pm2.histo" "$T/whole2.histo"
# Self-split: lines dealt round-robin (disjoint, each file sorted).
awk -v d="$T" '{ print > (d "/rr" (NR % 3) ".tsv") }' "$T/solid.tsv"
"$KB" merge-counts "$T/rr0.tsv" "$T/rr1.tsv" "$T/rr2.tsv" -q > "$T/rr.tsv"
same "merge-counts of a round-robin split gives the original back" "$T/rr.tsv" "$T/solid.tsv"
# Chunks counted with --min-count 1, summed, then cut at 2: exactly the whole count.
"$KB" count "$T/c1.fq" -c 1 -o "$T/c1.tsv" -q
"$KB" count "$T/c2.fq" -c 1 -o "$T/c2.tsv.gz" -q
"$KB" count "$T/c3.fq.gz" -c 1 -o "$T/c3.tsv" -q
"$KB" merge-counts "$T/c1.tsv" "$T/c2.tsv.gz" - -c 2 -o "$T/cm.tsv.gz" -q < "$T/c3.tsv"
gzip -dc "$T/cm.tsv.gz" > "$T/cm.tsv"
same "chunk counts summed (one gzip, one on stdin) and cut at 2 equal the whole count" "$T/cm.tsv" "$T/solid.tsv"
# Overlapping inputs against sums made by awk (an oracle that shares no code
# with merge-counts): the chunks, one of them twice, and as KFF beside its TSV.
"$KB" count "$T/c3.fq.gz" -c 1 --format kff -o "$T/c3.kff" -q
sums() { awk -F'\t' '{ s[$1] += $2 } END { for (k in s) print k "\t" s[k] }' | sort; }
"$KB" merge-counts "$T/c1.tsv" "$T/c2.tsv.gz" "$T/c3.tsv" "$T/c1.tsv" -o "$T/over.tsv" -q
{ cat "$T/c1.tsv" "$T/c3.tsv" "$T/c1.tsv"; gzip -dc "$T/c2.tsv.gz"; } | sums > "$T/over.want"
same "overlapping chunk counts (one given twice): every k-mer's counts summed" "$T/over.want" "$T/over.tsv"
"$KB" merge-counts "$T/c3.kff" "$T/c3.tsv" -o "$T/over-kff.tsv" -q
cat "$T/c3.tsv" "$T/c3.tsv" | sums > "$T/over-kff.want"
same "a KFF file and the TSV of the same counts: each count doubled" "$T/over-kff.want" "$T/over-kff.tsv"
sort -r "$T/c1.tsv" > "$T/unsorted.tsv"
expect_fail "unsorted input" 3 "unsorted.tsv: line 2: k-mers out of order" -- "$KB" merge-counts "$T/unsorted.tsv" -o "$T/x.tsv"
head -5 "$T/whole.histo" > "$T/short.histo"
expect_fail "histograms of different lengths" 3 "same --histo-max" -- "$KB" merge-counts --histo "$T/whole.histo" "$T/short.histo" -o "$T/x.tsv"
check "no output after merge-counts errors" test ! -e "$T/x.tsv"
finish
