#!/usr/bin/env bash
# Every subcommand's outputs land together or not at all: on a full disk,
# whichever output fails, and on a signal while any one output is being
# opened, the run leaves none of its files and what stood at their paths
# before stays as it was; a complete run leaves all of them. A full disk is a
# small tmpfs at every size in pages up to what the run needs (so that each
# output in turn is the one that fails); the signal comes while the run waits
# to open one output, a FIFO, each output in turn. Then, for every subcommand
# that takes -t: threads that cannot start give a clean error, not a crash.
. "$(dirname "$0")/lib.sh"
need python3 || { finish; exit; }

# Small inputs, so that a run takes a fraction of a second: a 20 kb diploid
# at 20x a haplotype (hetmers has pairs to find), its counts as TSV and KFF,
# an assembly (the first haplotype, two contigs), a filter file.
python3 "$SRC/test/cli/hetmer_oracle.py" genome 2 1 20000 20 3 > "$T/reads.fq"
"$KB" count "$T/reads.fq" -k 21 -t 1 -q -o "$T/counts.tsv"
"$KB" count "$T/reads.fq" -k 21 -t 1 -q -c 1 -o "$T/all.tsv"
"$KB" count "$T/reads.fq" -k 21 -t 1 -q -o "$T/counts.kff"
awk 'NR % 4 == 2 && n++ < 60 { printf ">c%d\n%s\n", n, $0 }' "$T/reads.fq" > "$T/asm.fa"
"$KB" build "$T/reads.fq" -k 21 -t 1 -q --expected 100000 -o "$T/reads.kbf"
"$KB" build "$T/asm.fa" -k 21 -t 1 -q --expected 100000 -o "$T/asm.kbf"
head -400 "$T/reads.fq" > "$T/few.fq"
"$KB" bin "$T/few.fq" -k 21 -t 1 -q --bins 4 -o "$T/few.bin"
"$KB" count "$T/few.fq" -k 21 -t 1 -q --stats "$T/few.json" --histo "$T/few.histo" --no-multiqc -o /dev/null
"$KB" index "$T/all.tsv" -q

# Each case sets CMD to a command writing every output it can into the
# folder $1; the files each one leaves are read off a run into an empty
# folder. run_case NAME DIR runs it.
case_count() {
  CMD=("$KB" count "$T/reads.fq" -k 21 -t 2 -q -o "$1/out.tsv" --histo "$1/out.histo" --stats "$1/out.json" \
    --report "$1/out.html" --plot "$1/out.svg")
}
case_count_kff() { CMD=("$KB" count "$T/reads.fq" -k 21 -t 2 -q -o "$1/out.kff" --histo "$1/out.histo"); }
case_estimate() { CMD=("$KB" estimate "$T/reads.fq" -k 21 -t 2 -q -o "$1/est.tsv" --json "$1/est.json"); }
case_filter() { CMD=("$KB" filter "$T/reads.fq" -k 21 -t 2 -q -C 5 -o "$1/kept.fq" --stats "$1/kept.json"); }
case_build() { CMD=("$KB" build "$T/reads.fq" -k 21 -t 2 -q -o "$1/f.kbf"); }
case_query() { CMD=("$KB" query "$T/reads.kbf" "$T/few.fq" -t 2 -q -o "$1/q.tsv" --summary "$1/q.json"); }
case_merge() { CMD=("$KB" merge "$T/reads.kbf" "$T/asm.kbf" -q -o "$1/m.kbf"); }
case_info() { CMD=("$KB" info "$T/reads.kbf" -q -o "$1/info.txt"); }
case_merge_counts() { CMD=("$KB" merge-counts "$T/counts.tsv" "$T/all.tsv" -q -o "$1/mc.tsv"); }
case_bin() { CMD=("$KB" bin "$T/few.fq" -k 21 -t 2 -q --bins 4 -o "$1/b.bin"); }
case_report() { CMD=("$KB" report "$T/few.json" -q --histo "$T/few.histo" -o "$1/r.html" --plot "$1/r.svg"); }
case_sets() {
  CMD=("$KB" sets union "$T/counts.tsv" "$T/all.tsv" -t 2 -q -o "$1/u.tsv" --histo "$1/u.histo" --stats "$1/u.json")
}
case_qv() {
  CMD=("$KB" qv "$T/asm.fa" --reads "$T/counts.kff" -t 2 -q -o "$1/q" --stats "$1/q.json" --plot "$1/q.svg" \
    --report "$1/q.html")
}
case_hetmers() {
  CMD=("$KB" hetmers "$T/counts.tsv" -t 2 -q -o "$1/h" --pairs --stats "$1/h.json" --plot "$1/h.svg" \
    --report "$1/h.html")
}
case_index() { CMD=("$KB" index "$T/counts.kff" -q -o "$1/c.kbi"); }
case_lookup() { CMD=("$KB" lookup "$T/all.tsv" --kmers "$T/counts.tsv" -q -o "$1/l.tsv"); }
run_case() {
  "case_$1" "$2"
  "${CMD[@]}"
}
CASES="count count_kff estimate filter build query merge info merge_counts bin report sets qv hetmers index lookup"

