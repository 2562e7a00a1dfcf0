#!/usr/bin/env bash
# kmerbloom filter's keep/drop decisions against an independent model
# (filter_model.py, written from docs/filter.md with exact counts): single reads,
# pairs in two files and interleaved (a pair is kept when either mate is below
# the target coverage, dropped when either mate is weak or short), weak k-mers
# dropped and trimmed. The reads come from simreads.py: mates from independent
# places of a small genome at high coverage, so that one mate is often at
# coverage while the other is not; a few reads hold an N or are shorter than k.
# The sketch is sized far above the input (--expected) so that its collisions
# cannot change a decision.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
need python3
K=21
SIM=(python3 "$HERE/simreads.py" --genome 20000 --length 100 --error-rate 0.004 --n-every 40 --short-every 50)
"${SIM[@]}" --reads 3000 --seed 5 --pairs "$T/r1.fq" "$T/r2.fq"
"${SIM[@]}" --reads 4000 --seed 6 > "$T/single.fq"
paste -d '\n' <(paste - - - - < "$T/r1.fq") <(paste - - - - < "$T/r2.fq") | tr '\t' '\n' > "$T/inter.fq"
gzip -c "$T/r1.fq" > "$T/r1.fq.gz"

# kept_of FILE [FILE2]: "index<TAB>length[<TAB>length2]" per kept record (or pair),
# from the names r<i> or p<i>/1.
kept_of() {
  if [ $# -eq 2 ]; then
    paste <(paste - - - - < "$1") <(paste - - - - < "$2") |
      awk -F'\t' '{ n = $1; sub(/^@p/, "", n); sub(/\/1$/, "", n); print n "\t" length($2) "\t" length($6) }'
  else
    paste - - - - < "$1" | awk -F'\t' '{ n = $1; sub(/^@[rp]/, "", n); sub(/\/[12]$/, "", n); print n "\t" length($2) }'
  fi
}
# agree WHAT MODEL_OUT PROGRAM_OUT: same decisions, with enough kept and dropped to tell.
agree() {
  local kept total
  kept=$(wc -l < "$2")
  total=$4
  if [ "$kept" -lt $((total / 10)) ] || [ "$kept" -gt $((total * 9 / 10)) ]; then
    bad "$1: the model keeps $kept of $total, too few or too many to test the rule"; return
  fi
  cat "$3" > "$T/agree.got"  # $3 is a pipe: read it once
  if cmp -s "$2" "$T/agree.got"; then ok "$1 ($kept of $total kept, as the model says)"
  else
    bad "$1: the program's decisions differ from the model's ($(wc -l < "$T/agree.got") kept, model $kept)"
    first_difference "$2" "$T/agree.got"
  fi
}
FOPT=(-k "$K" --expected 4000000 -q)

# --- normalization --------------------------------------------------------------------------
python3 "$HERE/filter_model.py" -k "$K" -C 5 "$T/single.fq" > "$T/m.single"
"$KB" filter "$T/single.fq" -C 5 -t 2 "${FOPT[@]}" -o "$T/k.single.fq"
agree "single reads, -C 5" "$T/m.single" <(kept_of "$T/k.single.fq") 4000

python3 "$HERE/filter_model.py" -k "$K" -C 5 "$T/r1.fq" "$T/r2.fq" > "$T/m.pairs"
"$KB" filter "$T/r1.fq.gz" "$T/r2.fq" -C 5 -t 2 "${FOPT[@]}" -o "$T/k1.fq" -O "$T/k2.fq"
agree "pairs in two files: kept when either mate is below -C 5" "$T/m.pairs" <(kept_of "$T/k1.fq" "$T/k2.fq") 3000
"$KB" filter "$T/inter.fq" --interleaved -C 5 -t 3 "${FOPT[@]}" -o "$T/ki1.fq" -O "$T/ki2.fq"
agree "interleaved pairs: the same rule" "$T/m.pairs" <(kept_of "$T/ki1.fq" "$T/ki2.fq") 3000
# The rule matters on this input: with "both mates below" the model keeps
# other pairs, so a program that swapped either for both fails above.
python3 "$HERE/filter_model.py" -k "$K" -C 5 --pair-rule both "$T/r1.fq" "$T/r2.fq" > "$T/m.both"
check "the input tells the pair rules apart ($(wc -l < "$T/m.pairs") pairs kept with either, $(wc -l < "$T/m.both") with both)" \
  test "$(wc -l < "$T/m.pairs")" -gt $(($(wc -l < "$T/m.both") + 30))

# --- weak k-mers: exact counts from the model, given with --solid -----------------------------
python3 "$HERE/filter_model.py" -k "$K" --count-solid 2 "$T/r1.fq" "$T/r2.fq" > "$T/solid.pairs.tsv"
"$KB" count "$T/r1.fq" "$T/r2.fq" -k "$K" -t 2 -q -o "$T/solid.count.tsv"
same "count's solid k-mers equal the model's exact counts" "$T/solid.count.tsv" "$T/solid.pairs.tsv"
python3 "$HERE/filter_model.py" -k "$K" --no-normalize --drop-weak --solid "$T/solid.pairs.tsv" "$T/r1.fq" "$T/r2.fq" > "$T/m.weak"
"$KB" filter "$T/r1.fq" "$T/r2.fq" --no-normalize --drop-weak --solid "$T/solid.pairs.tsv" -t 2 "${FOPT[@]}" \
  -o "$T/w1.fq" -O "$T/w2.fq"
agree "pairs, --drop-weak: dropped when either mate is weak or short" "$T/m.weak" <(kept_of "$T/w1.fq" "$T/w2.fq") 3000
"$KB" filter "$T/r1.fq" "$T/r2.fq" --no-normalize --drop-weak -t 2 "${FOPT[@]}" -o "$T/v1.fq" -O "$T/v2.fq"
agree "pairs, --drop-weak from the first pass: the same decisions" "$T/m.weak" <(kept_of "$T/v1.fq" "$T/v2.fq") 3000

python3 "$HERE/filter_model.py" -k "$K" --count-solid 2 "$T/single.fq" > "$T/solid.single.tsv"
python3 "$HERE/filter_model.py" -k "$K" -C 5 --trim-weak --solid "$T/solid.single.tsv" "$T/single.fq" > "$T/m.trim"
"$KB" filter "$T/single.fq" -C 5 --trim-weak --solid "$T/solid.single.tsv" -t 2 "${FOPT[@]}" -o "$T/t.fq"
agree "--trim-weak with normalization: kept reads and their trimmed lengths" "$T/m.trim" <(kept_of "$T/t.fq") 4000
check "some reads trimmed" awk -F'\t' '$2 < 100 && $2 >= 21 { f = 1 } END { exit !f }' "$T/m.trim"
finish
