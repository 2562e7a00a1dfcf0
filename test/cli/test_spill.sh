#!/usr/bin/env bash
# count with its partitions' data in temporary files: the same output as in
# memory, for any thread count and on standard input; temporary files gone
# after success, errors and signals; a full temporary directory is exit 4.
. "$(dirname "$0")/lib.sh"

# A random 200 kb genome; 40,000 reads of 150 bp starting every 5 bases
# (30x), read i with a substitution at base i % 150 when i % 3 == 0.
awk 'BEGIN { x = 7; for (i = 0; i < 200000; i++) { x = (x * 16807) % 2147483647; printf "%s", substr("ACGT", 1 + x % 4, 1) } print "" }' > "$T/g.txt"
awk '{ g = $0 } END {
  q = sprintf("%150s", ""); gsub(/ /, "I", q)
  for (i = 0; i < 40000; i++) {
    s = substr(g, 1 + (i * 5) % (length(g) - 150), 150)
    if (i % 3 == 0) { p = 1 + i % 150; c = substr(s, p, 1) == "A" ? "C" : "A"; s = substr(s, 1, p - 1) c substr(s, p + 1) }
    print "@r" i; print s; print "+"; print q } }' "$T/g.txt" > "$T/reads.fq"
mkdir "$T/tmp"
empty_tmp() { check "$1: nothing left in --tmp-dir" test -z "$(ls -A "$T/tmp")"; }
json_num() { grep -Eo "\"$2\": *[0-9.e+]+" "$1" | head -1 | grep -Eo '[0-9.e+]+$'; }

# ------------------------------------------------- in memory vs spilled
"$KB" count "$T/reads.fq" -t 2 -o "$T/mem.tsv" --histo "$T/mem.histo" --stats "$T/mem.json" --no-multiqc -q
check "in memory: no temporary bytes" test "$(json_num "$T/mem.json" disk_bytes_written)" -eq 0
check "solid k-mers to compare" test "$(wc -l < "$T/mem.tsv")" -gt 100000
# -M 22M -t 1 (40M -t 2) leaves 1 to 3 MB for the spool of some 5 MB of
# super-k-mers: about 1 MB goes to disk, more or less with the threads'
# timing (0.92 to 1.35 MB seen at -t 2); at least 100 kB is a spill.
for t in 1 2; do
  m=$((4 + t * 18))
  "$KB" count "$T/reads.fq" -t "$t" -M "${m}M" --tmp-dir "$T/tmp" -o "$T/disk.tsv" --histo "$T/disk.histo" \
    --stats "$T/disk.json" --no-multiqc -q
  written=$(json_num "$T/disk.json" disk_bytes_written)
  check "-M ${m}M -t $t: $written temporary bytes written" test "$written" -gt 100000
  same "-M ${m}M -t $t: same k-mers as in memory" "$T/mem.tsv" "$T/disk.tsv"
  same "-M ${m}M -t $t: same histogram as in memory" "$T/mem.histo" "$T/disk.histo"
  empty_tmp "-M ${m}M -t $t"
done

# ------------------------------------------ what it takes to stay in memory
# A run that spilled says which -M would have held its blocks in memory; the
# statistics give the bytes (max_memory_to_hold_bytes). At one thread the
# blocks come in the same order every run: that many bytes, rounded up to a
# MiB, spill nothing, and a MiB less spills. At two threads the -M of the
# message holds them, run after run.
hint_in() { sed -n 's/.* went to temporary files in .*; -M \([0-9.]*[MG]\) would have kept it in memory$/\1/p' "$1"; }
"$KB" count "$T/reads.fq" -t 1 -M 22M -o "$T/h.tsv" --stats "$T/h.json" --no-multiqc 2> "$T/h.err"
hint=$(hint_in "$T/h.err")
check "-M 22M: the spill names the -M that holds it in memory (${hint:-none})" test -n "$hint"
hold=$(json_num "$T/h.json" max_memory_to_hold_bytes)
up=$(((hold + 1048575) / 1048576))
check "-t 1: the -M that holds it ($up MiB) is above the one given (22 MiB)" test "$up" -gt 22
for m in "$up" $((up - 1)); do
  "$KB" count "$T/reads.fq" -t 1 -M "${m}M" -o "$T/h.tsv" --stats "$T/h.json" --no-multiqc 2> "$T/h.err"
  written=$(json_num "$T/h.json" disk_bytes_written)
  hinted=$(grep -c "went to temporary files" "$T/h.err" || true)
  if [ "$m" -eq "$up" ]; then
    check "-M ${m}M -t 1: nothing to temporary files ($written bytes), no hint" test "$written" -eq 0 -a "$hinted" -eq 0
  else
    check "-M ${m}M -t 1 (a MiB less): a spill ($written bytes)" test "$written" -gt 0
  fi
  same "-M ${m}M -t 1: same k-mers as in memory" "$T/mem.tsv" "$T/h.tsv"
