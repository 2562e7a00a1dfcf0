#!/usr/bin/env bash
# kmerbloom estimate: on data/example.fq.gz the sample cap is not reached, so
# F1, F0 and f1..f10 must equal the exact counts of `kmerbloom count
# --min-count 1`; with a tiny cap the estimate is sampled and close.
. "$(dirname "$0")/lib.sh"
EX=$SRC/data/example.fq.gz

# Value of the top-level "key": N in a JSON file pretty-printed with 2 spaces.
json_num() { sed -n "s/^  \"$2\": *\([0-9.eE+-]*\),\{0,1\}\$/\1/p" "$1" | head -1; }
# Value of the NAME<TAB>VALUE row of an estimate table.
row() { awk -F'\t' -v n="$2" '$1 == n { print $2 }' "$1"; }
# equal WHAT GOT WANTED
equal() { if [ -n "$2" ] && [ "$2" = "$3" ]; then ok "$1 ($2)"; else bad "$1: got '$2', wanted '$3'"; fi; }

"$KB" estimate --help > "$T/help"
for opt in --kmer-size --no-canonical --threads --output --format --json --max-row --sample-log2; do
  grep -q -- "$opt" "$T/help" || bad "estimate --help lacks $opt"
done
ok "estimate --help lists every option"

# Exact truth from count, for canonical 31-mers, forward 31-mers and 45-mers (128-bit words).
for variant in "31" "31 --no-canonical" "45"; do
  set -- $variant
  k=$1; shift
  tag="k=$k${1:+ $1}"
  "$KB" count "$EX" -k "$k" "$@" --min-count 1 -o /dev/null --histo "$T/count.histo" --stats "$T/count.json" -t 2 -q
  "$KB" estimate "$EX" -k "$k" "$@" -o "$T/est.tsv" --json "$T/est.json" -t 2 -q
  equal "$tag: F1 equals count's kmers_total" "$(row "$T/est.tsv" F1)" "$(json_num "$T/count.json" kmers_total)"
  equal "$tag: F0 equals count's kmers_distinct" "$(row "$T/est.tsv" F0)" "$(json_num "$T/count.json" kmers_distinct)"
  equal "$tag: f1 equals count's kmers_singleton" "$(row "$T/est.tsv" f1)" "$(json_num "$T/count.json" kmers_singleton)"
  awk 'NR <= 10 { print "f" $1 "\t" $2 }' "$T/count.histo" > "$T/want.rows"
  grep '^f' "$T/est.tsv" > "$T/got.rows"
  same "$tag: f1..f10 equal count's histogram rows 1..10" "$T/got.rows" "$T/want.rows"
  check "$tag: JSON says exact" grep -q '"exact": true' "$T/est.json"
  equal "$tag: JSON kmers_distinct equals count's" "$(json_num "$T/est.json" kmers_distinct)" \
    "$(json_num "$T/count.json" kmers_distinct)"
done

# Table shape: F1, F0, then f1..fN.
"$KB" estimate "$EX" --max-row 3 -o "$T/r3.tsv" -q
printf 'F1\nF0\nf1\nf2\nf3\n' > "$T/want.names"
cut -f1 "$T/r3.tsv" > "$T/got.names"
same "--max-row 3 gives rows F1 F0 f1 f2 f3" "$T/got.names" "$T/want.names"
check "every value is an integer" awk -F'\t' 'NF != 2 || $2 !~ /^[0-9]+$/ { exit 1 }' "$T/r3.tsv"

# Same result whatever the thread count (the merged sample does not depend on it).
"$KB" estimate "$EX" -t 2 -o "$T/t2.tsv" -q
for t in 1 3; do
  "$KB" estimate "$EX" -t "$t" -o "$T/t$t.tsv" -q
  same "threads=$t table identical to threads=2" "$T/t$t.tsv" "$T/t2.tsv"
done

# --format json on -o, and stdout by default.
"$KB" estimate "$EX" --format json -o "$T/fmt.json" -q
check "--format json writes JSON with the sampling rate" grep -q '"rate": 1' "$T/fmt.json"
"$KB" estimate "$EX" -q > "$T/stdout.tsv"
same "stdout table equals -o table" "$T/stdout.tsv" "$T/t2.tsv"

# Sampled: a 2^10 cap on ~28,000 distinct k-mers samples about 1 in 32. F1 stays
# exact; F0 and f1 land within 5 standard errors (stated for F0 as rse; a row
# with n of the N sampled keys has rse * sqrt(N / n)).
"$KB" estimate "$EX" --sample-log2 10 -o "$T/s.tsv" --json "$T/s.json" -t 2 -q
check "sampled: JSON says not exact" grep -q '"exact": false' "$T/s.json"
equal "sampled: F1 still exact" "$(row "$T/s.tsv" F1)" "$(row "$T/t2.tsv" F1)"
rse=$(json_num "$T/s.json" relative_std_error)
for name in F0 f1; do
  check "sampled: $name within 5 standard errors (F0 rse $rse)" awk -v e="$(row "$T/s.tsv" $name)" \
    -v t="$(row "$T/t2.tsv" $name)" -v r="$rse" -v n="$(row "$T/s.tsv" $name)" -v N="$(row "$T/s.tsv" F0)" \
    'BEGIN { d = (e - t) / t; if (d < 0) d = -d; exit !(r > 0 && n > 0 && d < 5 * r * sqrt(N / n)) }'
  echo "   $name: estimate $(row "$T/s.tsv" $name), truth $(row "$T/t2.tsv" $name)"
done

# Errors: bad options exit 2, unreadable input 3, and no output file is left behind.
expect_fail "--sample-log2 2 is refused" 2 'sample-log2' -- "$KB" estimate "$EX" --sample-log2 2 -o "$T/no1.tsv"
expect_fail "-k 0 is refused" 2 '-k must be' -- "$KB" estimate "$EX" -k 0 -o "$T/no2.tsv"
expect_fail "--max-row 0 is refused" 2 'max-row' -- "$KB" estimate "$EX" --max-row 0 -o "$T/no3.tsv"
expect_fail "missing input exits 3" 3 'no-such' -- "$KB" estimate "$T/no-such.fq" -o "$T/no4.tsv"
check "no output left after failures" bash -c "! ls '$T'/no*.tsv 2>/dev/null | grep -q ."

finish
