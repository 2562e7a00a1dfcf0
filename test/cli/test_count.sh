#!/usr/bin/env bash
# kmerbloom count as a user runs it: outputs, formats, options, determinism.
. "$(dirname "$0")/lib.sh"
EX=$SRC/data/example.fq.gz

"$KB" --version > "$T/v"
check "--version is one line 'kmerbloom X.Y.Z'" grep -Eqx 'kmerbloom [0-9]+\.[0-9]+\.[0-9]+' "$T/v"
"$KB" count --help > "$T/help"
for opt in --kmer-size --output --format --min-count --max-count --histo --histo-max --stats --threads \
           --no-canonical --expected --no-gate --fpr; do
  grep -q -- "$opt" "$T/help" || bad "count --help lacks $opt"
done
ok "count --help lists every option"
check "count --help: the retired --one-pass is not offered" test -z "$(grep -- --one-pass "$T/help")"

# Default mode (Bloom gate, two passes) equals the exact count of every k-mer.
"$KB" count "$EX" -k 31 -o "$T/gate.tsv" --histo "$T/gate.histo" --stats "$T/gate.json" -t 2 -q
"$KB" count "$EX" -k 31 -o "$T/all.tsv" --histo "$T/all.histo" --no-gate -t 2 -q
same "gated two-pass output equals ungated exact output" "$T/gate.tsv" "$T/all.tsv"
tail -n +2 "$T/gate.histo" > "$T/g2"; tail -n +2 "$T/all.histo" > "$T/a2"
same "histogram rows >= 2 agree" "$T/g2" "$T/a2"

# --one-pass is retired: accepted with a warning (pipelines that pass it
# keep running) and the count is the exact one.
"$KB" count "$EX" -k 31 --one-pass -o "$T/one.tsv" --histo "$T/one.histo" -t 2 2> "$T/one.err"
check "--one-pass: a warning that it is retired" grep -q -- '--one-pass is retired' "$T/one.err"
same "--one-pass: the exact output" "$T/gate.tsv" "$T/one.tsv"
same "--one-pass: the exact histogram" "$T/gate.histo" "$T/one.histo"

# Byte-identical whatever the thread count.
for t in 1 3; do
  "$KB" count "$EX" -o "$T/t$t.tsv" --histo "$T/t$t.histo" -t "$t" -q
  same "threads=$t output identical to threads=2" "$T/t$t.tsv" "$T/gate.tsv"
  same "threads=$t histogram identical" "$T/t$t.histo" "$T/gate.histo"
done

# Sorted, tab-separated, every count >= 2.
check "TSV sorted by k-mer" sort -c "$T/gate.tsv"
check "TSV is KMER<TAB>COUNT with count >= 2" awk -F'\t' 'NF != 2 || length($1) != 31 || $2 < 2 { exit 1 }' "$T/gate.tsv"

# Histogram: jellyfish form, dense rows 1..H and one overflow row.
"$KB" count "$EX" -o /dev/null --histo "$T/h50" --histo-max 50 -q
check "histogram has rows 1..51, single space" awk 'NR != $1 || NF != 2 || $0 ~ /\t/ { exit 1 } END { exit NR != 51 }' "$T/h50"

# FASTA output and gzip output.
"$KB" count "$EX" --format fasta -o "$T/out.fa" -q
awk 'NR % 2 == 1 { c = substr($0, 2) } NR % 2 == 0 { print $0 "\t" c }' "$T/out.fa" > "$T/fa.tsv"
same "FASTA output (>COUNT, KMER) holds the same k-mers" "$T/fa.tsv" "$T/gate.tsv"
"$KB" count "$EX" -o "$T/out.tsv.gz" -q
gzip -dc "$T/out.tsv.gz" > "$T/gz.tsv"
same ".gz output decompresses to the same k-mers" "$T/gz.tsv" "$T/gate.tsv"
"$KB" count "$EX" -q > "$T/stdout.tsv"
same "no -o writes to stdout" "$T/stdout.tsv" "$T/gate.tsv"

# Several inputs and stdin: counting a file twice doubles every count.
gzip -dc "$EX" > "$T/ex.fq"
gzip -dc "$EX" | "$KB" count "$T/ex.fq" - -o "$T/twice.tsv" --min-count 1 -q
"$KB" count "$EX" -o "$T/once.tsv" --min-count 1 -q
awk -F'\t' '{ print $1 "\t" 2 * $2 }' "$T/once.tsv" > "$T/doubled.tsv"
same "file + stdin: every count doubled" "$T/twice.tsv" "$T/doubled.tsv"

