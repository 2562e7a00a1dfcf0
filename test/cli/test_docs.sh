#!/usr/bin/env bash
# The doc test: every command README.md and docs/ show with its output runs
# and prints what is shown; every kmerbloom command line they show names a
# subcommand and options that exist (test/cli/doc_test.py says how).
. "$(dirname "$0")/lib.sh"
check "every command README.md and docs/ show is true (the lines above)" python3 "$SRC/test/cli/doc_test.py" "$KB" "$SRC" "$T"
finish
