#!/usr/bin/env bash
# kmerbloom index and lookup against the count files themselves: every k-mer
# of a sample (and its reverse complement) gets the file's count, absent ones
# 0, from TSV and KFF, k = 31 and 63; --reads per sequence against an oracle
# that reads the whole TSV; the JSON form; then the refusals (a stale or
# missing index, gzip, KMC's KFF with its sections in bin order, a k-mer of
# another length named with its line) and no output left after them.
. "$(dirname "$0")/lib.sh"
SIM=$SRC/test/cli/simreads.py
python3 "$SIM" --genome 40000 --reads 4000 --length 100 --seed 5 --error-rate 0.004 --n-every 50 > "$T/r.fq"
for k in 31 63; do
  "$KB" count "$T/r.fq" -k $k -c 1 -q -o "$T/c$k.tsv"
  "$KB" count "$T/r.fq" -k $k -c 1 -q -o "$T/c$k.kff"
  "$KB" index "$T/c$k.tsv" -q
  "$KB" index "$T/c$k.kff" -q
  check "k=$k: the indexes are beside the files" test -s "$T/c$k.tsv.kbi" -a -s "$T/c$k.kff.kbi"
  # Every 7th k-mer, its reverse complement, and a k-mer no read has.
  awk 'NR % 7 == 1' "$T/c$k.tsv" > "$T/want$k.tsv"
  { cut -f1 "$T/want$k.tsv"; cut -f1 "$T/want$k.tsv" | rev | tr ACGT TGCA; printf 'A%.0s' $(seq $k); echo; } > "$T/ask$k.txt"
  { cat "$T/want$k.tsv"; awk -F'\t' '{ print $2 }' "$T/want$k.tsv" | paste <(cut -f1 "$T/want$k.tsv" | rev | tr ACGT TGCA) -;
    printf 'A%.0s' $(seq $k); printf '\t%s\n' "$(grep -c "^$(printf 'A%.0s' $(seq $k))	" "$T/c$k.tsv" | sed 's/^0$/0/')"; } > "$T/expect$k.tsv"
  for f in tsv kff; do
    "$KB" lookup "$T/c$k.$f" --kmers "$T/ask$k.txt" -t 2 -o "$T/got$k.$f"
    same "k=$k $f: each k-mer and its reverse complement get the file's count" "$T/expect$k.tsv" "$T/got$k.$f"
  done
done
k1=$(sed -n 100p "$T/c31.tsv" | cut -f1) c1=$(sed -n 100p "$T/c31.tsv" | cut -f2)
check "k-mers on the command line, lower case too" \
  test "$("$KB" lookup "$T/c31.kff" "$k1" "$(echo "$k1" | tr ACGT acgt)")" = "$k1	$c1
$(echo "$k1" | tr ACGT acgt)	$c1"

# --reads: per sequence, its windows of A/C/G/T, how many the set holds.
"$KB" lookup "$T/c31.kff" --reads "$T/r.fq" --counts -o "$T/reads.tsv"
python3 - "$T/c31.tsv" "$T/r.fq" > "$T/reads.expect" << 'PY'
import sys
counts = dict((l.split("\t")[0], int(l.split("\t")[1])) for l in open(sys.argv[1]))
comp = str.maketrans("ACGT", "TGCA")
lines = open(sys.argv[2]).read().split("\n")
print("name\tkmers\tfound\tshare_present\tcounts")
for i in range(0, len(lines) - 1, 4):
    name, seq = lines[i][1:].split()[0], lines[i + 1].upper()
    c = []
    for j in range(len(seq) - 30):
        w = seq[j:j + 31]
        if set(w) <= set("ACGT"):
            c.append(counts.get(min(w, w.translate(comp)[::-1]), 0))
    found = sum(1 for x in c if x)
    print(f"{name}\t{len(c)}\t{found}\t{found / len(c) if c else 0:.6f}\t{','.join(map(str, c))}")
PY
same "--reads: per sequence its k-mers, those found, their share and counts, as an oracle reading the TSV says" \
  "$T/reads.expect" "$T/reads.tsv"
