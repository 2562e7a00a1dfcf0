#!/usr/bin/env bash
# One sample, one row: count, profile, hetmers and qv of two samples, each
# subcommand's statistics named S.stats.json, S.profile.json, S.hetmers.json,
# S.qv.json, and MultiQC's general statistics over the folder hold two rows,
# A and B, each with the columns of every subcommand. Skipped (with the
# reason) when multiqc is missing (Debian package multiqc).
. "$(dirname "$0")/lib.sh"
need python3 || { finish; exit; }
need multiqc || { finish; exit; }
mkdir -p "$T/out"
for s in A B; do
  seed=$([ $s = A ] && echo 31 || echo 32)
  python3 "$SRC/test/cli/simreads.py" --genome 40000 --reads 8000 --length 150 --seed $seed --error-rate 0.005 \
    > "$T/$s.fq"
  python3 - "$SRC/test/cli" $seed > "$T/$s.fa" << 'PY'
import sys
sys.path.insert(0, sys.argv[1])
import simreads
print(">asm\n" + simreads.genome_of(40000, int(sys.argv[2])))
PY
  "$KB" count "$T/$s.fq" -k 21 -c 1 -t 2 -q -o "$T/$s.tsv" --stats "$T/out/$s.stats.json" --sample $s
  "$KB" count "$T/$s.fq" -k 21 -c 1 -t 2 -q -o "$T/$s.kff" --format kff
  "$KB" profile "$T/out/$s.stats.json" -p 1 -q -o "" --stats "$T/out/$s.profile.json"
  "$KB" hetmers "$T/$s.tsv" -o "$T/out/$s" -t 2 -q --stats "$T/out/$s.hetmers.json"
  "$KB" qv "$T/$s.fa" --reads "$T/$s.kff" -o "$T/out/$s" -t 2 -q --stats "$T/out/$s.qv.json"
done
(cd "$T/out" && multiqc -f . -o mqc > mqc.out 2>&1) || bad "multiqc failed: $(tail -5 "$T/out/mqc.out")"
GS=$T/out/mqc/multiqc_data/multiqc_general_stats.txt
check "MultiQC's general statistics: one row a sample, A and B" \
  eval "[ \"\$(tail -n +2 '$GS' | cut -f1 | sort | tr '\n' ' ')\" = 'A B ' ]"
for col in kmers_solid genome_length qv unique_pairs; do
  check "each row has the column $col" awk -F'\t' -v want="$col" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ ("(^|[-_])" want "$")) c = i; next }
    c && $c != "" { n++ } END { exit !(c && n == 2) }' "$GS"
done
finish
