#!/usr/bin/env bash
# KFF end to end: count --format kff, read back wherever counts are read
# (merge-counts, filter --solid, query --kmers), refused cleanly when forged;
# and against KMC 3, the format's main producer and consumer: kmc_tools dumps
# kmerbloom's KFF as kmerbloom's TSV, and `kmc -okff` output feeds kmerbloom
# as the equivalent TSV does (skipped with a message where KMC is absent;
# test/run-all.sh installs it).
. "$(dirname "$0")/lib.sh"
EX=$SRC/data/example.fq.gz

grep -q kff <("$KB" count --help) && ok "count --help lists kff" || bad "count --help lacks kff"

# --- kmerbloom's KFF, read back ------------------------------------------------
"$KB" count "$EX" -k 31 -t 2 -q -o "$T/ex.tsv"
"$KB" count "$EX" -k 31 -t 2 -q -o "$T/ex.kff" --format kff
check "count --format kff starts with the KFF signature" test "$(head -c 3 "$T/ex.kff")" = KFF
check "... and ends with it" test "$(tail -c 3 "$T/ex.kff")" = KFF
"$KB" count "$EX" -k 31 -t 1 -q -o "$T/ex1.kff" --format kff
# Without --format, the output's name says the format: .kff is KFF, .fa,
# .fasta and .fna FASTA (with or without .gz), anything else TSV; --format
# given wins over the name.
"$KB" count "$EX" -k 31 -t 2 -q -o "$T/named.kff"
same "count -o NAME.kff writes KFF without --format" "$T/ex.kff" "$T/named.kff"
"$KB" count "$EX" -k 31 -t 2 -q -o "$T/ex.fa" --format fasta
"$KB" count "$EX" -k 31 -t 2 -q -o "$T/named.fasta"
same "count -o NAME.fasta writes FASTA without --format" "$T/ex.fa" "$T/named.fasta"
"$KB" count "$EX" -k 31 -t 2 -q -o "$T/named.fa.gz"
check "count -o NAME.fa.gz writes gzip FASTA" cmp -s "$T/ex.fa" <(gzip -dc "$T/named.fa.gz")
"$KB" count "$EX" -k 31 -t 2 -q -o "$T/asked.kff" --format tsv
same "--format tsv wins over a .kff name" "$T/ex.tsv" "$T/asked.kff"
"$KB" sets union "$T/ex.tsv" -q -o "$T/sets-named.kff"
"$KB" sets union "$T/ex.tsv" -q -o "$T/sets-asked.kff" --format kff
same "sets -o NAME.kff writes KFF without --format" "$T/sets-asked.kff" "$T/sets-named.kff"
if "$KB" merge-counts "$T/ex.tsv" -q -o "$T/merged.kff" 2> "$T/merged.err"; then
  bad "merge-counts -o NAME.kff should be refused (it writes TSV)"
else
  check "merge-counts -o NAME.kff is refused, saying it writes TSV" grep -q "writes TSV" "$T/merged.err"
  check "... and leaves no file" test ! -e "$T/merged.kff"
fi
same "KFF output is the same whatever -t" "$T/ex.kff" "$T/ex1.kff"
"$KB" merge-counts "$T/ex.kff" -o "$T/back.tsv" -q
same "merge-counts reads kmerbloom's KFF back to its TSV" "$T/ex.tsv" "$T/back.tsv"
"$KB" count "$EX" -k 31 -t 2 -q -o - --format kff > "$T/stdout.kff"
same "count -o - --format kff writes the same bytes to stdout" "$T/ex.kff" "$T/stdout.kff"
"$KB" merge-counts - -o "$T/stdin.tsv" -q < "$T/ex.tsv"
same "merge-counts still reads TSV on stdin" "$T/ex.tsv" "$T/stdin.tsv"

for k in 1 4 5 32 63 64 127 128; do
  "$KB" count "$EX" -k $k -c 1 -t 2 -q -o "$T/k$k.tsv"
  "$KB" count "$EX" -k $k -c 1 -t 2 -q -o "$T/k$k.kff" --format kff
  "$KB" merge-counts "$T/k$k.kff" -o "$T/k$k.back.tsv" -q
  same "k = $k: KFF reads back to the TSV" "$T/k$k.tsv" "$T/k$k.back.tsv"
done

