#!/usr/bin/env bash
# Does `kmerbloom filter` help a de novo assembler? (issues 5 and 18; run by
# hand, not in CI)
#
#   bash bench/assembly.sh [path/to/kmerbloom]                  # E. coli 100x
#   SET=community bash bench/assembly.sh [path/to/kmerbloom]    # uneven coverage
#
# E. coli (SET=ecoli, the default): on the E. coli 100x pairs, assembles the
# raw reads and the filtered reads with the same assembler and options (minia;
# megahit or velvet if minia is not packaged), places the contigs on the
# reference with minimap2, and reports N50, the share of the reference covered
# by contigs, the assembler's wall time and peak memory, and the share of
# reads kept. Then runs khmer's normalize-by-median.py at the same k and
# coverage beside `kmerbloom filter` on the same interleaved input: reads
# kept, time, peak memory. With ASSEMBLERS="spades megahit" (either or
# both), SPAdes --isolate and MEGAHIT with its defaults assemble the raw and
# the filtered reads as well; spades_asm is SPAdes --isolate without its read
# error correction (--only-assembler).
#
# Community (SET=community): the mock community of bench/make-community.sh.
# Normalises the pairs to the same target coverage with `kmerbloom filter`,
# BBNorm (bbnorm.sh) and khmer (normalize-by-median.py -p), then assembles
# the raw and each normalised read set with every assembler of ASSEMBLERS
# (MEGAHIT, SPAdes --meta), places the contigs on the genomes with minimap2
# (bench/place-contigs.py) and reports, per genome, the genome fraction and
# NGA50, and per run wall time, CPU time and peak memory. Every heavy step runs
# under `nice -n 19` and `timeout`, one at a time.
#
# Environment: DATA (default /tmp/kmerbloom-bench/data: ecoli_100x_R1/_R2.fq.gz
# and ecoli.fa from make-data.sh; community_R1/_R2.fq.gz, community_refs.fa
# and community.tsv from make-community.sh), OUT (work folder, default
# /tmp/kmerbloom-bench/assembly or .../assembly-community), K (filter k, 31),
# C (target coverage, 20), ASM_K (Minia's k, 61), THREADS (2), KHMER_MEM
# (khmer -M, 1e9 as BBNorm's -Xmx1g), BBNORM_XMX (1g), ASSEMBLERS (community: "megahit spades"),
# NORMALIZERS (community: "kmerbloom kmerbloom_small bbnorm khmer"; SMALL_MEM,
# 64M, is the -M of kmerbloom_small), STEP_TIMEOUT (seconds
# per step, 14400), SKIP_KHMER=1 to leave khmer out, RESUME=1 to keep the
# steps an earlier run finished (timings included).
# Results: $OUT/results.md (also printed).
set -euo pipefail
export LC_ALL=C
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KB=$(realpath "${1:-$ROOT/build/kmerbloom}")
SET=${SET:-ecoli}
DATA=${DATA:-/tmp/kmerbloom-bench/data}
K=${K:-31}
C=${C:-20}
ASM_K=${ASM_K:-61}
THREADS=${THREADS:-2}
STEP_TIMEOUT=${STEP_TIMEOUT:-14400}
case $SET in
  ecoli) OUT=${OUT:-/tmp/kmerbloom-bench/assembly} ;;
  community) OUT=${OUT:-/tmp/kmerbloom-bench/assembly-community} ;;
  *) echo "SET must be ecoli or community, got '$SET'" >&2; exit 1 ;;
esac

