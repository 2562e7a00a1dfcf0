#!/usr/bin/env bash
# workflows/cwl/kmerbloom-sets.cwl: validated by cwltool, then run by it
# (--no-container, kmerbloom on PATH) on two sets of the bundled example, its
# outputs compared byte for byte with a direct run; a bad input is the tool's
# failure. Skipped (with the reason) when cwltool is missing.
. "$(dirname "$0")/lib.sh"
CWL=$SRC/workflows/cwl/kmerbloom-sets.cwl
EX=$SRC/data/example.fq.gz
KBDIR=$(cd "$(dirname "$KB")" && pwd)
need cwltool cwltool || { finish; exit $?; }
mkdir -p "$T/bin"
ln -s "$KBDIR/$(basename "$KB")" "$T/bin/kmerbloom"
export PATH=$T/bin:$PATH

check "kmerbloom-sets.cwl is valid CWL" cwltool --quiet --validate "$CWL"
# Two sets that overlap: the example's first and last 1,500 reads.
gzip -dc "$EX" > "$T/all.fq"
head -6000 "$T/all.fq" > "$T/r1.fq"
tail -6000 "$T/all.fq" > "$T/r2.fq"
"$KB" count "$T/r1.fq" -k 25 -c 1 -t 2 -q --format kff -o "$T/r1.kff"
"$KB" count "$T/r2.fq" -k 25 -c 1 -t 2 -q -o "$T/r2.tsv"
cat > "$T/job.yml" << YML
operation: intersect
sets:
  - {class: File, path: r1.kff}
  - {class: File, path: r2.tsv}
name: shared
format: kff
counts: sum
input_min_count: 2
YML
"$KB" sets intersect "$T/r1.kff" "$T/r2.tsv" --counts sum --input-min-count 2 --format kff -q -o "$T/direct.kff"
if (cd "$T" && cwltool --quiet --no-container --outdir "$T/out" "$CWL" job.yml > "$T/cwl.out" 2> "$T/cwl.err"); then
  ok "cwltool runs kmerbloom-sets.cwl"
  same "the result equals a direct run's" "$T/out/shared.kff" "$T/direct.kff"
  check "... and is not empty" test "$("$KB" sets union "$T/out/shared.kff" -q -o - | wc -l)" -gt 100
  check "the statistics say the operation" grep -q '"operation": "intersect"' "$T/out/shared.stats.json"
  check "the MultiQC row is named after the job's name" grep -q '"shared"' "$T/out/shared.stats_mqc.json"
else
  bad "cwltool kmerbloom-sets.cwl failed: $(tail -5 "$T/cwl.err")"
fi
"$KB" count "$T/r2.fq" -k 21 -c 1 -t 2 -q -o "$T/r21.tsv"
sed -i 's/r2.tsv/r21.tsv/' "$T/job.yml"
if (cd "$T" && cwltool --quiet --no-container --outdir "$T/bad" "$CWL" job.yml > "$T/bad.out" 2> "$T/bad.err"); then
  bad "sets of different k: the tool did not fail"
else
  check "sets of different k: the tool fails with kmerbloom's message" grep -q "holds 25-mers" "$T/bad.err"
fi
finish
