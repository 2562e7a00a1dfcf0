#!/usr/bin/env bash
# workflows/cwl/kmerbloom-hetmers.cwl: validated and run by cwltool
# (--no-container, kmerbloom on PATH) on the counts of a simulated diploid,
# its outputs compared byte for byte with a direct run; MultiQC reads its
# custom content. Skipped (with the reason) when cwltool is missing.
. "$(dirname "$0")/lib.sh"
CWL=$SRC/workflows/cwl
KBDIR=$(cd "$(dirname "$KB")" && pwd)
need python3 python3 && need cwltool cwltool || { finish; exit; }
# cwltool runs `kmerbloom` from PATH: the binary under test, by that name.
mkdir -p "$T/bin" && ln -s "$KBDIR/$(basename "$KB")" "$T/bin/kmerbloom" && PATH=$T/bin:$PATH

check "kmerbloom-hetmers.cwl is valid CWL" cwltool --quiet --validate "$CWL/kmerbloom-hetmers.cwl"
python3 "$SRC/test/cli/hetmer_oracle.py" genome 2 1 40000 30 5 > "$T/d.fq"
"$KB" count "$T/d.fq" -k 21 -t 2 -q -o "$T/d.tsv.gz"
"$KB" hetmers "$T/d.tsv.gz" -o "$T/direct" -t 2 --pairs -q
printf 'counts: {class: File, path: %s}\nsample: dip\npairs: true\nram_mb: 300\n' "$T/d.tsv.gz" > "$T/job.yml"
if (cd "$T" && cwltool --quiet --no-container --outdir "$T/out" "$CWL/kmerbloom-hetmers.cwl" "$T/job.yml" > "$T/cwl.out" 2> "$T/cwl.err"); then
  ok "cwltool runs kmerbloom-hetmers.cwl"
  same "the tool's .smu equals a direct run's" "$T/out/dip.smu" "$T/direct.smu"
  same "... and its pairs" "$T/out/dip.pairs.tsv" "$T/direct.pairs.tsv"
  check "-M from ram_mb reached hetmers" grep -q '"memory_budget_bytes": 314572800' "$T/out/dip.hetmers.json"
  if need multiqc multiqc; then
    (cd "$T/out" && multiqc -f . -o mqc > mqc.out 2>&1) || bad "multiqc failed: $(tail -5 "$T/out/mqc.out")"
    ploidy=$(python3 -c "import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
print(next((v for r in rows if r['Sample'] == 'dip' for key, v in r.items() if key.endswith('ploidy')), 'none'))" \
      "$T/out/mqc/multiqc_data/multiqc_general_stats.txt")
    check "MultiQC reads the hetmers general statistics (sample 'dip', ploidy $ploidy)" test "${ploidy%.0}" = 2
  fi
else
  bad "cwltool kmerbloom-hetmers.cwl failed: $(tail -5 "$T/cwl.err")"
fi
finish
