#!/usr/bin/env bash
# Title search for people who keep no runtime running, against a raw App Server client
# (bench/rawsearch: starts `codex app-server`, pages thread/list with useStateDbOnly to the
# end, matches names), on the 10,000-thread home of bench/catalog-10k.sh. Each round uses a
# fresh codexhost home and runs, each next to a raw search run just before it:
#   first   the first one-shot `codexhost sessions --search` ever on the home (embedded runtime)
#   next    the next one-shot search (the index the first one wrote)
#   serve   a search against `codexhost serve` started after them (its App Server up)
# and prints each figure, then the median of each ratio over the rounds. Whole-process wall
# times; the machine's other load slows both sides of a pair alike.
#
#   bench/titles-oneshot.sh [ROUNDS]      # default 7; N=2000 for a smaller home
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
rounds="${1:-7}"
n="${N:-10000}"
export CODEXHOST_CODEX_BIN="$(./scripts/install-codex.sh)"
bench_home="${CODEXHOST_BENCH_HOME:-$root/.cache/bench/codex-$n}"
if [ ! -f "$bench_home/.built" ]; then
  echo "== building a Codex home with $n threads in $bench_home (once)"
  rm -rf "$bench_home"
  CODEXHOST_BENCH_BUILD="$bench_home" CODEXHOST_BENCH_THREADS="$n" \
    go test -count=1 -timeout 60m -run '^TestBuildBenchHome$' ./runtime/catalog/ >/dev/null
  touch "$bench_home/.built"
fi
unset CODEXHOST_RUNTIME_ENDPOINT CODEXHOST_RUNTIME_TOKEN CODEXHOST_THREAD_ID CODEXHOST_CLI_PATH CODEXHOST_ENDPOINT
tmp="$(mktemp -d /tmp/chb.XXXX)"
serve_pid=
stop_serve() { if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; serve_pid=; fi; }
trap 'stop_serve; rm -rf "$tmp"' EXIT
go build -o "$tmp/codexhost" .
go build -o "$tmp/rawsearch" ./bench/rawsearch
bin="$tmp/codexhost"
export CODEX_HOME="$bench_home" CODEXHOST_CLIENT_TOKEN=

ms() { # wall ms of a command; its stdout to $tmp/out
  local s e
  s=$(date +%s%N); "$@" >"$tmp/out" 2>"$tmp/err"; e=$(date +%s%N)
  echo $(( (e - s) / 1000000 ))
}
matches() { grep -o '"id":' "$tmp/out" | wc -l; }
search() { "$bin" sessions --host gateway:local --search needle --limit 50 --json; }
: >"$tmp/ratios"
for r in $(seq "$rounds"); do
  export CODEXHOST_HOME="$tmp/home$r"
  mkdir -m 700 "$CODEXHOST_HOME"
  raw1=$(ms "$tmp/rawsearch" needle); rawm=$(wc -l <"$tmp/out")
  first=$(ms search); fm=$(matches); fc=$(grep -c nextCursor "$tmp/out" || true)
  [ -n "$(ls "$CODEXHOST_HOME"/catalog-index/ 2>/dev/null)" ] || { echo "no index after the first search" >&2; exit 1; }
  raw2=$(ms "$tmp/rawsearch" needle)
  next=$(ms search); nm=$(matches); nr=$(grep -c '"revalidating":true' "$tmp/out" || true)
  "$bin" serve >>"$tmp/serve.log" 2>&1 &
  serve_pid=$!
  for _ in $(seq 300); do [ -S "$CODEXHOST_HOME/runtime.sock" ] && break; sleep 0.1; done
  "$bin" hosts >/dev/null
  "$bin" thread list --all-cwd --limit 1 --client-token "$(cat "$CODEXHOST_HOME/operator.token" 2>/dev/null || true)" >/dev/null 2>&1 || true
  raw3=$(ms "$tmp/rawsearch" needle)
  served=$(ms search); sm=$(matches)
  stop_serve
  echo "round $r: raw $raw1 ms ($rawm matches) first $first ms ($fm matches, cursor $fc) | raw $raw2 next $next ($nm, revalidating $nr) | raw $raw3 serve $served ($sm)"
  echo "$first $raw1 $next $raw2 $served $raw3" >>"$tmp/ratios"
  rm -rf "$CODEXHOST_HOME"
done
awk '{ f[NR] = $1 / $2; x[NR] = $3 / $4; s[NR] = $5 / $6 }
  function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
  END { printf "median over %d rounds: first one-shot %.2fx raw, next one-shot %.2fx raw, serve started after them %.2fx raw\n", NR, med(f, NR), med(x, NR), med(s, NR) }' "$tmp/ratios"
