#!/usr/bin/env bash
# lookup.sh: random look-ups in a counted set, kmerbloom lookup beside
# jellyfish query, each under /usr/bin/time -v, rounds interleaved, and a
# check that both give the same count for every k-mer.
#
# The set (SET):
#   ecoli_100x (default)  every 31-mer of ecoli_100x (count -c 1; jellyfish
#                         count -C), as KFF and as TSV, each indexed
#                         (kmerbloom index); the reads from ecoli_30x.
#   diploid120            the 3 Gbp pair set of bench/make-diploid.sh (120 Mbp
#                         diploid, 25x 2x150 bp): its solid 31-mers (count
#                         -c 2; jellyfish count -C -L 2), 146 million, as KFF
#                         only (a TSV would be about 8 GB), indexed; the
#                         present half of the questions streamed from the
#                         KFF (merge-counts -o -, every Nth k-mer, shuf); the
#                         reads from diploid120_R1.
# The questions: QUERIES k-mers (default 1,000,000), half drawn from the set,
# half random (almost all absent), shuffled; and every k-mer of the first
# READS reads (default 10,000). Also timed: opening (one k-mer) and the
# index's making; and, when the Python module is built (PY, default
# build/python), the random k-mers from Python: read from the file,
# CountFile.counts (all cores), written as jellyfish query writes them, the
# stages' times in py_random_N.log.
#
# Data (DATA, default /tmp/kmerbloom-bench/data): ../shared/bench/make-data.sh
# writes ecoli_*, bench/make-diploid.sh genome pairs diploid120 (30 minutes).
# Env: SET, KB (default build/kmerbloom), DATA, OUT (default
# /tmp/kmerbloom-bench/lookup for ecoli_100x, else /tmp/kmerbloom-bench/lookup-SET),
# ROUNDS=3, THREADS=2 (counting), REUSE=1 (keep the counts, indexes and
# Jellyfish database of a run before).
# Time on 2 cores (shared, load 1-4): ecoli_100x 2.5 minutes (counting and
# indexes 1.5, REUSE=1 45 s), 1.8 GB in OUT; diploid120 22 minutes (kmerbloom
# count 1.5, index 14 s, jellyfish count 18 at 6.2 GB resident with -s 600M,
# the questions 1, the rounds 1.5), 3.4 GB in OUT (KFF 1.6 GB, Jellyfish 1.75 GB).
# Needs Debian packages: jellyfish time (and python3-numpy for the Python run).
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KB=${KB:-$HERE/../build/kmerbloom}
PY=${PY:-$HERE/../build/python}
DATA=${DATA:-/tmp/kmerbloom-bench/data}
SET=${SET:-ecoli_100x}
ROUNDS=${ROUNDS:-3} THREADS=${THREADS:-2} QUERIES=${QUERIES:-1000000} READS=${READS:-10000}
log() { echo "[lookup.sh] $*" >&2; }
. "$HERE/measure.sh"
# Per set: the pairs, the reads of --reads, count's threshold, Jellyfish's
# options (the same threshold, a hash that holds every k-mer), whether a TSV
# form is measured too, and what writes the data.
case $SET in
  ecoli_100x)
    OUT=${OUT:-/tmp/kmerbloom-bench/lookup}
    R1=$DATA/ecoli_100x_R1.fq.gz R2=$DATA/ecoli_100x_R2.fq.gz READS_FQ=$DATA/ecoli_30x.fq.gz
    MIN=1 JF_OPTS="-s 200M" TSV=1 MAKER=../shared/bench/make-data.sh ;;
  diploid120)
    OUT=${OUT:-/tmp/kmerbloom-bench/lookup-$SET}
    R1=$DATA/diploid120_R1.fq.gz R2=$DATA/diploid120_R2.fq.gz READS_FQ=$DATA/diploid120_R1.fq.gz
    MIN=2 JF_OPTS="-L 2 -s 600M" TSV= MAKER="bench/make-diploid.sh genome pairs" ;;
  *) echo "SET must be ecoli_100x or diploid120, got '$SET'" >&2; exit 1 ;;
