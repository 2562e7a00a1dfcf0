# Sourced by the counting benchmarks. Needs OUT and a log function.
# measure NAME CMD...: runs CMD under /usr/bin/time -v (its output in
# $OUT/NAME.log); appends NAME, wall seconds, CPU seconds and peak resident
# MB to $OUT/times.tsv.
measure() {
  local name=$1; shift
  log "$name: $*"
  /usr/bin/time -v -o "$OUT/$name.time" "$@" > "$OUT/$name.log" 2>&1 || { tail "$OUT/$name.log" >&2; exit 1; }
  awk -F': ' -v n="$name" '
    /Elapsed \(wall clock\)/ { k = split($2, p, ":"); w = 0; for (i = 1; i <= k; i++) w = w * 60 + p[i] }
    /User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { r = $2 / 1024 }
    END { printf "%s\t%.2f\t%.2f\t%.0f\n", n, w, u + s, r }' "$OUT/$name.time" >> "$OUT/times.tsv"
}

# dataset_inputs DATASET: sets INPUTS to the dataset's files under $DATA
# (exits when unknown or missing).
dataset_inputs() {
  case "$1" in
    ecoli_100x) INPUTS=("$DATA/ecoli_100x_R1.fq.gz" "$DATA/ecoli_100x_R2.fq.gz") ;;
    ecoli_30x) INPUTS=("$DATA/ecoli_30x.fq.gz") ;;
    ecoli_small) INPUTS=("$DATA/ecoli_small.fq.gz") ;;
    community | community10x) INPUTS=("$DATA/$1_R1.fq.gz" "$DATA/$1_R2.fq.gz") ;;  # bench/make-community.sh
    *) echo "unknown dataset $1" >&2; exit 2 ;;
  esac
  for f in "${INPUTS[@]}"; do
    [ -s "$f" ] || { echo "missing $f: run ../shared/bench/make-data.sh (ecoli_*) or bench/make-community.sh (community*)" >&2; exit 1; }
  done
}