"$KB" count "$EX" -k 31 -t 2 -q --partition 0/2 -o "$T/p0.kff" --format kff
"$KB" count "$EX" -k 31 -t 2 -q --partition 1/2 -o "$T/p1.tsv"
"$KB" merge-counts "$T/p0.kff" "$T/p1.tsv" -o "$T/p.tsv" -q
same "merge-counts merges a KFF and a TSV partition into the whole" "$T/ex.tsv" "$T/p.tsv"
"$KB" count "$EX" -k 31 -t 2 -q -o "$T/ex.kff.gz" --format kff
check "a KFF named .gz is gzip-compressed" test "$(head -c 2 "$T/ex.kff.gz" | od -An -tx1 | tr -d ' ')" = 1f8b
"$KB" merge-counts "$T/ex.kff.gz" -o "$T/gz.tsv" -q
same "merge-counts reads a gzip KFF" "$T/ex.tsv" "$T/gz.tsv"

"$KB" filter "$EX" -k 31 --drop-weak --no-normalize -c 3 --solid "$T/ex.tsv" -o "$T/f.tsv.fq" -t 2 -q
"$KB" filter "$EX" -k 31 --drop-weak --no-normalize -c 3 --solid "$T/ex.kff" -o "$T/f.kff.fq" -t 2 -q
same "filter --solid takes KFF as it takes TSV" "$T/f.tsv.fq" "$T/f.kff.fq"
check "... and drops reads" test "$(wc -l < "$T/f.kff.fq")" -lt "$(zcat "$EX" | wc -l)"
"$KB" count "$EX" -k 127 -t 2 -q -o "$T/s127.tsv"
"$KB" count "$EX" -k 127 -t 2 -q -o "$T/s127.kff" --format kff
"$KB" filter "$EX" -k 127 --drop-weak --no-normalize --solid "$T/s127.tsv" -o "$T/f127.tsv.fq" -t 2 -q
"$KB" filter "$EX" -k 127 --drop-weak --no-normalize --solid "$T/s127.kff" -o "$T/f127.kff.fq" -t 2 -q
same "k = 127: filter --solid takes KFF as it takes TSV" "$T/f127.tsv.fq" "$T/f127.kff.fq"
check "... keeps some reads and drops others" eval \
  "test \$(wc -l < '$T/f127.kff.fq') -gt 0 && test \$(wc -l < '$T/f127.kff.fq') -lt \$(zcat '$EX' | wc -l)"

"$KB" build "$EX" -k 31 -c 3 -o "$T/ex.kbf" -q
"$KB" query "$T/ex.kbf" --kmers "$T/ex.tsv" -o "$T/q.tsv.tsv" -q
"$KB" query "$T/ex.kbf" --kmers "$T/ex.kff" -o "$T/q.kff.tsv" -q
same "query --kmers takes KFF as it takes TSV" "$T/q.tsv.tsv" "$T/q.kff.tsv"

# --- forged and mismatched files ----------------------------------------------
head -c -10 "$T/ex.kff" > "$T/cut.kff"
expect_fail "a truncated KFF is an input error naming the file" 3 "error: .*cut.kff: byte [0-9]+.*truncated" -- \
  "$KB" merge-counts "$T/cut.kff" -o "$T/cut.tsv"
check "... and leaves no output behind" test ! -e "$T/cut.tsv"
expect_fail "filter --solid: a KFF of another k says which" 3 "ex.kff: byte [0-9]+ \(section 'r' at byte [0-9]+\): k-mer of length 31, but -k is 25" -- \
  "$KB" filter "$EX" -k 25 --drop-weak --solid "$T/ex.kff" -o "$T/f25.fq"
check "... and leaves no output behind" test ! -e "$T/f25.fq"
expect_fail "query --kmers: a KFF of another k says which" 3 "k5.kff: byte [0-9]+.*k-mer of 5 bases, the filter's k is 31" -- \
  "$KB" query "$T/ex.kbf" --kmers "$T/k5.kff" -o "$T/q5.tsv"
expect_fail "merge-counts: files of different k" 3 "k5.kff: (byte [0-9]+.*)?k-mer of 5 bases, the first has 31" -- \
  "$KB" merge-counts "$T/ex.kff" "$T/k5.kff" -o "$T/mixed.tsv"
# Header: KFF 1.0, encoding 0x00 (every base code 0), unique, canonical, no free block.
printf 'KFF\001\000\000\001\001\000\000\000\000KFF' > "$T/enc.kff"
expect_fail "a KFF of an encoding kmerbloom cannot take says which" 3 "enc.kff: byte 5: encoding 0x00" -- \
  "$KB" merge-counts "$T/enc.kff" -o "$T/enc.tsv"
# A 'v' section with k = 2000, then an 'r' section.
{ printf 'KFF\001\000\033\001\001\000\000\000\000v\000\000\000\000\000\000\000\003'
  printf 'k\000\000\000\000\000\000\000\007\320max\000\000\000\000\000\000\000\000\001data_size\000\000\000\000\000\000\000\000\001'
  printf 'r\000\000\000\000\000\000\000\000KFF'; } > "$T/bigk.kff"
