#!/usr/bin/env bash
# kmerbloom qv: Merqury's QV, per-sequence QV, completeness and spectra-cn
# files, against a brute-force Python model (qv_model.py, awk for the
# numbers); planted substitutions give the QV their rate implies; a truncated
# assembly gives the completeness its share of the genome implies; the same
# files whatever -t, -M, gzip or KFF (kmerbloom's or kmc's); kmc_tools' set algebra
# gives the same totals; bad input named, with no output left.
. "$(dirname "$0")/lib.sh"
need python3 || { finish; exit; }
need awk || { finish; exit; }
MODEL=$SRC/test/cli/qv_model.py
G=60000     # genome length
RATE=0.001  # planted substitutions per base
K=21

# A random genome, 30x of 150-base reads with 0.5% errors (simreads.py), and
# three assemblies: the genome with exactly RATE * G substitutions in three
# contigs plus a contig too short for a k-mer and a lower-case one with an N;
# the genome's first 80% in two contigs; the genome itself.
python3 "$SRC/test/cli/simreads.py" --genome $G --reads $((G * 30 / 150)) --length 150 --seed 11 \
  --error-rate 0.005 > "$T/reads.fq"
python3 - "$SRC/test/cli" "$T" $G $RATE $K << 'EOF'
import random, sys
sys.path.insert(0, sys.argv[1])
import simreads
T, G, rate, k = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
genome = simreads.genome_of(G, 11)
rng = random.Random(5)
sub = simreads.substituted(genome, round(rate * G), rng)
def fasta(path, records):
    with open(path, "w") as f:
        for name, seq in records:
            f.write(f">{name}\n" + "".join(seq[i:i + 70] + "\n" for i in range(0, len(seq), 70)))
third = G // 3
lower = genome[1000:1400].lower()
fasta(f"{T}/asm_sub.fa", [("ctg1 planted", sub[:third]), ("ctg2", sub[third:2 * third]), ("ctg3", sub[2 * third:]),
                          ("tiny", genome[:10]), ("lower", lower[:200] + "N" + lower[201:])])
