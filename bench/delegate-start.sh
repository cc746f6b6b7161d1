#!/usr/bin/env bash
# delegate-start.sh — how many `codexhost delegate start` calls per second the runtime takes,
# each a whole CLI process, to an external harness whose command is `true` (so the figure is
# the cost of delegating, not of the child's work).
#
# Builds codexhost, starts `codexhost serve` on a temporary home, then makes N starts
# (default 200) one after the other, and N more all at once; every start has its own task
# text, so none is deduplicated. Prints starts per second for both and the median and p90
# latency of a sequential start. Needs Go; no Codex and no network.
#
# Usage: bench/delegate-start.sh [N]
source "$(dirname "$0")/lib.sh"

n="${1:-200}"

bench_start '[harnesses.t]
command = ["true"]'

start() { "$CH" delegate start --harness t --task "$1"; }

start warm-up >/dev/null

echo "codexhost delegate start --harness t (command = [\"true\"]), N=$n"
: >"$BENCH_TMP/times"
now; t0=$NOW
for i in $(seq "$n"); do
  now; s=$NOW
  start "sequential $i" >/dev/null
  now; e=$NOW
  echo "$((e - s))" >>"$BENCH_TMP/times"
done
now; t1=$NOW
awk -v n="$n" -v ns="$((t1 - t0))" 'BEGIN { printf "sequential: %d starts in %.2f s = %.1f starts/s\n", n, ns / 1e9, n / (ns / 1e9) }'
echo -n "sequential latency: "
stats "$BENCH_TMP/times"

mkdir "$BENCH_TMP/par"
now; t0=$NOW
pids=()
for i in $(seq "$n"); do
  start "parallel $i" >"$BENCH_TMP/par/$i" 2>&1 &
  pids+=($!)
done
wait "${pids[@]}" # not a bare wait: serve runs in the background too
now; t1=$NOW
ok="$(grep -l '"thread":{"id":"' "$BENCH_TMP/par"/* | wc -l)"
awk -v n="$n" -v ns="$((t1 - t0))" 'BEGIN { printf "parallel:   %d starts in %.2f s = %.1f starts/s\n", n, ns / 1e9, n / (ns / 1e9) }'
if [ "$ok" -ne "$n" ]; then
  echo "only $ok of $n parallel starts succeeded; one failure:" >&2
  grep -L '"thread":{"id":"' "$BENCH_TMP/par"/* | head -n 1 | xargs cat >&2
  exit 1
fi
