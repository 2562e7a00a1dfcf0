#!/usr/bin/env bash
# The main job on the bundled example, from a fresh Debian machine: installs
# what is missing, builds, counts the solid 31-mers of data/example.fq.gz.
#   bash data/example.sh        (README.md: "Try it")
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../test/setup-debian.sh"

kb_install "${KB_BUILD_PACKAGES[@]}" "${KB_PYTHON_PACKAGES[@]}"
kb_build "$BUILD_DIR" >/dev/null
OUT=${OUT:-$KB_ROOT/example-output}
mkdir -p "$OUT"
"$BUILD_DIR/kmerbloom" count "$KB_ROOT/data/example.fq.gz" -k 31 \
  -o "$OUT/solid.tsv" --histo "$OUT/example.histo" --stats "$OUT/stats.json"
echo "solid k-mers:  $OUT/solid.tsv ($(wc -l < "$OUT/solid.tsv") k-mers with count >= 2)"
echo "histogram:     $OUT/example.histo"
echo "statistics:    $OUT/stats.json"
