#!/usr/bin/env bash
# kmerbloom count against two exact counters that share no code with it,
# KMC 3 (`kmc -ci2`, and `-ci1` for the histogram) and Jellyfish 2
# (`jellyfish count -C`, `dump -L 2`, `histo -h H`): the solid k-mers and their
# counts, and the histogram with its overflow row (row H+1 holds every k-mer
# seen more than H times) at a small --histo-max. On the bundled example (one
# batch) and on simulated reads with errors (many batches, so the threads share
# the work), for k = 31 (one 64-bit word) and k = 45 (two); on long reads for
# k = 64 and 127 (four words), 128 and 255 (eight), against KMC.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
EX=$SRC/data/example.fq.gz
need kmc kmc || { finish; exit; }
need jellyfish jellyfish || { finish; exit; }
need python3 || { finish; exit; }

gzip -dc "$EX" > "$T/example.fq"
# 20,000 reads of 150 bases (3 Mb, six count batches) from a 300 kb genome
# at 10x, 0.5% substitutions, some N: every row of a small histogram is full.
python3 "$HERE/simreads.py" --genome 300000 --reads 20000 --length 150 --seed 21 --error-rate 0.005 --n-every 30 \
  > "$T/sim.fq"
gzip -1 -c "$T/sim.fq" > "$T/sim.fq.gz"

# kmc_dump NAME INPUT K CI: KMC's k-mers seen at least CI times, sorted, KMER<TAB>COUNT.
kmc_dump() {
  mkdir -p "$T/kmc.tmp"
  kmc -k"$3" -ci"$4" -cs4294967295 -t2 -m2 -fq "$2" "$T/$1.kmc" "$T/kmc.tmp" > "$T/kmc.log" 2>&1 ||
    { bad "kmc failed: $(tail -3 "$T/kmc.log")"; return 1; }
  kmc_tools transform "$T/$1.kmc" dump -s "$T/$1.kmc.txt" > "$T/kmc.log" 2>&1 ||
    { bad "kmc_tools dump failed: $(tail -3 "$T/kmc.log")"; return 1; }
  sort "$T/$1.kmc.txt" > "$T/$1.kmc.tsv"
}
# histo_of TSV H: the jellyfish-form histogram of KMER<TAB>COUNT lines, rows 1..H+1.
histo_of() {
  awk -F'\t' -v h="$2" '{ c = $2 > h ? h + 1 : $2; f[c]++ } END { for (i = 1; i <= h + 1; i++) print i, f[i] + 0 }' "$1"
}
# nonempty WHAT FILE MIN: the oracle gave at least MIN lines (an empty oracle proves nothing).
nonempty() { check "$1: the oracle has $(wc -l < "$2") lines (>= $3)" test "$(wc -l < "$2")" -ge "$3"; }

for set in example sim; do
  in=$T/$set.fq
  for k in 31 45; do
    tag="$set k=$k"
    kmc_dump "$set.$k.solid" "$in" "$k" 2 || continue
    kmc_dump "$set.$k.all" "$in" "$k" 1 || continue
    nonempty "$tag: KMC -ci2" "$T/$set.$k.solid.kmc.tsv" 10000
    jellyfish count -C -m "$k" -s 4M -t 2 -o "$T/jf.db" "$in" 2> "$T/jf.log" || bad "jellyfish count failed: $(cat "$T/jf.log")"
    jellyfish dump -c -t -L 2 "$T/jf.db" | sort > "$T/$set.$k.jf.tsv"
    same "$tag: KMC -ci2 and Jellyfish agree (the oracles)" "$T/$set.$k.solid.kmc.tsv" "$T/$set.$k.jf.tsv"

    input=$in
    [ "$set" = sim ] && input=$T/sim.fq.gz
    "$KB" count "$input" -k "$k" -t 2 -o "$T/kb.tsv" --histo "$T/kb.histo" --histo-max 6 -q
    same "$tag: count (Bloom gate, two passes) equals kmc -ci2, k-mer for k-mer" "$T/kb.tsv" "$T/$set.$k.solid.kmc.tsv"
    histo_of "$T/$set.$k.all.kmc.tsv" 6 > "$T/want.histo"
    check "$tag: the oracle's overflow row 7 is not empty" awk '$1 == 7 && $2 > 0 { f = 1 } END { exit !f }' "$T/want.histo"
    same "$tag: histogram rows 2..7 (7 = overflow) equal KMC's" <(tail -n +2 "$T/kb.histo") <(tail -n +2 "$T/want.histo")
    "$KB" count "$input" -k "$k" -t 3 --no-gate -c 1 -o "$T/kb1.tsv" --histo "$T/kb1.histo" --histo-max 6 -q
    same "$tag: --no-gate -c 1 equals kmc -ci1" "$T/kb1.tsv" "$T/$set.$k.all.kmc.tsv"
    same "$tag: --no-gate histogram rows 1..7 equal KMC's" "$T/kb1.histo" "$T/want.histo"
    jellyfish histo -h 6 "$T/jf.db" > "$T/jf.histo"
    same "$tag: --no-gate histogram equals jellyfish histo -h 6" "$T/kb1.histo" "$T/jf.histo"
  done