# ---- tools (Debian packages) -------------------------------------------------
# shellcheck source=bench/apt-install.sh
source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
apt_install time minimap2
# ---- helpers -------------------------------------------------------------------
# measure NAME CMD...: runs CMD under /usr/bin/time -v, niced and bounded by
# STEP_TIMEOUT; NAME.time holds the report, NAME.log the output. With RESUME=1 a step whose report exists is not run again.
measure() {
  local name=$1; shift
  if [ -n "${RESUME:-}" ] && [ -s "$name.time" ]; then echo "== $name: kept from an earlier run" >&2; return; fi
  echo "== $name: $*" >&2
  /usr/bin/time -v -o "$name.time" nice -n 19 timeout "$STEP_TIMEOUT" "$@" > "$name.log" 2>&1 ||
    { tail -20 "$name.log" >&2; rm -f "$name.time"; return 1; }
}
wall() { awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + t[i]; printf "%.1f", s }' "$1.time"; }
cpu() { awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.1f", s }' "$1.time"; }
peak_mb() { awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$1.time"; }
fq_reads() { if [[ $1 == *.gz ]]; then gzip -dc "$1"; else cat "$1"; fi | awk 'END { print NR / 4 }'; }
# spades NAME VARIANT MODE R1 R2: SPAdes (MODE --isolate or --meta) on the
# pairs, contigs in NAME.contigs.fa, work folder NAME.spades removed after;
# VARIANT spades_asm leaves out its read error correction (--only-assembler).
spades() {
  local name=$1 variant=$2 mode=$3 no_ec=() rc=0
  [ "$variant" = spades ] || no_ec=(--only-assembler)
  rm -rf "$name.spades"
  measure "$name" spades.py "$mode" "${no_ec[@]}" -1 "$4" -2 "$5" -t "$THREADS" -m 20 -o "$name.spades" &&
    mv "$name.spades/contigs.fasta" "$name.contigs.fa" || rc=$?
  rm -rf "$name.spades"
  return "$rc"
}

if [ "$SET" = community ]; then
  # shellcheck source=bench/assembly-community.sh
  source "$ROOT/bench/assembly-community.sh"
  exit 0
fi

R1=$DATA/ecoli_100x_R1.fq.gz
R2=$DATA/ecoli_100x_R2.fq.gz
REF=$DATA/ecoli.fa
for f in "$KB" "$R1" "$R2" "$REF"; do [ -e "$f" ] || { echo "missing: $f" >&2; exit 1; }; done
mkdir -p "$OUT"
cd "$OUT"
ASSEMBLER=
for a in minia megahit velvet; do
  if apt_install "$a" 2> /dev/null; then ASSEMBLER=$a; break; fi
done
[ -n "$ASSEMBLER" ] || { echo "no assembler could be installed (minia, megahit, velvet)" >&2; exit 1; }
[ -n "${SKIP_KHMER:-}" ] || apt_install khmer

# assemble NAME FILE...: contigs in NAME.contigs.fa
assemble() {
  local name=$1; shift
  if [ -n "${RESUME:-}" ] && [ -s "$name.contigs.fa" ] && [ -s "$name.time" ]; then return; fi
  rm -f "$name.time"
  case $ASSEMBLER in
    minia)
      measure "$name" minia -in "$(IFS=,; echo "$*")" -kmer-size "$ASM_K" -abundance-min 2 -nb-cores "$THREADS" -out "$name.minia"
      mv "$name.minia.contigs.fa" "$name.contigs.fa"
      rm -f "$name.minia.h5" "$name.minia.unitigs.fa"* ;;
    megahit | megahit_defaults)  # one k in place of Minia, or MEGAHIT's own k list
      rm -rf "$name.megahit"
      local klist=(--k-list "$ASM_K")
      [ "$ASSEMBLER" = megahit ] || klist=()
      measure "$name" megahit -1 "$1" -2 "$2" -t "$THREADS" "${klist[@]}" -o "$name.megahit"
      mv "$name.megahit/final.contigs.fa" "$name.contigs.fa"
      rm -rf "$name.megahit" ;;
    velvet)
      rm -rf "$name.velvet"
      measure "$name" sh -c "velveth $name.velvet $ASM_K -shortPaired -fastq.gz -separate $1 $2 &&
                             velvetg $name.velvet -exp_cov auto -cov_cutoff auto"
      mv "$name.velvet/contigs.fa" "$name.contigs.fa" ;;
    spades | spades_asm) spades "$name" "$ASSEMBLER" --isolate "$1" "$2" ;;
  esac
}

# N50 of the contigs of at least 500 bases (QUAST's default cut), their
# number and total length.
contig_stats() {
  awk '/^>/ { if (len) print len; len = 0; next } { len += length($0) } END { if (len) print len }' "$1" |
    awk '$1 >= 500' | sort -nr |
    awk '{ l[NR] = $1; t += $1 } END { h = 0; for (i = 1; i <= NR; ++i) { h += l[i]; if (2 * h >= t) { n50 = l[i]; break } }
           printf "%d %d %d\n", n50, NR, t }'
}

# Share of the reference covered by contig alignments (union of the target
# intervals in minimap2's PAF).
genome_fraction() {
  minimap2 -x asm5 -t "$THREADS" "$REF" "$1" 2> /dev/null > "$1.paf"
  local ref_len
  ref_len=$(awk '/^>/ { next } { n += length($0) } END { print n }' "$REF")
  cut -f6,8,9 "$1.paf" | sort -k1,1 -k2,2n |
    awk -v total="$ref_len" '
      $1 != t || $2 > e { if (e > s) covered += e - s; t = $1; s = $2; e = $3; next }
      $3 > e { e = $3 }
      END { if (e > s) covered += e - s; printf "%.4f\n", covered / total }'
}

# ---- filter, then assemble raw and filtered reads --------------------------------
measure kb_pairs "$KB" filter "$R1" "$R2" -k "$K" -C "$C" -t "$THREADS" \
  -o kept_R1.fq.gz -O kept_R2.fq.gz --stats kb_pairs.json
raw_reads=$(awk -F': ' '/"reads_in"/ { gsub(",", "", $2); print $2 }' kb_pairs.json)
kept_reads=$(awk -F': ' '/"reads_out"/ { gsub(",", "", $2); print $2 }' kb_pairs.json)

assemble asm_raw "$R1" "$R2"
assemble asm_kept kept_R1.fq.gz kept_R2.fq.gz

