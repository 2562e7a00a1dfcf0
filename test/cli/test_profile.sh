#!/usr/bin/env bash
# kmerbloom profile: a diploid genome with planted heterozygosity, read at
# 30x a haplotype with 0.5% errors, counted, and the model fitted from the
# histogram recovers its length and heterozygosity; the statistics file and
# jellyfish's sparse form of the histogram give the same fit; a spectrum of
# errors alone gets a verdict, not a number; bad input is named, with no
# output left behind.
. "$(dirname "$0")/lib.sh"
need python3 || { finish; exit; }
G=200000  # haploid genome length
HET=0.01  # planted heterozygous SNPs per base
K=21

python3 - "$SRC/test/cli" "$T" $G $HET << 'PY'
import random, sys
sys.path.insert(0, sys.argv[1])
import simreads
T, G, het = sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
hap1 = simreads.genome_of(G, 21)
rng = random.Random(22)
hap2 = simreads.substituted(hap1, round(het * G), rng)
class Args: short_every = 0; error_rate = 0.005; n_every = 0
with open(f"{T}/reads.fq", "w") as out:
    for h, hap in enumerate((hap1, hap2)):
        for i in range(G * 30 // 150):
            out.write(simreads.record(f"h{h}r{i}", simreads.read_from(hap, 150, rng, Args), "fastq"))
PY
"$KB" count "$T/reads.fq" -k $K -c 1 -t 2 -q -o /dev/null --histo "$T/reads.histo" --stats "$T/reads.json" --no-multiqc

"$KB" profile "$T/reads.histo" -k $K -p 2 --stats "$T/p.json" --plot "$T/p.svg" -o "$T/summary.txt" 2> "$T/log"
check "the profile fits the diploid spectrum" [ "$(json_field "$T/p.json" fitted)" = True ]
within() { awk -v v="$1" -v want="$2" -v tol="$3" 'BEGIN { d = v - want; if (d < 0) d = -d; exit !(d <= tol) }'; }
len=$(json_field "$T/p.json" genome_length)
check "haploid length $len within 2% of $G" within "$len" $G $((G / 50))
het=$(json_field "$T/p.json" heterozygosity)
check "heterozygosity $het within 0.1 percentage points of $HET" within "$het" $HET 0.001
cov=$(json_field "$T/p.json" kmer_coverage)
# 30x of 150-base reads: (150 - 21 + 1) / 150 of it as k-mer coverage, less the k-mers errors break.
check "k-mer coverage $cov near 30 * 130 / 150 * (1 - 0.005 * 21)" within "$cov" 23.3 1.5
check "the summary names its properties" grep -q "^Genome Haploid Length" "$T/summary.txt"
check "the plot holds the model" grep -q 'class="model"' "$T/p.svg"

# profile --report: the figures and the plot as one page, drawn by Chromium.
"$KB" profile "$T/reads.histo" -k $K -p 2 --report "$T/p.html" -o "" -q
check "the page holds the fitted length ($len) and the plot" python3 - "$T/p.html" "$len" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
shown = re.search(r"Haploid genome length</th><td[^>]*>([0-9,]+) bp", page).group(1)
assert abs(int(shown.replace(",", "")) - float(sys.argv[2])) < 1, (shown, sys.argv[2])
assert '<svg' in page and 'class="model"' in page
PY
if screenshot "$T/p.html" "$T/p.png" 1000,1400; then
  drawn=$(PYTHONPATH="$SRC/test/cli" python3 - "$T/p.png" <<'PY'
import sys
from png_rows import png_rows
w, h, bpp, rows = png_rows(sys.argv[1])
print(sum(1 for line in rows for x in range(0, w * bpp, bpp) if abs(line[x] - line[x + 2]) > 60))  # colours, not greys
PY
  ) || drawn=0
  check "Chromium draws the page's plot in colour ($drawn pixels)" test "${drawn:-0}" -ge 500
fi

"$KB" profile "$T/reads.json" -p 2 --stats "$T/s.json" -o "" 2> /dev/null
# The same fit to 1e-6 (the optimizer starts from the total k-mers, which the
# statistics hold beyond the histogram's overflow row).
check "the statistics file (k from it) gives the same heterozygosity" \
  within "$(json_field "$T/s.json" heterozygosity)" "$het" 1e-8
awk '$2 != 0' "$T/reads.histo" > "$T/sparse.histo"  # jellyfish leaves zero rows out
"$KB" profile "$T/sparse.histo" -k $K -p 2 --stats "$T/j.json" -o "" 2> /dev/null
check "jellyfish's sparse histogram gives the same heterozygosity" \
  within "$(json_field "$T/j.json" heterozygosity)" "$het" 1e-8
"$KB" profile "$T/reads.histo" -k $K -p 2 -o "$T/again.txt" 2> /dev/null
check "the same summary again" cmp -s "$T/summary.txt" "$T/again.txt"

# A spectrum of errors alone (no genomic peak): a verdict, never a number.
awk 'BEGIN { for (c = 1; c <= 300; c++) printf "%d %d\n", c, 1e8 / (c * c * c) }' > "$T/errors.histo"
"$KB" profile "$T/errors.histo" -k $K --stats "$T/e.json" -o "$T/e.txt" 2> "$T/e.log"
check "errors alone are not fitted" [ "$(json_field "$T/e.json" fitted)" = False ]
check "errors alone get no genome length" [ "$(json_field "$T/e.json" genome_length)" = None ]
check "the verdict is said on stderr" grep -q "not fitted" "$T/e.log"

expect_fail "a histogram without -k" 2 "-k is required" -- "$KB" profile "$T/reads.histo"
expect_fail "-k other than the statistics' k" 2 "counted 21-mers" -- "$KB" profile "$T/reads.json" -k 25
expect_fail "ploidy 7" 2 "ploidy" -- "$KB" profile "$T/reads.histo" -k $K -p 7
printf '1 100\n2 x\n' > "$T/bad.histo"
rm -f "$T/out.json" "$T/out.txt"
expect_fail "a malformed row is named with its line" 3 "bad.histo.*line 2" -- "$KB" profile "$T/bad.histo" -k $K \
  --stats "$T/out.json" -o "$T/out.txt"
check "no output left after the error" [ ! -e "$T/out.json" ] && [ ! -e "$T/out.txt" ]

# With hetmers' statistics: their ploidy when -p is not given, and a word
# when the smudge and the fit disagree.
"$KB" count "$T/reads.fq" -k $K -t 2 -q -o "$T/solid.tsv"
"$KB" hetmers "$T/solid.tsv" -o "$T/het" --stats "$T/het.json" -t 2 -q
check "hetmers says AB (ploidy 2) for the diploid reads" [ "$(json_field "$T/het.json" smudge_peak.ploidy)" = 2 ]
"$KB" profile "$T/reads.json" --hetmers "$T/het.json" --stats "$T/h.json" -o "" 2> "$T/h.log"
check "the fit takes hetmers' ploidy" [ "$(json_field "$T/h.json" ploidy)" = 2 ]
check "the smudge and the fit agree (ploidy, and the smudge's haploid coverage is the fitted k-mer coverage)" \
  [ "$(json_field "$T/h.json" hetmers.agrees)" = True ]
"$KB" profile "$T/reads.json" -p 3 --hetmers "$T/het.json" --stats "$T/h3.json" -o "$T/h3.txt" --report "$T/h3.html" 2> "$T/h3.log"
check "at ploidy 3 each het form's share, summing to the heterozygosity (summary, JSON, page)" python3 - "$T/h3.json" "$T/h3.txt" "$T/h3.html" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
forms = j["het_forms"]
assert list(forms) == ["aab", "abc"], forms
assert all(hi - lo < 1e-6 for lo, hi in forms.values()), forms  # two figures fix two forms
assert abs(sum(lo for lo, hi in forms.values()) - j["heterozygosity"]) < 1e-6, (forms, j["heterozygosity"])
text = open(sys.argv[2]).read()
assert "\naab " in text and "\nabc " in text, text
page = open(sys.argv[3]).read()
assert "aab</th>" in page and "abc</th>" in page
PY
check "fitted at 3 against an AB smudge: they disagree, and stderr says so" \
  eval "[ \"\$(json_field '$T/h3.json' hetmers.agrees)\" = False ] && grep -q 'suggests ploidy 2' '$T/h3.log'"
expect_fail "--hetmers with a count's statistics" 3 "not the statistics of kmerbloom hetmers" -- \
  "$KB" profile "$T/reads.json" --hetmers "$T/reads.json" -o ""

# count --ploidy: the same fit in count's statistics, its MultiQC row and report,
# and `report` draws the same section from the statistics later.
"$KB" count "$T/reads.fq" -k $K -c 1 -t 2 -q -o /dev/null --ploidy 2 --stats "$T/c.json" --report "$T/c.html"
check "count --ploidy: the statistics' profile is profile's own fit" python3 -c '
import json, sys
a, b = json.load(open(sys.argv[1]))["profile"], json.load(open(sys.argv[2]))
assert a["fitted"] and all(a[k] == b[k] for k in ("genome_length", "heterozygosity", "kmer_coverage")), (a, b)
' "$T/c.json" "$T/s.json"
check "count --ploidy: MultiQC's row holds the genome length and heterozygosity" python3 -c '
import json, sys
row = json.load(open(sys.argv[1]))["data"]["reads"]
assert row["profile_genome_length"] > 0 and 0.9 < row["profile_heterozygosity"] < 1.1, row
' "$T/c_mqc.json"
check "count --ploidy: the report has the genome profile" grep -q "<h2>Genome profile</h2>" "$T/c.html"
"$KB" report "$T/c.json" -o "$T/r.html" 2> /dev/null
section() { sed -n '/<h2>Genome profile/,/<\/section>/p' "$1"; }
check "report draws the same genome profile from the statistics" cmp -s <(section "$T/c.html") <(section "$T/r.html")

# The CWL tool (workflows/cwl/kmerbloom-profile.cwl) writes what a direct run
# writes; MultiQC reads the profile's custom content.
mkdir -p "$T/direct"
"$KB" profile "$T/reads.json" -p 2 -o "$T/direct/s1.profile.txt" --stats "$T/direct/s1.profile.json" --sample s1 -q
if need cwltool; then
  mkdir -p "$T/bin"
  ln -s "$(cd "$(dirname "$KB")" && pwd)/$(basename "$KB")" "$T/bin/kmerbloom"
  check "kmerbloom-profile.cwl is valid CWL" cwltool --quiet --validate "$SRC/workflows/cwl/kmerbloom-profile.cwl"
  printf 'spectrum: {class: File, path: %s}\nploidy: 2\nsample: s1\n' "$T/reads.json" > "$T/job.yml"
  if (cd "$T" && PATH=$T/bin:$PATH cwltool --quiet --no-container --outdir "$T/cwl" \
    "$SRC/workflows/cwl/kmerbloom-profile.cwl" "$T/job.yml" > "$T/cwl.out" 2> "$T/cwl.err"); then
    ok "cwltool runs kmerbloom-profile.cwl"
    tail -n +3 "$T/cwl/s1.profile.txt" > "$T/cwl.txt"  # line 2 names the input, staged elsewhere
    tail -n +3 "$T/direct/s1.profile.txt" > "$T/direct.txt"
    same "cwl: the summary equals a direct run's" "$T/cwl.txt" "$T/direct.txt"
    check "cwl: the output record lists the plot and the MultiQC file" \
      eval "grep -q '\"basename\": \"s1.profile.svg\"' '$T/cwl.out' && grep -q '\"basename\": \"s1.profile.html\"' '$T/cwl.out' && grep -q '\"basename\": \"s1.profile_mqc.json\"' '$T/cwl.out'"
  else
    bad "cwltool kmerbloom-profile.cwl failed: $(tail -5 "$T/cwl.err")"
  fi
fi
if need multiqc; then
  (cd "$T/direct" && multiqc -f . -o mqc > mqc.out 2>&1) || bad "multiqc failed: $(tail -5 "$T/direct/mqc.out")"
  len=$(json_field "$T/direct/s1.profile.json" genome_length)
  check "MultiQC's general statistics hold sample s1's genome length ($len)" \
    awk -F'\t' -v want="$len" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /genome_length$/) c = i }
      $1 == "s1" && c && ($c - want < 1 && want - $c < 1) { f = 1 } END { exit !f }' \
    "$T/direct/mqc/multiqc_data/multiqc_general_stats.txt"
fi
finish
