#!/usr/bin/env bash
# hetmers: the het-mer pairs of a count file, against an independent brute
# force (test/cli/hetmer_oracle.py: every pair at one base among the k-mers
# and their reverse complements, a k-mer in two pairs dropped), bin for bin
# and pair for pair; the same bytes whatever -t and -M; smudgeplot's cutoff
# rules against their Python form; simulated diploid and tetraploid genomes
# whose smudge lies where their coverage puts it; refused input leaves nothing.
. "$(dirname "$0")/lib.sh"
ORACLE=$SRC/test/cli/hetmer_oracle.py
need python3 python3 || { finish; exit; }

# --- brute force on small sets: odd and even k, palindromes, families --------
fails=0 runs=0
for k in 2 3 4 5 6 7 9 21 31; do
  for seed in 1 2; do
    n=$([ "$k" -le 5 ] && echo $((4 ** k / 8)) || echo 600)  # a quarter of the canonical k-mers at most
    python3 "$ORACLE" random "$k" "$n" "$seed" > "$T/r.tsv"
    for lu in "1 999" "12 300" "30 999"; do
      set -- $lu
      runs=$((runs + 1))
      "$KB" hetmers "$T/r.tsv" -o "$T/r" -L "$1" -U "$2" -t 2 --pairs -q
      python3 "$ORACLE" search "$T/r.tsv" "$1" "$2" "$T/o"
      if ! cmp -s "$T/r.smu" "$T/o.smu" || ! sort "$T/r.pairs.tsv" | cmp -s - "$T/o.pairs"; then
        fails=$((fails + 1))
        echo "  k=$k seed=$seed L=$1 U=$2 differs:"
        first_difference "$T/r.smu" "$T/o.smu"
      fi
    done
  done
done
check "smu bins and pairs equal the brute force ($runs sets, $fails differ)" test "$fails" -eq 0
check "... and the sets hold unique pairs" test -s "$T/o.smu"

# --- simulated diploid: AB smudge at minor share 1/2, sum 2 x haploid ---------
# 100-base reads at 30x per haplotype: k-mer coverage 30 * (100 - 21 + 1) / 100.
python3 "$ORACLE" genome 2 1 40000 30 7 > "$T/d.fq"
"$KB" count "$T/d.fq" -k 21 -t 2 -q -o "$T/d.tsv"
"$KB" hetmers "$T/d.tsv" -o "$T/d" -t 2 --pairs --stats "$T/d.json" 2> "$T/d.err"
# smudgeplot's `cutoff L`, in its own terms: the first local minimum of the
# histogram rows from the smallest count on, as a 0-based row index.
lower=$(python3 - "$T/d.tsv" <<'PY'
import sys
counts = [int(line.split()[1]) for line in open(sys.argv[1])]
first, last = min(counts), max(counts)
hist = [0] * (last - first + 1)
for c in counts:
    hist[c - first] += 1
i = next(i for i, y in enumerate(hist)
         if (i == 0 or hist[i - 1] >= y) and (i == len(hist) - 1 or y < hist[i + 1]))
print(max(10, int(round((i + first - 1) * 1.25))))
PY
)
check "default L is smudgeplot's cutoff L of the histogram ($lower)" \
  grep -q "\"lower\": $lower," "$T/d.json"
