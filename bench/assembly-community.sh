# shellcheck shell=bash
# The community part of bench/assembly.sh (SET=community); sourced by it,
# which defines KB, DATA, OUT, K, C, THREADS, STEP_TIMEOUT, apt_install,
# measure, wall, cpu, peak_mb and fq_reads. Not to be run by itself.
#
# Steps, each under measure (niced, timed, one at a time); RESUME=1 keeps the
# finished ones:
#   1. normalise the pairs to target C at k K with every tool of NORMALIZERS:
#        kmerbloom  kmerbloom filter R1 R2 -k K -C C -t THREADS -o .. -O ..
#        kmerbloom_small  the same at -M SMALL_MEM (64M): gate and sketch
#                   capped at about a sixteenth of BBNorm's heap
#        bbnorm     bbnorm.sh in=R1 in2=R2 target=C k=K threads=THREADS -Xmx1g
#                   (BBNorm's defaults otherwise: 2 passes, min=5, minkmers=15)
#        khmer      normalize-by-median.py -p -k K -C C -M KHMER_MEM on the
#                   interleaved pairs (khmer reads pairs interleaved only)
#   2. assemble raw and normalised pairs with every assembler of ASSEMBLERS:
#        megahit    megahit -1 R1 -2 R2 -t THREADS (defaults)
#        spades     spades.py --meta -1 R1 -2 R2 -t THREADS -m 20
#        spades_asm the same with --only-assembler (no BayesHammer read error
#                   correction, which takes hours on 2 cores here)
#        minia      minia -kmer-size ASM_K -abundance-min 2 (as on E. coli; only
#                   when asked: ASSEMBLERS="megahit spades minia")
#   3. place the contigs on the genomes (minimap2 -x asm10 --secondary=no)
#      and compute per-genome genome fraction and NGA50 (place-contigs.py).

R1=$DATA/community_R1.fq.gz
R2=$DATA/community_R2.fq.gz
REFS=$DATA/community_refs.fa
PLAN=$DATA/community.tsv
for f in "$KB" "$R1" "$R2" "$REFS" "$PLAN"; do
  [ -e "$f" ] || { echo "missing: $f (bash bench/make-community.sh makes it)" >&2; exit 1; }
done
NORMALIZERS=${NORMALIZERS:-kmerbloom kmerbloom_small bbnorm khmer}
ASSEMBLERS=${ASSEMBLERS:-megahit spades}
KHMER_MEM=${KHMER_MEM:-1000000000}
SMALL_MEM=${SMALL_MEM:-64M}
BBNORM_XMX=${BBNORM_XMX:-1g}
for n in $NORMALIZERS; do case $n in bbnorm) apt_install bbmap ;; khmer) apt_install khmer ;; esac; done
for a in $ASSEMBLERS; do apt_install "${a%_asm}"; done
mkdir -p "$OUT"
cd "$OUT" || exit 1

# ---- 1. normalisers -----------------------------------------------------------------
# Each leaves NAME_R1.fq and NAME_R2.fq (plain, so that no tool pays for gzip).
normalize() {
  local n=$1
  if [ -n "${RESUME:-}" ] && [ -s "$n.time" ] && [ -s "${n}_R2.fq" ]; then return 0; fi
  case $n in
    kmerbloom | kmerbloom_small)
      local cap=()
      [ "$n" = kmerbloom ] || cap=(-M "$SMALL_MEM")
      measure "$n" "$KB" filter "$R1" "$R2" -k "$K" -C "$C" -t "$THREADS" "${cap[@]}" \
        -o "${n}_R1.fq" -O "${n}_R2.fq" --stats "$n.json" ;;
    bbnorm)
      measure bbnorm bbnorm.sh in="$R1" in2="$R2" out=bbnorm_R1.fq out2=bbnorm_R2.fq \
        target="$C" k="$K" threads="$THREADS" -Xmx"$BBNORM_XMX" ;;
    khmer)
      local nbm=normalize-by-median.py
      command -v "$nbm" > /dev/null || nbm=/usr/lib/khmer/bin/normalize-by-median.py  # Debian's place
      [ -s inter.fq ] || paste <(gzip -dc "$R1" | paste - - - -) <(gzip -dc "$R2" | paste - - - -) |
        tr '\t' '\n' > inter.fq
      measure khmer "$nbm" -k "$K" -C "$C" -p -M "$KHMER_MEM" -o khmer.fq inter.fq
      # khmer writes the kept pairs interleaved; split them (pairs only, -p).
      paste - - - - - - - - < khmer.fq | awk -F'\t' -v OFS='\n' '
        { print $1, $2, $3, $4 > "khmer_R1.fq"; print $5, $6, $7, $8 > "khmer_R2.fq" }'
      rm -f khmer.fq ;;
    *) echo "unknown normaliser '$n' (kmerbloom kmerbloom_small bbnorm khmer)" >&2; return 1 ;;
  esac
}

