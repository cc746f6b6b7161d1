#!/usr/bin/env bash
# Resident memory of the terminal app with 10,000 catalog rows and a 2,000-node lineage
# loaded and rendered (goal: under 80 MB). Runs the benchmark alone in its own test process,
# so nothing else has grown it; reports rss-MB, hwm-MB (peak) and the Go heap in use.
#
#   bench/tui-rss.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
go test -count=1 -run '^$' -bench '^BenchmarkRSSWith10kRowsAnd2kLineageNodes$' -benchtime 1x ./ui/ |
  grep -E '^Benchmark|^ok|FAIL|RSS'
