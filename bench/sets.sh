#!/usr/bin/env bash
# sets.sh: kmerbloom sets beside kmc_tools simple, every operation, on the
# same KFF files, in turns, and a check that each result is kmc_tools'
# k-mer for k-mer, counts included.
#
# A = ecoli_30x, B = ecoli_100x (both mates: the largest set), k = 31, counted once by kmerbloom count
# --format kff: the solid k-mers (-c 2) and every k-mer (-c 1, the larger
# pair of sets). For each pair and each operation, REPEAT rounds of
#   kmerbloom sets OP A.kff B.kff -t THREADS --format kff -o R.kff
#   kmc_tools -tTHREADS simple A.kff -ci1 B.kff -ci1 KOP R -ci1 -cs4294967295
# (OP and KOP: intersect, union, diff = kmers_subtract, subtract =
# counters_subtract), the two tools in turn, each under /usr/bin/time -v.
# Prints each run, then per operation the medians of wall, CPU and peak and
# the ratios of the medians; checks round 1's results against each other
# (kmc_tools transform dump), and that -t 1 and -t 3 write the same bytes as
# -t THREADS (intersect of the solid sets).
#
# Data: ../shared/bench/make-data.sh writes it (DATA, default
# /tmp/kmerbloom-bench/data or /tmp/kmerbloom-bench).
# Env: KB (default build/kmerbloom), DATA, OUT (default
#      /tmp/kmerbloom-bench/sets), THREADS=2, REPEAT=3.
# Needs Debian packages: kmc time. About 3 minutes on 2 cores.
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
REPEAT=${REPEAT:-3}
log() { echo "[sets.sh] $*" >&2; }
. "$HERE/measure.sh"
A=$DATA/ecoli_30x.fq.gz
B=("$DATA/ecoli_100x_R1.fq.gz" "$DATA/ecoli_100x_R2.fq.gz")
for f in "$A" "${B[@]}"; do [ -s "$f" ] || { echo "missing $f: run ../shared/bench/make-data.sh" >&2; exit 1; }; done
for t in kmc_tools /usr/bin/time "$KB"; do command -v "$t" > /dev/null || { echo "missing $t" >&2; exit 1; }; done
mkdir -p "$OUT"
: > "$OUT/times.tsv"

for c in 2 1; do
  measure "count_A_c$c" "$KB" count "$A" -k 31 -c $c -t "$THREADS" -q --format kff -o "$OUT/A_c$c.kff" \
    --stats "$OUT/A_c$c.json" --no-multiqc
  measure "count_B_c$c" "$KB" count "${B[@]}" -k 31 -c $c -t "$THREADS" -q --format kff -o "$OUT/B_c$c.kff" \
    --stats "$OUT/B_c$c.json" --no-multiqc
done

kmc_op() {
  case $1 in intersect) echo intersect ;; union) echo union ;; diff) echo kmers_subtract ;; subtract) echo counters_subtract ;; esac
}
status=0
for round in $(seq 1 "$REPEAT"); do
  for c in 2 1; do
    for op in intersect union diff subtract; do
      r="c${c}_$op"
      measure "sets_${r}_$round" "$KB" sets $op "$OUT/A_c$c.kff" "$OUT/B_c$c.kff" -t "$THREADS" -q --format kff \
        -o "$OUT/$r.kff"
      measure "kmc_tools_${r}_$round" kmc_tools -t"$THREADS" -hp simple "$OUT/A_c$c.kff" -ci1 "$OUT/B_c$c.kff" -ci1 \
        "$(kmc_op $op)" "$OUT/kt_$r" -ci1 -cs4294967295
      if [ "$round" = 1 ]; then
        kmc_tools -hp transform "$OUT/kt_$r" dump -s "$OUT/kt_$r.txt" > /dev/null
        kmc_tools -hp transform "$OUT/$r.kff" dump -s "$OUT/$r.txt" > /dev/null
        if cmp -s "$OUT/$r.txt" "$OUT/kt_$r.txt"; then
          echo "equal: $op of the -c $c sets = kmc_tools $(kmc_op $op) ($(wc -l < "$OUT/$r.txt") k-mers)"
        else
          echo "DIFFERENT: $op of the -c $c sets vs kmc_tools $(kmc_op $op)"
          status=1
        fi
        rm -f "$OUT/$r.txt" "$OUT/kt_$r.txt"
      fi
    done
  done
done
for t in 1 3; do
  "$KB" sets intersect "$OUT/A_c2.kff" "$OUT/B_c2.kff" -t $t -q --format kff -o "$OUT/t$t.kff"
  if cmp -s "$OUT/c2_intersect.kff" "$OUT/t$t.kff"; then echo "equal: -t $THREADS = -t $t (KFF bytes)"; else echo "DIFFERENT: -t $THREADS vs -t $t"; status=1; fi
done
for c in 2 1; do
  for x in A B; do
    python3 -c 'import json, sys; print("k-mers in %s: %d" % (sys.argv[2], json.load(open(sys.argv[1]))["kmers_solid"]))' \
      "$OUT/${x}_c$c.json" "${x}_c$c.kff"
  done
done
printf 'run\twall_s\tcpu_s\tpeak_MB\n'
cat "$OUT/times.tsv"
echo
echo "medians of $REPEAT rounds, $THREADS threads (kmerbloom / kmc_tools):"
printf 'sets\toperation\tkmerbloom wall\tCPU\tpeak MB\tkmc_tools wall\tCPU\tpeak MB\tratio wall\tCPU\tpeak\n'
awk -F'\t' '
  $1 ~ /^(sets|kmc_tools)_c[12]_/ {
    n = split($1, p, "_"); tool = (p[1] == "sets") ? "kb" : "kt"; off = (tool == "kt") ? 1 : 0
    key = p[2 + off] "\t" p[3 + off]
    w[tool, key] = w[tool, key] " " $2; c[tool, key] = c[tool, key] " " $3; m[tool, key] = m[tool, key] " " $4
    if (!(key in seen)) { seen[key] = 1; order[++keys] = key }
  }
  function median(list,   a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    for (i = 1; i <= keys; i++) {
      k = order[i]; split(k, q, "\t")
      bw = median(w["kb", k]); bc = median(c["kb", k]); bm = median(m["kb", k])
      tw = median(w["kt", k]); tc = median(c["kt", k]); tm = median(m["kt", k])
      printf "-%s\t%s\t%.2f\t%.2f\t%d\t%.2f\t%.2f\t%d\t%.2fx\t%.2fx\t%.2fx\n", q[1], q[2], bw, bc, bm, tw, tc, tm,
        bw / tw, bc / tc, bm / tm
    }
  }' "$OUT/times.tsv"
exit $status