cut = int(0.8 * G)
fasta(f"{T}/asm_cut.fa", [("a", genome[:cut // 2]), ("b", genome[cut // 2:cut])])
fasta(f"{T}/genome.fa", [("genome", genome)])
# The truth for the truncated assembly: its share of the genome's distinct k-mers.
comp = str.maketrans("ACGT", "TGCA")
def kmers(s):
    return {min(s[i:i + k], s[i:i + k].translate(comp)[::-1]) for i in range(len(s) - k + 1)}
whole = kmers(genome)
kept = kmers(genome[:cut // 2]) | kmers(genome[cut // 2:cut])
open(f"{T}/cut.truth", "w").write(f"{100 * len(kept & whole) / len(whole)}\n")
EOF
"$KB" count "$T/reads.fq" -k $K -c 1 -t 2 -q -o "$T/reads.tsv"
"$KB" count "$T/reads.fq" -k $K -c 1 -t 2 -q -o "$T/reads.kff" --format kff

FILES=(.qv .asm_sub.qv .completeness.stats .asm_sub.spectra-cn.hist .asm_sub.only.hist)
# same_files WHAT A B: every file of prefix A equals that of prefix B.
same_files() {
  local f differ=0
  for f in "${FILES[@]}"; do
    if ! cmp -s "$2$f" "$3$f"; then
      differ=1
      bad "$1: $2$f and $3$f differ"
      [ -f "$2$f" ] && [ -f "$3$f" ] && first_difference "$2$f" "$3$f"
    fi
  done
  [ $differ -eq 1 ] || ok "$1"
}

# --- the model ---------------------------------------------------------------
threshold=$(python3 "$MODEL" --reads "$T/reads.tsv" --assembly "$T/asm_sub.fa" --prefix "$T/model" --name asm_sub)
"$KB" qv "$T/asm_sub.fa" --reads "$T/reads.tsv" -o "$T/kb" -t 2 --stats "$T/kb.json" 2> "$T/kb.err"
same_files "the five Merqury files equal the brute-force model's" "$T/model" "$T/kb"
check "the model's solid threshold is a valley above 1 (the test data has one)" test "$threshold" -gt 1
check "stderr says the solid threshold ($threshold) and how it was chosen" \
  grep -q "count > $threshold (first valley of the read histogram" "$T/kb.err"
check "no warning that the assembly is far from its reads" eval "! grep -q 'far from its reads' '$T/kb.err'"
# The wrong genome: another random sequence of the same length.
python3 -c "import random; r = random.Random(99); print('>other'); print(''.join(r.choice('ACGT') for _ in range($G)))" > "$T/other.fa"
"$KB" qv "$T/other.fa" --reads "$T/reads.tsv" -o "$T/other" -t 2 --stats "$T/other.json" 2> "$T/other.err"
check "another genome's assembly gets a warning, on stderr and in --stats" \
  eval "grep -q 'warning: the assembly is far from its reads' '$T/other.err' && grep -q 'far from its reads' '$T/other.json'"
check "per-sequence QV: the planted contigs have errors, the copied ones none, tiny has no k-mer" eval \
  "awk '\$1 ~ /^ctg/ && \$2 == 0 { exit 1 } \$1 == \"lower\" && \$4 != \"inf\" { exit 1 } \$1 == \"tiny\" && \$4 != \"na\" { exit 1 }' '$T/kb.asm_sub.qv'"
python3 - "$T/kb.json" "$T/kb.qv" "$T/kb.completeness.stats" "$T/kb_mqc.json" "$threshold" << 'EOF' && ok "--stats and its MultiQC file hold the QV, completeness and threshold of the files" || bad "--stats disagrees with the files"
import json, sys
s = json.load(open(sys.argv[1]))
qv_line = open(sys.argv[2]).read().split("\t")
comp_line = open(sys.argv[3]).read().split("\t")
mqc = json.load(open(sys.argv[4]))
assert s["missing_kmers"] == int(qv_line[1]) and s["asm_kmers"] == int(qv_line[2]), s
assert abs(s["qv"] - float(qv_line[3])) < 1e-3 and abs(s["error_rate"] / float(qv_line[4]) - 1) < 1e-5
assert s["solid_kmers_in_asm"] == int(comp_line[2]) and s["solid_kmers_distinct"] == int(comp_line[3])
assert abs(s["completeness_percent"] - float(comp_line[4])) < 1e-3
assert s["solid_threshold"] == int(sys.argv[5]) and s["k"] == 21
row = mqc["data"]["kb"]
assert abs(row["qv"] - s["qv"]) < 1e-9 and abs(row["completeness_percent"] - s["completeness_percent"]) < 1e-9
EOF

python3 "$MODEL" --reads "$T/reads.tsv" --assembly "$T/asm_sub.fa" --prefix "$T/model9" --name asm_sub \
  --solid-threshold 9 > /dev/null
"$KB" qv "$T/asm_sub.fa" --reads "$T/reads.tsv" -o "$T/kb9" -t 2 --solid-threshold 9 -q
same_files "--solid-threshold 9 equals the model with that threshold" "$T/model9" "$T/kb9"

# --- the same files whatever the run -----------------------------------------
"$KB" qv "$T/asm_sub.fa" --reads "$T/reads.tsv" -o "$T/t1" -t 1 -q
"$KB" qv "$T/asm_sub.fa" --reads "$T/reads.tsv" -o "$T/t3" -t 3 -q
same_files "-t 1 and -t 2 give the same bytes" "$T/kb" "$T/t1"
same_files "-t 3 and -t 2 give the same bytes" "$T/kb" "$T/t3"
"$KB" qv "$T/asm_sub.fa" --reads "$T/reads.kff" -o "$T/kff" -t 2 -q
same_files "KFF read counts give what TSV ones give" "$T/kb" "$T/kff"
if need kmc; then  # the peer counter's KFF (-cs: counts not capped at 255)
  mkdir -p "$T/kmctmp"
  kmc -k$K -ci1 -cs1000000 -t2 -okff -fq "$T/reads.fq" "$T/kmc" "$T/kmctmp" > /dev/null 2>&1
  "$KB" qv "$T/asm_sub.fa" --reads "$T/kmc.kff" -o "$T/kmcq" -t 2 -q
  same_files "kmc -okff read counts give what kmerbloom's give" "$T/kb" "$T/kmcq"
  # The peer's own set algebra: assembly k-mers minus read k-mers (missing,
  # with the assembly's counts), solid read k-mers and those in the assembly.
  kmc -k$K -ci1 -cs1000000 -t2 -fm "$T/asm_sub.fa" "$T/kasm" "$T/kmctmp" > /dev/null 2>&1
  kmc -k$K -ci1 -cs1000000 -t2 -fq "$T/reads.fq" "$T/kreads" "$T/kmctmp" > /dev/null 2>&1
  kmc_tools simple "$T/kasm" -ci1 "$T/kreads" -ci1 kmers_subtract "$T/kmiss" > /dev/null 2>&1
  kmc_tools simple "$T/kreads" -ci$((threshold + 1)) "$T/kasm" -ci1 intersect "$T/ksia" > /dev/null 2>&1
  for db in kasm kmiss ksia; do kmc_tools transform "$T/$db" dump "$T/$db.txt" > /dev/null 2>&1; done
  kmc_tools transform "$T/kreads" -ci$((threshold + 1)) dump "$T/ksolid.txt" > /dev/null 2>&1
  want=$(awk '{ m += $2 } END { printf "%d\t", m }' "$T/kmiss.txt"; awk '{ t += $2 } END { print t }' "$T/kasm.txt")
  check "kmc_tools: missing and total k-mers ($want) are those of PREFIX.qv" test "$want" = "$(cut -f2,3 "$T/kb.qv")"
  want=$(printf '%d\t%d' "$(wc -l < "$T/ksia.txt")" "$(wc -l < "$T/ksolid.txt")")
  check "kmc_tools: solid k-mers in the assembly and solid k-mers ($want) are those of the completeness" \
    test "$want" = "$(cut -f3,4 "$T/kb.completeness.stats")"
fi
mkdir -p "$T/gz"
gzip -c "$T/asm_sub.fa" > "$T/gz/asm_sub.fa.gz"
"$KB" qv "$T/gz/asm_sub.fa.gz" --reads "$T/reads.tsv" -o "$T/gzo" -t 2 -q
same_files "a gzip assembly gives what the plain one gives (its name without .fa.gz)" "$T/kb" "$T/gzo"
mkdir -p "$T/spill"
"$KB" qv "$T/asm_sub.fa" --reads "$T/reads.tsv" -o "$T/small" -t 2 -M 64M --tmp-dir "$T/spill" -q
same_files "-M 64M gives the same bytes" "$T/kb" "$T/small"
"$KB" qv "$T/asm_sub.fa" --reads "$T/reads.tsv" -o "$T/noseq" -t 2 --no-per-sequence -q
check "--no-per-sequence writes no per-sequence file" test ! -e "$T/noseq.asm_sub.qv"
same "... and the same overall QV" "$T/kb.qv" "$T/noseq.qv"

# --- planted errors and truncation against the truth -------------------------
qv=$(cut -f4 "$T/kb.qv")
check "QV $qv of RATE = $RATE substitutions is within 1 of -10 log10(RATE)" \
  awk -v q="$qv" -v r=$RATE 'BEGIN { t = -10 * log(r) / log(10); exit !(q - t < 1 && t - q < 1) }'
"$KB" qv "$T/genome.fa" --reads "$T/reads.tsv" -o "$T/true" -t 2 -q
qv_true=$(cut -f4 "$T/true.qv")
check "the true genome's QV ($qv_true) is far above the planted one's" \
  awk -v a="$qv_true" -v b="$qv" 'BEGIN { exit !(a == "inf" || a > b + 10) }'
"$KB" qv "$T/asm_cut.fa" --reads "$T/reads.tsv" -o "$T/cut" -t 2 -q
got=$(cut -f5 "$T/cut.completeness.stats")
truth=$(cat "$T/cut.truth")
check "completeness $got of an 80% assembly is within 0.5 points of the truth $truth" \
  awk -v g="$got" -v t="$truth" 'BEGIN { exit !(g - t < 0.5 && t - g < 0.5) }'
# --- the copy-number spectrum (SVG, and its page rendered by Chromium) --------------
"$KB" qv "$T/asm_cut.fa" --reads "$T/reads.tsv" -o "$T/cutp" -t 2 -q --plot "$T/cut.svg" --report "$T/cut.html"
same "--plot and --report leave the completeness as it is" "$T/cut.completeness.stats" "$T/cutp.completeness.stats"
check "spectra-cn plot: a line for read-only, 1, 2, 3, 4 and >4 copies, the solid threshold dashed" \
  bash -c "test \$(grep -c 'class=\"cn\"' '$T/cut.svg') -eq 6 && grep -q 'class=\"solid\"' '$T/cut.svg'"
check "the 1-copy line peaks where the spectra-cn file does" python3 - "$T/cut.svg" "$T/cutp.asm_cut.spectra-cn.hist" <<'PY'
import re, sys
svg = open(sys.argv[1]).read()
lines = re.findall(r'class="cn"[^>]*points="([^"]+)"', svg)
one = [tuple(map(float, p.split(","))) for p in lines[1].split()]
x_peak = min(one, key=lambda p: p[1])[0]  # highest point: smallest y
rows = [l.split("\t") for l in open(sys.argv[2]) if l[0].isdigit()]
counts = {int(m): int(n) for c, m, n in rows if c == "1"}
best = max(counts, key=counts.get)
xs = sorted(p[0] for p in one)
step = xs[1] - xs[0]
assert abs((x_peak - xs[0]) / step + 1 - best) <= 1, (x_peak, best)
PY
check "the page says the QV and embeds the plot" bash -c "grep -q '<svg' '$T/cut.html' && grep -q 'Completeness' '$T/cut.html'"
check "the page has a per-sequence table: one row a sequence (a and b)" \
  bash -c "test \$(grep -c '^<tr><td>[ab]</td>' '$T/cut.html') -eq 2 && grep -q '<h2>Per sequence</h2>' '$T/cut.html'"
"$KB" qv "$T/asm_sub.fa" --reads "$T/reads.tsv" -o "$T/subp" -t 2 -q --plot "$T/sub.svg"
check "the plot has the assembly-only bar at count 0, as Merqury draws it" \
  bash -c "grep -q 'class=\"asm-only\"' '$T/sub.svg' && grep -q 'assembly only: ' '$T/sub.svg'"
if screenshot "$T/cut.html" "$T/cut.png" 900,700; then
  red=$(PYTHONPATH="$SRC/test/cli" python3 - "$T/cut.png" <<'PY'
import sys
from png_rows import png_rows
w, h, bpp, rows = png_rows(sys.argv[1])
# The 1-copy line's red (#d62728), a few shades either way for antialiasing.
print(sum(1 for line in rows for x in range(0, w * bpp, bpp)
          if line[x] > 180 and line[x + 1] < 90 and line[x + 2] < 90))
PY
  ) || red=0
  check "Chromium draws the 1-copy line ($red red pixels)" test "${red:-0}" -ge 300
fi
"$KB" count "$T/reads.fq" -k $K -c 3 -t 2 -q -o "$T/reads_c3.tsv"
"$KB" qv "$T/asm_cut.fa" --reads "$T/reads_c3.tsv" -o "$T/c3" -t 2 2> "$T/c3.err"
check "read counts made with a minimum count are said to be so" grep -q "start at count 3: they were counted with a minimum" "$T/c3.err"

# --- bad input: named, exit 3, nothing left behind ----------------------------
mkdir -p "$T/err"
printf 'hello\nACGT\n' > "$T/bad.fa"
expect_fail "a bad FASTA names the file and line" 3 "bad.fa.*line 1" -- \
  "$KB" qv "$T/bad.fa" --reads "$T/reads.tsv" -o "$T/err/a"
expect_fail "a missing assembly names it" 3 "nothere.fa" -- "$KB" qv "$T/nothere.fa" --reads "$T/reads.tsv" -o "$T/err/b"
expect_fail "a missing read count file names it" 3 "nothere.tsv" -- \
  "$KB" qv "$T/asm_sub.fa" --reads "$T/nothere.tsv" -o "$T/err/c"
expect_fail "-k other than the read counts' k names the file" 3 "reads.kff: .*k-mer of 21 bases, but -k is 25" -- \
  "$KB" qv "$T/asm_sub.fa" --reads "$T/reads.kff" -k 25 -o "$T/err/k"
{ head -3 "$T/reads.tsv"; printf 'ACGTACGTACGTACGTACGTAC\t4\n'; } > "$T/mixed.tsv"
expect_fail "read counts of two k name the line" 3 "mixed.tsv: line 4: k-mer of 22 bases, the first has 21" -- \
  "$KB" qv "$T/asm_sub.fa" --reads "$T/mixed.tsv" -o "$T/err/d"
{ sed -n 2p "$T/reads.tsv"; sed -n 1p "$T/reads.tsv"; } > "$T/unsorted.tsv"
expect_fail "unsorted read counts name the line" 3 "unsorted.tsv: line 2: k-mers out of order" -- \
  "$KB" qv "$T/asm_sub.fa" --reads "$T/unsorted.tsv" -o "$T/err/e"
awk 'NR == 150001 { print "ACGTNACGTACGTACGTACGT\t3" } { print }' "$T/reads.tsv" > "$T/late.tsv"
expect_fail "a bad k-mer far into the read counts (parsed ahead, blocks later) names its line" 3 \
  "late.tsv: line 150001: k-mer ACGTNACGTACGTACGTACGT holds a letter other than A, C, G, T" -- \
  "$KB" qv "$T/asm_sub.fa" --reads "$T/late.tsv" -o "$T/err/l"
printf 'TTTTTTTTTTTTTTTTTTTTT\t5\n' > "$T/noncanon.tsv"
expect_fail "non-canonical read counts are refused" 3 "noncanon.tsv: line 1: k-mer T+ is not canonical" -- \
  "$KB" qv "$T/asm_sub.fa" --reads "$T/noncanon.tsv" -o "$T/err/f"
expect_fail "the assembly cannot be a stream (it is read twice)" 2 "read twice" -- \
  "$KB" qv - --reads "$T/reads.tsv" -o "$T/err/g"
python3 -c "import random; r = random.Random(9); print('>other'); print(''.join(r.choice('ACGT') for _ in range(2500000)))" \
  > "$T/other.fa"
expect_fail "missing k-mers beyond a quarter of -M are a budget error (exit 5) that says what to do" 5 \
  "absent from the reads .*more than a quarter of -M \(10 MiB\): raise -M, or give --no-per-sequence" -- \
  "$KB" qv "$T/other.fa" --reads "$T/reads.tsv" -o "$T/err/h" -t 1 -M 40M
"$KB" qv "$T/other.fa" --reads "$T/reads.tsv" -o "$T/other" -t 1 -M 40M --no-per-sequence -q
check "... and --no-per-sequence needs none: every k-mer of another genome is missing" \
  awk -F '\t' '$2 == $3 && $2 > 2000000 { found = 1 } END { exit !found }' "$T/other.qv"
check "failed runs leave no output behind" test -z "$(ls -A "$T/err")"

finish