done
"$KB" count "$T/reads.fq" -t 2 -M 40M -o "$T/h.tsv" --no-multiqc 2> "$T/h.err"
hint=$(hint_in "$T/h.err")
check "-M 40M -t 2: the spill names an -M (${hint:-none})" test -n "$hint"
for run in 1 2 3; do
  "$KB" count "$T/reads.fq" -t 2 -M "${hint:-40M}" -o "$T/h.tsv" --stats "$T/h.json" --no-multiqc -q
  check "-M ${hint:-?} -t 2, run $run: nothing to temporary files" test "$(json_num "$T/h.json" disk_bytes_written)" -eq 0
done

# ------------------------------------------- partitions sized for the cache
# The partitions follow the L2 cache a thread has (read from sysfs, or
# planted with KMERBLOOM_L2_CACHE): a smaller cache, more partitions; one far
# too small for them, partitions counted in sweeps. The k-mers stay the same.
# part FILE KEY: the stats' partitions.KEY (cache.source and cache.l2_bytes too)
part() { json_field "$1" "partitions.$2"; }
check "the machine's cache: read, not planted ($(part "$T/mem.json" cache.source))" \
  grep -Eq '^(sysfs|sysconf|default)$' <<< "$(part "$T/mem.json" cache.source)"
check "the machine's cache: some bytes" test "$(part "$T/mem.json" cache.l2_bytes)" -gt 0
parts=$(part "$T/mem.json" count)
KMERBLOOM_L2_CACHE=16K "$KB" count "$T/reads.fq" -t 2 -o "$T/c16.tsv" --histo "$T/c16.histo" --stats "$T/c16.json" \
  --no-multiqc -q
check "KMERBLOOM_L2_CACHE=16K: planted" test "$(part "$T/c16.json" cache.source)" = KMERBLOOM_L2_CACHE
check "KMERBLOOM_L2_CACHE=16K: 16384 bytes" test "$(part "$T/c16.json" cache.l2_bytes)" -eq 16384
check "KMERBLOOM_L2_CACHE=16K: more partitions than $parts ($(part "$T/c16.json" count))" \
  test "$(part "$T/c16.json" count)" -gt "$parts"
same "KMERBLOOM_L2_CACHE=16K: same k-mers" "$T/mem.tsv" "$T/c16.tsv"
same "KMERBLOOM_L2_CACHE=16K: same histogram" "$T/mem.histo" "$T/c16.histo"
KMERBLOOM_L2_CACHE=64 "$KB" count "$T/reads.fq" -t 2 -o "$T/c0.tsv" --histo "$T/c0.histo" --stats "$T/c0.json" \
  --no-multiqc -q
check "KMERBLOOM_L2_CACHE=64: partitions counted in sweeps ($(part "$T/c0.json" split))" \
  test "$(part "$T/c0.json" split)" -gt 0
same "KMERBLOOM_L2_CACHE=64: same k-mers" "$T/mem.tsv" "$T/c0.tsv"
same "KMERBLOOM_L2_CACHE=64: same histogram" "$T/mem.histo" "$T/c0.histo"

# ------------------------------------------------------ threads, stdin
for t in 1 3 4; do
  "$KB" count "$T/reads.fq" -t "$t" -o "$T/t.tsv" --histo "$T/t.histo" -q
  same "-t $t: same k-mers as -t 2" "$T/mem.tsv" "$T/t.tsv"
  same "-t $t: same histogram as -t 2" "$T/mem.histo" "$T/t.histo"
