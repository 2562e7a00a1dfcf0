#!/usr/bin/env bash
# Where commands read and write: KFF (and filter files) on standard input and
# FIFOs, told by content and read once; no raw byte in a message; every output
# and the temporary directory checked before any input is read (exit 4, named);
# output names as long as the file system takes (250 and 255 bytes).
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
cp "$T/few.fq" "$T/few2.fq"  # mate 2: a file of its own (one file as both mates is refused)

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
expect_fail "query - -: stdin twice refused" 2 "both read standard input" -- "$KB" query - - < "$T/ex.kbf"
expect_fail "report - --histo -: stdin twice refused" 2 "both read standard input" -- \
  "$KB" report - --histo - < "$T/ex.json"
expect_fail "count - -: stdin twice refused" 2 "given twice" -- "$KB" count - - < "$T/few.fq"

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

# ----------------------------------------- every output checked before any input
# The input of each command is bad: an output that fails first (exit 4, naming
# the option and the path) was checked before the input was read (exit 3).
printf 'not a read\n' > "$T/bad.fq"
cp "$T/bad.fq" "$T/bad2.fq"
printf 'not a filter\n' > "$T/bad.kbf"
printf 'ACGT\tx\n' > "$T/bad.tsv"
printf '1 x\n' > "$T/bad.histo"
printf '{"no": "stats"}\n' > "$T/bad.json"
N=$T/nodir/out
early() {  # early OPTION -- command...
  local opt=$1
  shift 2
  expect_fail "$* : $opt in a missing folder fails first" 4 "error: $opt[^:]*nodir/out.*: No such file" -- "$@"
}
early -o -- "$KB" count "$T/bad.fq" -o "$N"
for opt in --histo --stats --report --plot; do early "$opt" -- "$KB" count "$T/bad.fq" -o "$T/x.tsv" "$opt" "$N"; done
early -o -- "$KB" estimate "$T/bad.fq" -o "$N"
early --json -- "$KB" estimate "$T/bad.fq" -o "$T/x.tsv" --json "$N"
early -o -- "$KB" filter "$T/bad.fq" -o "$N"
early -O -- "$KB" filter "$T/bad.fq" "$T/bad2.fq" -o "$T/x.fq" -O "$N"
early --stats -- "$KB" filter "$T/bad.fq" -o "$T/x.fq" --stats "$N"
early -o -- "$KB" build "$T/bad.fq" -o "$N"
early -o -- "$KB" query "$T/bad.kbf" "$T/bad.fq" -o "$N"
early --summary -- "$KB" query "$T/bad.kbf" "$T/bad.fq" -o "$T/x.tsv" --summary "$N"
early -o -- "$KB" merge "$T/bad.kbf" -o "$N"
early -o -- "$KB" info "$T/bad.kbf" -o "$N"
early -o -- "$KB" merge-counts "$T/bad.tsv" -o "$N"
early -o -- "$KB" merge-counts --histo "$T/bad.histo" -o "$N"
early -o -- "$KB" merge-counts --stats "$T/bad.json" -o "$N"
early -o -- "$KB" bin "$T/bad.fq" -o "$N"
early -o -- "$KB" report "$T/bad.json" -o "$N"
early --plot -- "$KB" report "$T/bad.json" -o "$T/x.html" --plot "$N"
mkdir -p "$T/adir"
expect_fail "an output that is a folder fails first" 4 "error: --histo .*adir: is a directory" -- \
  "$KB" count "$T/bad.fq" -o "$T/x.tsv" --histo "$T/adir"
check "no output left by the failed runs" test ! -e "$T/x.tsv" -a ! -e "$T/x.fq" -a ! -e "$T/x.html"
check "... nor a temporary file" test -z "$(ls -A "$T" | grep kmerbloom-tmp)"

# The temporary directory of count and bin: missing, a file, read-only, from
# $TMPDIR; refused even when the run would not spill.
: > "$T/afile"
for s in count bin; do
  expect_fail "$s --tmp-dir missing fails first" 4 "error: --tmp-dir $T/nodir: cannot create a temporary file" -- \
    "$KB" $s "$T/bad.fq" -o "$T/x.out" --tmp-dir "$T/nodir"
  expect_fail "$s --tmp-dir a regular file fails first" 4 "error: --tmp-dir $T/afile: .*Not a directory" -- \
    "$KB" $s "$T/bad.fq" -o "$T/x.out" --tmp-dir "$T/afile"
  expect_fail "$s with \$TMPDIR missing fails first" 4 "error: \\\$TMPDIR $T/nodir: cannot create a temporary file" -- \
    env TMPDIR="$T/nodir" "$KB" $s "$T/bad.fq" -o "$T/x.out"
