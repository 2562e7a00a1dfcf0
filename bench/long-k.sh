#!/usr/bin/env bash
# long-k.sh [DATASET] [K...]   (ecoli_30x, k = 63 64 127 128 255 by default)
#
# kmerbloom count against KMC 3 at long k, the same reads, one after the
# other, each under /usr/bin/time -v: `kmc -kK -ci2` (its dump sorted) and
# `kmerbloom count -k K` (exact). Checks the two outputs are identical k-mer
# for k-mer, and prints wall, CPU and peak memory of each with the ratio to
# KMC from the same run, and kmerbloom's peak bytes per solid k-mer.
#
# Env: KB (default build/kmerbloom), DATA (/tmp/kmerbloom-bench/data), OUT
#      (/tmp/kmerbloom-bench/long-k-DATASET), THREADS=2, KMC_MEM_GB=4.
# Needs Debian packages: kmc time.
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DATASET=${1:-ecoli_30x}
shift || true
KS=("$@")
[ ${#KS[@]} -gt 0 ] || KS=(63 64 127 128 255)
KB=${KB:-$HERE/../build/kmerbloom}
DATA=${DATA:-/tmp/kmerbloom-bench/data}
OUT=${OUT:-/tmp/kmerbloom-bench/long-k-$DATASET}
THREADS=${THREADS:-2}
KMC_MEM_GB=${KMC_MEM_GB:-4}
. "$HERE/measure.sh"
dataset_inputs "$DATASET"
for t in kmc kmc_tools /usr/bin/time "$KB"; do command -v "$t" > /dev/null || { echo "missing $t" >&2; exit 1; }; done
rm -rf "$OUT"; mkdir -p "$OUT/tmp"
log() { printf '[long-k %s] %s\n' "$(date +%T)" "$*" >&2; }
printf 'run\twall_s\tcpu_s\tpeak_rss_mb\n' > "$OUT/times.tsv"
printf '%s\n' "${INPUTS[@]}" > "$OUT/list"

for k in "${KS[@]}"; do
  measure "kmc.$k" kmc -k"$k" -ci2 -cs4294967295 -t"$THREADS" -m"$KMC_MEM_GB" -fq @"$OUT/list" "$OUT/kmc$k" "$OUT/tmp"
  kmc_tools transform "$OUT/kmc$k" dump -s "$OUT/kmc$k.txt" > /dev/null 2>&1
  rm -f "$OUT/kmc$k".kmc_*
  measure "kmerbloom.$k" "$KB" count "${INPUTS[@]}" -k "$k" -t "$THREADS" -o "$OUT/kb$k.tsv" --no-multiqc
  if cmp -s "$OUT/kb$k.tsv" "$OUT/kmc$k.txt"; then verdict=IDENTICAL; else verdict=DIFFERS; fi
  echo "k = $k: $(wc -l < "$OUT/kb$k.tsv") solid k-mers, kmerbloom vs kmc -ci2: $verdict"
  rm -f "$OUT/kmc$k.txt"
done
column -t "$OUT/times.tsv"
for k in "${KS[@]}"; do
  awk -F'\t' -v k="$k" -v n="$(wc -l < "$OUT/kb$k.tsv")" '
    $1 == "kmc." k { w = $2; c = $3; m = $4 }
    $1 == "kmerbloom." k { printf "k = %d: kmerbloom wall %.2fx KMC, CPU %.2fx, peak %.2fx (%d MB, %.1f bytes per solid k-mer)\n",
                           k, $2 / w, $3 / c, $4 / m, $4, n ? $4 * 1048576 / n : 0 }' "$OUT/times.tsv"
done
