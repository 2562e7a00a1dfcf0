#!/usr/bin/env bash
# workflows/cwl/kmerbloom-qv.cwl: validated and run by cwltool (--no-container,
# kmerbloom on PATH) on a small simulated assembly, its files compared byte for
# byte with a direct run's; MultiQC reads qv's custom content file. Skipped
# (with the reason) when cwltool or multiqc is missing (Debian packages
# cwltool, multiqc).
. "$(dirname "$0")/lib.sh"
need python3 || { finish; exit; }
KBDIR=$(cd "$(dirname "$KB")" && pwd)

python3 "$SRC/test/cli/simreads.py" --genome 30000 --reads 6000 --length 150 --seed 21 --error-rate 0.005 > "$T/reads.fq"
python3 - "$SRC/test/cli" "$T" << 'PY'
import sys
sys.path.insert(0, sys.argv[1])
import simreads
g = list(simreads.genome_of(30000, 21))
for pos in range(500, 30000, 1000):  # 30 substitutions: QV about 30
    g[pos] = "A" if g[pos] != "A" else "C"
g = "".join(g)
open(f"{sys.argv[2]}/asm.fa", "w").write(f">c1\n{g[:15000]}\n>c2\n{g[15000:]}\n")
PY
"$KB" count "$T/reads.fq" -k 21 -c 1 -t 2 -q -o "$T/reads.kff" --format kff
mkdir -p "$T/direct"
"$KB" qv "$T/asm.fa" --reads "$T/reads.kff" -o "$T/direct/s1" -t 2 --stats "$T/direct/s1.qv.json" --sample s1 -q

if need cwltool; then
  mkdir -p "$T/bin"
  ln -s "$KBDIR/$(basename "$KB")" "$T/bin/kmerbloom"
  check "kmerbloom-qv.cwl is valid CWL" cwltool --quiet --validate "$SRC/workflows/cwl/kmerbloom-qv.cwl"
  printf 'assembly: {class: File, path: %s}\nread_counts: {class: File, path: %s}\nprefix: s1\nthreads: 2\nram_mb: 500\n' \
    "$T/asm.fa" "$T/reads.kff" > "$T/job.yml"
  if (cd "$T" && PATH=$T/bin:$PATH cwltool --quiet --no-container --outdir "$T/cwl" \
    "$SRC/workflows/cwl/kmerbloom-qv.cwl" "$T/job.yml" > "$T/cwl.out" 2> "$T/cwl.err"); then
    ok "cwltool runs kmerbloom-qv.cwl"
    for f in s1.qv s1.asm.qv s1.completeness.stats s1.asm.spectra-cn.hist s1.asm.only.hist; do
      same "cwl: $f equals a direct run's" "$T/cwl/$f" "$T/direct/$f"
    done
    check "cwl: the output record lists the per-sequence QV and the MultiQC file" \
      eval "grep -q '\"basename\": \"s1.asm.qv\"' '$T/cwl.out' && grep -q '\"basename\": \"s1.qv_mqc.json\"' '$T/cwl.out'"
  else
    bad "cwltool kmerbloom-qv.cwl failed: $(tail -5 "$T/cwl.err")"
  fi
fi

if need multiqc; then
  (cd "$T/direct" && multiqc -f . -o mqc > mqc.out 2>&1) || bad "multiqc failed: $(tail -5 "$T/direct/mqc.out")"
  qv=$(cut -f4 "$T/direct/s1.qv")
  check "MultiQC's general statistics hold sample s1's QV ($qv)" \
    awk -F'\t' -v q="$qv" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /(^|[-_])qv$/) c = i }
      $1 == "s1" && c && ($c - q < 0.01 && q - $c < 0.01) { f = 1 } END { exit !f }' \
    "$T/direct/mqc/multiqc_data/multiqc_general_stats.txt"
fi
finish
