#!/usr/bin/env bash
# Where commands read: KFF (and filter files) on standard input and FIFOs,
# told by content and read once; no raw byte in a message.
. "$(dirname "$0")/lib.sh"
EX=$SRC/data/example.fq.gz

# raw_bytes FILE: how many bytes of FILE a terminal should not get raw (all
# but printable ASCII and newlines).
raw_bytes() { tr -d '\n\040-\176' < "$1" | wc -c; }
no_raw_bytes() {  # no_raw_bytes WHAT: $T/stderr (of expect_fail) has none
  local n
  n=$(raw_bytes "$T/stderr")
  check "$1: no raw byte in the message ($n)" test "$n" -eq 0
}

"$KB" count "$EX" -q -o "$T/ex.tsv" --histo "$T/ex.histo" --stats "$T/ex.json" --no-multiqc
"$KB" count "$EX" -q -o "$T/ex.kff" --format kff
"$KB" build "$EX" -q --expected 30000 -o "$T/ex.kbf"
gzip -dc "$EX" > "$T/ex.fq"
head -400 "$T/ex.fq" > "$T/few.fq"

# ------------------------------------------------ KFF and filter files on streams
# try COMMAND...: a command whose output the next check compares; its failure
# is reported there, and the script goes on (a pipe read twice would hang:
# hence the timeout).
try() { timeout 120 "$@" 2> "$T/try.err" || echo "($* failed: $(head -c 300 "$T/try.err"))"; }
"$KB" count "$EX" -q --format kff -o - | try "$KB" merge-counts - -o "$T/pipe.tsv" -q
same "count --format kff -o - | merge-counts -: the TSV" "$T/ex.tsv" "$T/pipe.tsv"
gzip -c "$T/ex.kff" | try "$KB" merge-counts - -o "$T/pipe-gz.tsv" -q
same "merge-counts: gzip KFF on stdin" "$T/ex.tsv" "$T/pipe-gz.tsv"
mkfifo "$T/fifo"
{ cat "$T/ex.kff" > "$T/fifo" || true; } &
try "$KB" merge-counts "$T/fifo" -o "$T/fifo.tsv" -q
{ timeout 1 cat "$T/fifo" > /dev/null || true; }  # frees the writer if it is still waiting
wait
same "merge-counts: KFF from a FIFO" "$T/ex.tsv" "$T/fifo.tsv"
"$KB" query "$T/ex.kbf" --kmers "$T/ex.kff" -o "$T/q-file.tsv" -q
try "$KB" query "$T/ex.kbf" --kmers - -o "$T/q-pipe.tsv" -q < "$T/ex.kff"
same "query --kmers -: KFF on stdin" "$T/q-file.tsv" "$T/q-pipe.tsv"
check "... one row per k-mer" test "$(wc -l < "$T/q-file.tsv")" -eq "$(wc -l < "$T/ex.tsv")"
try "$KB" query "$T/ex.kbf" --kmers - -o "$T/q-text.tsv" -q < "$T/ex.tsv"
same "query --kmers -: a TSV on stdin still" "$T/q-file.tsv" "$T/q-text.tsv"
"$KB" filter "$EX" --drop-weak --no-normalize -c 3 --solid "$T/ex.kff" -o "$T/f-file.fq" -q
try "$KB" filter "$EX" --drop-weak --no-normalize -c 3 --solid - -o "$T/f-pipe.fq" -q < "$T/ex.kff"
same "filter --solid -: KFF on stdin" "$T/f-file.fq" "$T/f-pipe.fq"

"$KB" query "$T/ex.kbf" "$T/few.fq" -o "$T/qr-file.tsv" -q
try "$KB" query - "$T/few.fq" -o "$T/qr-pipe.tsv" -q < "$T/ex.kbf"
same "query -: the filter file on stdin" "$T/qr-file.tsv" "$T/qr-pipe.tsv"
"$KB" info "$T/ex.kbf" --json -o "$T/info-file.json"
try "$KB" info - --json -o "$T/info-pipe.json" < "$T/ex.kbf"
sed -i '/"file/d' "$T/info-file.json" "$T/info-pipe.json" 2> /dev/null || true
same "info -: the filter file on stdin" "$T/info-file.json" "$T/info-pipe.json"
"$KB" build "$EX" -q --expected 30000 -o "$T/ex2.kbf"
"$KB" merge "$T/ex.kbf" "$T/ex2.kbf" -o "$T/m-file.kbf" -q
try "$KB" merge - "$T/ex2.kbf" -o "$T/m-pipe.kbf" -q < "$T/ex.kbf"
same "merge -: a filter file on stdin" "$T/m-file.kbf" "$T/m-pipe.kbf"

# Bytes that are not text: named, escaped, never raw.
printf 'ACGT\t\001\213\n' > "$T/raw.tsv"
expect_fail "merge-counts: a bad count, escaped" 3 'raw.tsv: line 1: .*\\x01\\x8b' -- "$KB" merge-counts "$T/raw.tsv"
no_raw_bytes "merge-counts: a bad count"
expect_fail "merge-counts --histo: a KFF is no histogram" 3 "<stdin>: line 1: .*KFF\\\\x" -- \
  "$KB" merge-counts --histo - < "$T/ex.kff"
no_raw_bytes "merge-counts --histo: KFF"
printf 'ACGTACGTACGTACGTACGTACGTACGTAC\213\n' > "$T/raw-kmer.txt"
expect_fail "query --kmers: a bad base, escaped" 3 "raw-kmer.txt: line 1: .*\\\\x8b" -- \
  "$KB" query "$T/ex.kbf" --kmers "$T/raw-kmer.txt"
no_raw_bytes "query --kmers: a bad base"
printf '\213\001{}' > "$T/raw.json"
expect_fail "report: statistics that are not JSON" 3 "raw.json: not JSON" -- "$KB" report "$T/raw.json"
no_raw_bytes "report: not JSON"
printf 'KMERBINS\001\002\003\213' > "$T/raw.kbin"
expect_fail "count: a bin file on stdin is no FASTQ" 3 "<stdin>" -- "$KB" count - < "$T/raw.kbin"
no_raw_bytes "count: a bin file on stdin"

finish