done
rc=0
"$KB" count "$EX" -o "$T/small.tsv" --tmp-dir "$T/nodir" -q 2> /dev/null || rc=$?
check "a run that would not spill refuses a missing --tmp-dir too (exit $rc)" test "$rc" -eq 4 -a ! -e "$T/small.tsv"
# Permissions as an ordinary user (root writes anywhere).
U=$(user_dir perm)
cp "$T/bad.fq" "$U/bad.fq"
chmod 644 "$U/bad.fq"
mkdir "$U/ro"
chmod 555 "$U/ro"
expect_fail "--histo in a read-only folder fails first" 4 "error: --histo $U/ro/h: cannot create: Permission denied" -- \
  as_user "$U/kmerbloom" count "$U/bad.fq" -o "$U/x.tsv" --histo "$U/ro/h"
for s in count bin; do
  expect_fail "$s --tmp-dir read-only fails first" 4 "error: --tmp-dir $U/ro: cannot create a temporary file: Permission denied" -- \
    as_user "$U/kmerbloom" $s "$U/bad.fq" -o "$U/x.out" --tmp-dir "$U/ro"
done
check "nothing written by the refused runs" test -z "$(ls -A "$U/ro")" -a ! -e "$U/x.tsv" -a ! -e "$U/x.out"

# ------------------------------------------------ output names of 250 and 255 bytes
# long_name LEN TAG: a file name of LEN bytes that starts with TAG.
long_name() { printf '%s' "$2"; head -c $(($1 - ${#2})) < /dev/zero | tr '\0' 'n'; }
for len in 250 255; do
  L=$T/long$len
  mkdir "$L"
  nm() { echo "$L/$(long_name "$len" "$1")"; }
  ran() {  # ran WHAT TAG... -- command...: exit 0 and a file for each TAG
    local what=$1 tags=() rc=0
    shift
    while [ "$1" != -- ]; do tags+=("$1"); shift; done
    shift
    "$@" -q 2> "$T/long.err" || rc=$?
    if [ "$rc" -ne 0 ]; then bad "$len-byte names: $what: exit $rc ($(head -c 300 "$T/long.err"))"; return; fi
    for t in "${tags[@]}"; do
      [ -s "$(nm "$t")" ] || { bad "$len-byte names: $what: $t not written"; return; }
    done
    ok "$len-byte names: $what"
  }
  ran "count -o --histo --stats --report --plot" c1 c2 c3 c4 c5 -- "$KB" count "$EX" -o "$(nm c1)" --histo "$(nm c2)" \
    --stats "$(nm c3)" --no-multiqc --report "$(nm c4)" --plot "$(nm c5)"
  ran "count --format kff" c6 -- "$KB" count "$EX" --format kff -o "$(nm c6)"
  ran "estimate -o --json" e1 e2 -- "$KB" estimate "$EX" -o "$(nm e1)" --json "$(nm e2)"
  ran "filter -o -O --stats" f1 f2 f3 -- "$KB" filter "$T/few.fq" "$T/few2.fq" -C 255 -o "$(nm f1)" -O "$(nm f2)" \
    --stats "$(nm f3)"
  ran "build -o" b1 -- "$KB" build "$EX" --expected 30000 -o "$(nm b1)"
  ran "merge -o" m1 -- "$KB" merge "$(nm b1)" "$T/ex.kbf" -o "$(nm m1)"
  ran "info -o" i1 -- "$KB" info "$(nm m1)" -o "$(nm i1)"
  ran "query -o --summary" q1 q2 -- "$KB" query "$T/ex.kbf" "$T/few.fq" -o "$(nm q1)" --summary "$(nm q2)"
  ran "merge-counts -o" g1 -- "$KB" merge-counts "$(nm c6)" -o "$(nm g1)"
  ran "bin -o" n1 -- "$KB" bin "$T/few.fq" -o "$(nm n1)"
  ran "report -o --plot" r1 r2 -- "$KB" report "$(nm c3)" -o "$(nm r1)" --plot "$(nm r2)"
  same "$len-byte names: the k-mers are those of a short name" "$T/ex.tsv" "$(nm c1)"
  check "$len-byte names: nothing else left in the folder" test "$(ls -A "$L" | wc -l)" -eq 20
done
# The MultiQC files beside --stats add "_spectrum_mqc.json" (18 bytes) to its
# name without ".json": they fit up to a --stats name of 242 bytes.
M=$T/mqc
mkdir "$M"
s=$(long_name 237 s).json
"$KB" count "$EX" -o "$M/x.tsv" --stats "$M/$s" -q
check "--stats of 242 bytes: its MultiQC files written beside it" test -s "$M/${s%.json}_spectrum_mqc.json" -a -s "$M/${s%.json}_mqc.json"
s=$(long_name 250 s)
expect_fail "--stats of 250 bytes: its MultiQC file cannot be named, refused first" 4 \
  "error: --stats \(its MultiQC file; --no-multiqc writes none\) .*File name too long" -- "$KB" count "$T/bad.fq" -o "$M/y.tsv" --stats "$M/$s.json"
"$KB" count "$EX" -o "$M/y.tsv" --stats "$M/$s" --no-multiqc -q
check "... and written with --no-multiqc" test -s "$M/$s"

finish