row() {  # NAME LABEL READS
  local s
  s=$(contig_stats "$1.contigs.fa")
  read -r n50 ncontigs total <<< "$s"
  printf '| %s | %s (%.1f%%) | %s | %s | %s | %s | %s s | %s s | %s MB |\n' "$2" "$3" \
    "$(awk -v a="$3" -v b="$raw_reads" 'BEGIN { print 100 * a / b }')" "$n50" "$ncontigs" "$total" \
    "$(genome_fraction "$1.contigs.fa")" "$(wall "$1")" "$(cpu "$1")" "$(peak_mb "$1")"
}

{
  echo "## Assembly ($ASSEMBLER, k = $ASM_K, $THREADS threads) of raw and filtered E. coli 100x pairs"
  echo
  echo "kmerbloom filter -k $K -C $C, paired files: $(wall kb_pairs) s wall, $(cpu kb_pairs) s CPU, $(peak_mb kb_pairs) MB peak"
  echo
  echo "| input | reads (share) | N50 (contigs >= 500 bp) | contigs | total bp | genome fraction | assembler wall | CPU | peak memory |"
  echo "|---|---|---|---|---|---|---|---|---|"
  row asm_raw "raw" "$raw_reads"
  row asm_kept "kmerbloom filter" "$kept_reads"
} | tee results.md

# More assemblers on the same raw and kept pairs (ASSEMBLERS: spades spades_asm megahit).
more_assembly() {  # ASSEMBLER TITLE
  ASSEMBLER=$1
  assemble "${1}_raw" "$R1" "$R2"
  assemble "${1}_kept" kept_R1.fq.gz kept_R2.fq.gz
  {
    echo
    echo "## $2, $THREADS threads, on the same reads"
    echo
    echo "| input | reads (share) | N50 (contigs >= 500 bp) | contigs | total bp | genome fraction | assembler wall | CPU | peak memory |"
    echo "|---|---|---|---|---|---|---|---|---|"
    row "${1}_raw" "raw" "$raw_reads"
    row "${1}_kept" "kmerbloom filter" "$kept_reads"
  } | tee -a results.md
}
first_assembler=$ASSEMBLER
for a in ${ASSEMBLERS:-}; do
  case $a in
    spades) apt_install spades; more_assembly spades "SPAdes --isolate" ;;
    spades_asm) apt_install spades; more_assembly spades_asm "SPAdes --isolate --only-assembler" ;;
    megahit) apt_install megahit; more_assembly megahit_defaults "MEGAHIT (defaults)" ;;
    *) echo "unknown assembler '$a' (spades spades_asm megahit)" >&2; exit 1 ;;
  esac
done
ASSEMBLER=$first_assembler

# ---- side by side with khmer, same interleaved input -------------------------------
if [ -z "${SKIP_KHMER:-}" ]; then
  if [ ! -s inter.fq.gz ]; then
    paste <(gzip -dc "$R1" | paste - - - -) <(gzip -dc "$R2" | paste - - - -) | tr '\t' '\n' | gzip -1 > inter.fq.gz
  fi
  measure kb_inter "$KB" filter inter.fq.gz --interleaved -k "$K" -C "$C" -t "$THREADS" -o kb_inter.fq
  khmer_norm=normalize-by-median.py
  command -v "$khmer_norm" > /dev/null || khmer_norm=/usr/lib/khmer/bin/normalize-by-median.py  # Debian's place
  # khmer's default table is too small here (it aborts at an
  # estimated false-positive rate of 0.998); give it 1 GB, as BBNorm's -Xmx1g.
  khmer_mem=${KHMER_MEM:-1000000000}
  measure khmer_inter "$khmer_norm" -k "$K" -C "$C" -p -M "$khmer_mem" -o khmer_inter.fq inter.fq.gz
  khmer_fp=$(awk '/fp rate estimated/ { print $NF }' khmer_inter.log)
  assemble asm_khmer khmer_inter.fq
  {
    echo
    echo "## Digital normalization side by side (interleaved pairs, k = $K, C = $C)"
    echo
    echo "| tool | reads kept | share | wall | CPU | peak memory | note |"
    echo "|---|---|---|---|---|---|---|"
    for t in kb_inter khmer_inter; do
      n=$(fq_reads "$t.fq")
      note="-t $THREADS"
      [ "$t" = khmer_inter ] && note="normalize-by-median.py -p -M $khmer_mem, table fp rate $khmer_fp"
      label="kmerbloom filter --interleaved"
      [ "$t" = khmer_inter ] && label="khmer"
      printf '| %s | %s | %.1f%% | %s s | %s s | %s MB | %s |\n' "$label" "$n" \
        "$(awk -v a="$n" -v b="$raw_reads" 'BEGIN { print 100 * a / b }')" "$(wall "$t")" "$(cpu "$t")" \
        "$(peak_mb "$t")" "$note"
    done
    echo
    echo "| input | reads (share) | N50 (contigs >= 500 bp) | contigs | total bp | genome fraction | assembler wall | CPU | peak memory |"
    echo "|---|---|---|---|---|---|---|---|---|"
    row asm_khmer "khmer normalize-by-median" "$(fq_reads khmer_inter.fq)"
  } | tee -a results.md
fi
echo "results: $OUT/results.md" >&2
