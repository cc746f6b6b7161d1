#!/bin/sh
# The e2e crash loop with more cycles than CI runs: SIGKILLs `codexhost serve` at random
# moments CYCLES times (default 300) while watches are registered and delivered, then checks
# that none was lost and that duplicates only follow a crash. To replay the choices of a run,
# pass the seed it logged: WATCH_CRASH_SEED=N bench/watch-crash.sh 300
set -eu
cd "$(dirname "$0")/.."
WATCH_CRASH_CYCLES=${1:-300} exec go test -count=1 -run '^TestWatchCrashLoop$' -v -timeout 60m ./e2e/