# ---- 2. assemblers --------------------------------------------------------------------
# assemble ASSEMBLER INPUT: INPUT_R1.fq/_R2.fq (or the raw files for "raw");
# contigs in ASSEMBLER.INPUT.contigs.fa. A failure or timeout is reported and
# leaves no contigs.
assemble_one() {
  local a=$1 in=$2 r1 r2 name=$1.$2
  if [ "$in" = raw ]; then r1=$R1; r2=$R2; else r1=${in}_R1.fq; r2=${in}_R2.fq; fi
  if [ -n "${RESUME:-}" ] && [ -s "$name.time" ] && [ -s "$name.contigs.fa" ]; then return 0; fi
  rm -rf "$name.dir" "$name.contigs.fa"
  case $a in
    megahit)
      measure "$name" megahit -1 "$r1" -2 "$r2" -t "$THREADS" -o "$name.dir" &&
        mv "$name.dir/final.contigs.fa" "$name.contigs.fa" ;;
    spades | spades_asm) spades "$name" "$a" --meta "$r1" "$r2" ;;
    minia)  # not a metagenome assembler; as on the E. coli pairs
      measure "$name" minia -in "$r1,$r2" -kmer-size "$ASM_K" -abundance-min 2 -nb-cores "$THREADS" -out "$name.dir" &&
        mv "$name.dir.contigs.fa" "$name.contigs.fa"
      rm -f "$name.dir".* ;;
    *) echo "unknown assembler '$a' (megahit spades spades_asm minia)" >&2; return 1 ;;
  esac || echo "== $name failed (see $OUT/$name.log)" >&2
  rm -rf "$name.dir"
}

# ---- 3. placement -----------------------------------------------------------------------
evaluate() {
  local name=$1
  [ -s "$name.contigs.fa" ] || return 0
  if [ -z "${RESUME:-}" ] || [ ! -s "$name.eval.tsv" ]; then
    nice -n 19 minimap2 -x asm10 --secondary=no -t "$THREADS" "$REFS" "$name.contigs.fa" 2> /dev/null > "$name.paf"
    python3 "$ROOT/bench/place-contigs.py" "$REFS" "$name.contigs.fa" "$name.paf" > "$name.eval.tsv"
  fi
}

for n in $NORMALIZERS; do normalize "$n" || echo "== normaliser $n failed" >&2; done
# The normalised sets first: they are the quick ones.
inputs=""
for n in $NORMALIZERS; do [ -s "${n}_R2.fq" ] && inputs="$inputs $n"; done
inputs="$inputs raw"
for a in $ASSEMBLERS; do
  for in in $inputs; do
    assemble_one "$a" "$in"
    evaluate "$a.$in"
  done
done

# ---- report ------------------------------------------------------------------------------
raw_pairs=$(awk -F'\t' 'NR > 1 { n += $5 } END { print n }' "$PLAN")
pairs_of() { [ "$1" = raw ] && { echo "$raw_pairs"; return; }; awk 'END { print NR / 4 }' "$1_R1.fq"; }
options_of() {
  case $1 in
    kmerbloom) echo "\`kmerbloom filter -k $K -C $C -t $THREADS\`" ;;
    kmerbloom_small) echo "\`kmerbloom filter -k $K -C $C -t $THREADS -M $SMALL_MEM\`" ;;
    bbnorm) echo "\`bbnorm.sh target=$C k=$K threads=$THREADS -Xmx$BBNORM_XMX\`" ;;
    khmer) echo "\`normalize-by-median.py -p -k $K -C $C -M $KHMER_MEM\` (1 thread)" ;;
  esac
}
{
  echo "## Normalisation of the community pairs (k = $K, target $C, $THREADS threads)"
  echo
  echo "| normaliser | options | pairs kept | share | wall | CPU | peak memory |"
  echo "|---|---|---|---|---|---|---|"
  for n in $NORMALIZERS; do
    [ -s "$n.time" ] || { echo "| $n | $(options_of "$n") | failed | | | | |"; continue; }
    p=$(pairs_of "$n")
    printf '| %s | %s | %s | %.1f%% | %s s | %s s | %s MB |\n' "$n" "$(options_of "$n")" "$p" \
      "$(awk -v a="$p" -v b="$raw_pairs" 'BEGIN { print 100 * a / b }')" "$(wall "$n")" "$(cpu "$n")" "$(peak_mb "$n")"
  done
  for a in $ASSEMBLERS; do
    echo
    echo "## $a on raw and normalised pairs"
    echo
    header="| input | pairs | wall | CPU | peak memory | N50 | total >= 500 bp |"
    rule="|---|---|---|---|---|---|---|"
    while IFS=$'\t' read -r g _ _ cov _; do
      header="$header $g (${cov}x) |"
      rule="$rule---|"
    done < <(tail -n +2 "$PLAN")
    echo "$header"
    echo "$rule"
    for in in $inputs; do
      name=$a.$in
      if [ ! -s "$name.eval.tsv" ]; then echo "| $in | $(pairs_of "$in") | not finished |"; continue; fi
      row="| $in | $(pairs_of "$in") | $(wall "$name") s | $(cpu "$name") s | $(peak_mb "$name") MB"
      row="$row | $(awk -F'\t' '$1 == "all" { sub("N50=", "", $4); print $4 " | " $5 }' "$name.eval.tsv")"
      while IFS=$'\t' read -r g _; do
        row="$row | $(awk -F'\t' -v g="$g" '$1 == g { printf "%.2f%% / %d", 100 * $3, $4 }' "$name.eval.tsv")"
      done < <(tail -n +2 "$PLAN")
      echo "$row |"
    done
    echo
    echo "Per genome: genome fraction / NGA50 (contigs placed with minimap2 -x asm10, primary alignments)."
  done
} | tee results.md
echo "results: $OUT/results.md" >&2