esac
for f in "$R1" "$R2" "$READS_FQ"; do [ -s "$f" ] || { echo "missing $f: run $MAKER" >&2; exit 1; }; done
for t in jellyfish /usr/bin/time "$KB"; do command -v "$t" > /dev/null || { echo "missing $t" >&2; exit 1; }; done
mkdir -p "$OUT"
: > "$OUT/times.tsv"

[ -s "$OUT/jf.db" ] && [ -s "$OUT/all.kff.kbi" ] && { [ -z "$TSV" ] || [ -s "$OUT/all.tsv.kbi" ]; } && [ -n "${REUSE:-}" ] || {
measure count_kff "$KB" count "$R1" "$R2" -k 31 -c "$MIN" -t "$THREADS" -q -o "$OUT/all.kff"
[ -z "$TSV" ] || measure count_tsv "$KB" count "$R1" "$R2" -k 31 -c "$MIN" -t "$THREADS" -q -o "$OUT/all.tsv"
measure index_kff "$KB" index "$OUT/all.kff" -q
[ -z "$TSV" ] || measure index_tsv "$KB" index "$OUT/all.tsv" -q
measure jellyfish_count bash -c "jellyfish count -m 31 -C $JF_OPTS -t $THREADS -o '$OUT/jf.db' <(zcat '$R1') <(zcat '$R2')"
}

# Half drawn from the set (shuf, a fixed random source), half random. Without
# a TSV the set streams from the KFF (merge-counts -o -): every Nth k-mer,
# about QUERIES of them, then shuf.
if [ -n "$TSV" ]; then
  shuf -n $((QUERIES / 2)) --random-source=<(yes 31) "$OUT/all.tsv" | cut -f1 > "$OUT/present.txt"
else
  kmers=$("$KB" merge-counts "$OUT/all.kff" -q -o - | wc -l)
  every=$((kmers / QUERIES > 1 ? kmers / QUERIES : 1))
  "$KB" merge-counts "$OUT/all.kff" -q -o - | awk -v e="$every" 'NR % e == 0 { print $1 }' |
    shuf -n $((QUERIES / 2)) --random-source=<(yes 31) > "$OUT/present.txt"
fi
python3 - "$OUT/present.txt" "$QUERIES" > "$OUT/queries.txt" << 'PY'
import random, sys
rng = random.Random(31)
present = open(sys.argv[1]).read().split()
q = present + ["".join(rng.choice("ACGT") for _ in range(31)) for _ in range(int(sys.argv[2]) - len(present))]
rng.shuffle(q)
print("\n".join(q))
PY
awk '{ print ">q" NR; print }' "$OUT/queries.txt" > "$OUT/queries.fa"
cat > "$OUT/lookup.py" << 'PY'
import sys, time
t0 = time.perf_counter()
import kmerbloom
counts_file, queries, out = sys.argv[1:4]
f = kmerbloom.CountFile(counts_file)
f.k  # opens the index
t1 = time.perf_counter()
kmers = open(queries).read().split()
t2 = time.perf_counter()
c = f.counts(kmers)
t3 = time.perf_counter()
with open(out, "w") as o:
    o.write("".join(f"{x} {n}\n" for x, n in zip(kmers, c.tolist())))
t4 = time.perf_counter()
print(f"import and open {t1 - t0:.2f} s, read {t2 - t1:.2f} s, counts {t3 - t2:.2f} s, write {t4 - t3:.2f} s", file=sys.stderr)
PY
PYRUN=
ls "$PY"/kmerbloom*.so > /dev/null 2>&1 && /usr/bin/python3 -c 'import numpy' 2> /dev/null && PYRUN=1
(zcat "$READS_FQ" || true) | head -n $((4 * READS)) | awk 'NR % 4 == 1 { print ">" substr($1, 2) } NR % 4 == 2' > "$OUT/reads.fa"
one=$(head -1 "$OUT/queries.txt")