printf 'an earlier result\n' > "$T/earlier"
# plant DIR FILE...: each file holds the earlier result; nothing else there.
plant() {
  local d=$1 f
  shift
  for f in "$@"; do cp "$T/earlier" "$d/$f"; done
}
# earlier FILE: the file holds the earlier result.
earlier() { cmp -s "$1" "$T/earlier"; }
# untouched DIR FILE...: true when every file still holds the earlier result
# and the folder holds those files only (no temporary file, nothing new).
untouched() {
  local d=$1 f
  shift
  for f in "$@"; do earlier "$d/$f" || return 1; done
  [ "$(ls -A "$d" | sort)" = "$(printf '%s\n' "$@" | sort)" ]
}
# blocked_on_fifo PID: one of the process's threads waits in the kernel to
# open a FIFO (for its reader).
blocked_on_fifo() { grep -Eqs '^(fifo_open|wait_for_partner)' /proc/"$1"/task/*/wchan; }

# --------------------------------------------------- a full disk, each output in turn
full_disk() {
  local name=$1 base=$T/$1.base d=$T/$1.full files=() f pages=0 size rc j named=() fail_names
  mkdir "$base"
  run_case "$name" "$base" 2> "$T/$name.err" || { bad "$name: the run into an empty folder failed: $(head -c 300 "$T/$name.err")"; return; }
  mapfile -t files < <(ls -A "$base")
  for f in "${files[@]}"; do pages=$((pages + ($(stat -c %s "$base/$f") + 4095) / 4096)); done
  mkdir "$d"
  # The earlier results take one page each; the run has j pages beside them,
  # up to what the run into the empty folder took and a page more for each
  # output (the run's times and peak in the statistics, the report and the
  # plot may take a few bytes more this time, past a page).
  for ((j = 0; j <= pages + ${#files[@]} + 1; j++)); do
    size=$(((${#files[@]} + j) * 4096))
    mount -t tmpfs -o size=$size tmpfs "$d"
    plant "$d" "${files[@]}"
    rc=0
    run_case "$name" "$d" 2> "$T/$name.err" || rc=$?
    if [ "$rc" -eq 0 ]; then
      for f in "${files[@]}"; do
        [ -s "$d/$f" ] && ! earlier "$d/$f" || { bad "$name: exit 0 in $j pages, but $f was not written"; break; }
      done
      umount "$d"
      break
    fi
    if [ "$rc" -ne 4 ] || ! untouched "$d" "${files[@]}"; then
      bad "$name, disk full at $j pages: exit $rc (wanted 4) and the folder holds: $(ls -A "$d" | tr '\n' ' ')($(head -c 200 "$T/$name.err"))"
      umount "$d"
      return
    fi
    named+=("$(sed -n 's|^kmerbloom: error: '"$d"'/\([^:]*\):.*|\1|p' "$T/$name.err" | head -1)")
    umount "$d"
  done
  fail_names=$(printf '%s\n' "${named[@]}" | sort -u | grep -c . || true)
  check "$name: a full disk at each of $j sizes left the earlier ${#files[@]} files as they were, or wrote all" test "$rc" -eq 0
  # Every output, in turn, was the one the disk failed (an empty output never can).
  local nonempty=0
  for f in "${files[@]}"; do [ -s "$base/$f" ] && nonempty=$((nonempty + 1)); done
  check "$name: each of its $nonempty non-empty outputs was once the one that failed ($(printf '%s\n' "${named[@]}" | sort -u | tr '\n' ' '))" \
    test "$fail_names" -ge "$nonempty"
}

# --------------------------------------------------- a signal at each output
signal_each() {
  local name=$1 base=$T/$1.base d=$T/$1.sig files=() f others
  mapfile -t files < <(ls -A "$base")
  for f in "${files[@]}"; do
    rm -rf "$d"
    mkdir "$d"
    mapfile -t others < <(printf '%s\n' "${files[@]}" | grep -vxF -- "$f")
    plant "$d" "${others[@]}"
    mkfifo "$d/$f"
    "case_$name" "$d"
    signal_at "$name, SIGTERM while $f is opened" TERM 'blocked_on_fifo $SIG_PID' -- "${CMD[@]}" || continue
    rm "$d/$f"
    check "$name, SIGTERM while $f is opened: exit 143 (got $SIG_RC), the other ${#others[@]} outputs as they were" \
      eval 'test "$SIG_RC" -eq 143 && untouched "$d" "${others[@]}"'
  done
}

if [ "$(id -u)" -ne 0 ] || ! { mkdir "$T/probe" && mount -t tmpfs -o size=8k tmpfs "$T/probe" 2> /dev/null; }; then
  skip "full disks need root and tmpfs"
else
  umount "$T/probe"
  for name in $CASES; do full_disk "$name"; done
fi
for name in $CASES; do [ -d "$T/$name.base" ] || { mkdir "$T/$name.base"; run_case "$name" "$T/$name.base"; }; done
for name in $CASES; do signal_each "$name"; done

# --------------------------------------------------- the -M a refusal names is taken
# typed_back NAME M COMMAND...: the command with -M M is refused (exit 5)
# naming "give -M N or more"; with -M N it then runs (exit 0), and with one
# MiB less (a byte less than 1M when N is 1) it is refused again.
typed_back() {
  local name=$1 first=$2 rc=0 m
  shift 2
  "$@" -q -M "$first" 2> "$T/m.err" || rc=$?
  m=$(sed -n 's/.*give -M \([0-9]*\)M or more.*/\1/p' "$T/m.err")
  if [ "$rc" -ne 5 ] || [ -z "$m" ]; then bad "$name: wanted exit 5 naming the -M to give, got $rc: $(head -c 300 "$T/m.err")"; return; fi
  rc=0
  "$@" -q -M "${m}M" 2> "$T/m2.err" || rc=$?
  check "$name -M $first: -M ${m}M, as the refusal named it, runs (exit $rc: $(head -c 200 "$T/m2.err"))" test "$rc" -eq 0
  local less="$((m - 1))M"
  [ "$m" -gt 1 ] || less=1048575
  rc=0
  "$@" -q -M "$less" 2> /dev/null || rc=$?
  check "$name: -M $less is refused (exit $rc)" test "$rc" -eq 5
}
rm -rf "$T/m"
mkdir "$T/m"
typed_back "count -t 1" 1M "$KB" count "$T/reads.fq" -k 21 -t 1 -o "$T/m/o.tsv"
typed_back "count -t 2" 1M "$KB" count "$T/reads.fq" -k 21 -t 2 -o "$T/m/o.tsv"
typed_back "count -t 2" 1000 "$KB" count "$T/reads.fq" -k 21 -t 2 -o "$T/m/o.tsv"
typed_back "qv -t 1" 1M "$KB" qv "$T/asm.fa" --reads "$T/counts.kff" -t 1 -o "$T/m/q"
typed_back "qv -t 2" 1M "$KB" qv "$T/asm.fa" --reads "$T/counts.kff" -t 2 -o "$T/m/q"
typed_back "hetmers -t 2" 1M "$KB" hetmers "$T/counts.tsv" -t 2 -o "$T/m/h"
typed_back "bin -t 2" 1M "$KB" bin "$T/few.fq" -k 21 -t 2 --bins 4 -o "$T/m/b.bin"
typed_back "filter -t 2" 1000 "$KB" filter "$T/reads.fq" -k 21 -t 2 -C 5 -o "$T/m/f.fq"
check "count -t 1 refused: no word of threads (one was asked for)" eval '! grep -Eq "thread.*either|-t [0-9]" "$T/m.err"'

