#!/usr/bin/env bash
# kmerbloom filter as a user runs it: order, formats, gzip, stdin, pairs
# (two files and interleaved), mate errors, weak k-mers, determinism.
. "$(dirname "$0")/lib.sh"
EX=$SRC/data/example.fq.gz

"$KB" filter --help > "$T/help"
for opt in --kmer-size --output --output2 --interleaved --target-coverage --no-normalize --drop-weak --trim-weak \
           --min-count --solid --expected --max-memory --stats --threads; do
  grep -q -- "$opt" "$T/help" || bad "filter --help lacks $opt"
done
ok "filter --help lists every option"

gzip -dc "$EX" > "$T/ex.fq"
# Records as one line each (4-line FASTQ), to compare order and content.
flat() { paste - - - - < "$1"; }
# True if every line of $1 occurs in $2, in the same order.
subseq() { awk 'NR == FNR { want[++n] = $0; next } j < n && $0 == want[j + 1] { ++j } END { exit j != n }' "$1" "$2"; }

# Single reads: a strict subsequence of the input, records unchanged, in order.
"$KB" filter "$EX" -k 31 -o "$T/kept.fq.gz" --stats "$T/s.json" -t 2 -q
gzip -t "$T/kept.fq.gz" && ok ".gz output is gzip" || bad ".gz output is not gzip"
gzip -dc "$T/kept.fq.gz" > "$T/kept.fq"
flat "$T/ex.fq" > "$T/ex.flat"; flat "$T/kept.fq" > "$T/kept.flat"
check "kept reads are input records, byte for byte, in input order" subseq "$T/kept.flat" "$T/ex.flat"
n_in=$(wc -l < "$T/ex.flat"); n_out=$(wc -l < "$T/kept.flat")
check "some reads kept, some dropped ($n_out of $n_in)" test "$n_out" -gt 0 -a "$n_out" -lt "$n_in"
check "stats reads_out equals the records written" grep -q "\"reads_out\": $n_out," "$T/s.json"
for key in reads_in bases_in reads_out bases_out above_coverage weak kept estimated_collision_rate \
           memory_bytes '"k"' target_coverage version command_line peak_memory_bytes; do
  grep -q "$key" "$T/s.json" || bad "stats lacks $key"
done
ok "stats JSON has every documented field"

# Same output whatever the thread count; stdin works and equals the file.
"$KB" filter "$EX" -o "$T/t1.fq" -t 1 -q
same "-t 1 and -t 2 give the same reads" "$T/t1.fq" "$T/kept.fq"
gzip -dc "$EX" | "$KB" filter - -q > "$T/stdin.fq"
same "stdin to stdout equals the file run" "$T/stdin.fq" "$T/kept.fq"

# A lower target keeps fewer reads.
"$KB" filter "$EX" -C 5 -o "$T/c5.fq" -q
check "-C 5 keeps fewer reads than -C 20" test "$(wc -l < "$T/c5.fq")" -lt "$(wc -l < "$T/kept.fq")"

# FASTA stays FASTA.
awk 'NR % 4 == 1 { print ">" substr($0, 2) } NR % 4 == 2' "$T/ex.fq" > "$T/ex.fa"
"$KB" filter "$T/ex.fa" -o "$T/kept.fa" -q
check "FASTA input gives FASTA output" awk 'NR % 2 == 1 && !/^>/ { exit 1 } NR % 2 == 0 && !/^[ACGTN]+$/ { exit 1 }' "$T/kept.fa"
awk 'NR % 2 == 1' "$T/kept.fa" | sed 's/^>/@/' > "$T/fa.names"
awk 'NR % 4 == 1' "$T/kept.fq" > "$T/fq.names"
same "FASTA run keeps the reads the FASTQ run keeps" "$T/fa.names" "$T/fq.names"

# Pairs: consecutive example reads become mates p<i>/1, p<i>/2.
awk 'NR % 8 == 1 { print "@p" (NR - 1) / 8 "/1"; next } NR % 8 == 5 { print "@p" (NR - 5) / 8 "/2"; next } { print }' \
  "$T/ex.fq" > "$T/inter.fq"