done
"$KB" count - -t 2 -o "$T/stdin.tsv" --histo "$T/stdin.histo" --stats "$T/stdin.json" --no-multiqc -q < "$T/reads.fq"
same "stdin: exact mode, same k-mers as the file" "$T/mem.tsv" "$T/stdin.tsv"
same "stdin: same histogram as the file" "$T/mem.histo" "$T/stdin.histo"
check "stdin: not forced into one pass" grep -q '"mode": "exact' "$T/stdin.json"
check "stdin: records tagged for sweeps (its size is unknown)" test "$(part "$T/stdin.json" tagged)" = True
check "a file of known size: records not tagged" test "$(part "$T/mem.json" tagged)" = False
KMERBLOOM_L2_CACHE=64 "$KB" count - -t 2 -o "$T/stdin64.tsv" --histo "$T/stdin64.histo" --stats "$T/stdin64.json" \
  --no-multiqc -q < "$T/reads.fq"
check "stdin, KMERBLOOM_L2_CACHE=64: tagged partitions counted in sweeps ($(part "$T/stdin64.json" split))" \
  test "$(part "$T/stdin64.json" split)" -gt 0
same "stdin, KMERBLOOM_L2_CACHE=64: same k-mers" "$T/mem.tsv" "$T/stdin64.tsv"
same "stdin, KMERBLOOM_L2_CACHE=64: same histogram" "$T/mem.histo" "$T/stdin64.histo"
cat "$T/reads.fq" | "$KB" count - -t 2 -M 44M --tmp-dir "$T/tmp" -o "$T/pipe.tsv" -q
same "pipe, spilled: same k-mers as the file" "$T/mem.tsv" "$T/pipe.tsv"
empty_tmp "pipe"

# ------------------------------------------------------ errors, signals
{ cat "$T/reads.fq"; printf '@bad\nACGT\n+\nII\n'; } > "$T/bad.fq"
expect_fail "bad record after the spill began" 3 'bad.fq: record 40001' -- \
  "$KB" count "$T/bad.fq" -t 1 -M 24M --tmp-dir "$T/tmp" -o "$T/bad.tsv"
empty_tmp "input error"
check "input error: no output left" test ! -e "$T/bad.tsv"
expect_fail "missing --tmp-dir directory" 4 "$T/nope: cannot create a temporary file" -- \
  "$KB" count "$T/reads.fq" -t 1 -M 22M --tmp-dir "$T/nope" -o "$T/x.tsv"

# A signal in each pass, once this run logs the pass and holds its (unlinked)
# temporary file in --tmp-dir open: the spill has begun.
spilling() { ls -l "/proc/$SIG_PID/fd" 2> /dev/null | grep -q "$T/tmp/.*(deleted)"; }
for i in 1 2 3 4 5 6 7 8; do cat "$T/reads.fq"; done > "$T/big.fq"
for sig in TERM INT; do
  for phase in "pass 1: reading" "pass 2: counting"; do
    rm -rf "$T/sig"; mkdir "$T/sig"
    signal_at "SIG$sig in ${phase%:*}" "$sig" "logged '^\[kmerbloom\] $phase' && spilling" -- \
      "$KB" count "$T/big.fq" -t 1 -M 34M --tmp-dir "$T/tmp" -v -o "$T/sig/out.tsv" || continue
    want=$((128 + $(kill -l "$sig")))
    check "SIG$sig in ${phase%:*}: exit $want (got $SIG_RC)" test "$SIG_RC" -eq "$want"
    empty_tmp "SIG$sig in ${phase%:*}"
    check "SIG$sig in ${phase%:*}: no output left" test -z "$(ls -A "$T/sig")"
  done
done

# ------------------------------------------------------- a full disk
if [ "$(id -u)" -eq 0 ] && mkdir "$T/full" && mount -t tmpfs -o size=1m tmpfs "$T/full" 2> /dev/null; then
  expect_fail "temporary directory full: exit 4, names it" 4 "$T/full: no space left for temporary files.*needed" -- \
    "$KB" count "$T/reads.fq" -t 1 -M 22M --tmp-dir "$T/full" -o "$T/full.tsv"
  check "full disk: no output left" test ! -e "$T/full.tsv"
  check "full disk: nothing left in the directory" test -z "$(ls -A "$T/full")"
  umount "$T/full"
else
  echo "skip: a full temporary directory needs root and tmpfs (test/unit/test_count_partitions.cpp simulates one)"
fi

finish