# -L/-U aliases and max-count.
# An estimate far too low: the Bloom chain grows, -v says so, the result is unchanged.
"$KB" count "$EX" -k 31 --expected 3000 -o "$T/low.tsv" -t 2 -v 2> "$T/low.log"
check "-v logs each Bloom layer added" test "$(grep -c 'Bloom gate: layer [0-9]* added' "$T/low.log")" -ge 2
same "a low --expected gives the same solid k-mers" "$T/gate.tsv" "$T/low.tsv"
check "default logging is one line" test "$("$KB" count "$EX" -o /dev/null 2>&1 | wc -l)" -eq 1
check "-q prints nothing" test -z "$("$KB" count "$EX" -o /dev/null -q 2>&1)"
"$KB" count "$EX" -L 3 -U 10 -o "$T/range.tsv" -q
awk -F'\t' '$2 >= 3 && $2 <= 10' "$T/all.tsv" > "$T/range.want"
same "-L 3 -U 10 keeps counts 3..10" "$T/range.tsv" "$T/range.want"

# Statistics JSON.
for key in reads bases bases_skipped kmers_total kmers_distinct kmers_solid kmers_singleton max_count \
           wall_seconds cpu_seconds peak_memory_bytes threads '"k"' version command_line; do
  grep -q "$key" "$T/gate.json" || bad "stats lacks $key"
done
ok "stats JSON has every documented field"
solid=$(wc -l < "$T/gate.tsv")
check "stats kmers_solid equals output lines" grep -q "\"kmers_solid\": $solid," "$T/gate.json"

# No canonical: forward k-mers only (more distinct k-mers).
"$KB" count "$EX" --no-canonical --min-count 1 -o "$T/fw.tsv" -q
check "--no-canonical yields more distinct k-mers" test "$(wc -l < "$T/fw.tsv")" -gt "$(wc -l < "$T/once.tsv")"

# Scatter/gather: partitions are disjoint, merge into the whole, histograms add up.
for i in 0 1 2; do "$KB" count "$EX" --partition "$i/3" -o "$T/part$i.tsv" --histo "$T/part$i.histo" --no-gate -q; done
sort -m "$T/part0.tsv" "$T/part1.tsv" "$T/part2.tsv" > "$T/parts.tsv"
same "sort -m of 3 partitions equals the unpartitioned output" "$T/parts.tsv" "$T/gate.tsv"
check "partitions are disjoint" test "$(cut -f1 "$T/parts.tsv" | uniq -d | wc -l)" -eq 0
paste -d' ' "$T/part0.histo" "$T/part1.histo" "$T/part2.histo" | awk '{ print $1, $2 + $4 + $6 }' > "$T/parts.histo"
same "partition histograms add up to the whole" "$T/parts.histo" "$T/all.histo"
expect_fail "--partition 3/3 is a usage error" 2 "partition" -- "$KB" count "$EX" --partition 3/3 -o "$T/x"

# Memory budget: refused up front with exit 5 when it cannot fit, honoured when it can.
expect_fail "-M 1M cannot fit and says so" 5 "cannot count in 1 MiB.*need" -- "$KB" count "$EX" -M 1M -o "$T/x"
check "refused budget leaves no output" test ! -e "$T/x"
"$KB" count "$EX" -M 200M -o "$T/budget.tsv" --stats "$T/budget.json" -q
same "-M 200M: same k-mers" "$T/budget.tsv" "$T/gate.tsv"
expect_fail "-M with a bad size is a usage error" 2 "max-memory" -- "$KB" count "$EX" -M lots -o "$T/x"

# Long reads and the same reads cut into 150-base pieces overlapping by
# k - 1 (bench/read-length.sh): the same k-mer occurrences, so the same
# KFF file byte for byte; pieces overlapping by k - 2 lose the k-mers across
# each cut, and the output must then differ.
python3 "$SRC/test/cli/simreads.py" --genome 60000 --reads 120 --length 4000 --error-rate 0.01 --n-every 7 --seed 5 > "$T/long.fq"
cut_pieces() {  # cut_pieces OVERLAP < FASTQ > FASTQ
  awk -v L=150 -v step=$((150 - $1)) 'NR % 4 == 1 { h = $1 } NR % 4 == 2 { s = $0 }
    NR % 4 == 0 { n = length(s); for (i = 0; ; i++) { st = i * step
        printf "%s_%d\n%s\n+\n%s\n", h, i, substr(s, st + 1, L), substr($0, st + 1, L); if (st + L >= n) break } }'
}
cut_pieces 30 < "$T/long.fq" > "$T/pieces.fq"
cut_pieces 29 < "$T/long.fq" > "$T/pieces29.fq"
for f in long pieces pieces29; do "$KB" count "$T/$f.fq" -k 31 -t 2 -q --format kff -o "$T/$f.kff"; done
same "long reads and their 150-base pieces overlapping by k - 1: the same KFF bytes" "$T/long.kff" "$T/pieces.kff"
check "pieces overlapping by k - 2 lose k-mers: a different KFF" test -n "$(cmp "$T/long.kff" "$T/pieces29.kff" 2>&1)"

# k range.
expect_fail "k = 0 is a usage error" 2 "k" -- "$KB" count "$EX" -k 0 -o "$T/x"
expect_fail "k = 256 is a usage error naming the range" 2 "1 and 255" -- "$KB" count "$EX" -k 256 -o "$T/x"
check "usage error leaves no output" test ! -e "$T/x"
finish
