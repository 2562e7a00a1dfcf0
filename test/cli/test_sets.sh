#!/usr/bin/env bash
# kmerbloom sets against KMC 3's kmc_tools simple as the oracle: every
# operation and count mode, input and result count ranges, KFF and TSV inputs
# (kmc -okff's too), three inputs (kmc_tools chained two by two), the KFF
# output read back by kmc_tools; then --presence, --histo and --stats against
# what the output itself says, -t 1 = -t 2 byte for byte, and bad inputs that
# fail naming the file and leave no output.
. "$(dirname "$0")/lib.sh"
need kmc_tools kmc || { finish; exit $?; }
need kmc kmc || { finish; exit $?; }
SIM=$SRC/test/cli/simreads.py

# Genomes of one seed share their prefix: a and b overlap on 40 kb, c on 30 kb.
python3 "$SIM" --genome 40000 --reads 2500 --length 100 --seed 7 --error-rate 0.004 > "$T/a.fq"
python3 "$SIM" --genome 50000 --reads 3500 --length 100 --seed 7 --error-rate 0.004 > "$T/b.fq"
python3 "$SIM" --genome 30000 --reads 2000 --length 80 --seed 7 --error-rate 0.004 > "$T/c.fq"
for s in a b c; do
  "$KB" count "$T/$s.fq" -k 31 -c 1 -t 2 -q -o "$T/$s.kff" --format kff
  "$KB" count "$T/$s.fq" -k 31 -c 1 -t 2 -q -o "$T/$s.tsv"
done
BIG=-cs4294967295  # KMC caps result counts at 255 unless told
# kmc_tools simple A [IN_OPTS] B [IN_OPTS] OP OUT [OUT_OPTS], dumped sorted to OUT.txt
kt() {  # kt OUT IN_OPTS OP OUT_OPTS... (inputs A B from $KA $KB_)
  local out=$1 inopts=$2 op=$3
  shift 3
  # shellcheck disable=SC2086
  kmc_tools -hp -t2 simple "$KA" $inopts "$KB_" $inopts "$op" "$T/$out" -ci1 $BIG "$@" > /dev/null
  kmc_tools -hp -t2 transform "$T/$out" dump -s "$T/$out.txt" > /dev/null
}
KA=$T/a.kff KB_=$T/b.kff
kmc_ops=(union union union intersect intersect intersect intersect intersect kmers_subtract counters_subtract)
ours=(union union union intersect intersect intersect intersect intersect diff subtract)
kmodes=(-ocsum -ocmin -ocmax -ocmin -ocmax -ocsum -ocleft -ocright "" "")
modes=(auto min max auto max sum first last auto auto)
for i in "${!ours[@]}"; do
  tag=${ours[$i]}.${modes[$i]}
  kt "k.$tag" "-ci1" "${kmc_ops[$i]}" ${kmodes[$i]}
  "$KB" sets "${ours[$i]}" "$T/a.kff" "$T/b.tsv" --counts "${modes[$i]}" -q -o "$T/o.$tag.tsv"
  same "${ours[$i]} --counts ${modes[$i]} = kmc_tools ${kmc_ops[$i]} ${kmodes[$i]}" "$T/k.$tag.txt" "$T/o.$tag.tsv"
  # Count ranges on both inputs (-ci/-cx after each input) and on the result.
  kt "kf.$tag" "-ci2 -cx12" "${kmc_ops[$i]}" ${kmodes[$i]} -ci3 -cx15
  "$KB" sets "${ours[$i]}" "$T/a.tsv" "$T/b.kff" --counts "${modes[$i]}" --input-min-count 2 --input-max-count 12 \
    -c 3 -U 15 -q -o "$T/of.$tag.tsv"
  same "... with input range 2..12 and result range 3..15" "$T/kf.$tag.txt" "$T/of.$tag.tsv"
done
check "the filtered results are not empty" test "$(wc -l < "$T/of.subtract.auto.tsv")" -gt 100
check "... and the ranges change them" eval "! cmp -s '$T/o.union.auto.tsv' '$T/of.union.auto.tsv'"
check "the modes give different counts (union sum and max, intersect first and last)" eval \
  "! cmp -s '$T/o.union.auto.tsv' '$T/o.union.max.tsv' && ! cmp -s '$T/o.intersect.first.tsv' '$T/o.intersect.last.tsv'"