grep -q "L = $lower (smudgeplot's cutoff L" "$T/d.err" && ok "... said on stderr" || bad "stderr lacks L: $(cat "$T/d.err")"
python3 "$ORACLE" search "$T/d.tsv" "$lower" $((1000 - lower)) "$T/do"
same "diploid: smu equals the brute force" "$T/d.smu" "$T/do.smu"
same "diploid: pairs equal the brute force" <(sort "$T/d.pairs.tsv") "$T/do.pairs"
read -r share sum ploidy pairs smu_sum considered < <(python3 - "$T/d.json" "$T/d.smu" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j["smudge_peak"]
total = sum(int(l.split()[2]) for l in open(sys.argv[2]))
print(p["minor_share"], p["coverage_sum"], p["ploidy"], j["unique_pairs"], total, j["kmers_considered"])
PY
)
haploid=$(awk 'BEGIN { print 30 * (100 - 21 + 1) / 100 }')
check "diploid: the densest smudge has minor share near 1/2 ($share)" awk -v s="$share" 'BEGIN { exit !(s > 0.42 && s <= 0.5) }'
check "diploid: at coverage sum 2 x haploid $haploid ($sum)" awk -v s="$sum" -v h="$haploid" 'BEGIN { exit !(s > 1.85 * h && s < 2.15 * h) }'
check "diploid: ploidy 2 suggested ($ploidy)" test "$ploidy" = 2
check "unique_pairs is the sum of the smu ($pairs, $smu_sum)" test "$pairs" = "$smu_sum"
expected=$(awk -v l="$lower" -v u=$((1000 - lower)) '$2 >= l && $2 <= u' "$T/d.tsv" | wc -l)
check "kmers_considered counts the k-mers in [L, U] ($considered, $expected)" test "$considered" = "$expected"
check "a MultiQC file beside the statistics" python3 -c "import json, sys; j = json.load(open(sys.argv[1])); sys.exit(j['plot_type'] != 'generalstats' or 'd' not in j['data'])" "$T/d_mqc.json"

# --- the same bytes whatever -t, -M, input form ----------------------------------
"$KB" hetmers "$T/d.tsv" -o "$T/d1" -t 1 --pairs -q
same "-t 1 writes the smu -t 2 writes" "$T/d.smu" "$T/d1.smu"
same "... and the same pairs, in the same order" "$T/d.pairs.tsv" "$T/d1.pairs.tsv"
"$KB" hetmers "$T/d.tsv" -o "$T/dm" -t 2 -M 31M --pairs --stats "$T/dm.json" -q
read -r planned peak < <(python3 -c "import json, sys; j = json.load(open(sys.argv[1])); print(j['memory_planned_bytes'], j['peak_memory_bytes'])" "$T/dm.json")
check "-M 31M: the search's plan fits in it ($planned bytes)" test "$planned" -le $((31 << 20))
if grep -qaE '__(a|t)san_init' "$KB"; then
  skip_build "the peak memory check (sanitizer build: shadow memory counts in the resident set)"
else
  check "... and holds: peak memory $peak bytes within 31 MiB" test "$peak" -le $((31 << 20))
fi
same "... with the same smu" "$T/d.smu" "$T/dm.smu"
same "... and the same pairs" "$T/d.pairs.tsv" "$T/dm.pairs.tsv"
"$KB" count "$T/d.fq" -k 21 -t 2 -q -o "$T/d.kff" --format kff
"$KB" hetmers "$T/d.kff" -o "$T/dk" -t 2 -q
same "a KFF count file gives the smu of the TSV" "$T/d.smu" "$T/dk.smu"
if need kmc kmc; then
  mkdir -p "$T/kmc-tmp"
  kmc -k21 -ci2 -cs4294967295 -okff -t2 -hp "$T/d.fq" "$T/kmc" "$T/kmc-tmp" > /dev/null
  "$KB" hetmers "$T/kmc.kff" -o "$T/dkmc" -t 2 -q
  same "kmc -okff counts give the smu of kmerbloom's counts" "$T/d.smu" "$T/dkmc.smu"
fi
gzip -c "$T/d.tsv" > "$T/d.tsv.gz"
"$KB" hetmers - -o "$T/dz" -q < "$T/d.tsv.gz"
same "gzip on standard input too" "$T/d.smu" "$T/dz.smu"

# --- straight from reads: every k-mer counted first, as count -c 1 writes them ------
"$KB" count "$T/d.fq" -k 21 -c 1 -t 2 -q -o "$T/d1.tsv"
"$KB" hetmers "$T/d1.tsv" -o "$T/d1" -q
"$KB" hetmers --reads "$T/d.fq" -o "$T/dr" -t 2 -q
same "hetmers --reads equals hetmers on the reads' count -c 1" "$T/d1.smu" "$T/dr.smu"
expect_fail "a count file and --reads together are refused" 2 "not both" -- "$KB" hetmers "$T/d1.tsv" --reads "$T/d.fq" -o "$T/no"
expect_fail "neither is refused" 2 "needs a count file, or reads with --reads" -- "$KB" hetmers -o "$T/no"

