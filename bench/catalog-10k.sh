#!/usr/bin/env bash
# Fleet catalog on a large Codex home: builds (once, cached) a Codex home with N stored
# threads made by the App Server itself, then measures in one run
#   - a raw App Server thread/list of 50 (with and without useStateDbOnly), and one native
#     page of 100 (the unit of a title scan),
#   - the catalog's list of 50 cold (empty index) and warm (resident index),
#   - a title search over every thread: truly cold (empty index, nothing read ahead), on a
#     runtime starting (it meets the start's read-ahead), on a running runtime, and warm,
# first in process (go test -bench), then end to end through `codexhost sessions` against a
# running `codexhost serve` (which reads its hosts ahead from its start).
#
#   bench/catalog-10k.sh            # N=10000, home in .cache/bench/codex-10000
#   N=2000 bench/catalog-10k.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
n="${N:-10000}"
codex_bin="$(./scripts/install-codex.sh)"
export CODEXHOST_CODEX_BIN="$codex_bin"
bench_home="${CODEXHOST_BENCH_HOME:-$root/.cache/bench/codex-$n}"

if [ ! -f "$bench_home/.built" ]; then
  echo "== building a Codex home with $n threads in $bench_home (once)"
  rm -rf "$bench_home"
  start=$(date +%s)
  CODEXHOST_BENCH_BUILD="$bench_home" CODEXHOST_BENCH_THREADS="$n" \
    go test -count=1 -timeout 60m -run '^TestBuildBenchHome$' -v ./runtime/catalog/ | grep -E 'built|threads in|FAIL|ok' || true
  [ -f "$bench_home/config.toml" ] || { echo "build failed" >&2; exit 1; }
  echo "built in $(( $(date +%s) - start )) s"
  touch "$bench_home/.built"
fi

echo "== in process (go test -bench; ns/op)"
CODEXHOST_BENCH_HOME="$bench_home" go test -count=1 -run '^$' -bench '^BenchmarkCatalog10k$' -benchtime "${BENCHTIME:-10x}" ./runtime/catalog/ |
  grep -E '^Benchmark|^ok|FAIL'

echo "== title index, in process (go test -bench; ns/op)"
CODEXHOST_BENCH_HOME="$bench_home" go test -count=1 -run '^$' -bench '^BenchmarkTitles10k$' -benchtime "${BENCHTIME:-10x}" -v ./runtime/catalog/ |
  grep -E '^Benchmark|index file|^ok|FAIL'

echo "== end to end (codexhost serve + codexhost sessions; wall ms per command)"
tmp="$(mktemp -d /tmp/chb.XXXX)"
bin="$tmp/codexhost"
go build -o "$bin" .
export CODEXHOST_HOME="$tmp/home" CODEX_HOME="$bench_home" CODEXHOST_CLIENT_TOKEN=
mkdir -m 700 "$CODEXHOST_HOME"
serve_pid=
stop_serve() { [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null; serve_pid=; }
trap 'stop_serve; rm -rf "$tmp"' EXIT
start_serve() { # a fresh runtime whose App Server runs; its catalog reads ahead from its start
  stop_serve
  "$bin" serve >>"$tmp/serve.log" 2>&1 &
  serve_pid=$!
  # Wait for its socket: an operator command run before it would embed a runtime of its own
  # and hold the home, and serve would then fail.
  for _ in $(seq 300); do [ -S "$CODEXHOST_HOME/runtime.sock" ] && break; sleep 0.1; done
  "$bin" hosts >/dev/null
  # Start the App Server through another path, so the catalog's first list pays no process start.
  "$bin" thread list --all-cwd --limit 1 --client-token "$(cat "$CODEXHOST_HOME/operator.token")" >/dev/null
}
ms() { # run a command, print its wall time in ms
  local s e
  s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N)
  echo $(( (e - s) / 1000000 ))
}
search_all() { # pages a title search over the whole host; prints "ms (calls, matches)"
  local cursor="" calls=0 matches=0 out s e
  s=$(date +%s%N)
  while :; do
    out="$("$bin" sessions --host gateway:local --search needle --limit 50 --json ${cursor:+--cursor "$cursor"})"
    calls=$((calls + 1))
    matches=$((matches + $(printf '%s' "$out" | grep -o '"id":' | wc -l)))
    cursor="$(printf '%s' "$out" | sed -n 's/.*"nextCursor":"\([^"]*\)".*/\1/p')"
    [ -z "$cursor" ] && break
  done
  e=$(date +%s%N)
  echo "$(( (e - s) / 1000000 )) ($calls calls, $matches matches)"
}
echo "codexhost version (process start only): $(ms "$bin" version)"
start_serve
echo "sessions --limit 50, cold: $(ms "$bin" sessions --host gateway:local --limit 50 --json)"
echo "sessions --limit 50, warm: $(ms "$bin" sessions --host gateway:local --limit 50 --json)"
echo "search over all, right after the list (fresh runtime, its read-ahead under way): $(search_all)"
echo "search over all, again: $(search_all)"
start_serve
sleep "${UP_SECONDS:-3}" # no list: only the runtime's start read ahead
echo "search over all, first call of a runtime up ${UP_SECONDS:-3} s: $(search_all)"
start_serve
"$bin" sessions --host gateway:local --limit 50 --json >/dev/null
sleep "${READ_SECONDS:-3}" # the operator reads the list; its read-ahead settles
echo "search over all, ${READ_SECONDS:-3} s after a list (fresh runtime): $(search_all)"
if [ -n "${IDLE_SECONDS:-}" ]; then # past the life of a page (1 min): kept warm, or read again
  sleep "$IDLE_SECONDS"
  echo "search over all, $IDLE_SECONDS s after the last one: $(search_all)"
fi

# The title index: the runtimes above wrote it under the home.
stop_serve
echo "title index on disk: $(du -cb "$CODEXHOST_HOME"/catalog-index/* | tail -1 | cut -f1) bytes"
oneshot() { # a one-shot CLI search with no runtime running: it embeds one, which starts the App Server
  local s e out
  s=$(date +%s%N); out="$("$bin" sessions --host gateway:local --search needle --limit 50 --json)"; e=$(date +%s%N)
  echo "$(( (e - s) / 1000000 )) ($(printf '%s' "$out" | grep -o '"id":' | wc -l) matches, revalidating: $(printf '%s' "$out" | grep -c '"revalidating":true'))"
}
echo "one-shot sessions --search, no runtime running, index present: $(oneshot)"
echo "one-shot sessions --search, again: $(oneshot)"
start_serve
echo "search over all, runtime just started with the index present: $(search_all)"
echo "runtime RSS: $(grep VmRSS /proc/"$serve_pid"/status | tr -s ' ' | cut -d' ' -f2-)"
stop_serve
runs="${VERSION_RUNS:-50}"
s=$(date +%s%N); for _ in $(seq "$runs"); do "$bin" version >/dev/null; done; e=$(date +%s%N)
echo "codexhost version, mean of $runs runs: $(( (e - s) / runs / 1000 )) µs"
