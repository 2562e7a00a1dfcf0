#!/usr/bin/env bash
# One sample, one row: every subcommand that writes a MultiQC row (count,
# profile, hetmers, qv, sets; merge-counts for a sample counted in parts)
# on three samples, each subcommand's statistics named S.stats.json,
# S.profile.json, S.hetmers.json, S.qv.json, S.sets.json; C is counted in two
# partitions (their statistics in the same folder) and gathered by
# merge-counts --stats into C.stats.json; A's histogram is A_jf.hist, which
# MultiQC's jellyfish module reads too. MultiQC's general statistics over
# the folder hold three rows, A, B and C (no partition shows up as a
# sample), each with the columns of the subcommands run on it. Skipped (with
# the reason) when multiqc is missing (Debian package multiqc).
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
  # A's histogram named as MultiQC's jellyfish module finds it (A_jf.hist):
  # the row stays A. B's sample given with --sample.
  if [ $s = A ]; then named=(--histo "$T/out/A_jf.hist"); else named=(--sample B); fi
  "$KB" count "$T/$s.fq" -k 21 -c 1 -t 2 -q -o "$T/$s.tsv" --stats "$T/out/$s.stats.json" "${named[@]}"
  "$KB" count "$T/$s.fq" -k 21 -c 1 -t 2 -q -o "$T/$s.kff" --format kff
  "$KB" profile "$T/out/$s.stats.json" -p 1 -q -o "" --stats "$T/out/$s.profile.json"
  "$KB" hetmers "$T/$s.tsv" -o "$T/out/$s" -t 2 -q --stats "$T/out/$s.hetmers.json"
  "$KB" qv "$T/$s.fa" --reads "$T/$s.kff" -o "$T/out/$s" -t 2 -q --stats "$T/out/$s.qv.json"
  "$KB" sets union "$T/$s.tsv" "$T/$s.kff" -q -o /dev/null --stats "$T/out/$s.sets.json"
done
python3 "$SRC/test/cli/simreads.py" --genome 40000 --reads 8000 --length 150 --seed 33 --error-rate 0.005 > "$T/C.fq"
for i in 0 1; do
  "$KB" count "$T/C.fq" -k 21 -t 2 -q --partition $i/2 -o "$T/C.part$i.tsv" --stats "$T/out/C.part$i.json"
done
"$KB" merge-counts --stats "$T/out/C.part0.json" "$T/out/C.part1.json" -o "$T/out/C.stats.json"
(cd "$T/out" && multiqc -f . -o mqc > mqc.out 2>&1) || bad "multiqc failed: $(tail -5 "$T/out/mqc.out")"
GS=$T/out/mqc/multiqc_data/multiqc_general_stats.txt
check "MultiQC's general statistics: one row a sample, A, B and C" \
  eval "[ \"\$(tail -n +2 '$GS' | cut -f1 | sort | tr '\n' ' ')\" = 'A B C ' ]"
for col in kmers_solid:3 genome_length:2 qv:2 unique_pairs:2 kmers_out:2; do
  check "the column ${col%:*} in ${col#*:} rows" awk -F'\t' -v want="${col%:*}" -v rows="${col#*:}" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ ("(^|[-_])" want "$")) c = i; next }
    c && $c != "" { n++ } END { exit !(c && n == rows) }' "$GS"
done
finish
