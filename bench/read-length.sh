#!/usr/bin/env bash
# read-length.sh [SET...]    (default: diploid120_hifi; SET_hifi or ecoli_hifi under DATA)
#
# Long reads against short reads on the same k-mers. Each long read of
# DATA/SET.fq.gz is cut into pieces of LEN bases that overlap by k - 1, one
# every LEN - k + 1 bases (the last piece ends with the read), so that every
# k-mer occurrence of the long reads lies in exactly one piece: both files
# hold the same k-mer occurrences, and a count of each must give the same
# output byte for byte. Only the read length differs (the pieces carry
# LEN / (LEN - k + 1) times the bases). Written once to
# DATA/SET_cut<LEN>.fq.gz. Then, for REPEAT rounds, in turn:
#   kmerbloom count SET.fq.gz        -k 31 -t 2 --format kff -o long.kff  --stats long.json
#   kmerbloom count SET_cut<LEN>.fq.gz  ...                   -o short.kff --stats short.json
# checks that the two KFF files are identical, and prints wall and CPU per
# 10^9 k-mer occurrences (the same work in both) and per 10^9 bases read,
# and kmerbloom's seconds per pass.
#
# Env: KB (default build/kmerbloom), DATA (/tmp/kmerbloom-bench/data), OUT
#      (/tmp/kmerbloom-bench/read-length), LEN (150), REPEAT (2), THREADS (2).
# Needs Debian packages time jq pigz (installed when missing). On 2 cores:
# cutting the 1.2 Gbp of diploid120_hifi takes about 3 minutes, each round
# about 45 s.
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KB=${KB:-$HERE/../build/kmerbloom}
DATA=${DATA:-/tmp/kmerbloom-bench/data}
OUT=${OUT:-/tmp/kmerbloom-bench/read-length}
LEN=${LEN:-150}
REPEAT=${REPEAT:-2}
THREADS=${THREADS:-2}
K=31
SETS=("$@")
[ ${#SETS[@]} -gt 0 ] || SETS=(diploid120_hifi)
log() { echo "[read-length.sh] $*" >&2; }
. "$HERE/apt-install.sh"
apt_install time jq pigz
for t in /usr/bin/time jq pigz "$KB"; do command -v "$t" > /dev/null || { echo "missing $t" >&2; exit 1; }; done
[ "$LEN" -gt "$K" ] || { echo "LEN must exceed k = $K" >&2; exit 2; }
. "$HERE/measure.sh"
mkdir -p "$OUT"
: > "$OUT/times.tsv"
: > "$OUT/passes.tsv"

# cut LEN: FASTQ of four-line records on stdin, the pieces on stdout.
cut_reads() {
  awk -v L="$1" -v step="$(($1 - K + 1))" '
    NR % 4 == 1 { name = substr($1, 2) }
    NR % 4 == 2 { s = $0 }
    NR % 4 == 0 {
      n = length(s)
      if (n <= L) { printf "@%s\n%s\n+\n%s\n", name, s, $0; next }
      for (i = 0; ; i++) {
        st = i * step
        printf "@%s_%d\n%s\n+\n%s\n", name, i, substr(s, st + 1, L), substr($0, st + 1, L)
        if (st + L >= n) break
      }
    }'
}

status=0
for set in "${SETS[@]}"; do
  long=$DATA/$set.fq.gz
  short=$DATA/${set}_cut$LEN.fq.gz
  [ -s "$long" ] || { echo "missing $long: run bench/make-diploid.sh" >&2; exit 1; }
  if [ ! -s "$short" ]; then
    log "$set: cutting into $LEN-base pieces"
    zcat "$long" | cut_reads "$LEN" | pigz -n -6 -p "$THREADS" -c > "$short.part"
    mv "$short.part" "$short"
  fi
  for r in $(seq "$REPEAT"); do
    for v in long short; do
      in=$long; [ $v = long ] || in=$short
      measure "$v.$set.$r" "$KB" count "$in" -k $K -t "$THREADS" -q --format kff \
        -o "$OUT/$v.$set.$r.kff" --stats "$OUT/$v.$set.$r.json" --no-multiqc
      jq -r --arg run "$v.$set.$r" '[$run, .bases, .kmers_total,
          (.pass_seconds | map(. * 10 | round / 10 | tostring) | join("/")), .temporary.disk_bytes_written] | @tsv' \
        "$OUT/$v.$set.$r.json" >> "$OUT/passes.tsv"
    done
    if cmp -s "$OUT/long.$set.$r.kff" "$OUT/short.$set.$r.kff"; then
      echo "equal: $set long and $LEN-base pieces give the same KFF (round $r)"
    else
      echo "DIFFERENT: $set long and $LEN-base pieces (round $r)"; status=1
    fi
    rm -f "$OUT"/*."$set.$r".kff
  done
done

printf 'run\twall_s\tcpu_s\tpeak_MB\tbases\tkmer_occurrences\twall_s/G_kmers\tcpu_s/G_kmers\twall_s/Gbp\tpass_seconds\ttmp_written_MB\n'
join -t$'\t' <(sort "$OUT/times.tsv") <(sort "$OUT/passes.tsv") |
  awk -F'\t' -v OFS='\t' '{ print $1, $2, $3, $4, $5, $6, sprintf("%.2f", $2 / $6 * 1e9), sprintf("%.2f", $3 / $6 * 1e9),
                              sprintf("%.2f", $2 / $5 * 1e9), $7, sprintf("%.0f", $8 / 1e6) }'
exit $status