# --presence: KMC's counter size 1 caps every count at one.
kt "k.presence" "-ci1" union -cs1
"$KB" sets union "$T/a.kff" "$T/b.kff" --presence -q -o "$T/o.presence.tsv"
same "union --presence = kmc_tools union -cs1" "$T/k.presence.txt" "$T/o.presence.tsv"

# Three inputs: kmc_tools chained two by two, for operations that chain.
three() {  # three OURS KMC_OP MODE KMC_MODE
  KA=$T/a.kff KB_=$T/b.kff kt "ab.$1.$3" "-ci1" "$2" $4
  KA=$T/ab.$1.$3 KB_=$T/c.kff kt "abc.$1.$3" "-ci1" "$2" $4
  "$KB" sets "$1" "$T/a.kff" "$T/b.tsv" "$T/c.kff" --counts "$3" -t 2 -q -o "$T/o3.$1.$3.tsv"
  same "three inputs: $1 --counts $3 = kmc_tools $2 $4, twice" "$T/abc.$1.$3.txt" "$T/o3.$1.$3.tsv"
}
three union union auto -ocsum
three union union max -ocmax
three intersect intersect auto -ocmin
three intersect intersect sum -ocsum
three diff kmers_subtract auto ""
three subtract counters_subtract auto ""
check "... the intersection of three is not empty" test -s "$T/o3.intersect.auto.tsv"

# KMC's own KFF (one section per bin, merged in order) as an input.
mkdir -p "$T/kmc-tmp"
kmc -k31 -ci1 -cs4294967295 -okff -t2 -hp "$T/c.fq" "$T/kmc-c" "$T/kmc-tmp" > /dev/null
"$KB" sets intersect "$T/a.kff" "$T/kmc-c.kff" -q -o "$T/o.kmc-in.tsv"
"$KB" sets intersect "$T/a.kff" "$T/c.tsv" -q -o "$T/o.ours-in.tsv"
same "kmc -okff output as an input = count's TSV" "$T/o.ours-in.tsv" "$T/o.kmc-in.tsv"

# --- output formats, mixed inputs, threads ---------------------------------
"$KB" sets subtract "$T/a.tsv" "$T/b.kff" -q -o "$T/o.sub.kff" --format kff
kmc_tools -hp -t2 transform "$T/o.sub.kff" dump -s "$T/o.sub.kff.txt" > /dev/null
same "a KFF output reads back in kmc_tools as the TSV output" "$T/o.subtract.auto.tsv" "$T/o.sub.kff.txt"
"$KB" sets subtract "$T/a.tsv" "$T/b.kff" -q -o "$T/o.sub.fa" --format fasta
paste - - < "$T/o.sub.fa" | awk -F'\t' '{ print $2 "\t" substr($1, 2) }' > "$T/o.sub.fa.tsv"
same "the FASTA form output holds the TSV output" "$T/o.subtract.auto.tsv" "$T/o.sub.fa.tsv"
gzip -c "$T/b.tsv" > "$T/b.tsv.gz"
"$KB" sets union "$T/a.kff" - "$T/b.tsv.gz" -q -o "$T/o.mixed.tsv" < "$T/c.tsv"
"$KB" sets union "$T/a.kff" "$T/c.kff" "$T/b.kff" -q -o "$T/o.kffs.tsv"
same "TSV on stdin, gzip TSV and KFF inputs mixed = KFF inputs" "$T/o.kffs.tsv" "$T/o.mixed.tsv"
differ=0
for f in tsv kff fasta; do
  for op in union intersect diff subtract; do
    "$KB" sets $op "$T/a.kff" "$T/b.tsv" "$T/c.kff" -t 1 -q -o "$T/t1.$op.$f" --format $f --histo "$T/t1.$op.histo"
    "$KB" sets $op "$T/a.kff" "$T/b.tsv" "$T/c.kff" -t 2 -q -o "$T/t2.$op.$f" --format $f --histo "$T/t2.$op.histo"
    cmp -s "$T/t1.$op.$f" "$T/t2.$op.$f" && cmp -s "$T/t1.$op.histo" "$T/t2.$op.histo" || {
      echo "  $op --format $f: -t 1 and -t 2 differ"
      differ=$((differ + 1))
    }
  done
