#!/usr/bin/env bash
# Uneven-coverage benchmark data: a mock bacterial community, paired reads.
#
#   bash bench/make-community.sh [OUTDIR]      # default /tmp/kmerbloom-bench/data
#   NAME=community10x TOTAL_BASES=5e9 JOBS=2 bash bench/make-community.sh
#                        # the counting core's scale set: 10x the bases, same genomes
#
# Deterministic (fixed seeds, gzip -n): the same files on every machine with
# the same Debian packages. Genomes are the ones Debian ships as example or
# test data (installed when missing):
#   ecoli       E. coli 536 (NC_008253)              bowtie-examples
#   ecoli_mut   E. coli 536 with 1.5% random SNPs    (a second strain)
#   kpn_*       the four Klebsiella pneumoniae assemblies of kleborate-examples
#               (HS11286, Kp1084, MGH78578, NTUH-K2044: strains of one species)
#   saureus     S. aureus N315                       ragout-examples
#   vcholerae   V. cholerae H1 (two chromosomes)     ragout-examples
#   hpylori     H. pylori G27                        ragout-examples
# (No Debian package ships a whole M. tuberculosis genome, only its
# resistance genes; S. aureus, V. cholerae and H. pylori stand in.)
#
# Abundances are log-normal: genome i of the ranked list below gets the
# (i - 0.5) / n quantile z_i of the standard normal, and read coverage
# c_i = c_top * exp(sigma * (z_i - z_1)), with sigma set so that the most
# abundant genome has SPREAD (100) times the coverage of the least abundant,
# and c_top so that the reads hold TOTAL_BASES bases (default 500 Mbp, about
# the bases of ecoli_100x). The rank order is fixed in the table below.
# Reads: ART, HiSeq 2500 profile, 2 x 150 bp, fragments 400 +- 50, one seed
# per genome; read names start with the genome's name. The pairs of all
# genomes are shuffled together (seeded), as a sequencer would mix them.
#
# Outputs in OUTDIR (NAME is "community" unless set):
#   NAME_R1.fq.gz, NAME_R2.fq.gz   the reads
#   NAME_refs.fa                   all genomes, contigs named GENOME|ID
#   NAME.tsv                       genome, bases, contigs, coverage, pairs
#
# Environment: NAME (community), TOTAL_BASES (5e8), SPREAD (100), SEED (18),
# JOBS (ART runs at a time, 1; the reads do not depend on it), SORT_MEM (sort's
# buffer, 2G), DOC (/usr/share/doc). The scale set needs about 35 GB of
# temporary space under TMPDIR while it is made.
set -euo pipefail
export LC_ALL=C
OUT=${1:-${BENCH_DATA:-/tmp/kmerbloom-bench/data}}
NAME=${NAME:-community}
TOTAL_BASES=${TOTAL_BASES:-500000000}
JOBS=${JOBS:-1}
SORT_MEM=${SORT_MEM:-2G}
SPREAD=${SPREAD:-100}
SEED=${SEED:-18}

# shellcheck source=bench/apt-install.sh
source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
DOC=${DOC:-/usr/share/doc}  # where the example packages put their files
ECOLI=$DOC/bowtie/examples/genomes/NC_008253.fna.gz
KLEB=$DOC/kleborate/examples/data
RAGOUT=$DOC/ragout/examples
[ -s "$KLEB/MGH78578.fna.xz" ] && [ -s "$RAGOUT/S.Aureus/references/N315.fasta.gz" ] && [ -s "$ECOLI" ] ||
  apt_install bowtie-examples kleborate-examples ragout-examples
apt_install art-nextgen-simulation-tools xz-utils
# rank (most abundant first), name, source (file, or mut:NAME:RATE)
GENOMES="
hpylori     $RAGOUT/H.Pylori/references/G27.fasta.gz
saureus     $RAGOUT/S.Aureus/references/N315.fasta.gz
ecoli       $ECOLI
vcholerae   $RAGOUT/V.Cholerae/references/H1.fasta.gz
kpn_HS11286 $KLEB/Klebs_HS11286.fna.xz
ecoli_mut   mut:ecoli:0.015
kpn_MGH78578 $KLEB/MGH78578.fna.xz
kpn_Kp1084  $KLEB/Klebs_Kp1084.fna.xz
kpn_NTUH-K2044 $KLEB/NTUH-K2044.fna.xz
"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kb-community.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
log() { printf '[make-community %4ds] %s\n' "$SECONDS" "$*" >&2; }

# unpack FILE: plain FASTA on stdout
unpack() { case $1 in *.gz) gzip -dc "$1" ;; *.xz) xz -dc "$1" ;; *) cat "$1" ;; esac; }

# One-line-per-contig FASTA named NAME|1, NAME|2, ...; bases upper case.
rename_contigs() {
  awk -v g="$1" '/^>/ { if (n) printf "\n"; printf ">%s|%d\n", g, ++n; next }
                 { printf "%s", toupper($0) } END { printf "\n" }'
}

