#!/usr/bin/env bash
# thread-read.sh — the cost of `codexhost thread read` of a stored thread as agents pay it: a
# whole CLI process round trip (exec, connect to the runtime's socket, authenticate, read the
# thread and its latest result, print JSON, exit).
#
# Builds codexhost, starts `codexhost serve` on a temporary home with one external harness
# (`cat`), stores a thread with one finished turn, and runs `thread read` on it RUNS times
# (default 100, at least 50) after a warm-up. Prints median and p90 in milliseconds, with
# hyperfine when it is installed, else with a timed loop. Needs Go; no Codex and no network.
#
# Usage: bench/thread-read.sh [RUNS]
source "$(dirname "$0")/lib.sh"

runs="${1:-100}"
if [ "$runs" -lt 50 ]; then
  echo "use at least 50 runs" >&2
  exit 2
fi

bench_start '[harnesses.echo]
command = ["cat"]'

id="$("$CH" delegate start --harness echo --task "a stored thread" | json_field id)"
[ -n "$id" ] || { echo "delegate start printed no thread id" >&2; exit 1; }
"$CH" thread wait "$id" >/dev/null
"$CH" thread read "$id" | grep -q '"status":"completed"' || { echo "the thread did not complete" >&2; exit 1; }

echo "codexhost thread read $id (stored external thread), $runs runs"
if command -v hyperfine >/dev/null 2>&1; then
  hyperfine --shell=none --warmup 10 --runs "$runs" --export-json "$BENCH_TMP/h.json" "$CH thread read $id" >&2
  # One figure per run, in seconds, in the "times" array.
  tr -d ' \n' <"$BENCH_TMP/h.json" | sed 's/.*"times":\[\([^]]*\)\].*/\1/' | tr ',' '\n' |
    awk '{ printf "%d\n", $1 * 1e9 }' >"$BENCH_TMP/times"
  echo -n "hyperfine: "
else
  for _ in $(seq 10); do "$CH" thread read "$id" >/dev/null; done
  : >"$BENCH_TMP/times"
  for _ in $(seq "$runs"); do
    now; t0=$NOW
    "$CH" thread read "$id" >/dev/null
    now; t1=$NOW
    echo "$((t1 - t0))" >>"$BENCH_TMP/times"
  done
  echo -n "loop: "
fi
stats "$BENCH_TMP/times"
