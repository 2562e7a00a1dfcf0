#!/usr/bin/env bash
# hetmers-vs-smudgeplot.sh COUNTS.tsv L [SMUDGEPLOT_CHECKOUT]
#
# Runs smudgeplot's own het-mer search (its C program, built from
# src/lib of a smudgeplot checkout: PloidyPlot.c, libfastk.c, matrix.c) on a
# FastK table written from COUNTS.tsv (bench/fastk_table.py: k-mers of count
# >= L, both orientations), and `kmerbloom hetmers COUNTS.tsv -L L`, and
# compares the two .smu files byte for byte. Prints the time of each.
#
# COUNTS.tsv: `kmerbloom count` output (plain TSV). Without a checkout the
# script clones github.com/KamilSJaron/smudgeplot into OUT.
# Env: KB (kmerbloom binary, default build/kmerbloom), OUT (default
#      /tmp/kmerbloom-bench/hetmers-vs-smudgeplot), THREADS=2.
# Needs: gcc, python3, git (without a checkout), time.
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
COUNTS=${1:?usage: hetmers-vs-smudgeplot.sh COUNTS.tsv L [SMUDGEPLOT_CHECKOUT]}
L=${2:?usage: hetmers-vs-smudgeplot.sh COUNTS.tsv L [SMUDGEPLOT_CHECKOUT]}
KB=${KB:-$HERE/../build/kmerbloom}
OUT=${OUT:-/tmp/kmerbloom-bench/hetmers-vs-smudgeplot}
THREADS=${THREADS:-2}
mkdir -p "$OUT"
SP=${3:-$OUT/smudgeplot}
[ -d "$SP/src/lib" ] || git clone -q --depth 1 https://github.com/KamilSJaron/smudgeplot "$SP"
gcc -O3 -w -o "$OUT/sp_hetmers" "$SP"/src/lib/{PloidyPlot,libfastk,matrix}.c -lpthread -lm

python3 "$HERE/fastk_table.py" "$COUNTS" "$L" "$OUT/table"
rm -f "$OUT/smudgeplot.smu"  # it asks before reusing an existing one
/usr/bin/time -f "smudgeplot search: %e s wall, %U s user, %M KB peak" \
  "$OUT/sp_hetmers" -e"$L" -T"$THREADS" -o"$OUT/smudgeplot" "$OUT/table" > /dev/null
/usr/bin/time -f "kmerbloom hetmers: %e s wall, %U s user, %M KB peak" \
  "$KB" hetmers "$COUNTS" -L "$L" -t "$THREADS" -o "$OUT/kmerbloom" -q
if cmp -s "$OUT/smudgeplot.smu" "$OUT/kmerbloom.smu"; then
  echo "same .smu: $(wc -l < "$OUT/kmerbloom.smu") bins, $(awk '{ s += $3 } END { print s }' "$OUT/kmerbloom.smu") pairs"
else
  echo "the .smu files differ: $OUT/smudgeplot.smu $OUT/kmerbloom.smu"
  exit 1
fi