expect_fail "a KFF of a k kmerbloom cannot take says which" 3 "bigk.kff: .*k = 2000" -- \
  "$KB" merge-counts "$T/bigk.kff" -o "$T/bigk.tsv"

# --- KMC 3 ---------------------------------------------------------------------
if ! command -v kmc > /dev/null || ! command -v kmc_tools > /dev/null; then
  skip "KMC (kmc, kmc_tools) is not installed; test/run-all.sh installs it (Debian package kmc)"
  finish
  exit $?
fi
mkdir -p "$T/kmc-tmp"
dump() { kmc_tools -hp -t2 transform "$1" dump "${@:3}" "$2" > /dev/null; }
dump "$T/ex.kff" "$T/dump.txt"
same "kmc_tools dumps kmerbloom's KFF as kmerbloom's TSV" "$T/ex.tsv" "$T/dump.txt"
dump "$T/ex.kff" "$T/dump-s.txt" -s
same "... sorted dump too" "$T/ex.tsv" "$T/dump-s.txt"
for k in 1 5 32 63 64 127 128; do
  dump "$T/k$k.kff" "$T/dump$k.txt"
  same "kmc_tools dumps kmerbloom's KFF of k = $k as the TSV" "$T/k$k.tsv" "$T/dump$k.txt"
done
"$KB" count "$EX" -k 31 -t 2 -q --no-canonical -o "$T/nc.tsv"
"$KB" count "$EX" -k 31 -t 2 -q --no-canonical -o "$T/nc.kff" --format kff
dump "$T/nc.kff" "$T/dump-nc.txt"
same "... and of --no-canonical counts" "$T/nc.tsv" "$T/dump-nc.txt"
check "kmc_tools info reads it" eval "kmc_tools info \"$T/ex.kff\" > \"$T/info.txt\""
# A count above 255 only in the last section: every section keeps the file's
# count width (kmc_tools transform dump -s reads them all with the first one's).
python3 -c '
import itertools
kmers = ["".join(p) for p in itertools.product("ACGT", repeat=9)][:140000]
for i, km in enumerate(kmers):
    print(f"{km}\t{300 if i == 139999 else 2}")' > "$T/wide.tsv"
"$KB" sets union "$T/wide.tsv" --no-canonical --format kff -o "$T/wide.kff" -q
dump "$T/wide.kff" "$T/dump-wide.txt" -s
same "kmc_tools reads every count of a KFF whose only large count comes in its last section (sorted dump)" "$T/wide.tsv" "$T/dump-wide.txt"

# KMC caps counts at -cs (default 255): lift the cap so that counts are exact.
kmc -k31 -ci2 -cs4294967295 -okff -t2 -hp "$EX" "$T/kmc31" "$T/kmc-tmp" > /dev/null
check "kmc -okff wrote a KFF" test -s "$T/kmc31.kff"
"$KB" merge-counts "$T/kmc31.kff" -o "$T/kmc31.tsv" -q
same "merge-counts reads kmc -okff output as kmerbloom's TSV (KMC's sections merged in order)" "$T/ex.tsv" "$T/kmc31.tsv"
"$KB" filter "$EX" -k 31 --drop-weak --no-normalize -c 3 --solid "$T/kmc31.kff" -o "$T/f.kmc.fq" -t 2 -q
same "filter --solid takes kmc -okff output as the TSV" "$T/f.tsv.fq" "$T/f.kmc.fq"
dump "$T/kmc31.kff" "$T/kmc31-dump.txt"  # KMC's own order, section after section
cut -f1 "$T/kmc31-dump.txt" > "$T/kmc31-kmers.txt"
"$KB" query "$T/ex.kbf" --kmers "$T/kmc31-kmers.txt" -o "$T/q.kmc-text.tsv" -q
"$KB" query "$T/ex.kbf" --kmers "$T/kmc31.kff" -o "$T/q.kmc.tsv" -q
same "query --kmers reads kmc -okff output in file order" "$T/q.kmc-text.tsv" "$T/q.kmc.tsv"
kmc -k5 -ci1 -okff -t2 -hp "$EX" "$T/kmc5" "$T/kmc-tmp" > /dev/null
"$KB" merge-counts "$T/kmc5.kff" -o "$T/kmc5.tsv" -q
awk -F'\t' '{ $2 = ($2 > 255 ? 255 : $2) } 1' OFS='\t' "$T/k5.tsv" > "$T/k5.capped.tsv"
same "k = 5: kmc -okff (counts capped at 255, one byte) reads as the TSV" "$T/k5.capped.tsv" "$T/kmc5.tsv"
finish
