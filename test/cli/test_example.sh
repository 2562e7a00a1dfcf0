#!/usr/bin/env bash
# The library as a user builds against it: `cmake --install` of this build
# into a fresh prefix, test/example/ configured with find_package(kmerbloom)
# and built against that prefix alone, and its k-mers of the example reads
# equal to kmerbloom count's, through its own sink and as the files (KFF,
# FASTA) the library writes itself.
. "$(dirname "$0")/lib.sh"
BUILD=$(cd "$(dirname "$KB")" && pwd)
if grep -qaE '__(a|t)san_init' "$KB"; then
  skip_build "the installed library (sanitizer build: a program built without the sanitizers cannot link it)"
  finish
  exit
fi
cmake --install "$BUILD" --prefix "$T/prefix" > "$T/install.log" 2>&1 || { cat "$T/install.log"; bad "cmake --install failed"; finish; exit 1; }
check "installed: the facade" test -f "$T/prefix/include/kmerbloom/kmerbloom.hpp"
check "installed: the module headers it includes" test -f "$T/prefix/include/kmerbloom/count/counter.hpp"
# The interface is the facade and what it reaches: no private header (the
# counting engine's passes, its tuning knobs, the reader's internals).
for private in count/tuning.hpp count/merge.hpp count/partition_count.hpp count/plan.hpp seqio/queues.hpp kmer/minimizer.hpp; do
  check "installed: not the private $private" test ! -e "$T/prefix/include/kmerbloom/$private"
done
installed=$(cd "$T/prefix/include/kmerbloom" && find . -name '*.hpp' | wc -l)
check "installed: $installed headers, fewer than half of the library's $(find "$SRC/src" -name '*.hpp' -not -path '*/cli/*' | wc -l)" \
  test "$installed" -lt $(($(find "$SRC/src" -name '*.hpp' -not -path '*/cli/*' | wc -l) / 2))
check "installed: no header of the command line" test ! -e "$T/prefix/include/kmerbloom/cli"
check "installed: the CMake package" test -f "$T/prefix/lib/cmake/kmerbloom/kmerbloomConfig.cmake"
check "installed: the binary" test -x "$T/prefix/bin/kmerbloom"
# The Python module, where Debian's python3 looks under a prefix (lib/python3/dist-packages).
if [ -d "$(dirname "$KB")/python" ]; then
  py=$(ls "$T"/prefix/lib/python3/dist-packages/kmerbloom*.so 2> /dev/null | head -1)
  check "installed: the Python module" test -n "$py"
  check "the installed Python module imports and counts" env PYTHONPATH="$T/prefix/lib/python3/dist-packages" \
    /usr/bin/python3 -c "import kmerbloom, sys; r = kmerbloom.count(['$SRC/data/example.fq.gz'], '$T/py.tsv'); sys.exit(r['kmers_solid'] == 0)"
fi
if cmake -S "$SRC/test/example" -B "$T/example" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$T/prefix" \
  > "$T/example.log" 2>&1 && cmake --build "$T/example" >> "$T/example.log" 2>&1; then
  ok "test/example (a C++17 project) builds against the installed library alone"
  "$T/example/example" -k 31 "$SRC/data/example.fq.gz" > "$T/example.tsv" 2> "$T/example.err"
  "$KB" count "$SRC/data/example.fq.gz" -k 31 -o "$T/count.tsv" -q
  check "the example program found k-mers" test -s "$T/example.tsv"
  same "the example program's k-mers are kmerbloom count's" "$T/example.tsv" "$T/count.tsv"
  check "the example program's summary" grep -q '^2400 reads, .* seen at least twice$' "$T/example.err"
  for f in kff fa; do
    "$T/example/example" -k 31 -o "$T/example.$f" "$SRC/data/example.fq.gz" 2> /dev/null
    "$KB" count "$SRC/data/example.fq.gz" -k 31 -o "$T/count.$f" -q
    same "the library writes the .$f file kmerbloom count writes" "$T/example.$f" "$T/count.$f"
  done
else
  tail -20 "$T/example.log"
  bad "test/example does not build against the installed library"
fi
finish