# --------------------------------------------------- threads that cannot start
# A sanitizer build reserves terabytes of shadow address space at start, so it
# cannot run under ulimit -v at all; the release build runs these checks.
if grep -qaE '__(a|t)san_init' "$KB"; then
  skip_build "thread start failure under ulimit -v (sanitizer build: shadow memory needs the address space)"
else
  threads_case() {  # threads_case NAME COMMAND...: the command with -t 1000 (or 300), outputs in $T/thr
    local name=$1 rc=0
    shift
    rm -rf "$T/thr"
    mkdir "$T/thr"
    (ulimit -v 1500000; exec "$@") > /dev/null 2> "$T/thr.err" || rc=$?
    check "$name, too many threads under ulimit -v: exit 1 naming the thread, no crash, nothing left (exit $rc: $(head -c 300 "$T/thr.err"))" \
      eval 'test "$rc" -eq 1 && grep -Eq "^kmerbloom: error: cannot start thread [0-9]+ of [0-9]+ .*give fewer threads or more memory$" "$T/thr.err" && ! grep -q "(-t [0-9]" "$T/thr.err" &&
        ! grep -qi terminate "$T/thr.err" && test -z "$(ls -A "$T/thr")"'
  }
  threads_case count "$KB" count "$T/reads.fq" -k 21 -t 1000 -o "$T/thr/o.tsv" --histo "$T/thr/h"
  threads_case estimate "$KB" estimate "$T/reads.fq" -k 21 -t 1000 -o "$T/thr/e.tsv"
  threads_case filter "$KB" filter "$T/reads.fq" -k 21 -t 1000 -C 5 -o "$T/thr/f.fq"
  threads_case build "$KB" build "$T/reads.fq" -k 21 -t 1000 -o "$T/thr/f.kbf"
  threads_case query "$KB" query "$T/reads.kbf" "$T/few.fq" -t 1000 -o "$T/thr/q.tsv"
  threads_case bin "$KB" bin "$T/few.fq" -k 21 -t 1000 --bins 4 -o "$T/thr/b.bin"
  threads_case qv "$KB" qv "$T/asm.fa" --reads "$T/counts.kff" -t 1000 -M 64G -o "$T/thr/q"
  threads_case hetmers "$KB" hetmers "$T/counts.tsv" -t 300 -M 3G -o "$T/thr/h"
  # sets parses at most one input a thread: -t 1000 on two inputs starts one.
  rc=0
  (ulimit -v 1500000; exec "$KB" sets union "$T/counts.tsv" "$T/all.tsv" -t 1000 -q -o "$T/u.tsv") 2> "$T/thr.err" || rc=$?
  check "sets -t 1000 on two inputs under ulimit -v: runs (exit $rc: $(head -c 300 "$T/thr.err"))" test "$rc" -eq 0 -a -s "$T/u.tsv"
  # lookup starts a thread for every 4,096 k-mers of a batch at most.
  rc=0
  (ulimit -v 1500000; exec "$KB" lookup "$T/all.tsv" --kmers "$T/counts.tsv" -t 1000 -q -o "$T/l.tsv") 2> "$T/thr.err" || rc=$?
  check "lookup -t 1000 on a few k-mers under ulimit -v: runs (exit $rc: $(head -c 300 "$T/thr.err"))" test "$rc" -eq 0 -a -s "$T/l.tsv"
fi
finish
