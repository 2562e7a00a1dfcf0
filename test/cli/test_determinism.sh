#!/usr/bin/env bash
# "Same input and options give byte-identical output whatever the thread
# count", on an input of many batches so that the threads share the work:
# 27 Mb of simulated reads with errors is about 50 batches for count and
# filter (512 kb each), 26 for query (1 Mb) and 6 for estimate and build
# (4 Mb). Each subcommand runs at -t 1, 2, 3 and 8; every output must equal
# the -t 1 one, byte for byte.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
need python3 || { finish; exit; }

python3 "$HERE/simreads.py" --genome 2000000 --reads 110000 --length 250 --seed 31 --error-rate 0.005 --n-every 50 \
  --format fasta > "$T/reads.fa"
python3 "$HERE/simreads.py" --genome 2000000 --reads 12000 --length 150 --seed 32 --error-rate 0.01 | gzip -1 > "$T/other.fq.gz"
bases=$(awk 'NR % 2 == 0 { n += length($0) } END { print n }' "$T/reads.fa")
check "input of $bases bases: at least 6 batches of 4 Mb" test "$bases" -ge $((6 * 4194304))

# runs NAME COMMAND...: runs COMMAND with -t 1, 2, 3, 8; "{}" in an argument
# is replaced by the thread count (for output names).
runs() {
  local name=$1 t
  shift
  for t in 1 2 3 8; do
    "${@//\{\}/$t}" -t "$t" -q || bad "$name -t $t: exit $?"
  done
}
# alike WHAT FILE_PATTERN: the -t 2, 3, 8 files equal the -t 1 one ("{}" = threads).
alike() {
  local t one=${2//\{\}/1}
  check "$1: -t 1 output is not empty" test -s "$one"
  for t in 2 3 8; do
    same "$1: -t $t equals -t 1" "${2//\{\}/$t}" "$one"
  done
}

runs count "$KB" count "$T/reads.fa" -k 31 -o "$T/count.{}.tsv" --histo "$T/count.{}.histo" --stats "$T/count.{}.json" --no-multiqc
alike "count (exact, solid k-mers)" "$T/count.{}.tsv"
alike "count (exact, histogram)" "$T/count.{}.histo"
# BGZF: from -t 5 its blocks are inflated on a pool of threads (seqio/decompress.hpp).
if need bgzip tabix; then
  bgzip -c "$T/reads.fa" > "$T/reads.fa.bgz"
  for t in 1 8; do "$KB" count "$T/reads.fa.bgz" -k 31 -t $t -q -o "$T/bgzf.$t.tsv"; done
  same "count of the BGZF file, -t 8 (inflated on 2 threads) = the plain file's" "$T/count.1.tsv" "$T/bgzf.8.tsv"
  same "count of the BGZF file, -t 1 (inflated by the reader) = the plain file's" "$T/count.1.tsv" "$T/bgzf.1.tsv"
fi
check "count: many solid k-mers ($(wc -l < "$T/count.1.tsv"))" test "$(wc -l < "$T/count.1.tsv")" -gt 1000000
runs no-gate "$KB" count "$T/reads.fa" -k 25 -c 1 -o "$T/one.{}.tsv" --histo "$T/one.{}.histo"
alike "count -k 25 -c 1 (every k-mer, no gate)" "$T/one.{}.tsv"
alike "count -k 25 -c 1 (histogram)" "$T/one.{}.histo"

runs filter "$KB" filter "$T/reads.fa" -k 25 -C 5 --trim-weak -o "$T/filter.{}.fa" --stats "$T/filter.{}.json"
alike "filter -C 5 --trim-weak (kept reads)" "$T/filter.{}.fa"
kept=$(grep -c '^>' "$T/filter.1.fa")
check "filter: some reads kept, some dropped ($kept of 110000)" test "$kept" -gt 1000 -a "$kept" -lt 108000

runs estimate "$KB" estimate "$T/reads.fa" -k 31 --sample-log2 12 -o "$T/est.{}.tsv"
alike "estimate, sampled (2^12 keys)" "$T/est.{}.tsv"
runs estimate-exact "$KB" estimate "$T/reads.fa" -k 31 --sample-log2 24 --max-row 20 -o "$T/estx.{}.tsv"
alike "estimate, exact" "$T/estx.{}.tsv"

runs build "$KB" build "$T/reads.fa" -k 31 -o "$T/build.{}.kbf"
alike "build (filter file)" "$T/build.{}.kbf"
runs build-solid "$KB" build "$T/reads.fa" -k 31 -c 2 -o "$T/builds.{}.kbf"
alike "build -c 2 (filter file of the solid k-mers)" "$T/builds.{}.kbf"

runs query "$KB" query "$T/build.1.kbf" "$T/other.fq.gz" -o "$T/query.{}.tsv" --summary "$T/query.{}.json"
alike "query (rows in input order)" "$T/query.{}.tsv"
finish