"$KB" lookup "$T/c31.tsv" --reads "$T/r.fq" --counts -t 1 -o "$T/reads2.tsv"
same "--reads: the TSV and the KFF file give the same table, -t 1 as -t 2" "$T/reads.tsv" "$T/reads2.tsv"
"$KB" lookup "$T/c31.kff" --kmers "$T/ask31.txt" -t 1 -o "$T/got31.t1"
same "--kmers: -t 1 as -t 2" "$T/got31.kff" "$T/got31.t1"
# One record of 400 kb (every read end to end): it comes in pieces of 256 KiB
# overlapping by k - 1 bases, and its figures add up over them.
{ echo ">long"; awk 'NR % 4 == 2' "$T/r.fq" | tr -d '\n'; echo; printf '>name\377\nACGT\n'; } > "$T/long.fa"
"$KB" lookup "$T/c31.kff" --reads "$T/long.fa" --counts -o "$T/long.tsv"
python3 - "$T/c31.tsv" "$T/long.fa" > "$T/long.expect" << 'PY'
import sys
counts = dict((l.split("\t")[0], int(l.split("\t")[1])) for l in open(sys.argv[1]))
comp = str.maketrans("ACGT", "TGCA")
lines = open(sys.argv[2], "rb").read().split(b"\n")
out = sys.stdout.buffer
out.write(b"name\tkmers\tfound\tshare_present\tcounts\n")
for i in range(0, len(lines) - 1, 2):
    seq = lines[i + 1].decode().upper()
    c = [counts.get(min(w, w.translate(comp)[::-1]), 0) for w in (seq[j:j + 31] for j in range(len(seq) - 30))
         if set(w) <= set("ACGT")]
    found = sum(1 for x in c if x)
    out.write(lines[i][1:] + f"\t{len(c)}\t{found}\t{found / len(c) if c else 0:.6f}\t{','.join(map(str, c))}\n".encode())
PY
same "--reads: a 400 kb record in pieces gets the oracle's figures and counts" "$T/long.expect" "$T/long.tsv"
check "--reads --json: a name that is not UTF-8 is written (replaced)" "$KB" lookup "$T/c31.kff" --reads "$T/long.fa" --json -o "$T/long.json"
"$KB" lookup "$T/c31.kff" "$k1" --json -o "$T/one.json"
check "--json: the k-mer and its count" test "$(json_field "$T/one.json" kmers)" = "[{'count': $c1, 'kmer': '$k1'}]"

# Refusals.
expect_fail "a k-mer of another length names it" 2 "of 5 bases" -- "$KB" lookup "$T/c31.kff" ACGTA
printf '%s\nACGTA\n' "$k1" > "$T/short.txt"
expect_fail "a short k-mer in --kmers names the file and line" 3 "short.txt: line 2: .*of 5 bases" -- \
  "$KB" lookup "$T/c31.kff" --kmers "$T/short.txt" -o "$T/out1.tsv"
check "no output after a refusal" test ! -e "$T/out1.tsv"
cp "$T/c31.tsv" "$T/s.tsv"
"$KB" index "$T/s.tsv" -q
echo "TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT	2" >> "$T/s.tsv"
expect_fail "a stale index is refused, with what to run" 3 "s.tsv.kbi: stale.*kmerbloom index" -- \
  "$KB" lookup "$T/s.tsv" "$k1"
expect_fail "a missing index says how to make it" 3 "c63.kff.x: cannot open.*kmerbloom index" -- \
  "$KB" lookup "$T/c63.kff" -i "$T/c63.kff.x" "$k1"
gzip -c "$T/c31.tsv" > "$T/c31.tsv.gz"
expect_fail "gzip is refused at index" 3 "gzip-compressed" -- "$KB" index "$T/c31.tsv.gz" -o "$T/gz.kbi"
check "no index after a refusal" test ! -e "$T/gz.kbi"
if need kmc kmc; then
  mkdir -p "$T/kmc"
  kmc -k31 -ci1 -okff -t2 -hp "$T/r.fq" "$T/kmc/db" "$T/kmc" > /dev/null
  if "$KB" index "$T/kmc/db.kff" -o "$T/kmc.kbi" 2> "$T/kmc.err"; then
    "$KB" lookup "$T/kmc/db.kff" -i "$T/kmc.kbi" --kmers "$T/ask31.txt" -o "$T/kmc.got"
    same "KMC's KFF, indexed, answers as kmerbloom's" "$T/expect31.tsv" "$T/kmc.got"
  else
    check "KMC's KFF (sections in bin order) is refused with the command that rewrites it" \
      grep -q "out of order.*rewrite it with kmerbloom sets union" "$T/kmc.err"
  fi
fi
finish
