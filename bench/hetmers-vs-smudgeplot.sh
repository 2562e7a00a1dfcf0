#!/usr/bin/env bash
# hetmers-vs-smudgeplot.sh COUNTS.tsv L [SMUDGEPLOT_CHECKOUT]
# READS="R1.fq.gz R2.fq.gz" hetmers-vs-smudgeplot.sh COUNTS.kff auto [SMUDGEPLOT_CHECKOUT]
#
# Runs smudgeplot's own het-mer search (its C program, built from
# src/lib of a smudgeplot checkout: PloidyPlot.c, libfastk.c, matrix.c) on a
# FastK table of the same k-mers, and `kmerbloom hetmers COUNTS -L L`, each
# under /usr/bin/time (ROUNDS rounds in turn), and compares the two .smu
# files byte for byte.
#
# The table is smudgeplot's input as its search makes it of a FastK table:
# k-mers of count >= L, both orientations.
# - From COUNTS.tsv (a `kmerbloom count` TSV, plain): bench/fastk_table.py
#   reads it whole (a few million k-mers).
# - With READS (a genome-scale set): COUNTS, when missing, is counted from
#   READS (`count -k 21 -c 2 --format kff`); L = auto takes the L kmerbloom
#   chooses (smudgeplot's rule); the table is counted from READS and their
#   reverse complements (`count --no-canonical -c L`, whose counts are then
#   the canonical counts of both orientations) and streamed into
#   `fastk_table.py --sorted`.
# Without a checkout the script clones github.com/KamilSJaron/smudgeplot into OUT.
# Env: KB (kmerbloom binary, default build/kmerbloom), OUT (default
#      /tmp/kmerbloom-bench/hetmers-vs-smudgeplot), THREADS=2, ROUNDS=1, READS.
# Time: diploid5 (5.5 M k-mers) 30 s; bench/make-diploid.sh's 3 Gbp pairs
# at k = 21 (114 M k-mers in [L, U]) about 25 minutes, 5 GB in OUT.
# Needs: gcc, python3, git (without a checkout), time.
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage="usage: [READS=...] hetmers-vs-smudgeplot.sh COUNTS L|auto [SMUDGEPLOT_CHECKOUT]"
COUNTS=${1:?$usage}
L=${2:?$usage}
KB=${KB:-$HERE/../build/kmerbloom}
OUT=${OUT:-/tmp/kmerbloom-bench/hetmers-vs-smudgeplot}
THREADS=${THREADS:-2} ROUNDS=${ROUNDS:-1}
mkdir -p "$OUT"
SP=${3:-$OUT/smudgeplot}
[ -d "$SP/src/lib" ] || git clone -q --depth 1 https://github.com/KamilSJaron/smudgeplot "$SP"
gcc -O3 -w -o "$OUT/sp_hetmers" "$SP"/src/lib/{PloidyPlot,libfastk,matrix}.c -lpthread -lm

if [ -n "${READS:-}" ]; then
  read -ra reads <<< "$READS"
  [ -s "$COUNTS" ] || "$KB" count "${reads[@]}" -k 21 -c 2 --format kff -t "$THREADS" -q -o "$COUNTS"
  if [ "$L" = auto ]; then
    "$KB" hetmers "$COUNTS" -t "$THREADS" -o "$OUT/choose" --stats "$OUT/choose.json" -q
    L=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['lower'])" "$OUT/choose.json")
  fi
  rc() { (zcat -f "$1" || true) | awk 'NR % 4 == 2' | rev | tr ACGTN TGCAN | awk '{ print ">r"; print }'; }
  export -f rc
  rcs=()
  for r in "${reads[@]}"; do rcs+=("<(rc '$r')"); done
  bash -c "'$KB' count --no-canonical -k 21 -c $L -t $THREADS -q -o - ${reads[*]} ${rcs[*]}" |
    python3 "$HERE/fastk_table.py" --sorted "$L" "$OUT/table"
else
  python3 "$HERE/fastk_table.py" "$COUNTS" "$L" "$OUT/table"
fi
echo "L = $L"
for r in $(seq "$ROUNDS"); do
  rm -f "$OUT/smudgeplot.smu"  # it asks before reusing an existing one
  /usr/bin/time -f "smudgeplot search: %e s wall, %U s user, %S s system, %M KB peak" \
    "$OUT/sp_hetmers" -e"$L" -T"$THREADS" -o"$OUT/smudgeplot" "$OUT/table" > /dev/null
  /usr/bin/time -f "kmerbloom hetmers: %e s wall, %U s user, %S s system, %M KB peak" \
    "$KB" hetmers "$COUNTS" -L "$L" -t "$THREADS" -o "$OUT/kmerbloom" -q
done
if cmp -s "$OUT/smudgeplot.smu" "$OUT/kmerbloom.smu"; then
  echo "same .smu: $(wc -l < "$OUT/kmerbloom.smu") bins, $(awk '{ s += $3 } END { print s }' "$OUT/kmerbloom.smu") pairs"
else
  echo "the .smu files differ: $OUT/smudgeplot.smu $OUT/kmerbloom.smu"
  exit 1
fi
