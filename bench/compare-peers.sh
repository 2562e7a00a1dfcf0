#!/usr/bin/env bash
# compare-peers.sh [DATASET]    (ecoli_100x by default; also ecoli_30x, ecoli_small)
#
# Runs kmerbloom count, KMC 3 and Jellyfish 2
# side by side on the same reads, k = 31, 2 threads, each under
# /usr/bin/time -v, then checks that
#   - kmerbloom's solid k-mers equal `kmc -ci2` + sorted `kmc_tools transform dump`,
#   - kmerbloom's histogram equals `jellyfish histo`, every row,
# and prints wall time, CPU time and peak memory with ratios to KMC and Jellyfish.
#
# Data: ../shared/bench/make-data.sh writes it to /tmp/kmerbloom-bench/data.
# Env: KB (kmerbloom binary, default build/kmerbloom), DATA, OUT (default
#      /tmp/kmerbloom-bench/compare-DATASET), THREADS=2, K=31, KMC_MEM_GB=4.
# Needs Debian packages: kmc jellyfish time.
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DATASET=${1:-ecoli_100x}
KB=${KB:-$HERE/../build/kmerbloom}
DATA=${DATA:-${BENCH_DATA:-/tmp/kmerbloom-bench/data}}
OUT=${OUT:-/tmp/kmerbloom-bench/compare-$DATASET}
THREADS=${THREADS:-2}
K=${K:-31}
KMC_MEM_GB=${KMC_MEM_GB:-4}

. "$HERE/measure.sh"
dataset_inputs "$DATASET"
for t in kmc kmc_tools jellyfish /usr/bin/time "$KB"; do command -v "$t" >/dev/null || { echo "missing $t" >&2; exit 1; }; done
rm -rf "$OUT"; mkdir -p "$OUT/tmp"
log() { printf '[compare %s] %s\n' "$(date +%T)" "$*" >&2; }

printf 'tool\twall_s\tcpu_s\tpeak_rss_mb\n' > "$OUT/times.tsv"

printf '%s\n' "${INPUTS[@]}" > "$OUT/list"
measure kmc kmc -k"$K" -ci2 -cs4294967295 -t"$THREADS" -m"$KMC_MEM_GB" -fq @"$OUT/list" "$OUT/kmc" "$OUT/tmp"
kmc_tools transform "$OUT/kmc" dump "$OUT/kmc.dump" > /dev/null
awk '{ print $1 "\t" $2 }' "$OUT/kmc.dump" | sort > "$OUT/kmc.tsv"
F0=$(awk -F: '/unique k-mers/ && !/counted/ { gsub(/ /, "", $2); print $2 }' "$OUT/kmc.log")

measure jellyfish bash -c "jellyfish count -C -m $K -s $F0 -t $THREADS -o '$OUT/jf.jf' <(zcat ${INPUTS[*]})"
jellyfish histo "$OUT/jf.jf" > "$OUT/jf.histo"
rm -f "$OUT/jf.jf"

measure kmerbloom "$KB" count "${INPUTS[@]}" -k "$K" -t "$THREADS" -o "$OUT/kb.tsv" --histo "$OUT/kb.histo" --stats "$OUT/kb.json"

log "checking"
verdict() { if cmp -s "$1" "$2"; then echo IDENTICAL; else echo "DIFFERS ($(diff "$1" "$2" | grep -c '^[<>]') lines)"; fi; }
echo "exact mode vs kmc -ci2 dump:        $(verdict "$OUT/kmc.tsv" "$OUT/kb.tsv") ($(wc -l < "$OUT/kb.tsv") solid k-mers)"
awk '$2 > 0' "$OUT/jf.histo" > "$OUT/jf.rows"
awk '$2 > 0' "$OUT/kb.histo" > "$OUT/kb.rows"
echo "histogram vs jellyfish:             $(verdict "$OUT/jf.rows" "$OUT/kb.rows")"

echo
awk -F'\t' 'NR == 1 { print; next } { row[$1] = $0; w[$1] = $2; r[$1] = $4 } END {
  for (t in row) print row[t]
  printf "\nratios (kmerbloom / peer): wall vs kmc %.2f, vs jellyfish %.2f; peak memory vs kmc %.2f, vs jellyfish %.2f\n",
    w["kmerbloom"] / w["kmc"], w["kmerbloom"] / w["jellyfish"], r["kmerbloom"] / r["kmc"], r["kmerbloom"] / r["jellyfish"]
}' "$OUT/times.tsv" | column -t -s "$(printf '\t')"
echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); outputs in $OUT)"