done
check "every operation and format: -t 1 and -t 2 write the same bytes ($differ differ)" test "$differ" -eq 0

gzip -c "$T/a.kff" > "$T/a.kff.gz"
"$KB" sets intersect "$T/a.kff.gz" "$T/b.kff" -q -o "$T/o.gz-in.tsv.gz"
same "a gzip KFF input, a gzip output" <(gzip -dc "$T/o.gz-in.tsv.gz") "$T/o.intersect.auto.tsv"

# Counts of every width through a KFF output and back: 1 to 2^40, summed by
# union; KFF holds those above 2^32 - 1 as 2^32 - 1 (KMC's 32-bit counters).
python3 - "$T/wide1.tsv" "$T/wide2.tsv" << 'PY'
import itertools, sys
kmers = [''.join(t) for t in itertools.product('ACGT', repeat=6)]
with open(sys.argv[1], 'w') as a, open(sys.argv[2], 'w') as b:
    for i, kmer in enumerate(kmers):
        a.write(f"{kmer}\t{1 << (i % 41)}\n")
        if i % 3 == 0:
            b.write(f"{kmer}\t{i + 1}\n")
PY
"$KB" sets union "$T/wide1.tsv" "$T/wide2.tsv" -q -o "$T/wide.kff" --format kff
"$KB" merge-counts "$T/wide.kff" -q -o "$T/wide.back.tsv"
python3 - "$T/wide1.tsv" "$T/wide2.tsv" > "$T/wide.py.tsv" << 'PY'
import sys
sums = {}
for path in sys.argv[1:]:
    for line in open(path):
        kmer, count = line.split()
        sums[kmer] = sums.get(kmer, 0) + int(count)
for kmer in sorted(sums):
    print(f"{kmer}\t{min(sums[kmer], 2**32 - 1)}")
PY
same "counts up to 2^40, summed, through a KFF output and back, capped at 2^32 - 1" "$T/wide.py.tsv" "$T/wide.back.tsv"

# Memory does not grow with the sets: 25 times more k-mers, about the same peak.
python3 - "$T/big1.tsv" "$T/big2.tsv" << 'PY'
import itertools, sys
with open(sys.argv[1], 'w') as a, open(sys.argv[2], 'w') as b:
    for i, t in enumerate(itertools.product('ACGT', repeat=11)):
        if i % 2 == 0:
            a.write(''.join(t) + '\t3\n')
        if i % 3 == 0:
            b.write(''.join(t) + '\t5\n')
PY
peak() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["peak_memory_bytes"] >> 20)' "$1"; }
kin() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["kmers_in"])' "$1"; }
"$KB" sets union "$T/a.tsv" "$T/b.tsv" -t 2 -q -o /dev/null --stats "$T/small.json" --no-multiqc
"$KB" sets union "$T/big1.tsv" "$T/big2.tsv" -t 2 -q -o /dev/null --stats "$T/big.json" --no-multiqc
if grep -qaE '__(a|t)san_init' "$KB"; then
  skip_build "the peak memory check (sanitizer build: shadow memory counts in the resident set)"
else
  check "peak memory for $(kin "$T/big.json") k-mers in ($(peak "$T/big.json") MB) within 8 MB of that for $(kin "$T/small.json") ($(peak "$T/small.json") MB)" \
    test "$(peak "$T/big.json")" -le $(($(peak "$T/small.json") + 8))
fi