# Substitutes each base with probability RATE by one of the other three
# (seeded); the copy keeps the contigs' lengths.
mutate() {
  awk -v g="$1" -v rate="$2" -v seed="$3" '
    BEGIN { srand(seed); split("ACGT", b, "") }
    /^>/ { sub(/^>[^|]*/, ">" g); print; next }
    { n = length($0); out = ""; chunk = ""
      for (i = 1; i <= n; ++i) {
        c = substr($0, i, 1)
        if (rand() < rate && index("ACGT", c)) { do d = b[int(rand() * 4) + 1]; while (d == c); c = d }
        chunk = chunk c
        if (length(chunk) == 4096) { out = out chunk; chunk = "" }
      }
      print out chunk }'
}

log "genomes"
names=()
while read -r name src; do
  [ -n "$name" ] || continue
  names+=("$name")
  case $src in
    mut:*)
      IFS=: read -r _ base rate <<< "$src"
      mutate "$name" "$rate" "$SEED" < "$WORK/$base.fa" > "$WORK/$name.fa" ;;
    *)
      [ -s "$src" ] || { echo "missing genome: $src" >&2; exit 1; }
      unpack "$src" | rename_contigs "$name" > "$WORK/$name.fa" ;;
  esac
done <<< "$GENOMES"

# Coverage per genome from the log-normal quantiles (see the top).
for g in "${names[@]}"; do
  awk -v g="$g" '/^>/ { n++; next } { b += length($0) } END { print g, b, n }' "$WORK/$g.fa"
done > "$WORK/sizes"
awk -v total="$TOTAL_BASES" -v spread="$SPREAD" '
  function probit(p,   lo, hi, m, it) {  # bisection on the normal CDF
    lo = -10; hi = 10
    for (it = 0; it < 200; ++it) { m = (lo + hi) / 2; if (0.5 * erfc(-m / sqrt(2)) < p) lo = m; else hi = m }
    return (lo + hi) / 2
  }
  function erfc(x,   t, z, r) {  # Numerical Recipes erfcc, 1.2e-7 relative
    z = x < 0 ? -x : x; t = 1 / (1 + 0.5 * z)
    r = t * exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
    return x >= 0 ? r : 2 - r
  }
  { name[NR] = $1; len[NR] = $2; contigs[NR] = $3 }
  END {
    n = NR
    for (i = 1; i <= n; ++i) z[i] = -probit((i - 0.5) / n)
    sigma = log(spread) / (z[1] - z[n])
    for (i = 1; i <= n; ++i) { rel[i] = exp(sigma * (z[i] - z[1])); sum += rel[i] * len[i] }
    top = total / sum
    for (i = 1; i <= n; ++i) printf "%s %d %d %.4f\n", name[i], len[i], contigs[i], top * rel[i]
  }' "$WORK/sizes" > "$WORK/plan"

log "ART (2 x 150 bp, HS25), $JOBS genome(s) at a time"
# simulate INDEX GENOME COVERAGE: one genome's pairs, seeded by its rank.
simulate() {
  art_illumina -q -na -ss HS25 -i "$WORK/$2.fa" -l 150 -f "$3" -p -m 400 -s 50 -rs $((SEED * 100 + $1)) \
    -o "$WORK/$2." > "$WORK/$2.art.log" 2>&1 || { cat "$WORK/$2.art.log" >&2; return 1; }
  log "$2: ${3}x"
}
i=0
pids=()
while read -r g len contigs cov; do
  i=$((i + 1))
  simulate "$i" "$g" "$cov" &
  pids+=($!)
  if [ "${#pids[@]}" -ge "$JOBS" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done < "$WORK/plan"
for p in "${pids[@]}"; do wait "$p"; done

log "shuffle the pairs (seeded) and compress"
for g in "${names[@]}"; do
  paste <(paste - - - - < "$WORK/$g.1.fq") <(paste - - - - < "$WORK/$g.2.fq")
  rm -f "$WORK/$g.1.fq" "$WORK/$g.2.fq"
done | awk -v seed="$SEED" 'BEGIN { srand(seed) } { printf "%.12f\t%s\n", rand(), $0 }' |
  sort -t $'\t' -k1,1 -S "$SORT_MEM" -T "$WORK" | cut -f2- > "$WORK/pairs.tsv"
cut -f1-4 "$WORK/pairs.tsv" | tr '\t' '\n' | gzip -6 -n > "$OUT/${NAME}_R1.fq.gz" &
cut -f5-8 "$WORK/pairs.tsv" | tr '\t' '\n' | gzip -6 -n > "$OUT/${NAME}_R2.fq.gz" &
wait
for g in "${names[@]}"; do cat "$WORK/$g.fa"; done > "$OUT/${NAME}_refs.fa"

# Pairs per genome in one read of the pairs (a read name is @GENOME|...).
cut -f1 "$WORK/pairs.tsv" | awk -F'|' '{ n[substr($1, 2)]++ } END { for (g in n) print g, n[g] }' > "$WORK/pairs"
{
  printf 'genome\tbases\tcontigs\tcoverage\tpairs\n'
  while read -r g len contigs cov; do
    pairs=$(awk -v g="$g" '$1 == g { print $2 }' "$WORK/pairs")
    printf '%s\t%s\t%s\t%.2f\t%s\n' "$g" "$len" "$contigs" "$cov" "${pairs:-0}"
  done < "$WORK/plan"
} > "$OUT/$NAME.tsv"
column -t "$OUT/$NAME.tsv" >&2
log "done -> $OUT/${NAME}_R1.fq.gz, ${NAME}_R2.fq.gz, ${NAME}_refs.fa"