# --- the smudge plot (SVG) and its page, rendered by Chromium -----------------------
"$KB" hetmers "$T/d.tsv" -o "$T/dp" -q --plot "$T/d.svg" --report "$T/d.html"
same "--plot and --report leave the smu as it is" "$T/d.smu" "$T/dp.smu"
cells=$(grep -c 'class="cell"' "$T/d.svg" || true)
check "smudge plot: $cells coloured cells, the densest smudge marked and said AB, ploidy 2" \
  bash -c "test '$cells' -gt 10 && grep -q 'class=\"peak\"' '$T/d.svg' && grep -q 'AB: ploidy 2' '$T/d.svg'"
check "smudge plot: a colour scale from 1 to the fullest cell's pairs" python3 - "$T/d.svg" <<'PY'
import re, sys
svg = open(sys.argv[1]).read()
assert 'class="scale"' in svg and 'fill="url(#pairs)"' in svg, "no scale"
cells = [int(n.replace(",", "")) for n in re.findall(r'class="cell".*?<title>([0-9,]+) pairs</title>', svg)]
labels = re.findall(r'<text x="[0-9.]+" y="[0-9.]+">([0-9,]+)</text>', svg)
assert str(f"{max(cells):,}") in labels, (max(cells), labels)
PY
check "smudge plot: the mark sits at the minor share of the statistics" python3 - "$T/d.svg" "$T/d.json" <<'PY'
import json, re, sys
cx = float(re.search(r'class="peak" cx="([0-9.]+)"', open(sys.argv[1]).read()).group(1))
share = json.load(open(sys.argv[2]))["smudge_peak"]["minor_share"]
assert abs((cx - 70) / 1000 - share) < 0.002, (cx, share)
PY
check "the page embeds the plot and says the ploidy" bash -c "grep -q '<svg' '$T/d.html' && grep -q 'AB, ploidy 2' '$T/d.html'"
if screenshot "$T/d.html" "$T/smudge.png" 900,800; then
  coloured=$(PYTHONPATH="$SRC/test/cli" python3 - "$T/smudge.png" <<'PY'
import sys
from png_rows import png_rows
w, h, bpp, rows = png_rows(sys.argv[1])
coloured = sum(1 for line in rows for x in range(0, w * bpp, bpp) if abs(line[x] - line[x + 2]) > 60)  # palette, not greys
print(coloured)
PY
  ) || coloured=0
  check "Chromium draws the smudge plot's cells ($coloured coloured pixels)" test "${coloured:-0}" -ge 1000
fi

# --- -U quantile: smudgeplot's older cutoff U -----------------------------------
"$KB" hetmers "$T/d.tsv" -o "$T/dq" -U quantile -q --stats "$T/dq.json"
upper=$(python3 - "$T/d.tsv" <<'PY'
import math, sys
counts = [int(line.split()[1]) for line in open(sys.argv[1])]
hist = [0] * max(counts)
for c in counts:
    hist[c - 1] += 1
total = sum(hist[1:])
cum = [sum(hist[1:i + 1]) / total for i in range(1, len(hist))]
u = min(i for i, q in enumerate(cum) if q > 0.998)
digits = math.ceil(math.log(u, 10))
mult = 10 ** (digits - 1) if digits <= 1 else 10 ** (digits - 2)
print(math.ceil(u / mult) * mult)
PY
)
check "-U quantile is smudgeplot's cutoff U ($upper)" grep -q "\"upper\": $upper," "$T/dq.json"