# --- histogram and statistics, against the output itself ---------------------
"$KB" sets union "$T/a.kff" "$T/b.kff" -q -o "$T/u.tsv" --histo "$T/u.histo" --histo-max 20 --stats "$T/u.stats.json"
awk -F'\t' '{ h[$2 > 20 ? 21 : $2]++ } END { for (c = 1; c <= 21; c++) print c, h[c] + 0 }' "$T/u.tsv" > "$T/u.histo.awk"
same "--histo counts the result's counts (rows 1..--histo-max, then the overflow row)" "$T/u.histo.awk" "$T/u.histo"
py_stats() {
  python3 - "$@" << 'PY'
import json, sys
s = json.load(open(sys.argv[1]))
lines = lambda p: sum(1 for _ in open(p))
out = lines(sys.argv[2])
total = sum(int(l.split('\t')[1]) for l in open(sys.argv[2]))
ins = [lines(p) for p in sys.argv[3:]]
assert s["command"] == "sets" and s["operation"] == "union" and s["count_mode"] == "sum", s
assert s["kmers_out"] == out and s["count_sum_out"] == total, (s["kmers_out"], out)
assert [i["kmers"] for i in s["input_files"]] == ins and s["kmers_in"] == sum(ins) and s["k"] == 31
PY
}
check "--stats: k-mers in and out, summed count, k as the files say" py_stats "$T/u.stats.json" "$T/u.tsv" "$T/a.tsv" "$T/b.tsv"
check "--stats writes its MultiQC file beside it" grep -q '"kmers_out"' "$T/u.stats_mqc.json"

# --- errors: the file and line named, no output left -------------------------
"$KB" count "$T/a.fq" -k 25 -c 1 -q -o "$T/a25.kff" --format kff
expect_fail "inputs of different k name both files" 3 "a25.kff: k-mers of 25 bases, but .*a.kff holds 31-mers" -- \
  "$KB" sets union "$T/a.kff" "$T/a25.kff" -o "$T/e.tsv"
check "... and leave no output" test ! -e "$T/e.tsv"
{ head -5 "$T/a.tsv"; sed -n 3p "$T/a.tsv"; } > "$T/unsorted.tsv"
expect_fail "an unsorted input names the file and line" 3 "unsorted.tsv: line 6: k-mers out of order" -- \
  "$KB" sets intersect "$T/b.tsv" "$T/unsorted.tsv" -o "$T/e.tsv" --format kff
check "... and leaves no output" test ! -e "$T/e.tsv"
{ head -5 "$T/a.tsv"; sed -n 5p "$T/a.tsv"; } > "$T/twice.tsv"
expect_fail "a repeated k-mer names the file and line" 3 "twice.tsv: line 6: k-mer repeated" -- \
  "$KB" sets diff "$T/twice.tsv" "$T/b.tsv" -t 2 -o "$T/e.tsv"
printf 'ACGTNACGTA\t3\n' > "$T/n.tsv"
expect_fail "a letter other than ACGT names the file and line" 3 "n.tsv: line 1: k-mer ACGTNACGTA holds a letter" -- \
  "$KB" sets union "$T/n.tsv" -o "$T/e.tsv"
printf 'ACGTA\tthree\n' > "$T/bad.tsv"
expect_fail "a malformed count names the file and line" 3 "bad.tsv: line 1" -- "$KB" sets union "$T/bad.tsv" -o "$T/e.tsv"
expect_fail "a missing input is an input error" 3 "missing.tsv" -- "$KB" sets union "$T/a.kff" "$T/missing.tsv" -o "$T/e.tsv"
check "... and every failed run left no output" test ! -e "$T/e.tsv"
expect_fail "diff takes two inputs or more" 2 "diff needs two inputs" -- "$KB" sets diff "$T/a.kff" -o "$T/e.tsv"
expect_fail "a count mode the operation does not take" 2 "--counts first does not apply to union" -- \
  "$KB" sets union "$T/a.kff" "$T/b.kff" --counts first -o "$T/e.tsv"
expect_fail "an unknown operation" 2 "operation" -- "$KB" sets xor "$T/a.kff" "$T/b.kff" -o "$T/e.tsv"
check "... nor did the usage errors" test ! -e "$T/e.tsv"
# --- KMC's spellings get kmerbloom's ---------------------------------------
expect_fail "KMC's -ci2 gets a hint for inputs and result" 2 "hint: -ci2 .*--input-min-count 2 for the inputs, -c 2 for the result" -- \
  "$KB" sets intersect "$T/a.kff" "$T/b.kff" -ci2 -o "$T/e.tsv"
expect_fail "kmc_tools' kmers_subtract gets diff" 2 "hint: kmc_tools' kmers_subtract is kmerbloom sets diff" -- \
  "$KB" sets kmers_subtract "$T/a.kff" "$T/b.kff" -o "$T/e.tsv"