awk 'NR % 8 >= 1 && NR % 8 <= 4' "$T/inter.fq" > "$T/r1.fq"
awk 'NR % 8 >= 5 || NR % 8 == 0' "$T/inter.fq" > "$T/r2.fq"
gzip -c "$T/r1.fq" > "$T/r1.fq.gz"; gzip -c "$T/r2.fq" > "$T/r2.fq.gz"
"$KB" filter "$T/r1.fq.gz" "$T/r2.fq.gz" -o "$T/k1.fq.gz" -O "$T/k2.fq.gz" --stats "$T/p.json" -t 2 -q
gzip -dc "$T/k1.fq.gz" > "$T/k1.fq"; gzip -dc "$T/k2.fq.gz" > "$T/k2.fq"
awk 'NR % 4 == 1 { sub("/1$", ""); print }' "$T/k1.fq" > "$T/n1"; awk 'NR % 4 == 1 { sub("/2$", ""); print }' "$T/k2.fq" > "$T/n2"
same "paired outputs hold the same pairs, in step" "$T/n1" "$T/n2"
check "some pairs dropped" test "$(wc -l < "$T/n1")" -lt "$(awk 'END { print NR / 4 }' "$T/r1.fq")"
flat "$T/k1.fq" > "$T/k1.flat"; flat "$T/r1.fq" > "$T/r1.flat"
check "mate 1 output is an ordered subsequence of R1" subseq "$T/k1.flat" "$T/r1.flat"
"$KB" filter "$T/r1.fq" "$T/r2.fq" -o "$T/j1.fq" -O "$T/j2.fq" -t 1 -q
same "paired run -t 1 equals -t 2 (mate 1)" "$T/j1.fq" "$T/k1.fq"
same "paired run -t 1 equals -t 2 (mate 2)" "$T/j2.fq" "$T/k2.fq"

# Interleaved: same decisions, written interleaved, or split with -O.
"$KB" filter "$T/inter.fq" --interleaved -o "$T/ki.fq" -q
paste -d '\n' <(flat "$T/k1.fq") <(flat "$T/k2.fq") | tr '\t' '\n' > "$T/want_i.fq"
same "interleaved output interleaves the paired-file decisions" "$T/ki.fq" "$T/want_i.fq"
"$KB" filter "$T/inter.fq" --interleaved -o "$T/s1.fq" -O "$T/s2.fq" -q
same "--interleaved with -O splits mates (1)" "$T/s1.fq" "$T/k1.fq"
same "--interleaved with -O splits mates (2)" "$T/s2.fq" "$T/k2.fq"
cat "$T/inter.fq" | "$KB" filter - --interleaved -q > "$T/ki_stdin.fq"
same "interleaved stdin equals the file" "$T/ki_stdin.fq" "$T/ki.fq"

# Mate errors name the file and the record; no output is left behind.
sed '4001s/^@p1000\/2$/@p999\/2/' "$T/r2.fq" > "$T/r2bad.fq"
expect_fail "mismatched mate names" 3 "r2bad.fq: record 1001 \(line 4001\): mate name 'p999/2' does not match 'p1000/1'" -- \
  "$KB" filter "$T/r1.fq" "$T/r2bad.fq" -o "$T/x1.fq" -O "$T/x2.fq"
check "no output after a mate error" test ! -e "$T/x1.fq" -a ! -e "$T/x2.fq"
head -n 4000 "$T/r2.fq" > "$T/r2short.fq"
expect_fail "R2 with fewer records" 3 "r1.fq: record 1001 \(line 4001\): no mate in .*r2short.fq" -- \
  "$KB" filter "$T/r1.fq" "$T/r2short.fq" -o "$T/x1.fq" -O "$T/x2.fq"
expect_fail "R1 with fewer records" 3 "r1.fq: record 1001 \(line 4001\): more records than .*r2short.fq" -- \
  "$KB" filter "$T/r2short.fq" "$T/r1.fq" -o "$T/x1.fq" -O "$T/x2.fq"
head -n 4 "$T/inter.fq" | cat "$T/inter.fq" - > "$T/odd.fq"
expect_fail "interleaved file with an odd record count" 3 "odd.fq: record 2401 \(line 9601\): .*unpaired" -- \
  "$KB" filter "$T/odd.fq" --interleaved -o "$T/x1.fq"
sed '5s/^@p0\/2$/@q0\/2/' "$T/inter.fq" > "$T/swap.fq"
expect_fail "interleaved mates out of step" 3 "swap.fq: record 2 \(line 5\): mate name 'q0/2'" -- \
  "$KB" filter "$T/swap.fq" --interleaved -o "$T/x1.fq"

