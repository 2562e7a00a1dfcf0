#!/usr/bin/env bash
# Scatter by input, gather by bin: each chunk of the reads binned once
# (kmerbloom bin), the bins counted in groups (count *.kbin --partition I/N),
# the groups merged (merge-counts): byte for byte what one count of all the
# reads writes, whatever the threads, the memory budget, the chunks' formats.
# Damaged, cut or mismatched bin files are clean errors that leave nothing.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
need python3 || { finish; exit; }

# 30,000 reads of 150 bases from a 300 kb genome, errors and some N: three
# chunks as plain FASTQ, gzip FASTQ and FASTA.
python3 "$HERE/simreads.py" --genome 300000 --reads 30000 --length 150 --seed 8 --error-rate 0.005 --n-every 30 \
  > "$T/all.fq"
head -n 40000 "$T/all.fq" > "$T/c0.fq"
sed -n '40001,80000p' "$T/all.fq" | gzip -1 > "$T/c1.fq.gz"
tail -n +80001 "$T/all.fq" | awk 'NR % 4 == 1 { print ">" substr($0, 2) } NR % 4 == 2' > "$T/c2.fa"
"$KB" count "$T/all.fq" -t 2 -o "$T/whole.tsv" --histo "$T/whole.histo" --stats "$T/whole.json" --no-multiqc -q
check "the whole run has solid k-mers to compare" test "$(wc -l < "$T/whole.tsv")" -gt 100000

# ------------------------------------------------ scatter, count, gather
"$KB" bin "$T/c0.fq" -o "$T/c0.kbin" -t 1 --bins 64 -q
"$KB" bin "$T/c1.fq.gz" -o "$T/c1.kbin" -t 2 --bins 64 -q
"$KB" bin "$T/c2.fa" -o "$T/c2.kbin" -t 3 --bins 64 -q
G=4
for g in $(seq 0 $((G - 1))); do
  "$KB" count "$T"/c?.kbin --partition "$g/$G" -t 2 -o "$T/g$g.tsv" --histo "$T/g$g.histo" --stats "$T/g$g.json" \
    --no-multiqc -q
done
check "each group holds a share of the k-mers" test "$(wc -l < "$T/g1.tsv")" -lt "$(wc -l < "$T/whole.tsv")"
"$KB" merge-counts "$T"/g?.tsv -o "$T/gathered.tsv" -q
same "3 chunks x $G bin groups, merged: the whole run's k-mers, byte for byte" "$T/whole.tsv" "$T/gathered.tsv"
"$KB" merge-counts --histo "$T"/g?.histo -o "$T/gathered.histo" -q
same "... the groups' histograms add up to the whole run's, row 1 too" "$T/whole.histo" "$T/gathered.histo"
"$KB" merge-counts --stats "$T"/g?.json -o "$T/gathered.json" -q
for key in reads bases kmers_total kmers_distinct kmers_solid; do
  want=$(grep -Eo "\"$key\": *[0-9]+" "$T/whole.json" | head -1)
  got=$(grep -Eo "\"$key\": *[0-9]+" "$T/gathered.json" | head -1)
  check "... gathered statistics: $want (got $got)" test -n "$want" -a "$want" = "$got"
done
"$KB" count "$T"/c?.kbin -t 3 -o "$T/allbins.tsv" -q
same "count of every bin at once: the whole run's k-mers" "$T/whole.tsv" "$T/allbins.tsv"

# ------------------------------------------------ the same bytes every way
"$KB" bin "$T/c1.fq.gz" -o "$T/c1.t1.kbin" -t 1 --bins 64 -q
same "a bin file is the same whatever -t" "$T/c1.kbin" "$T/c1.t1.kbin"
mkdir "$T/tmp"
"$KB" bin "$T/all.fq" -o "$T/all.kbin" -t 1 --bins 64 -q
"$KB" bin "$T/all.fq" -o "$T/all.m.kbin" -t 1 --bins 64 -M 19M --tmp-dir "$T/tmp" -v 2> "$T/bin-m.err"
same "... and under -M 19M (binned data spilled to temporary files)" "$T/all.kbin" "$T/all.m.kbin"
check "... which it did ($(grep -Eo '[0-9]+ temporary bytes' "$T/bin-m.err"))" \
  grep -Eq '[1-9][0-9]* temporary bytes' "$T/bin-m.err"