for r in $(seq "$ROUNDS"); do
  measure "kb_open_kff_$r" "$KB" lookup "$OUT/all.kff" "$one"
  measure "jf_open_$r" jellyfish query "$OUT/jf.db" "$one"
  measure "kb_random_kff_$r" "$KB" lookup "$OUT/all.kff" --kmers "$OUT/queries.txt" -o "$OUT/kb_random_kff.out"
  [ -z "$TSV" ] || measure "kb_random_tsv_$r" "$KB" lookup "$OUT/all.tsv" --kmers "$OUT/queries.txt" -o "$OUT/kb_random_tsv.out"
  measure "jf_random_$r" jellyfish query "$OUT/jf.db" -s "$OUT/queries.fa" -o "$OUT/jf_random.out"
  [ -z "$PYRUN" ] || measure "py_random_$r" env PYTHONPATH="$PY" /usr/bin/python3 "$OUT/lookup.py" "$OUT/all.kff" "$OUT/queries.txt" "$OUT/py_random.out"
  measure "kb_reads_kff_$r" "$KB" lookup "$OUT/all.kff" --reads "$OUT/reads.fa" --counts -o "$OUT/kb_reads.out"
  measure "jf_reads_$r" jellyfish query "$OUT/jf.db" -s "$OUT/reads.fa" -o "$OUT/jf_reads.out"
done

status=0
cut -d' ' -f2 "$OUT/jf_random.out" > "$OUT/jf_random.counts"
for f in kb_random_kff ${TSV:+kb_random_tsv}; do
  if cut -f2 "$OUT/$f.out" | cmp -s - "$OUT/jf_random.counts"; then echo "equal: $f = jellyfish query, $QUERIES k-mers"
  else echo "DIFFERENT: $f vs jellyfish query"; status=1; fi
done
if [ -n "$PYRUN" ]; then
  if cut -d' ' -f2 "$OUT/py_random.out" | cmp -s - "$OUT/jf_random.counts"; then echo "equal: CountFile.counts = jellyfish query, $QUERIES k-mers"
  else echo "DIFFERENT: CountFile.counts vs jellyfish query"; status=1; fi
  for r in $(seq "$ROUNDS"); do echo "py_random_$r: $(cat "$OUT/py_random_$r.log")"; done
fi
if tail -n +2 "$OUT/kb_reads.out" | cut -f5 | tr ',' '\n' | cmp -s - <(cut -d' ' -f2 "$OUT/jf_reads.out"); then
  echo "equal: lookup --reads --counts = jellyfish query -s, every k-mer of $READS reads"
else echo "DIFFERENT: lookup --reads vs jellyfish query -s"; status=1; fi
[ -n "$TSV" ] || echo "k-mers: $kmers (count >= $MIN)"
echo "files: $(stat -c %s "$OUT/all.kff") B KFF + $(stat -c %s "$OUT/all.kff.kbi") B index;" \
  ${TSV:+"$(stat -c %s "$OUT/all.tsv") B TSV + $(stat -c %s "$OUT/all.tsv.kbi") B index;"} "jellyfish $(stat -c %s "$OUT/jf.db") B"
printf 'run\twall_s\tcpu_s\tpeak_MB\n'
cat "$OUT/times.tsv"
# Medians over the rounds.
python3 - "$OUT/times.tsv" << 'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, wall, cpu, peak = line.split("\t")
    runs[name.rstrip("0123456789").rstrip("_")].append((float(wall), int(peak)))
for name, r in sorted(runs.items()):
    print(f"median\t{name}\t{statistics.median(w for w, _ in r):.2f} s\t{max(p for _, p in r)} MB")
PY
exit $status
