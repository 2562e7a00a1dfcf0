#!/usr/bin/env bash
# count-core.sh [DATASET]    (ecoli_100x by default; also ecoli_30x, ecoli_small)
#
# The counting core against KMC 3 on the same reads, k = 31, one after the
# other, each under /usr/bin/time -v: kmerbloom count exact at 2 threads and
# at 1 (the speed-up), -M 48M (spilled), from standard input, and
# optionally an older kmerbloom binary (OLD=path) for CPU seconds per billion
# k-mer occurrences before and after. Every exact output is checked against
# KMC's dump (`kmc -ci2`, sorted). Prints wall, CPU, peak memory and ratios to KMC from the
# same run (the machine is shared: compare ratios, not seconds).
#
# Env: KB (default build/kmerbloom), OLD (optional), DATA
#      (/tmp/kmerbloom-bench/data, from ../shared/bench/make-data.sh), OUT
#      (/tmp/kmerbloom-bench/core-DATASET), K=31, KMC_MEM_GB=4.
# Needs Debian packages: kmc time.
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DATASET=${1:-ecoli_100x}
KB=${KB:-$HERE/../build/kmerbloom}
OLD=${OLD:-}
DATA=${DATA:-/tmp/kmerbloom-bench/data}
OUT=${OUT:-/tmp/kmerbloom-bench/core-$DATASET}
K=${K:-31}
KMC_MEM_GB=${KMC_MEM_GB:-4}
. "$HERE/measure.sh"
dataset_inputs "$DATASET"
for t in kmc kmc_tools /usr/bin/time "$KB"; do command -v "$t" > /dev/null || { echo "missing $t" >&2; exit 1; }; done
rm -rf "$OUT"; mkdir -p "$OUT/tmp"
log() { printf '[count-core %s] %s\n' "$(date +%T)" "$*" >&2; }
printf 'run\twall_s\tcpu_s\tpeak_rss_mb\n' > "$OUT/times.tsv"
verdict() { if cmp -s "$1" "$2"; then echo IDENTICAL; else echo "DIFFERS ($(diff "$1" "$2" | grep -c '^[<>]') lines)"; fi; }

printf '%s\n' "${INPUTS[@]}" > "$OUT/list"
measure kmc kmc -k"$K" -ci2 -cs4294967295 -t2 -m"$KMC_MEM_GB" -fq @"$OUT/list" "$OUT/kmc" "$OUT/tmp"
kmc_tools transform "$OUT/kmc" dump "$OUT/kmc.dump" > /dev/null
awk '{ print $1 "\t" $2 }' "$OUT/kmc.dump" | sort > "$OUT/kmc.tsv"
rm -f "$OUT/kmc.dump" "$OUT"/kmc.kmc_*

run_kb() { local name=$1; shift; measure "$name" "$@" -k "$K" -o "$OUT/$name.tsv" --stats "$OUT/$name.json" --no-multiqc; }
run_kb exact_t2 "$KB" count "${INPUTS[@]}" -t 2 --histo "$OUT/exact_t2.histo"
run_kb exact_t1 "$KB" count "${INPUTS[@]}" -t 1
run_kb spill_48M "$KB" count "${INPUTS[@]}" -t 2 -M 48M --tmp-dir "$OUT/tmp"
measure stdin bash -c "zcat ${INPUTS[*]} | '$KB' count - -k $K -t 2 -o '$OUT/stdin.tsv'"
[ -z "$OLD" ] || run_kb old_exact_t2 "$OLD" count "${INPUTS[@]}" -t 2

log "checking"
for r in exact_t2 exact_t1 spill_48M stdin ${OLD:+old_exact_t2}; do
  printf '%-14s vs kmc -ci2: %s\n' "$r" "$(verdict "$OUT/kmc.tsv" "$OUT/$r.tsv")"
done
echo "temporary bytes written at -M 48M: $(grep -Eo '"disk_bytes_written": *[0-9]+' "$OUT/spill_48M.json" | grep -Eo '[0-9]+$')"
KMERS=$(grep -Eo '"kmers_total": *[0-9]+' "$OUT/exact_t2.json" | grep -Eo '[0-9]+$')
echo
awk -F'\t' -v kmers="$KMERS" 'NR == 1 { print $0 "\tvs_kmc_wall\tcpu_s_per_1e9_kmers"; next }
  { row[NR] = $0; name[NR] = $1; w[$1] = $2; c[$1] = $3 }
  END { for (i = 2; i <= NR; i++) printf "%s\t%.2f\t%.1f\n", row[i], w[name[i]] / w["kmc"], c[name[i]] / kmers * 1e9
        printf "\nspeed-up from 1 to 2 threads (exact): %.2fx\n", w["exact_t1"] / w["exact_t2"]
        if ("old_exact_t2" in w) printf "CPU per k-mer, new / old: %.2f; wall new / old: %.2f\n", c["exact_t2"] / c["old_exact_t2"], w["exact_t2"] / w["old_exact_t2"] }' \
  "$OUT/times.tsv" | column -t -s "$(printf '\t')"
echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); outputs in $OUT)"
