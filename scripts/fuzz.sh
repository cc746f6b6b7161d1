#!/usr/bin/env bash
# Runs every go fuzz target of the module in turn, one at a time (fuzzing takes every core):
#   scripts/fuzz.sh [FUZZTIME]     # default 20s per target
# The list is read from the source, so a new target is fuzzed without being listed anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${1:-20s}"
go="${GO:-go}"
git ls-files '*_test.go' | xargs grep -l '^func Fuzz' | while read -r file; do
  pkg="./$(dirname "$file")"
  grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //' | while read -r target; do
    echo "== $pkg $target"
    "$go" test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -parallel 1
  done
done
