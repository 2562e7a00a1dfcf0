#!/usr/bin/env bash
# Lower-case bases are read as upper case by every subcommand that reads
# sequences: the example's reads all in lower case, and half of each read,
# give the upper-case run's output (filter writes kept reads as read: its
# output is the upper-case run's with the same bases lowered).
. "$(dirname "$0")/lib.sh"
gzip -dc "$SRC/data/example.fq.gz" > "$T/upper.fq"
lowered() {  # lowered all|half FILE: FILE with its bases (all, or each read's first 75) in lower case
  awk -v all="$([ "$1" = all ] && echo 1 || echo 0)" \
    'NR % 4 == 2 { $0 = all ? tolower($0) : tolower(substr($0, 1, 75)) substr($0, 76) } 1' "$2"
}
lowered all "$T/upper.fq" > "$T/all.fq"
lowered half "$T/upper.fq" > "$T/half.fq"

run_all() {  # run_all NAME: every subcommand on $T/NAME.fq, outputs $T/NAME.*
  local n=$1
  "$KB" count "$T/$n.fq" -t 2 -o "$T/$n.tsv" --histo "$T/$n.histo" -q
  "$KB" count "$T/$n.fq" -c 1 -o "$T/$n.one.tsv" -q
  "$KB" estimate "$T/$n.fq" -o "$T/$n.est" -q
  "$KB" build "$T/$n.fq" --expected 40000 -o "$T/$n.kbf" -q
  "$KB" query "$T/upper.kbf" "$T/$n.fq" -q > "$T/$n.query"
  "$KB" filter "$T/$n.fq" -C 5 -o "$T/$n.kept.fq" -q
  "$KB" filter "$T/$n.fq" --no-normalize --trim-weak -c 3 -o "$T/$n.trim.fq" -q
  "$KB" bin "$T/$n.fq" --bins 16 -o "$T/$n.kbin" -q
  "$KB" count "$T/$n.kbin" -o "$T/$n.bins.tsv" -q
}
run_all upper
check "the upper-case reads have solid k-mers to compare" test "$(wc -l < "$T/upper.tsv")" -gt 10000
for n in all half; do
  run_all "$n"
  same "$n lower case: count" "$T/upper.tsv" "$T/$n.tsv"
  same "$n lower case: count --histo" "$T/upper.histo" "$T/$n.histo"
  same "$n lower case: count -c 1 (no gate)" "$T/upper.one.tsv" "$T/$n.one.tsv"
  same "$n lower case: estimate" "$T/upper.est" "$T/$n.est"
  same "$n lower case: build (the same filter file)" "$T/upper.kbf" "$T/$n.kbf"
  same "$n lower case: query, every read's hits" "$T/upper.query" "$T/$n.query"
  same "$n lower case: filter, the same reads kept" <(lowered "$n" "$T/upper.kept.fq") "$T/$n.kept.fq"
  same "$n lower case: filter --trim-weak, the same cuts" <(lowered "$n" "$T/upper.trim.fq") "$T/$n.trim.fq"
  same "$n lower case: bin (the same bin file)" "$T/upper.kbin" "$T/$n.kbin"
  same "$n lower case: count of the bin file" "$T/upper.tsv" "$T/$n.bins.tsv"
done
check "filter kept some reads and dropped others" \
  test "$(wc -l < "$T/upper.kept.fq")" -gt 400 -a "$(wc -l < "$T/upper.kept.fq")" -lt "$(wc -l < "$T/upper.fq")"
check "--trim-weak cut some reads" test "$(wc -c < "$T/upper.trim.fq")" -lt "$(wc -c < "$T/upper.fq")"
finish