done

# -L/-U and the FASTA output form, against KMC's counts.
awk -F'\t' '$2 >= 3 && $2 <= 12' "$T/sim.31.all.kmc.tsv" > "$T/range.want"
"$KB" count "$T/sim.fq.gz" -L 3 -U 12 -t 2 -o "$T/range.tsv" -q
nonempty "-L 3 -U 12" "$T/range.want" 1000
same "-L 3 -U 12 equals KMC's k-mers seen 3..12 times" "$T/range.tsv" "$T/range.want"
"$KB" count "$T/sim.fq.gz" -t 2 --format fasta -o "$T/solid.fa" -q
paste - - < "$T/solid.fa" | awk -F'\t' '{ print $2 "\t" substr($1, 2) }' | sort > "$T/solid.fa.tsv"
same "--format fasta: KMC's solid k-mers and counts" "$T/solid.fa.tsv" "$T/sim.31.solid.kmc.tsv"

# Long k (KMC takes k <= 256): 300-base reads, so that even 255-mers repeat;
# even k has palindromes, which canonical counting must count once.
python3 "$HERE/simreads.py" --genome 100000 --reads 12000 --length 300 --seed 5 --error-rate 0.002 --n-every 40 \
  > "$T/long.fq"
for k in 64 127 128 255; do
  tag="long reads k=$k"
  kmc_dump "long.$k.solid" "$T/long.fq" "$k" 2 || continue
  nonempty "$tag: KMC -ci2" "$T/long.$k.solid.kmc.tsv" 20000
  "$KB" count "$T/long.fq" -k "$k" -t 2 -o "$T/kb.tsv" --histo "$T/kb.histo" -q
  same "$tag: count equals kmc -ci2, k-mer for k-mer" "$T/kb.tsv" "$T/long.$k.solid.kmc.tsv"
  "$KB" count "$T/long.fq" -k "$k" -t 1 -M 22M -o "$T/kb-m.tsv" --stats "$T/kb-m.json" --no-multiqc -q
  written=$(grep -Eo '"disk_bytes_written": *[0-9]+' "$T/kb-m.json" | grep -Eo '[0-9]+$')
  check "$tag: -M 22M -t 1 spills partitions to disk ($written bytes)" test "${written:-0}" -gt 100000
  same "$tag: ... and counts the same" "$T/kb-m.tsv" "$T/long.$k.solid.kmc.tsv"
  case $k in 64 | 128) continue ;; esac
  # estimate (exact on an input this small): F0 and f1..f10 from KMC -ci1.
  kmc_dump "long.$k.all" "$T/long.fq" "$k" 1 || continue
  { echo "F0 $(wc -l < "$T/long.$k.all.kmc.tsv")"
    awk -F'\t' '$2 <= 10 { f[$2]++ } END { for (i = 1; i <= 10; i++) print "f" i, f[i] + 0 }' "$T/long.$k.all.kmc.tsv"; } > "$T/want.est"
  "$KB" estimate "$T/long.fq" -k "$k" -t 2 -q | awk '$1 != "F1" { print $1, $2 }' > "$T/est"
  same "$tag: estimate's F0 and f1..f10 equal KMC's" "$T/est" "$T/want.est"
  # build every k-mer into a filter, query the same reads: every k-mer found.
  "$KB" build "$T/long.fq" -k "$k" -c 1 -o "$T/long.kbf" -q
  "$KB" query "$T/long.kbf" "$T/long.fq" -o "$T/long.q" -q
  check "$tag: query finds every k-mer build put in ($(awk 'NR > 1 && $2 != $3' "$T/long.q" | wc -l) reads short)" \
    test -z "$(awk 'NR > 1 && $2 != $3' "$T/long.q")"
  check "$tag: ... on reads that have k-mers" test "$(awk 'NR > 1 && $2 > 0' "$T/long.q" | wc -l)" -gt 10000
done
finish
