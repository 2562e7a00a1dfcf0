#!/usr/bin/env bash
# scale-genome.sh [SET...]    (default: ecoli_100x diploid120 diploid120_hifi ecoli_hifi)
#
# Genome-scale counting next to KMC 3 and FastK, k = 31, 2 threads, solid
# k-mers (count >= 2). For each set and each of REPEAT rounds, in turn (the
# three kmerbloom runs in a rotated order, a round starting with the next):
#   kmerbloom count INPUTS -k 31 -t 2 --format kff -o X.kff --stats X.json --no-multiqc
#   kmerbloom count ... -M 1G                       (the same, held to 1 GiB)
#   KB_BASE count ...                               (when KB_BASE names an earlier build: before/after)
#   kmc -k31 -ci2 -cs4294967295 -t2 -m4 -fq @LIST DB TMP
#   FastK -k31 -t2 -T2 -M4 -PTMP -NX INPUTS         (when FASTK is set)
# each under /usr/bin/time -v, while the size of its temporary directory and
# the load average are sampled every second (kmerbloom unlinks its temporary
# files at once, so its figure is the bytes written from its --stats JSON). Then checks on round 1:
#   - both kmerbloom KFF files against KMC's database with kmc_tools (KMC 3.2
#     reads KFF): counters_subtract both ways must be empty, which holds only
#     when the k-mers and their counts are the same;
#   - FastK's table (Tabex -A) against KMC's sorted dump with counts clipped at
#     32,767 as FastK clips them, by checksum;
# and prints wall, CPU, peak RSS, the temporary disk peak, wall seconds per
# 10^9 bases, the ratios to KMC of the same round, the mean load during the
# run, and kmerbloom's seconds per pass, partitions and temporary bytes
# written (from its --stats JSON). The machine's load matters: the figures of
# one run are comparable with each other, not across machines.
#
# Sets (files under DATA):
#   ecoli_100x        ecoli_100x_R1/_R2.fq.gz   (../shared/bench/make-data.sh)
#   NAME              NAME_R1/_R2.fq.gz         (bench/make-diploid.sh, NAME=diploid120;
#                                               diploid5 and diploid30 with GENOME_MBP=5, 30)
#   NAME_hifi         NAME_hifi.fq.gz           (bench/make-diploid.sh)
#   ecoli_hifi        ecoli_hifi.fq.gz          (bench/make-diploid.sh)
# Env: KB (kmerbloom binary, default build/kmerbloom), FASTK (a FastK binary,
#      built from github.com/thegenemyers/FASTK with make; its Tabex beside it;
#      unset: FastK is skipped), DATA (/tmp/kmerbloom-bench/data), OUT
#      (/tmp/kmerbloom-bench/scale-genome), KB_BASE (an earlier kmerbloom, also
#      run), REPEAT (1), KEEP (1 keeps the databases and tables).
# Needs Debian packages kmc time jq (installed when missing). Time on 2 cores:
# about 9 minutes for the 120 Mbp diploid pairs (3 Gbp) and 8 for its HiFi
# reads, 2.5 and 2 for ecoli_100x and ecoli_hifi. Disk: up to 4.4 GB of
# temporary files (kmerbloom on the pairs), besides the outputs of the four
# runs of a set, kept until they are checked (KEEP=1 keeps them).
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KB=${KB:-$HERE/../build/kmerbloom}
FASTK=${FASTK:-}
DATA=${DATA:-/tmp/kmerbloom-bench/data}
OUT=${OUT:-/tmp/kmerbloom-bench/scale-genome}
REPEAT=${REPEAT:-1}
KEEP=${KEEP:-0}
KB_BASE=${KB_BASE:-}
SETS=("$@")
[ ${#SETS[@]} -gt 0 ] || SETS=(ecoli_100x diploid120 diploid120_hifi ecoli_hifi)
. "$HERE/measure.sh"
. "$HERE/apt-install.sh"
apt_install kmc time jq
for t in kmc kmc_tools /usr/bin/time jq "$KB"; do command -v "$t" > /dev/null || { echo "missing $t" >&2; exit 1; }; done
if [ -n "$FASTK" ]; then
  TABEX=$(dirname "$FASTK")/Tabex
  [ -x "$FASTK" ] && [ -x "$TABEX" ] || { echo "FASTK=$FASTK: no FastK or no Tabex beside it" >&2; exit 1; }
fi
rm -rf "$OUT"; mkdir -p "$OUT"
trap 'kill $(jobs -p) 2> /dev/null || true' EXIT
log() { printf '[scale-genome %s] %s\n' "$(date +%T)" "$*" >&2; }
printf 'run\twall_s\tcpu_s\tpeak_rss_mb\n' > "$OUT/times.tsv"
printf 'run\ttmp_peak_bytes\tload_mean\tload_max\n' > "$OUT/watch.tsv"
: > "$OUT/verdicts"
: > "$OUT/kmerbloom.tsv"
: > "$OUT/bases.tsv"
[ -n "$FASTK" ] || echo "FastK skipped: FASTK is not set" | tee -a "$OUT/verdicts" >&2

# set_inputs SET: INPUTS, or returns 1 when the set's files are missing.
set_inputs() {
  case "$1" in
    ecoli_100x) INPUTS=("$DATA/ecoli_100x_R1.fq.gz" "$DATA/ecoli_100x_R2.fq.gz") ;;
    *_hifi) INPUTS=("$DATA/$1.fq.gz") ;;
    *) INPUTS=("$DATA/$1_R1.fq.gz" "$DATA/$1_R2.fq.gz") ;;
  esac
  local f
  for f in "${INPUTS[@]}"; do [ -s "$f" ] || { echo "$1: missing $f (bench/make-diploid.sh, ../shared/bench/make-data.sh)" >&2; return 1; }; done
}

