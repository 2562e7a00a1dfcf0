#!/usr/bin/env bash
# One binary, hot loops compiled for the baseline x86-64 and for the CPU's
# extensions (AVX2 for the minimizer scan, POPCNT for the filter's fill),
# chosen at run time: KMERBLOOM_CPU=baseline runs the portable code, and
# every output is the same bytes as the CPU's own run gives (k-mers, KFF,
# histogram, bins, the filter's estimates in the statistics); the statistics
# say which code ran; any other value is a usage error naming the variable.
. "$(dirname "$0")/lib.sh"
gzip -dc "$SRC/data/example.fq.gz" > "$T/reads.fq"
# The plan's cache planted small, so that the reads go to many partitions
# and through the spool as a genome's do.
run() {  # run NAME: count, KFF, bins and the bins' count, with KMERBLOOM_CPU as set by the caller
  KMERBLOOM_L2_CACHE=64K "$KB" count "$T/reads.fq" -t 2 -o "$T/$1.tsv" --histo "$T/$1.histo" --stats "$T/$1.json" -q
  "$KB" count "$T/reads.fq" -k 45 -t 2 --format kff -o "$T/$1.kff" -q
  "$KB" bin "$T/reads.fq" --bins 16 -o "$T/$1.kbin" -q
  "$KB" count "$T/$1.kbin" -o "$T/$1.bins.tsv" -q
}
# The statistics without what differs from run to run (times, memory) or
# names the code that ran.
stable() { python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for key in ("cpu", "wall_seconds", "cpu_seconds", "peak_memory_bytes", "pass_seconds", "temporary", "memory_bytes", "command_line"):
    v.pop(key, None)
print(json.dumps(v, sort_keys=True, indent=1))' "$1"; }

unset KMERBLOOM_CPU
run own
KMERBLOOM_CPU=baseline run base
features=$(json_field "$T/own.json" cpu.features)
echo "this CPU: $features ($(json_field "$T/own.json" cpu.source))"
check "the CPU's own run names its source (cpuid)" test "$(json_field "$T/own.json" cpu.source)" = cpuid
check "KMERBLOOM_CPU=baseline: the statistics say so" test "$(json_field "$T/base.json" cpu.features)" = baseline
check "KMERBLOOM_CPU=baseline: and name the variable" test "$(json_field "$T/base.json" cpu.source)" = KMERBLOOM_CPU
check "the reads went to many partitions ($(json_field "$T/own.json" partitions.count))" \
  test "$(json_field "$T/own.json" partitions.count)" -gt 8
check "there are solid k-mers to compare" test "$(wc -l < "$T/own.tsv")" -gt 10000
same "baseline code: the same k-mers" "$T/own.tsv" "$T/base.tsv"
same "baseline code: the same histogram" "$T/own.histo" "$T/base.histo"
same "baseline code: the same statistics (filter fill, false-positive estimates, partitions)" \
  <(stable "$T/own.json") <(stable "$T/base.json")
same "baseline code: the same KFF at k = 45" "$T/own.kff" "$T/base.kff"
same "baseline code: the same bin file" "$T/own.kbin" "$T/base.kbin"
same "baseline code: the same count of the bins" "$T/own.bins.tsv" "$T/base.bins.tsv"
KMERBLOOM_CPU=native "$KB" count "$T/reads.fq" -t 2 -o "$T/native.tsv" -q
same "KMERBLOOM_CPU=native is the default" "$T/own.tsv" "$T/native.tsv"
KMERBLOOM_CPU=avx512 expect_fail "KMERBLOOM_CPU=avx512: a usage error naming the variable" 2 "KMERBLOOM_CPU=avx512" -- \
  "$KB" count "$T/reads.fq" -o "$T/bad.tsv" -q
check "KMERBLOOM_CPU=avx512: no output left" test ! -e "$T/bad.tsv"
finish
