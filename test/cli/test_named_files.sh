#!/usr/bin/env bash
# Every file of this repository that the README, docs/ or a comment names
# exists: a path from the top (src/count/plan.cpp, docs/estimate.md,
# test/cli/lib.sh) or a module header as the code includes it
# (formats/kff.hpp). A file moved without its mentions fails here.
. "$(dirname "$0")/lib.sh"
cd "$SRC"
named() {  # prints FILE:NAME for every name in the given files
  grep -oHE '(^|[^A-Za-z0-9_./-])((src|include|test|docs|bench|workflows|data|cmake)/[A-Za-z0-9_./-]+\.(hpp|cpp|md|sh|py|cwl|nf|cmake|in|json)|(io|lib|common|seqio|formats|kmer|estimate|bloom|count|normalize|kbf|report|cli)/[a-z_]+\.(hpp|cpp))' "$@" |
    sed -E 's/:[^A-Za-z]*/:/'
}
missing=0
while IFS=: read -r file name; do
  [ -e "$name" ] || [ -e "src/$name" ] || [ -e "include/kmerbloom/$name" ] || {
    echo "  $file names $name, which does not exist"
    missing=$((missing + 1))
  }
done < <(named README.md docs/*.md $(git ls-files 'src/*' 'include/*' 'test/*.cpp' 'test/*.hpp' 'test/*.sh' 'bench/*' 2> /dev/null) | sort -u)
check "every file named in README.md, docs/ and the code's comments exists ($missing missing)" test "$missing" -eq 0
finish
