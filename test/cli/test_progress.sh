#!/usr/bin/env bash
# Progress as a user sees it, under a pseudo-terminal (script, util-linux):
# every pass of count, filter, estimate, build, bin, query, qv, merge-counts,
# sets and hetmers draws its line (done, total, share, rate)
# and the line is cleared at the end; on a pipe, nothing but the log.
# KMERBLOOM_PROGRESS_MS=10 redraws often enough for passes of a fraction of
# a second.
. "$(dirname "$0")/lib.sh"
if ! command -v script > /dev/null; then
  skip "script (util-linux) is missing: no pseudo-terminal"
  finish; exit
fi
python3 "$SRC/test/cli/simreads.py" --genome 500000 --reads 60000 --seed 5 > "$T/reads.fq"
tty_run() {  # OUT COMMAND...: runs it on a pseudo-terminal 200 columns wide, its screen in OUT, one line per redraw
  local out=$1; shift
  KMERBLOOM_PROGRESS_MS=10 script -qec "stty cols 200; $(printf '%q ' "$@")" /dev/null | tr '\r' '\n' > "$out"
}
# The reads eight times over for count: its first pass must last past the
# 0.05 s after which rates are drawn (once they took it about 0.06 s).
r=$T/reads.fq
tty_run "$T/count.tty" "$KB" count "$r" "$r" "$r" "$r" "$r" "$r" "$r" "$r" -o "$T/c.tsv" -t 2
check "count: pass 1 shows bytes read of the total and its share" \
  grep -Eq '^pass 1: reading the input into [0-9]+ partitions  [0-9.]+ [kM]?B/[0-9.]+ MB \([0-9]+%\)' "$T/count.tty"
check "count: pass 1 shows reads and k-mers per second" grep -Eq '^pass 1: .* reads/s  .* k-mers/s' "$T/count.tty"
check "count: pass 2 shows the k-mers counted of the total, not bytes" \
  grep -Eq '^pass 2: counting the partitions  [0-9.]+ ?[kM]?/[0-9.]+ [kM] k-mers counted \([0-9]+%\)' "$T/count.tty"
check "count: no pass shows 0 B of a total it does not read" bash -c "! grep -Eq '^pass [23]: .*B/' '$T/count.tty'"
check "count: the line is cleared at the end (erase to end of line, then the summary)" \
  grep -q $'\e\\[K' "$T/count.tty"
tty_run "$T/filter.tty" "$KB" filter "$T/reads.fq" -o "$T/kept.fq" -t 2 -C 5
check "filter: the sizing pass shows its progress" grep -Eq '^sizing the sketch: sampling the k-mers  .*\([0-9]+%\)' "$T/filter.tty"
check "filter: the filtering pass shows its progress" grep -Eq '^filtering the reads  [0-9.]+ ?[kM]?B/[0-9.]+ MB \([0-9]+%\)' "$T/filter.tty"
tty_run "$T/weak.tty" "$KB" filter "$T/reads.fq" -o "$T/weak.fq" -t 2 --drop-weak --no-normalize
check "filter --drop-weak: its count of weak k-mers shows count's passes" grep -Eq '^weak k-mers, pass 2: counting the partitions' "$T/weak.tty"
tty_run "$T/estimate.tty" "$KB" estimate "$T/reads.fq" -o "$T/e.tsv" -t 2
check "estimate: its sampling pass shows its progress" grep -Eq '^sampling the k-mers  [0-9.]+ ?[kM]?B/[0-9.]+ MB \([0-9]+%\)' "$T/estimate.tty"
tty_run "$T/build.tty" "$KB" build "$T/reads.fq" -o "$T/b.kbf" -t 2
check "build: the sizing and the filling passes show their progress" \
  bash -c "grep -Eq '^sizing: sampling the k-mers  .*\([0-9]+%\)' '$T/build.tty' && grep -Eq '^filling the filter  .*\([0-9]+%\)' '$T/build.tty'"
tty_run "$T/buildc.tty" "$KB" build "$T/reads.fq" -c 2 -o "$T/b2.kbf" -t 2
check "build -c 2: its count shows count's passes" grep -Eq '^pass 2: counting the partitions  .* k-mers counted' "$T/buildc.tty"
tty_run "$T/bin.tty" "$KB" bin "$T/reads.fq" -o "$T/r.kbin" -t 2
check "bin: its pass shows its progress" grep -Eq '^reading the input into [0-9]+ bins  .*\([0-9]+%\)' "$T/bin.tty"
tty_run "$T/query.tty" "$KB" query "$T/b.kbf" "$T/reads.fq" -o "$T/q.tsv" -t 2
check "query: screening the reads shows its progress" grep -Eq '^screening the reads  [0-9.]+ ?[kM]?B/[0-9.]+ MB \([0-9]+%\)' "$T/query.tty"
awk 'NR % 4 == 2 { print ">s" NR; print }' "$T/reads.fq" > "$T/asm.fa"
"$KB" count "$T/reads.fq" -k 21 -c 1 --format kff -o "$T/all.kff" -t 2 -q
tty_run "$T/qv.tty" "$KB" qv "$T/asm.fa" --reads "$T/all.kff" -o "$T/qv" -t 2
check "qv: the assembly's count and its second read show their progress" \
  bash -c "grep -Eq \"^the assembly's k-mers, pass 1: .*\\([0-9]+%\\)\" '$T/qv.tty' && grep -Eq '^per-sequence QV: the assembly read again  .*\([0-9]+%\)' '$T/qv.tty'"
"$KB" count "$T/reads.fq" -k 21 -c 1 -o "$T/all.tsv" -t 2 -q
tty_run "$T/merge.tty" "$KB" merge-counts "$T/all.tsv" "$T/all.kff" -o "$T/m.tsv"
check "merge-counts: the bytes read of its inputs, and their share" \
  grep -Eq '^merging the k-mers  [0-9.]+ ?[kM]?/[0-9.]+ M bytes read \([0-9]+%\)' "$T/merge.tty"
tty_run "$T/sets.tty" "$KB" sets union "$T/all.tsv" "$T/all.kff" -o "$T/u.tsv"
check "sets: the bytes read of its inputs, and their share" \
  grep -Eq '^union: merging the inputs  [0-9.]+ ?[kM]?/[0-9.]+ M bytes read \([0-9]+%\)' "$T/sets.tty"
tty_run "$T/het.tty" "$KB" hetmers "$T/all.tsv" -o "$T/het" -M 64M -t 2
check "hetmers: reading the counts, then its units searched" \
  bash -c "grep -Eq '^reading the counts  .* bytes read \([0-9]+%\)' '$T/het.tty' && grep -Eq '^pass 2: pairs at one base, unit by unit  [0-9]+/[0-9]+ units' '$T/het.tty'"
"$KB" count "$r" "$r" "$r" "$r" "$r" "$r" "$r" "$r" -o "$T/p.tsv" -t 2 2> "$T/pipe.err"
check "on a pipe: no progress line" bash -c "! grep -q 'pass 1' '$T/pipe.err'"
same "the k-mers do not depend on the meter" "$T/c.tsv" "$T/p.tsv"
finish