expect_fail "KMC's -ocleft (read as -o cleft) is refused with --counts first" 2 "KMC's -ocleft\? kmerbloom sets writes --counts first" -- \
  "$KB" sets intersect "$T/a.kff" "$T/b.kff" -ocleft
expect_fail "KMC's -okff (read as -o kff) is refused with --format kff" 2 "writes --format kff" -- \
  "$KB" sets intersect "$T/a.kff" "$T/b.kff" -okff
expect_fail "no operation: what sets needs" 2 "no input given: sets needs an operation" -- "$KB" sets
check "... and none of them wrote a file" test ! -e "$T/e.tsv" -a ! -e cleft -a ! -e kff
: > "$T/empty.tsv"
"$KB" sets union "$T/empty.tsv" "$T/empty.tsv" -q -o "$T/empty.out"
check "empty inputs give an empty result" test -e "$T/empty.out" -a ! -s "$T/empty.out"
"$KB" sets intersect "$T/a.kff" "$T/empty.tsv" -q -o "$T/empty2.out"
check "... and an empty input empties an intersection" test -e "$T/empty2.out" -a ! -s "$T/empty2.out"
# --- options and mixes that would be silently useless ------------------------
expect_fail "--histo with --histo-max 0 refused" 2 "histo-max must be at least 1" -- \
  "$KB" sets union "$T/a.tsv" "$T/b.tsv" --histo "$T/h0" --histo-max 0 -o "$T/h0.tsv"
check "... and nothing written" test ! -e "$T/h0" -a ! -e "$T/h0.tsv"
"$KB" count "$T/a.fq" -k 31 -c 1 -t 2 -q --no-canonical -o "$T/a_fwd.kff"
expect_fail "a canonical and an as-read KFF input refused, both named" 2 \
  "canonical k-mers and k-mers as read: .*a.kff \(KFF: canonical\) and .*a_fwd.kff \(KFF: as read\)" -- \
  "$KB" sets union "$T/a.kff" "$T/a_fwd.kff" -o "$T/mix.kff"
check "... and nothing written" test ! -e "$T/mix.kff"
expect_fail "--no-canonical against canonical KFF inputs refused" 2 "no-canonical, but the KFF inputs declare canonical" -- \
  "$KB" sets union "$T/a.kff" "$T/b.tsv" --no-canonical -o "$T/mix2.tsv"
"$KB" sets union "$T/a_fwd.kff" "$T/a_fwd.kff" -q -o "$T/fwd.kff"
"$KB" sets union "$T/fwd.kff" "$T/a_fwd.kff" -q -o "$T/fwd2.kff"
check "as-read KFF inputs give an as-read KFF result (its header read back by the next operation)" test -s "$T/fwd2.kff"
"$KB" count "$T/a.fq" -k 21 -c 1000000 -q -o "$T/empty21.kff"
expect_fail "an empty KFF declaring k = 21 beside 31-mers refused, both named" 3 \
  "empty21.kff: declares k = 21 \(no k-mers\), but .*a.tsv holds 31-mers" -- \
  "$KB" sets union "$T/a.tsv" "$T/empty21.kff" -o "$T/e21.tsv"
# From a stream: parsed on a thread of its own (the first input) or with the merge.
expect_fail "... and from standard input (second), once it is read" 3 "declares k = 21 \(no k-mers\)" -- \
  sh -c 'exec "$1" sets union "$2" - -t 2 -o "$2.e21" < "$3"' sh "$KB" "$T/a.tsv" "$T/empty21.kff"
expect_fail "... and from standard input (first), once it is read" 3 "declares k = 21 \(no k-mers\)" -- \
  sh -c 'exec "$1" sets union - "$2" -t 2 -o "$2.e21" < "$3"' sh "$KB" "$T/a.tsv" "$T/empty21.kff"

# --- counts past KMC's 32-bit counters: capped in KFF and said, exact in TSV --
printf 'AAAAACCCCCGGGGGTTTTTAAAAACCCCCG\t3000000000\nACGTACGTACGTACGTACGTACGTACGTACT\t7\n' > "$T/huge.tsv"
"$KB" sets union "$T/huge.tsv" "$T/huge.tsv" --counts sum -o "$T/huge.kff" --stats "$T/huge.json" --no-multiqc \
  2> "$T/huge.err"
