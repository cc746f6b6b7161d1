#!/usr/bin/env bash
# Where a first one-shot title search spends its time next to the raw client (bench/rawsearch),
# on the 10,000-thread home of bench/titles-oneshot.sh: each process talks to the App Server
# through bench/rpctee, which stamps every message, so each run splits into
#   before   process start to the App Server's start (codexhost: CLI, store, runtime, supervisor)
#   init     the App Server's start to the answer of initialize
#   pages    initialize answered to the last thread/list answer (both read ~100 pages)
#   after    the last answer to the process's end (codexhost: index written, runtime closed)
# A fresh codexhost home each round; raw and codexhost alternate.
#
#   bench/oneshot-phases.sh [ROUNDS]      # default 5; N=2000 for a smaller home
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
rounds="${1:-5}"
n="${N:-10000}"
real="$(./scripts/install-codex.sh)"
bench_home="${CODEXHOST_BENCH_HOME:-$root/.cache/bench/codex-$n}"
[ -f "$bench_home/.built" ] || { echo "no home in $bench_home: run bench/titles-oneshot.sh once" >&2; exit 1; }
unset CODEXHOST_RUNTIME_ENDPOINT CODEXHOST_RUNTIME_TOKEN CODEXHOST_THREAD_ID CODEXHOST_CLI_PATH CODEXHOST_ENDPOINT
tmp="$(mktemp -d /tmp/chp.XXXX)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/codexhost" .
go build -o "$tmp/rawsearch" ./bench/rawsearch
go build -o "$tmp/rpctee" ./bench/rpctee
printf '#!/bin/sh\nRPCTEE_REAL=%s RPCTEE_LOG=%s exec %s "$@"\n' "$real" "$tmp/rpc.log" "$tmp/rpctee" >"$tmp/codex"
chmod +x "$tmp/codex"
export CODEXHOST_CODEX_BIN="$tmp/codex" CODEX_HOME="$bench_home" CODEXHOST_CLIENT_TOKEN=

phases() { # label start-µs end-µs: one line from the stamps of the run
  awk -v l="$1" -v s="$2" -v e="$3" '
    $2 == "start" { st = $1 } $2 == "<" && !ini { ini = $1 } $2 == "<" { last = $1 }
    END { printf "%-9s before %6.1f  init %6.1f  pages %7.1f  after %6.1f  total %7.1f ms\n", l, (st - s) / 1000, (ini - st) / 1000, (last - ini) / 1000, (e - last) / 1000, (e - s) / 1000 }' "$tmp/rpc.log"
}
us() { date +%s%6N; }
for r in $(seq "$rounds"); do
  export CODEXHOST_HOME="$tmp/home$r"
  mkdir -m 700 "$CODEXHOST_HOME"
  : >"$tmp/rpc.log"; s=$(us); "$tmp/rawsearch" needle >/dev/null 2>&1; e=$(us); phases raw "$s" "$e"
  : >"$tmp/rpc.log"; s=$(us); "$tmp/codexhost" sessions --host gateway:local --search needle --limit 50 --json >/dev/null; e=$(us); phases first "$s" "$e"
  rm -rf "$CODEXHOST_HOME"
done
