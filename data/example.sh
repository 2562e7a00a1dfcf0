#!/usr/bin/env bash
# The main job on the bundled example, from a fresh Debian machine: installs
# what is missing, builds, counts the solid 31-mers of data/example.fq.gz.
#   bash data/example.sh        (README.md: "Try it")
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../test/setup-debian.sh"

kb_install "${KB_BUILD_PACKAGES[@]}" "${KB_PYTHON_PACKAGES[@]}"
# Only what the example runs: the tool and its Python module, not the tests.
kb_configure "$BUILD_DIR"
targets=(kmerbloom)
if cmake --build "$BUILD_DIR" --target help 2>/dev/null | grep kmerbloom_python > /dev/null; then
  targets+=(kmerbloom_python)  # configured when pybind11 and python3-dev are there
fi
echo "[example] building ${targets[*]} into $BUILD_DIR: about 5 minutes on 2 cores, less on more" >&2
log=$BUILD_DIR/example-build.log
if ! cmake --build "$BUILD_DIR" -j"$(nproc)" --target "${targets[@]}" 2>&1 | tee "$log" |
  awk '/^\[ *[0-9]+%\]/ { p = int(substr($0, 2) / 10) * 10; if (p > last) { printf "[example] built %d%%\n", p > "/dev/stderr"; last = p } }'
then
  tail -30 "$log" >&2
  exit 1
fi
OUT=${OUT:-$KB_ROOT/example-output}
mkdir -p "$OUT"
"$BUILD_DIR/kmerbloom" count "$KB_ROOT/data/example.fq.gz" -k 31 \
  -o "$OUT/solid.tsv" --histo "$OUT/example.histo" --stats "$OUT/stats.json"
echo "solid k-mers:  $OUT/solid.tsv ($(wc -l < "$OUT/solid.tsv") k-mers with count >= 2)"
echo "histogram:     $OUT/example.histo"
echo "statistics:    $OUT/stats.json"
