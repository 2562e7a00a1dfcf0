#!/usr/bin/env bash
# Every file of this repository that the README, docs/ or a comment names
# exists: a path from the top (src/count/plan.cpp, docs/estimate.md,
# test/cli/lib.sh) or a module header as the code includes it
# (formats/kff.hpp). A file moved without its mentions fails here, and so
# does a function that they name as name() and the code no longer has.
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

# Every function that README.md, docs/ or a comment in src/ names as name()
# (or Type::name()) is still declared or called in the code, comments aside:
# a function renamed or removed without its mentions fails here.
code_files=$(git ls-files 'src/*.hpp' 'src/*.cpp' 'include/*.hpp' 2> /dev/null || true)
sed -E 's@//.*@@' $code_files < /dev/null > "$T/code"
calls() {  # prints FILE:NAME for every name() in the given files (only comments of code)
  local f
  for f in "$@"; do
    case $f in
      *.md) grep -oE '[A-Za-z_][A-Za-z0-9_]*\(\)' "$f" ;;
      *) grep -oE '//.*' "$f" | grep -oE '[A-Za-z_][A-Za-z0-9_]*\(\)' ;;
    esac | sed "s|^|$f:|" || true
  done
}
gone=0
while IFS=: read -r file name; do
  grep -qE "(^|[^A-Za-z0-9_])${name%()} *\(" "$T/code" || {
    echo "  $file names $name, which the code no longer has"
    gone=$((gone + 1))
  }
done < <(calls README.md docs/*.md $code_files | sort -u)
check "every function named in README.md, docs/ and the code's comments exists ($gone missing)" test "$gone" -eq 0
finish
