# Shared setup of the bench/*.sh scripts; source it, do not run it.
#
# bench_start CONFIG_TOML builds codexhost into a temporary directory, starts `codexhost serve`
# on a fresh home there with CONFIG_TOML as its config.toml, and creates a client. Afterwards
# $CH is the binary, and CODEXHOST_HOME and CODEXHOST_CLIENT_TOKEN are exported, so that a bare
# "$CH" thread read … talks to that runtime as an external client. Everything is stopped and
# removed when the script exits.

set -euo pipefail

BENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# A connection of whoever runs the script (say, inside a codexhost harness) would win over
# the client token: drop it.
unset CODEXHOST_RUNTIME_ENDPOINT CODEXHOST_RUNTIME_TOKEN CODEXHOST_THREAD_ID CODEXHOST_CLI_PATH CODEXHOST_ENDPOINT

bench_cleanup() {
  if [ -n "${BENCH_SERVE_PID:-}" ]; then
    kill "$BENCH_SERVE_PID" 2>/dev/null || true
    wait "$BENCH_SERVE_PID" 2>/dev/null || true
  fi
  if [ -n "${BENCH_TMP:-}" ]; then
    rm -rf "$BENCH_TMP"
  fi
}
trap bench_cleanup EXIT

bench_start() {
  # Short: the runtime's Unix socket lives in the home and its path must stay under 108 bytes.
  BENCH_TMP="$(mktemp -d /tmp/chb.XXXXXX)"
  CH="$BENCH_TMP/codexhost"
  echo "building codexhost ..." >&2
  (cd "$BENCH_ROOT" && CGO_ENABLED=0 go build -o "$CH" .)
  export CODEXHOST_HOME="$BENCH_TMP/home"
  mkdir -m 700 "$CODEXHOST_HOME"
  printf '%s\n' "$1" >"$CODEXHOST_HOME/config.toml"
  chmod 600 "$CODEXHOST_HOME/config.toml"
  "$CH" serve >"$BENCH_TMP/serve.out" 2>"$BENCH_TMP/serve.err" &
  BENCH_SERVE_PID=$!
  local i
  for i in $(seq 200); do
    grep -q "listening on" "$BENCH_TMP/serve.out" 2>/dev/null && break
    if ! kill -0 "$BENCH_SERVE_PID" 2>/dev/null; then
      echo "serve exited:" >&2
      cat "$BENCH_TMP/serve.err" >&2
      exit 1
    fi
    sleep 0.05
  done
  grep -q "listening on" "$BENCH_TMP/serve.out" || { echo "serve did not start" >&2; exit 1; }
  CODEXHOST_CLIENT_TOKEN="$("$CH" client add bench --json | sed -n 's/.*"token":"\([0-9a-f]*\)".*/\1/p')"
  [ -n "$CODEXHOST_CLIENT_TOKEN" ] || { echo "client add printed no token" >&2; exit 1; }
  export CODEXHOST_CLIENT_TOKEN
}

# now sets NOW to the wall clock in nanoseconds. With bash 5's EPOCHREALTIME it starts no
# process (a $(…) would fork), so the figures measure the command, not the clock.
now() {
  if [ -n "${EPOCHREALTIME:-}" ]; then
    local t="$EPOCHREALTIME"
    NOW=$((10#${t%[.,]*} * 1000000000 + 10#${t#*[.,]} * 1000))
  else
    NOW="$(date +%s%N)"
  fi
}

# json_field NAME prints the first string value of "NAME" in the JSON on stdin.
json_field() {
  grep -o "\"$1\":\"[^\"]*\"" | head -n 1 | cut -d '"' -f 4
}

# stats FILE prints count, median, p90, min and max of the nanosecond figures in FILE, in ms.
stats() {
  sort -n "$1" | awk '
    { v[NR] = $1 }
    END {
      if (NR == 0) { print "no samples"; exit 1 }
      m = int((NR + 1) / 2); p = int(NR * 0.9 + 0.999999)
      printf "runs %d  median %.2f ms  p90 %.2f ms  min %.2f ms  max %.2f ms\n", NR, v[m] / 1e6, v[p] / 1e6, v[1] / 1e6, v[NR] / 1e6
    }'
}