check "a sum above 2^32 - 1 warned of, naming the cap" grep -q "1 k-mers have counts above 4294967295" "$T/huge.err"
check "... and --stats says how many were capped" test "$(json_field "$T/huge.json" kmers_count_capped)" = 1
kmc_tools -hp transform "$T/huge.kff" dump -s "$T/huge.kmc.txt" > /dev/null
same "kmc_tools reads the capped KFF as written: 4294967295, and 14 exactly" "$T/huge.kmc.txt" \
  <(printf 'AAAAACCCCCGGGGGTTTTTAAAAACCCCCG\t4294967295\nACGTACGTACGTACGTACGTACGTACGTACT\t14\n')
"$KB" sets union "$T/huge.tsv" "$T/huge.tsv" --counts sum -q -o "$T/huge.out.tsv"
same "TSV holds the sum exactly" "$T/huge.out.tsv" \
  <(printf 'AAAAACCCCCGGGGGTTTTTAAAAACCCCCG\t6000000000\nACGTACGTACGTACGTACGTACGTACGTACT\t14\n')
# --like-kmc-tools: kmc_tools simple gives its output the inputs' range (the
# smallest -ci, the largest -cx) and caps counts at -cs (255 unless given)
# before that range; kmc_tools with its own defaults is the oracle.
ktd() {  # ktd NAME KMC_TOOLS_ARGS...: kmc_tools simple as typed, dumped sorted to $T/NAME.txt
  local name=$1
  shift
  kmc_tools -hp -t2 simple "$@" > /dev/null
  kmc_tools -hp -t2 transform "$T/$name" dump -s "$T/$name.txt" > /dev/null
}
ktd like1 "$T/a.kff" -ci2 "$T/b.kff" -ci2 counters_subtract "$T/like1"
"$KB" sets subtract "$T/a.tsv" "$T/b.tsv" --input-min-count 2 --like-kmc-tools -q -o "$T/like1.tsv"
same "--like-kmc-tools: subtract -ci2 on both inputs is kmc_tools' (the result from 2 up)" "$T/like1.txt" "$T/like1.tsv"
"$KB" sets subtract "$T/a.tsv" "$T/b.tsv" --input-min-count 2 -q -o "$T/own1.tsv"
check "kmerbloom's own rule keeps the result counts from 1 (more k-mers than kmc_tools)" \
  test "$(wc -l < "$T/own1.tsv")" -gt "$(wc -l < "$T/like1.txt")"
ktd like2 "$T/a.kff" -cx8 "$T/b.kff" -cx8 union "$T/like2"
"$KB" sets union "$T/a.tsv" "$T/b.tsv" --input-max-count 8 --like-kmc-tools -q -o "$T/like2.tsv"
same "--like-kmc-tools: union -cx8 on both inputs is kmc_tools' (sums above 8 left out)" "$T/like2.txt" "$T/like2.tsv"
ktd like3 "$T/a.kff" -ci2 "$T/b.kff" -ci2 intersect "$T/like3" -cs1
"$KB" sets intersect "$T/a.tsv" "$T/b.tsv" --input-min-count 2 --cap 1 --like-kmc-tools -q -o "$T/like3.tsv"
same "--like-kmc-tools: intersect -ci2, output -cs1 is kmc_tools' (capped to 1, then below 2: none)" "$T/like3.txt" "$T/like3.tsv"
check "... and that is no k-mer" test ! -s "$T/like3.tsv"
python3 "$SIM" --genome 3000 --reads 6000 --length 100 --seed 3 > "$T/deep.fq"  # about 200x: sums above 255
"$KB" count "$T/deep.fq" -k 31 -c 1 -q -o "$T/deep.kff"
ktd like5 "$T/deep.kff" "$T/deep.kff" union "$T/like5"
"$KB" sets union "$T/deep.kff" "$T/deep.kff" --like-kmc-tools -q -o "$T/like5.tsv"
same "--like-kmc-tools: counts capped at 255, kmc_tools' default -cs" "$T/like5.txt" "$T/like5.tsv"
check "... which the sums passed" grep -q "	255$" "$T/like5.tsv"
finish
