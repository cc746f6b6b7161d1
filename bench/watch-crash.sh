#!/bin/sh
# The e2e crash loops with more cycles than CI runs: SIGKILLs `codexhost serve` at random
# moments CYCLES times (default 300) while watches are registered and delivered (one runtime
# restarted after each crash, then two runtimes on one home with the holder killed and the
# follower taking over), and checks that none was lost and that duplicates only follow a
# crash. To replay the choices of a run, pass the seed it logged and run one loop:
# CODEXHOST_CRASH_SEED=N LOOPS=TestWatchTakeoverCrashLoop bench/watch-crash.sh 300
set -eu
cd "$(dirname "$0")/.."
LOOPS=${LOOPS:-TestWatchCrashLoop|TestWatchTakeoverCrashLoop}
CODEXHOST_CRASH_CYCLES=${1:-300} exec go test -count=1 -run "^($LOOPS)\$" -v -timeout 120m ./e2e/
