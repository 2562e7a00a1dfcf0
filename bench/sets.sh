#!/usr/bin/env bash
# sets.sh: kmerbloom sets intersect beside kmc_tools simple intersect on the
# same two k-mer sets, each under /usr/bin/time -v, and a check that the
# results are equal k-mer for k-mer, counts included.
#
# A = ecoli_30x, B = ecoli_100x_R1, k = 31, solid k-mers (count -c 2 /
# kmc -ci2) counted once by kmerbloom count --format kff and once by kmc into
# its own databases. Timed: kmerbloom sets intersect A.kff B.kff with -t 1, 2
# and 3 (KFF out; TSV out with -t 2), kmc_tools simple on the same KFF
# files (KMC database out; KFF out) and on KMC's databases.
#
# Data: ../shared/bench/make-data.sh writes it (DATA, default
# /tmp/kmerbloom-bench/data or /tmp/kmerbloom-bench).
# Env: KB (default build/kmerbloom), DATA, OUT (default
#      /tmp/kmerbloom-bench/sets), THREADS=2 (counting, kmc_tools).
# Needs Debian packages: kmc time.
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KB=${KB:-$HERE/../build/kmerbloom}
if [ -z "${DATA:-}" ]; then
  DATA=/tmp/kmerbloom-bench/data
  [ -s "$DATA/ecoli_30x.fq.gz" ] || DATA=/tmp/kmerbloom-bench
fi
OUT=${OUT:-/tmp/kmerbloom-bench/sets}
THREADS=${THREADS:-2}
log() { echo "[sets.sh] $*" >&2; }
. "$HERE/measure.sh"
A=$DATA/ecoli_30x.fq.gz
B=$DATA/ecoli_100x_R1.fq.gz
for f in "$A" "$B"; do [ -s "$f" ] || { echo "missing $f: run ../shared/bench/make-data.sh" >&2; exit 1; }; done
for t in kmc kmc_tools /usr/bin/time "$KB"; do command -v "$t" > /dev/null || { echo "missing $t" >&2; exit 1; }; done
mkdir -p "$OUT/kmc-tmp"
: > "$OUT/times.tsv"

measure count_A "$KB" count "$A" -k 31 -t "$THREADS" -q --format kff -o "$OUT/A.kff"
measure count_B "$KB" count "$B" -k 31 -t "$THREADS" -q --format kff -o "$OUT/B.kff"
measure kmc_A kmc -k31 -ci2 -cs4294967295 -t"$THREADS" -hp "$A" "$OUT/kA" "$OUT/kmc-tmp"
measure kmc_B kmc -k31 -ci2 -cs4294967295 -t"$THREADS" -hp "$B" "$OUT/kB" "$OUT/kmc-tmp"

for t in 1 2 3; do
  measure "sets_t$t" "$KB" sets intersect "$OUT/A.kff" "$OUT/B.kff" -t $t -q --format kff -o "$OUT/sets_t$t.kff" \
    --stats "$OUT/sets_t$t.json" --no-multiqc
done
measure sets_t2_tsv "$KB" sets intersect "$OUT/A.kff" "$OUT/B.kff" -t 2 -q -o "$OUT/sets.tsv"
measure kmc_tools_kff kmc_tools -t"$THREADS" -hp simple "$OUT/A.kff" -ci1 "$OUT/B.kff" -ci1 intersect "$OUT/kt_kff" -ci1 -cs4294967295
measure kmc_tools_kff_okff kmc_tools -t"$THREADS" -hp simple "$OUT/A.kff" -ci1 "$OUT/B.kff" -ci1 intersect "$OUT/kt_okff" -ci1 -cs4294967295 -okff
measure kmc_tools_db kmc_tools -t"$THREADS" -hp simple "$OUT/kA" -ci1 "$OUT/kB" -ci1 intersect "$OUT/kt_db" -ci1 -cs4294967295

# Equality: every result dumped as sorted KMER<TAB>COUNT.
kmc_tools -hp transform "$OUT/kt_kff" dump -s "$OUT/kt_kff.txt" > /dev/null
kmc_tools -hp transform "$OUT/kt_db" dump -s "$OUT/kt_db.txt" > /dev/null
kmc_tools -hp transform "$OUT/sets_t2.kff" dump -s "$OUT/sets_t2.kff.txt" > /dev/null
status=0
for f in kt_db.txt sets_t2.kff.txt; do
  if cmp -s "$OUT/sets.tsv" "$OUT/$f"; then echo "equal: sets TSV = $f"; else echo "DIFFERENT: sets TSV vs $f"; status=1; fi
done
# kmc_tools on count's KFF files: reported, not a failure of sets. kmc_tools
# 3.2 has been seen to read the last section of a count KFF, written with
# 1-byte counts after sections of 2-byte counts, as 2 bytes a count.
if cmp -s "$OUT/sets.tsv" "$OUT/kt_kff.txt"; then
  echo "equal: sets TSV = kt_kff.txt"
else
  echo "DIFFERENT: sets TSV vs kt_kff.txt (kmc_tools on count's KFF): $(paste "$OUT/sets.tsv" "$OUT/kt_kff.txt" |
    awk -F'\t' '$1 != $3 || $2 != $4 { n++ } END { print n + 0 }') lines differ"
  for x in A B; do
    "$KB" merge-counts "$OUT/$x.kff" -q -o "$OUT/$x.tsv"
    kmc_tools -hp transform "$OUT/$x.kff" dump -s "$OUT/$x.kt.txt" > /dev/null
    cmp -s "$OUT/$x.tsv" "$OUT/$x.kt.txt" || echo "  kmc_tools dumps $x.kff otherwise than kmerbloom reads it:" \
      "$(paste "$OUT/$x.tsv" "$OUT/$x.kt.txt" | awk -F'\t' '$2 != $4 { n++ } END { print n + 0 }') counts differ"
  done
fi
for t in 1 3; do
  if cmp -s "$OUT/sets_t2.kff" "$OUT/sets_t$t.kff"; then echo "equal: -t 2 = -t $t (KFF bytes)"; else echo "DIFFERENT: -t 2 vs -t $t"; status=1; fi
done
python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))
print("k-mers: A %d, B %d, intersection %d" % (s["input_files"][0]["kmers"], s["input_files"][1]["kmers"], s["kmers_out"]))' \
  "$OUT/sets_t1.json"
printf 'run\twall_s\tcpu_s\tpeak_MB\n'
cat "$OUT/times.tsv"
exit $status
