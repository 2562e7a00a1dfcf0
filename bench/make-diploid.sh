#!/usr/bin/env bash
# make-diploid.sh [WHAT...]    (WHAT: genome pairs hifi ecoli_hifi; default all)
#
# Genome-scale benchmark inputs, deterministic (fixed seeds, gzip -n): a
# synthetic diploid genome of GENOME_MBP Mbp with repeats and heterozygous
# sites (bench/diploid_genome.py: repeat families of 1-6 kb copied a few
# hundred times at 1-10% divergence and tandem repeats, about 15% of the
# genome; haplotype 2 = haplotype 1 with 1% SNPs and short indels), then
# reads from both haplotypes, half the coverage from each:
#   NAME_R1.fq.gz NAME_R2.fq.gz  Illumina-like pairs, 2x150 bp, insert 400+-50,
#                                25x of G in total (dwgsim, 0.2% errors per base,
#                                no mutations of its own)
#   NAME_hifi.fq.gz              HiFi-like reads, 15 kb mean, 99% accuracy,
#                                HIFI_X of G in total (pbsim 1.0.3, CLR model held
#                                at 99%: its CCS mode fixes accuracy at 98%)
#   ecoli_hifi.fq.gz             the same HiFi-like reads at 40x of ecoli.fa
#                                (when ../shared/bench/make-data.sh wrote it)
#   NAME_hap1.fa NAME_hap2.fa NAME_genome.tsv   the genome and what it holds
# and prints bases and bytes of every file (also in NAME_SIZES.tsv).
#
# Env: DATA (/tmp/kmerbloom-bench/data), GENOME_MBP (120), NAME (diploid120),
#      HIFI_X (10), ILLUMINA_X (25), SEED (2024).
# Needs Debian packages dwgsim pbsim pigz (installed when missing). Time at
# 120 Mbp on 2 cores shared with compiler jobs (load 4-6): 27 minutes (dwgsim
# 16, gzip 8, pbsim 2.5, counting the bases 1); ecoli_hifi 2 minutes; at
# GENOME_MBP=5 (NAME=diploid5) 40 s, at 30 (NAME=diploid30) 4 minutes. Disk:
# 3.4 GB of output (the pairs 2 x 1.36 GB, the HiFi reads 0.37 GB), and
# dwgsim's own gzip files of the pairs (2.8 GB) in TMPDIR while they are
# recompressed.
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DATA=${DATA:-/tmp/kmerbloom-bench/data}
GENOME_MBP=${GENOME_MBP:-120}
NAME=${NAME:-diploid120}
HIFI_X=${HIFI_X:-10}
ILLUMINA_X=${ILLUMINA_X:-25}
SEED=${SEED:-2024}
WHAT=("$@")
[ ${#WHAT[@]} -gt 0 ] || WHAT=(genome pairs hifi ecoli_hifi)
. "$HERE/apt-install.sh"
apt_install dwgsim pbsim pigz python3
PBSIM_MODEL=${PBSIM_MODEL:-$(ls /usr/share/pbsim*/models/model_qc_clr 2> /dev/null | head -1)}
[ -s "$PBSIM_MODEL" ] || { echo "missing pbsim's model_qc_clr (set PBSIM_MODEL)" >&2; exit 1; }
mkdir -p "$DATA"
DATA=$(cd "$DATA" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kb-diploid.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
T0=$(date +%s)
log() { printf '[make-diploid %5ds] %s\n' "$(( $(date +%s) - T0 ))" "$*" >&2; }
gz() { if command -v pigz > /dev/null; then pigz -n -6 -p 2 -c; else gzip -n -6 -c; fi; }
want() { local w; for w in "${WHAT[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }
G=$(awk -v m="$GENOME_MBP" 'BEGIN { printf "%.0f", m * 1e6 }')

if want genome || [ ! -s "$DATA/${NAME}_hap1.fa" ]; then
  log "genome: $GENOME_MBP Mbp diploid (seed $SEED)"
  python3 "$HERE/diploid_genome.py" "$WORK/genome" --mbp "$GENOME_MBP" --seed "$SEED"
  mv "$WORK/genome/hap1.fa" "$DATA/${NAME}_hap1.fa"
  mv "$WORK/genome/hap2.fa" "$DATA/${NAME}_hap2.fa"
  mv "$WORK/genome/genome.tsv" "$DATA/${NAME}_genome.tsv"
  column -t "$DATA/${NAME}_genome.tsv" >&2
fi

# Illumina-like pairs: each haplotype gives half the pairs; both dwgsim runs
# at once (one core each), then one gzip stream per mate.
if want pairs; then
  pairs=$(awk -v g="$G" -v x="$ILLUMINA_X" 'BEGIN { printf "%.0f", int(g * x / 2 / 300) }')
  log "dwgsim: $pairs pairs of 2x150 bp from each haplotype"
  for h in 1 2; do
    dwgsim -z $((SEED + h)) -e 0.002 -E 0.002 -d 400 -s 50 -N "$pairs" -1 150 -2 150 \
      -r 0 -R 0 -y 0 -c 0 -o 1 "$DATA/${NAME}_hap$h.fa" "$WORK/pe$h" > "$WORK/pe$h.log" 2>&1 &
    pids[h]=$!
  done
  wait "${pids[1]}" && wait "${pids[2]}" || { tail "$WORK"/pe*.log >&2; exit 1; }
  log "gzip -n -6 of R1 and R2"
  for m in 1 2; do
    gzip -dc "$WORK/pe1.bwa.read$m.fastq.gz" "$WORK/pe2.bwa.read$m.fastq.gz" | gz > "$DATA/${NAME}_R$m.fq.gz"
    rm -f "$WORK/pe1.bwa.read$m.fastq.gz" "$WORK/pe2.bwa.read$m.fastq.gz"
  done
fi

# pbsim_hifi REF DEPTH SEED TAG: HiFi-like reads of every sequence in REF to
# $WORK/TAG.fq, read names TAG_N.
pbsim_hifi() {
  local ref=$1 depth=$2 seed=$3 tag=$4
  mkdir -p "$WORK/$tag"
  (cd "$WORK/$tag" && pbsim --prefix r --data-type CLR --depth "$depth" \
    --length-mean 15000 --length-sd 1500 --length-min 5000 --length-max 25000 \
    --accuracy-mean 0.99 --accuracy-sd 0 --accuracy-min 0.98 --accuracy-max 1.0 \
    --difference-ratio 6:21:73 --model_qc "$PBSIM_MODEL" --seed "$seed" "$ref" > pbsim.log 2>&1) ||
    { tail "$WORK/$tag/pbsim.log" >&2; exit 1; }
  cat "$WORK/$tag"/r_*.fastq | awk -v t="$tag" 'NR % 4 == 1 { print "@" t "_" (NR + 3) / 4; next } NR % 4 == 3 { print "+"; next } { print }' > "$WORK/$tag.fq"
  rm -rf "${WORK:?}/$tag"
}

if want hifi; then
  depth=$(awk -v x="$HIFI_X" 'BEGIN { print x / 2 }')
  log "pbsim: HiFi-like reads, ${depth}x of each haplotype"
  pbsim_hifi "$DATA/${NAME}_hap1.fa" "$depth" $((SEED + 11)) hap1 &
  pids[1]=$!
  pbsim_hifi "$DATA/${NAME}_hap2.fa" "$depth" $((SEED + 12)) hap2 &
  pids[2]=$!
  wait "${pids[1]}" && wait "${pids[2]}"
  cat "$WORK/hap1.fq" "$WORK/hap2.fq" | gz > "$DATA/${NAME}_hifi.fq.gz"
  rm -f "$WORK/hap1.fq" "$WORK/hap2.fq"
fi

if want ecoli_hifi; then
  if [ -s "$DATA/ecoli.fa" ]; then
    log "pbsim: HiFi-like reads, 40x of ecoli.fa"
    pbsim_hifi "$DATA/ecoli.fa" 40 $((SEED + 21)) ecoli
    gz < "$WORK/ecoli.fq" > "$DATA/ecoli_hifi.fq.gz"
  else
    log "no $DATA/ecoli.fa (../shared/bench/make-data.sh writes it): ecoli_hifi skipped"
  fi
fi

log "sizes"
{
  printf 'file\tbytes\treads\tbases\n'
  for f in "${NAME}_hap1.fa" "${NAME}_hap2.fa" "${NAME}_R1.fq.gz" "${NAME}_R2.fq.gz" "${NAME}_hifi.fq.gz" ecoli_hifi.fq.gz; do
    [ -s "$DATA/$f" ] || continue
    case "$f" in *.gz) cat="gzip -dc" ;; *) cat=cat ;; esac
    # counts printed with %.0f: mawk clips %d at 2^31 - 1 (3 Gbp of reads in a file)
    printf '%s\t%s\t%s\n' "$f" "$(stat -c %s "$DATA/$f")" "$($cat "$DATA/$f" | awk '
      NR == 1 { fq = ($0 ~ /^@/) }
      fq { if (NR % 4 == 2) { n++; b += length($0) } next }
      /^>/ { n++; next } { b += length($0) }
      END { printf "%.0f\t%.0f", n, b }')"
  done
} > "$DATA/${NAME}_SIZES.tsv"
column -t "$DATA/${NAME}_SIZES.tsv"
log "done -> $DATA"
