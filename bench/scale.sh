#!/usr/bin/env bash
# scale.sh [BIG] [BASE]    (community10x and ecoli_100x by default)
#
# The counting core at scale, against KMC 3 held to the same memory: on BIG
# (bench/make-community.sh with NAME=community10x TOTAL_BASES=5e9: 10x the
# bases of ecoli_100x) and on BASE, one command after the other, each under
# /usr/bin/time -v:
#   kmc -k31 -ci2 -t2 -m2 -sm          (strict memory mode; KMC refuses -m below 2 GB)
#   kmerbloom count -k 31 -t 2 -M 1G   (temporary files in $OUT/tmp)
# Checks that both write the same solid k-mers (KMC's dump sorted, against
# kmerbloom's sorted TSV, by checksum) and prints wall, CPU, peak memory, the
# ratios to KMC and the CPU seconds per 10^9 bases of each data set, so that
# the cost per base at scale can be compared with BASE's in the same run.
#
# Env: KB (default build/kmerbloom), DATA (/tmp/kmerbloom-bench/data), OUT
#      (/tmp/kmerbloom-bench/scale), K=31, MEM (kmerbloom's -M, 1G), KMC_MEM_GB (2,
#      the least KMC takes).
# Needs Debian packages: kmc time. Disk: the temporary files of both tools
# (about 1.5x the gzip input for kmerbloom) and KMC's dump of BIG.
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIG=${1:-community10x}
BASE=${2:-ecoli_100x}
KB=${KB:-$HERE/../build/kmerbloom}
DATA=${DATA:-/tmp/kmerbloom-bench/data}
OUT=${OUT:-/tmp/kmerbloom-bench/scale}
K=${K:-31}
MEM=${MEM:-1G}
KMC_MEM_GB=${KMC_MEM_GB:-2}
. "$HERE/measure.sh"
. "$HERE/apt-install.sh"
apt_install kmc time jq
for t in kmc kmc_tools /usr/bin/time "$KB"; do command -v "$t" > /dev/null || { echo "missing $t" >&2; exit 1; }; done
rm -rf "$OUT"; mkdir -p "$OUT/tmp"
log() { printf '[scale %s] %s\n' "$(date +%T)" "$*" >&2; }
printf 'run\twall_s\tcpu_s\tpeak_rss_mb\n' > "$OUT/times.tsv"

for set in "$BASE" "$BIG"; do
  dataset_inputs "$set"
  printf '%s\n' "${INPUTS[@]}" > "$OUT/$set.list"
  measure "kmc_$set" kmc -k"$K" -ci2 -cs4294967295 -t2 -m"$KMC_MEM_GB" -sm -fq @"$OUT/$set.list" "$OUT/kmc_$set" "$OUT/tmp"
  log "dumping and sorting KMC's k-mers"
  kmc_tools transform "$OUT/kmc_$set" dump /dev/stdout 2> /dev/null | awk '{ print $1 "\t" $2 }' |
    sort -S 2G -T "$OUT/tmp" | md5sum | cut -d' ' -f1 > "$OUT/kmc_$set.md5"
  rm -f "$OUT/kmc_$set".kmc_*
  measure "kmerbloom_$set" "$KB" count "${INPUTS[@]}" -k "$K" -t 2 -M "$MEM" --tmp-dir "$OUT/tmp" \
    -o "$OUT/kmerbloom_$set.tsv" --stats "$OUT/kmerbloom_$set.json" --no-multiqc
  md5sum < "$OUT/kmerbloom_$set.tsv" | cut -d' ' -f1 > "$OUT/kmerbloom_$set.md5"
  if cmp -s "$OUT/kmc_$set.md5" "$OUT/kmerbloom_$set.md5"; then verdict=IDENTICAL; else verdict=DIFFERS; fi
  printf '%s: kmerbloom vs kmc -ci2: %s (%s solid k-mers)\n' "$set" "$verdict" "$(wc -l < "$OUT/kmerbloom_$set.tsv")" |
    tee -a "$OUT/verdicts"
  jq -r --arg s "$set" '"\($s)\t\(.bases)\t\(.kmers_total)\t\(.temporary.disk_bytes_written)\t\(.partitions.count)"' \
    "$OUT/kmerbloom_$set.json" >> "$OUT/sets.tsv"
  rm -f "$OUT/kmerbloom_$set.tsv"
done

echo
awk -F'\t' 'FNR == NR { bases[$1] = $2; kmers[$1] = $3; disk[$1] = $4; next }
  FNR == 1 { print "run\twall_s\tcpu_s\tpeak_mb\tvs_kmc_wall\tvs_kmc_peak\tcpu_s_per_1e9_bases\ttemp_disk_mb"; next }
  { name = $1; set = name; sub(/^(kmc|kmerbloom)_/, "", set); tool = substr(name, 1, length(name) - length(set) - 1)
    w[name] = $2; r[name] = $4
    printf "%s\t%s\t%s\t%s\t%.2f\t%.2f\t%.1f\t%s\n", name, $2, $3, $4, $2 / w["kmc_" set], $4 / r["kmc_" set],
      $3 / bases[set] * 1e9, tool == "kmerbloom" ? sprintf("%.0f", disk[set] / 1048576) : "-" }' \
  "$OUT/sets.tsv" "$OUT/times.tsv" | column -t -s "$(printf '\t')"
cat "$OUT/verdicts"
echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); outputs in $OUT)"