# Weak k-mers: a first pass, or count's output; trimmed reads are prefixes.
"$KB" filter "$EX" --trim-weak --no-normalize -o "$T/tw.fq" --stats "$T/tw.json" -q
"$KB" count "$EX" -o "$T/solid.tsv.gz" -q
"$KB" filter "$EX" --trim-weak --no-normalize --solid "$T/solid.tsv.gz" -o "$T/tws.fq" -q
same "--solid from count equals the first pass" "$T/tws.fq" "$T/tw.fq"
# k from the --solid file when -k is not given (KFF header, or the first k-mer's length).
"$KB" count "$EX" -k 21 -o "$T/solid21.kff" -q
"$KB" count "$EX" -k 21 -o "$T/solid21.tsv" -q
"$KB" filter "$EX" --trim-weak --no-normalize -k 21 --solid "$T/solid21.kff" -o "$T/tw21.fq" -q
"$KB" filter "$EX" --trim-weak --no-normalize --solid "$T/solid21.kff" -o "$T/tw21k.fq" -q
same "--solid of 21-mers (KFF) without -k: k from the file" "$T/tw21k.fq" "$T/tw21.fq"
"$KB" filter "$EX" --trim-weak --no-normalize --solid "$T/solid21.tsv" -o "$T/tw21t.fq" -q
same "--solid of 21-mers (TSV) without -k: k from the file" "$T/tw21t.fq" "$T/tw21.fq"
expect_fail "--solid of 21-mers with -k 31 given: refused" 3 "k-mer of length 21, but -k is 31" \
  -- "$KB" filter "$EX" --trim-weak -k 31 --solid "$T/solid21.tsv" -o "$T/x21.fq"
check "trimmed reads are prefixes of input reads with their qualities" awk '
  NR == FNR { if (FNR % 4 == 1) n = $0; if (FNR % 4 == 2) s[n] = $0; if (FNR % 4 == 0) q[n] = $0; next }
  FNR % 4 == 1 { n = $0 } FNR % 4 == 2 { if (index(s[n], $0) != 1 || length($0) < 31) exit 1; l = length($0) }
  FNR % 4 == 0 { if (index(q[n], $0) != 1 || length($0) != l) exit 1 }' "$T/ex.fq" "$T/tw.fq"
check "stats count trimmed reads" grep -Eq '"reads": [1-9]' <(grep -A2 '"trimmed"' "$T/tw.json")
"$KB" filter "$EX" --drop-weak --no-normalize -o "$T/dw.fq" -q
flat "$T/dw.fq" > "$T/dw.flat"
check "--drop-weak output is an ordered subsequence" subseq "$T/dw.flat" "$T/ex.flat"
"$KB" filter "$T/r1.fq" "$T/r2.fq" --drop-weak -o "$T/w1.fq" -O "$T/w2.fq" -q
check "--drop-weak keeps pairs in step" test "$(wc -l < "$T/w1.fq")" -eq "$(wc -l < "$T/w2.fq")"

# Usage errors.
expect_fail "weak handling on stdin needs --solid" 2 "stream" -- "$KB" filter - --drop-weak -o "$T/x"
expect_fail "--drop-weak with --trim-weak" 2 "exclude" -- "$KB" filter "$EX" --drop-weak --trim-weak -o "$T/x"
expect_fail "target coverage above 255" 2 "target-coverage" -- "$KB" filter "$EX" -C 300 -o "$T/x"
expect_fail "-O needs two inputs" 2 "two inputs" -- "$KB" filter "$EX" -o "$T/x" -O "$T/y"
expect_fail "missing input" 3 "no-such" -- "$KB" filter "$T/no-such.fq" -o "$T/x"
expect_fail "unwritable output" 4 "no-dir" -- "$KB" filter "$EX" -o "$T/no-dir/x.fq"
expect_fail "full disk (/dev/full)" 4 "/dev/full" -- "$KB" filter "$EX" -o /dev/full
expect_fail "mate 2 output unwritable: exit 4" 4 "no-dir" -- "$KB" filter "$T/r1.fq" "$T/r2.fq" -o "$T/x" -O "$T/no-dir/y"
check "usage errors leave no output" test ! -e "$T/x"
finish