# --- simulated tetraploid, AAAB sites: minor share 1/4, sum 4 x haploid ------
python3 "$ORACLE" genome 4 1 40000 15 8 > "$T/t.fq"
"$KB" count "$T/t.fq" -k 21 -t 2 -q -o "$T/t.tsv"
"$KB" hetmers "$T/t.tsv" -o "$T/t" -L 5 -t 2 -q --stats "$T/t.json"
read -r share sum ploidy < <(python3 -c "import json, sys; p = json.load(open(sys.argv[1]))['smudge_peak']; print(p['minor_share'], p['coverage_sum'], p['ploidy'])" "$T/t.json")
haploid=$(awk 'BEGIN { print 15 * (100 - 21 + 1) / 100 }')
check "tetraploid: minor share near 1/4 ($share)" awk -v s="$share" 'BEGIN { exit !(s > 0.2 && s < 0.29) }'
check "tetraploid: at coverage sum 4 x haploid $haploid ($sum)" awk -v s="$sum" -v h="$haploid" 'BEGIN { exit !(s > 3.7 * h && s < 4.3 * h) }'
check "tetraploid: ploidy 4 suggested ($ploidy)" test "$ploidy" = 4

# --- haploid: hardly any pairs, no ploidy said ---------------------------------
python3 "$SRC/test/cli/simreads.py" --genome 40000 --reads 12000 --length 100 --seed 3 --error-rate 0.002 > "$T/h.fq"
"$KB" count "$T/h.fq" -k 21 -t 2 -q -o "$T/h.tsv"
"$KB" hetmers "$T/h.tsv" -o "$T/h" -q --stats "$T/h.json"
read -r pairs ploidy < <(python3 -c "import json, sys; j = json.load(open(sys.argv[1])); print(j['unique_pairs'], j['smudge_peak']['ploidy'])" "$T/h.json")
check "haploid: few unique pairs ($pairs) and no ploidy said ($ploidy)" eval "test $pairs -lt 100 && test $ploidy = None"

# --- refused input: a clear error, and no output ---------------------------------
refused() {  # refused WHAT CODE PATTERN FILE [options]
  local what=$1 code=$2 pattern=$3 file=$4
  shift 4
  rm -f "$T/bad.smu" "$T/bad.pairs.tsv"
  expect_fail "$what" "$code" "$pattern" -- "$KB" hetmers "$file" -o "$T/bad" --pairs "$@"
  check "... and leaves no output" test ! -e "$T/bad.smu" -a ! -e "$T/bad.pairs.tsv"
}
head -3 "$T/d.tsv" > "$T/bad1.tsv"; echo "ACGT" >> "$T/bad1.tsv"
refused "a line without a count names the file and line" 3 "bad1.tsv: line 4" "$T/bad1.tsv"
{ head -3 "$T/d.tsv"; head -1 "$T/d.tsv"; } > "$T/bad2.tsv"
refused "k-mers out of order name the line" 3 "bad2.tsv: line 4: .*out of order" "$T/bad2.tsv"
{ head -3 "$T/d.tsv"; printf 'TTTTTTTTTTTTTTTTTTTTT\t12\n'; } > "$T/bad3.tsv"
refused "a k-mer that is not canonical names the line" 3 "bad3.tsv: line 4: .*not canonical" "$T/bad3.tsv"
{ head -3 "$T/d.tsv"; printf 'ACGTN\t12\n'; } > "$T/bad4.tsv"
refused "a k-mer of another length names the line" 3 "bad4.tsv: line 4: k-mer of 5 bases, the first has 21" "$T/bad4.tsv"
refused "-k other than the file's names the file" 3 "d.tsv: line 1: k-mer of 21 bases, but -k is 25" "$T/d.tsv" -k 25
printf 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\t12\n' > "$T/k32.tsv"
refused "k above 31 says so" 3 "k32.tsv: line 1: .*k from 1 to 31" "$T/k32.tsv"
refused "a missing file is named" 3 "missing.tsv" "$T/missing.tsv"
refused "-M too small for the search says what it needs" 5 "hetmers needs at least" "$T/d.tsv" -M 2M
refused "L above U" 2 "L = 50 > U = 20" "$T/d.tsv" -L 50 -U 20
refused "-U neither a count nor quantile" 2 "-U wants a count" "$T/d.tsv" -U lots
finish
