#!/usr/bin/env bash
# scatter.sh [DATASET] [CHUNKS] [GROUPS]   (ecoli_100x 4 8 by default)
#
# Scatter by input, gather by bin, as cluster jobs would run it, one job after
# the other on this machine, each under /usr/bin/time -v: the reads split into
# CHUNKS files (by record, outside the measurement), `kmerbloom bin` on each,
# `kmerbloom count CHUNKS.kbin --partition G/GROUPS` for each group,
# `merge-counts` of the groups; against one `kmerbloom count` of all the reads
# and `count --partition I/GROUPS` on the reads (which reads everything in
# every job). Checks the gathered output equals the single count byte for
# byte, and prints per-job wall, CPU and peak memory, the jobs' totals, and
# the largest group job's peak against the single count's.
#
# Env: KB (default build/kmerbloom), DATA (/tmp/kmerbloom-bench/data),
#      OUT (/tmp/kmerbloom-bench/scatter-DATASET), K=31, THREADS=2.
# Needs Debian package time.
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DATASET=${1:-ecoli_100x}
CHUNKS=${2:-4}
GROUPS_=${3:-8}
KB=${KB:-$HERE/../build/kmerbloom}
DATA=${DATA:-/tmp/kmerbloom-bench/data}
OUT=${OUT:-/tmp/kmerbloom-bench/scatter-$DATASET}
K=${K:-31}
THREADS=${THREADS:-2}
. "$HERE/measure.sh"
dataset_inputs "$DATASET"
for t in /usr/bin/time "$KB"; do command -v "$t" > /dev/null || { echo "missing $t" >&2; exit 1; }; done
rm -rf "$OUT"; mkdir -p "$OUT/chunks" "$OUT/tmp"
log() { printf '[scatter %s] %s\n' "$(date +%T)" "$*" >&2; }
printf 'run\twall_s\tcpu_s\tpeak_rss_mb\n' > "$OUT/times.tsv"

log "splitting the reads into $CHUNKS chunks (not measured)"
zcat "${INPUTS[@]}" | awk -v n="$CHUNKS" -v d="$OUT/chunks" '
  { c = int((NR - 1) / 4) % n; print | ("gzip -1 > " d "/" c ".fq.gz") }'

measure single "$KB" count "${INPUTS[@]}" -k "$K" -t "$THREADS" -o "$OUT/single.tsv" --histo "$OUT/single.histo" \
  --stats "$OUT/single.json" --no-multiqc
for c in $(seq 0 $((CHUNKS - 1))); do
  measure "bin.$c" "$KB" bin "$OUT/chunks/$c.fq.gz" -k "$K" -t "$THREADS" -o "$OUT/chunks/$c.kbin"
done
for g in $(seq 0 $((GROUPS_ - 1))); do
  measure "group.$g" "$KB" count "$OUT"/chunks/*.kbin --partition "$g/$GROUPS_" -t "$THREADS" -o "$OUT/group.$g.tsv" \
    --histo "$OUT/group.$g.histo" --stats "$OUT/group.$g.json" --no-multiqc
done
measure gather "$KB" merge-counts "$OUT"/group.*.tsv -o "$OUT/gathered.tsv"
"$KB" merge-counts --histo "$OUT"/group.*.histo -o "$OUT/gathered.histo" -q
for g in 0 1; do  # two of the re-reading partitions are enough to see their cost
  measure "reread.$g" "$KB" count "${INPUTS[@]}" -k "$K" --partition "$g/$GROUPS_" -t "$THREADS" \
    -o "$OUT/reread.$g.tsv" --no-multiqc
done

verdict() { if cmp -s "$1" "$2"; then echo IDENTICAL; else echo DIFFERS; fi; }
echo "gathered k-mers vs single count: $(verdict "$OUT/single.tsv" "$OUT/gathered.tsv")"
echo "gathered histogram vs single count: $(verdict "$OUT/single.histo" "$OUT/gathered.histo")"
gz=$(cat "${INPUTS[@]}" | wc -c)
kbin=$(cat "$OUT"/chunks/*.kbin | wc -c)
echo "input $((gz >> 20)) MB gzip, bin files $((kbin >> 20)) MB ($(awk -v a="$kbin" -v b="$gz" 'BEGIN { printf "%.2f", a / b }')x)"
column -t "$OUT/times.tsv"
awk -F'\t' -v g="$GROUPS_" '
  NR == 1 { next }
  $1 == "single" { sw = $2; sc = $3; sm = $4 }
  $1 ~ /^bin\./ { bc += $3; bw += $2; if ($4 > bm) bm = $4 }
  $1 ~ /^group\./ { gc += $3; gw += $2; if ($4 > gm) gm = $4 }
  $1 ~ /^reread\./ { rc += $3; rn++ }
  END {
    printf "bin jobs: CPU %.1f s (%.2fx the single count), largest peak %d MB\n", bc, bc / sc, bm
    printf "group jobs: CPU %.1f s, largest peak %d MB (%.2fx the single count'"'"'s %d MB)\n", gc, gm, gm / sm, sm
    printf "all jobs: CPU %.1f s = %.2fx the single count (%.1f s)\n", bc + gc, (bc + gc) / sc, sc
    if (rn) printf "count --partition I/%d on the reads: %.1f s CPU a job, %.1f s for all %d (%.2fx the single count)\n", g, rc / rn, rc / rn * g, g, rc / rn * g / sc
  }' "$OUT/times.tsv"