# watched NAME TMPDIR CMD...: measure NAME CMD..., sampling every second
# the bytes under TMPDIR and the 1-minute load average.
watched() {
  local name=$1 tmp=$2; shift 2
  mkdir -p "$tmp"
  rm -f "$OUT/$name.watch"
  # The figures so far are written every second: a TERM trap that wrote
  # them once at the end sometimes failed to parse when the signal came
  # during the process substitution, and the run's load was lost.
  (
    peak=0 n=0 sum=0 max=0 mean=0
    while :; do
      b=$(du -sb "$tmp" 2> /dev/null | cut -f1); [ "${b:-0}" -gt "$peak" ] && peak=$b
      l=$(cut -d' ' -f1 /proc/loadavg); n=$((n + 1))
      read -r sum mean max < <(awk -v s="$sum" -v n="$n" -v m="$max" -v l="$l" \
        'BEGIN { s += l; printf "%s %.2f %s\n", s, s / n, (l > m ? l : m) }')
      printf "%s\t%s\t%s\t%s\n" "$name" "$peak" "$mean" "$max" > "$OUT/$name.watch.part"
      mv -f "$OUT/$name.watch.part" "$OUT/$name.watch"
      sleep 1
    done
  ) &
  local watcher=$!
  measure "$name" "$@"
  kill -TERM "$watcher" 2> /dev/null || true  # the sampler may have stopped (set -e must not end the run)
  wait "$watcher" || true
  cat "$OUT/$name.watch" >> "$OUT/watch.tsv" 2> /dev/null || printf '%s\t0\t-\t-\n' "$name" >> "$OUT/watch.tsv"
  rm -rf "${tmp:?}"/* "$tmp"/.[!.]* 2> /dev/null || true
}

# kmc_vs_kff NAME KMCDB KFF: both counters_subtract results must be empty.
kmc_vs_kff() {
  local name=$1 db=$2 kff=$3 d=$OUT/cmp.$$
  kmc_tools -t2 -hp simple "$kff" -ci1 "$db" -ci1 counters_subtract "$d.ab" -ci1 reverse_counters_subtract "$d.ba" -ci1 > /dev/null
  local ab ba
  ab=$(kmc_tools -hp transform "$d.ab" dump /dev/stdout | wc -l)
  ba=$(kmc_tools -hp transform "$d.ba" dump /dev/stdout | wc -l)
  rm -f "$d".*
  if [ "$ab" -eq 0 ] && [ "$ba" -eq 0 ]; then v=IDENTICAL; else v="DIFFERS ($ab k-mers only or higher in kmerbloom, $ba in KMC)"; fi
  printf '%s vs kmc -ci2: %s\n' "$name" "$v" | tee -a "$OUT/verdicts" >&2
}

# kb_run NAME TAG BINARY [OPTION...]: one kmerbloom count of the set in round r,
# its KFF and statistics as $S/TAG.$r.kff and .json.
kb_run() {
  local name=$1 tag=$2 bin=$3; shift 3
  watched "$name.$set.$r" "$S/tmp" "$bin" count "${INPUTS[@]}" -k 31 -t 2 "$@" --tmp-dir "$S/tmp" \
    --format kff -o "$S/$tag.$r.kff" --stats "$S/$tag.$r.json" --no-multiqc
}

for set in "${SETS[@]}"; do
  set_inputs "$set" || { echo "$set: skipped (missing input)" >> "$OUT/verdicts"; continue; }
  S=$OUT/$set
  mkdir -p "$S"
  printf '%s\n' "${INPUTS[@]}" > "$S/list"
  log "$set: ${INPUTS[*]}"
  variants=(kb kb1g ${KB_BASE:+kbbase})
  for r in $(seq 1 "$REPEAT"); do
    # The kmerbloom runs take turns at the head of a round: the run after
    # KMC's meets the pages it left to write back (on the 3 Gbp pairs its
    # reading pass took 1-2 s more there than in second place).
    for i in "${!variants[@]}"; do
      case ${variants[$(((i + r - 1) % ${#variants[@]}))]} in
        kb) kb_run kmerbloom kb "$KB" ;;
        kb1g) kb_run kmerbloom_M1G kb1g "$KB" -M 1G ;;
        kbbase) kb_run kmerbloom_base kbbase "$KB_BASE" ;;
      esac
    done
    watched "kmc.$set.$r" "$S/tmp" kmc -k31 -ci2 -cs4294967295 -t2 -m4 -fq @"$S/list" "$S/kmc.$r" "$S/tmp"
    if [ -n "$FASTK" ]; then
      watched "fastk.$set.$r" "$S/tmp" "$FASTK" -k31 -t2 -T2 -M4 -P"$S/tmp" -N"$S/fastk.$r" "${INPUTS[@]}"
    fi
    for v in kb kb1g ${KB_BASE:+kbbase}; do
      case $v in kb) name=kmerbloom ;; kb1g) name=kmerbloom_M1G ;; *) name=kmerbloom_base ;; esac
      jq -r --arg run "$name.$set.$r" \
        '[$run, .partitions.count, .passes, (.pass_seconds | map(. * 10 | round / 10 | tostring) | join("/")),
          .temporary.disk_bytes_written, .kmers_solid] | @tsv' "$S/$v.$r.json" >> "$OUT/kmerbloom.tsv"
    done
    [ "$r" -eq 1 ] && jq -r --arg s "$set" '[$s, .bases] | @tsv' "$S/kb.1.json" >> "$OUT/bases.tsv"
    if [ "$r" -eq 1 ]; then
      log "$set: checking the outputs"
      kmc_vs_kff "kmerbloom.$set" "$S/kmc.1" "$S/kb.1.kff"
      kmc_vs_kff "kmerbloom_M1G.$set" "$S/kmc.1" "$S/kb1g.1.kff"
      [ -z "$KB_BASE" ] || kmc_vs_kff "kmerbloom_base.$set" "$S/kmc.1" "$S/kbbase.1.kff"
      if [ -n "$FASTK" ]; then
        a=$(kmc_tools -hp transform "$S/kmc.1" dump -s /dev/stdout |
          awk '{ c = $2 > 32767 ? 32767 : $2; print $1 "\t" c }' | md5sum | cut -d' ' -f1)
        b=$("$TABEX" -A "$S/fastk.1" | awk '{ print toupper($1) "\t" $2 }' | md5sum | cut -d' ' -f1)
        if [ "$a" = "$b" ]; then v=IDENTICAL; else v="DIFFERS (sorted dump checksums $b, $a)"; fi
        printf 'fastk.%s vs kmc -ci2 (counts clipped at 32767): %s\n' "$set" "$v" | tee -a "$OUT/verdicts" >&2
      fi
    fi
    if [ "$KEEP" != 1 ]; then
      rm -f "$S/kb.$r.kff" "$S/kb1g.$r.kff" "$S/kbbase.$r.kff" "$S/kmc.$r".kmc_* "$S/fastk.$r".ktab "$S/.fastk.$r".ktab.*
    fi
  done
  rm -rf "$S/tmp"
done

echo
awk -F'\t' '
  FILENAME ~ /bases.tsv$/ { bases[$1] = $2; next }
  FILENAME ~ /watch.tsv$/ { if (FNR > 1) { tmp[$1] = $2; load[$1] = $3 "/" $4 } next }
  FILENAME ~ /kmerbloom.tsv$/ { tmp[$1] = $5; next }  # its temporary files are unlinked: du cannot see them
  FNR == 1 { next }
  { n = split($1, p, "."); run[++m] = $1; tool[$1] = p[1]; set[$1] = p[2]; rep[$1] = p[3]
    w[$1] = $2; c[$1] = $3; r[$1] = $4 }
  END {
    print "set\ttool\tround\twall_s\tcpu_s\tpeak_rss_mb\ttmp_peak_mb\twall_s_per_gbp\twall_vs_kmc\tcpu_vs_kmc\trss_vs_kmc\tload_mean/max"
    for (i = 1; i <= m; i++) {
      x = run[i]; k = "kmc." set[x] "." rep[x]
      printf "%s\t%s\t%s\t%.1f\t%.1f\t%.0f\t%.0f\t%.1f\t%.2f\t%.2f\t%.2f\t%s\n", set[x], tool[x], rep[x], w[x], c[x], r[x],
        tmp[x] / 1048576, w[x] / bases[set[x]] * 1e9, w[x] / w[k], c[x] / c[k], r[x] / r[k], load[x]
    }
  }' "$OUT/bases.tsv" "$OUT/watch.tsv" "$OUT/kmerbloom.tsv" "$OUT/times.tsv" | tee "$OUT/table.tsv" | column -t -s "$(printf '\t')"
echo
{ printf 'run\tpartitions\tpasses\tpass_seconds\ttmp_written_mb\tsolid_kmers\n'
  awk -F'\t' -v OFS='\t' '{ $5 = sprintf("%.0f", $5 / 1048576); print }' "$OUT/kmerbloom.tsv"; } | column -t -s "$(printf '\t')"
echo
awk -F'\t' '{ printf "%s: %.3f Gbp\n", $1, $2 / 1e9 }' "$OUT/bases.tsv"
cat "$OUT/verdicts"
echo "(outputs in $OUT)"
