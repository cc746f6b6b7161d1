#!/usr/bin/env bash
# cli-floor.sh — what every CLI call pays before doing its work, next to a plain Go binary:
# wall time of `codexhost version` and of a warm `codexhost thread read` as an agent runs it
# (inside a harness, with the runtime token), the package-init time each run reports
# (GODEBUG=inittrace=1, summed), and the binary sizes. The runs of each binary alternate, so
# a busy machine slows them alike.
#
# Builds BASE (a git ref of this repository, default main) and the working tree with the same
# toolchain, and a hello-world. The runtime is served by the working tree's binary; both
# binaries read the same stored thread of an external harness through it.
#
# Usage: bench/cli-floor.sh [RUNS] [BASE]
source "$(dirname "$0")/lib.sh"

runs="${1:-200}"
base="${2:-main}"

bench_start '[harnesses.echo]
command = ["cat"]'
client_token="$CODEXHOST_CLIENT_TOKEN"
echo "building $base and hello-world ..." >&2
mkdir -p "$BENCH_TMP/base" "$BENCH_TMP/hello"
git -C "$BENCH_ROOT" archive "$base" | tar -x -C "$BENCH_TMP/base"
(cd "$BENCH_TMP/base" && CGO_ENABLED=0 go build -o "$BENCH_TMP/codexhost-base" .)
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$BENCH_TMP/hello/main.go"
(cd "$BENCH_TMP/hello" && go mod init hello >/dev/null 2>&1 && CGO_ENABLED=0 go build -o "$BENCH_TMP/hello-world" .)
(cd "$BENCH_ROOT" && go build -o "$BENCH_TMP/startcmp" ./bench/startcmp)

echo "go: $(go version)"
ls -l "$BENCH_TMP/codexhost-base" "$CH" "$BENCH_TMP/hello-world" | awk '{ printf "size %-12s %6.1f MB\n", $NF, $5 / 1048576 }' |
  sed "s|$BENCH_TMP/||"

echo "codexhost version, $runs runs each:"
"$BENCH_TMP/startcmp" -runs "$runs" -inittrace "base=$BENCH_TMP/codexhost-base version" "tree=$CH version" "hello=$BENCH_TMP/hello-world"

# A second harness writes down the connection the runtime gives it and stays running (an
# agent's token lives as long as its thread), so the reads below run as that agent would.
kill "$BENCH_SERVE_PID"; wait "$BENCH_SERVE_PID" 2>/dev/null || true
agent_env="$BENCH_TMP/agent.env"
printf '\n[harnesses.agent]\ncommand = ["sh", "-c", "env | grep ^CODEXHOST_ > %s.tmp; mv %s.tmp %s; sleep 600"]\n' \
  "$agent_env" "$agent_env" "$agent_env" >>"$CODEXHOST_HOME/config.toml"
"$CH" serve >"$BENCH_TMP/serve.out" 2>"$BENCH_TMP/serve.err" &
BENCH_SERVE_PID=$!
for _ in $(seq 200); do grep -q "listening on" "$BENCH_TMP/serve.out" 2>/dev/null && break; sleep 0.05; done
id="$("$CH" delegate start --harness echo --task "a stored thread" | json_field id)"
"$CH" thread wait "$id" >/dev/null
agent="$("$CH" delegate start --harness agent --task "an agent" | json_field id)"
for _ in $(seq 200); do [ -s "$agent_env" ] && break; sleep 0.05; done
unset CODEXHOST_CLIENT_TOKEN
set -a
# shellcheck disable=SC1090
source "$agent_env"
set +a
"$CH" thread read "$id" | grep -q '"status":"completed"' || { echo "the agent cannot read the thread" >&2; exit 1; }
echo "codexhost thread read of a stored thread (as an agent, runtime token), $runs runs each:"
"$BENCH_TMP/startcmp" -runs "$runs" "base=$BENCH_TMP/codexhost-base thread read $id" "tree=$CH thread read $id" "hello=$BENCH_TMP/hello-world"
unset CODEXHOST_RUNTIME_TOKEN CODEXHOST_RUNTIME_ENDPOINT CODEXHOST_THREAD_ID CODEXHOST_CLI_PATH
CODEXHOST_CLIENT_TOKEN="$client_token" "$CH" thread cancel "$agent" >/dev/null || true