check "... and left nothing in --tmp-dir" test -z "$(ls -A "$T/tmp")"
cat "$T/all.fq" | "$KB" bin - -o "$T/stdin.kbin" --bins 16 -q
"$KB" count "$T/stdin.kbin" -o "$T/stdin.tsv" -q
same "binned from stdin, 16 bins: the whole run's k-mers" "$T/whole.tsv" "$T/stdin.tsv"
"$KB" bin "$T/all.fq" -o "$T/k127.kbin" -k 127 --no-canonical -q
"$KB" count "$T/k127.kbin" -o "$T/k127.bins.tsv" -q
"$KB" count "$T/all.fq" -k 127 --no-canonical -o "$T/k127.tsv" -q
same "k = 127, --no-canonical: count takes k and strands from the bin file" "$T/k127.tsv" "$T/k127.bins.tsv"
check "... and has k-mers to compare" test "$(wc -l < "$T/k127.tsv")" -gt 10000

# ------------------------------------------------ mistakes and damage
expect_fail "bin files and reads mixed" 2 "mix bin files" -- "$KB" count "$T/c0.kbin" "$T/c0.fq" -o "$T/x.tsv"
expect_fail "another -k than the bins'" 2 "c0.kbin: binned with k = 31, but -k is 25" -- \
  "$KB" count "$T/c0.kbin" -k 25 -o "$T/x.tsv"
expect_fail "another strandedness" 2 "c0.kbin: binned canonical, but --no-canonical" -- \
  "$KB" count "$T/c0.kbin" --no-canonical -o "$T/x.tsv"
"$KB" bin "$T/c0.fq" -o "$T/c0.32.kbin" --bins 32 -q
expect_fail "chunks binned with different --bins" 2 "c0.32.kbin: 32 bins, but .*c1.kbin has 64" -- \
  "$KB" count "$T/c1.kbin" "$T/c0.32.kbin" -o "$T/x.tsv"
expect_fail "more partitions than bins" 2 "--partition 40/50 takes no bin of 32" -- \
  "$KB" count "$T/c0.32.kbin" --partition 40/50 -o "$T/x.tsv"
head -c 50000 "$T/c0.kbin" > "$T/cut.kbin"
expect_fail "a cut bin file" 3 "cut.kbin: cut short or damaged" -- "$KB" count "$T/cut.kbin" -o "$T/x.tsv"
cp "$T/c0.kbin" "$T/flip.kbin"
printf 'X' | dd of="$T/flip.kbin" bs=1 seek=20000 conv=notrunc 2> /dev/null
expect_fail "one byte changed in a bin" 3 "flip.kbin: bin [0-9]+: checksum mismatch" -- \
  "$KB" count "$T/flip.kbin" -o "$T/x.tsv"
cp "$T/c0.kbin" "$T/old.kbin"
printf '\002' | dd of="$T/old.kbin" bs=1 seek=8 conv=notrunc 2> /dev/null  # the version, little-endian
expect_fail "a bin file of version 2 (minimizers in another order)" 3 "old.kbin: .*bin file version 2, this kmerbloom reads version 3" -- \
  "$KB" count "$T/old.kbin" -o "$T/x.tsv"
check "no output left by any of these" test ! -e "$T/x.tsv"
expect_fail "bin to stdout refused" 2 "named file" -- "$KB" bin "$T/c0.fq" -o -
expect_fail "bin under a budget its buffers exceed: exit 5, naming bin" 5 "cannot bin in 10 MiB" -- \
  "$KB" bin "$T/c0.fq" -M 10M -o "$T/small.kbin"
check "... and no bin file left" test ! -e "$T/small.kbin"
printf '@r1\nACGT\n+\nII\n' > "$T/bad.fq"
expect_fail "bad reads: the input error, named" 3 "bad.fq: record 1" -- "$KB" bin "$T/bad.fq" -o "$T/bad.kbin"
check "... and no bin file left" test -z "$(ls "$T" | grep '^bad.kbin')"
expect_fail "bin -o onto its input refused" 2 "is the input" -- "$KB" bin "$T/c0.fq" -o "$T/c0.fq"
finish
