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
# Where the rest goes: two binaries with an empty main, built with the same toolchain, show
# the floor of what is linked — "linked" holds every package codexhost holds (so it pays
# every package init and the page faults of a binary that size, and no command tree), and
# "agentpkgs" only what an agent-facing command needs to talk to a runtime (runtime/api and
# its imports, cobra). Beside the wall time, startcmp prints each run's CPU time and page
# faults (rusage), which the machine's other load changes far less.
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
# Every binary measured is built as releases are (.goreleaser.yaml: -trimpath, -s -w).
rel=(-trimpath -ldflags "-s -w")
git -C "$BENCH_ROOT" archive "$base" | tar -x -C "$BENCH_TMP/base"
(cd "$BENCH_TMP/base" && CGO_ENABLED=0 go build "${rel[@]}" -o "$BENCH_TMP/codexhost-base" .)
(cd "$BENCH_ROOT" && CGO_ENABLED=0 go build "${rel[@]}" -o "$BENCH_TMP/codexhost-tree" .)
TREE="$BENCH_TMP/codexhost-tree"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$BENCH_TMP/hello/main.go"
(cd "$BENCH_TMP/hello" && go mod init hello >/dev/null 2>&1 && CGO_ENABLED=0 go build "${rel[@]}" -o "$BENCH_TMP/hello-world" .)
(cd "$BENCH_ROOT" && go build -o "$BENCH_TMP/startcmp" ./bench/startcmp)
# The floors are built inside the module (its internal packages), in the ignored cache.
floors="$BENCH_ROOT/.cache/bench/floors"
mkdir -p "$floors/linked" "$floors/agentpkgs"
printf 'package main\n\nimport _ "github.com/codexhost/codexhost/cli"\n\nfunc main() {}\n' >"$floors/linked/main.go"
printf 'package main\n\nimport (\n\t_ "github.com/codexhost/codexhost/runtime/api"\n\t_ "github.com/spf13/cobra"\n)\n\nfunc main() {}\n' >"$floors/agentpkgs/main.go"
(cd "$BENCH_ROOT" && CGO_ENABLED=0 go build "${rel[@]}" -o "$BENCH_TMP/linked" ./.cache/bench/floors/linked &&
  CGO_ENABLED=0 go build "${rel[@]}" -o "$BENCH_TMP/agentpkgs" ./.cache/bench/floors/agentpkgs)

echo "go: $(go version)"
ls -l "$BENCH_TMP/codexhost-base" "$TREE" "$BENCH_TMP/linked" "$BENCH_TMP/agentpkgs" "$BENCH_TMP/hello-world" | awk '{ printf "size %-12s %6.1f MB\n", $NF, $5 / 1048576 }' |
  sed "s|$BENCH_TMP/||"

echo "codexhost version, $runs runs each:"
"$BENCH_TMP/startcmp" -runs "$runs" -inittrace "base=$BENCH_TMP/codexhost-base version" "tree=$TREE version" \
  "linked=$BENCH_TMP/linked" "agentpkgs=$BENCH_TMP/agentpkgs" "hello=$BENCH_TMP/hello-world"
echo "package inits of the tree's version, the costliest (ms, mean of 20 runs; bytes allocated):"
for _ in $(seq 20); do GODEBUG=inittrace=1 "$TREE" version 2>&1 >/dev/null; done >"$BENCH_TMP/inittrace"
awk '$1 == "init" { t[$2] += $5; b[$2] += $8; n[$2]++ } END { for (p in t) printf "  %6.3f ms %8d B  %s\n", t[p] / n[p], b[p] / n[p], p }' "$BENCH_TMP/inittrace" |
  sort -rn | sed -n 1,15p # reads all its input: with pipefail, head would end the script on SIGPIPE
# The same summed by module (the standard library as one): whose inits every call pays. Only
# a package no longer linked stops paying them; Go runs every linked package's init.
echo "package inits of the tree's version by module (ms per run):"
awk '$1 == "init" {
    split($2, e, "/")
    if (e[1] !~ /\./ || e[1] == "vendor") m = "(standard library)"
    else if (e[1] == "github.com" && e[3] == "codexhost") m = "(codexhost)"
    else if (e[1] == "google.golang.org" || e[1] == "gopkg.in") m = e[1] "/" e[2]
    else m = e[1] "/" e[2] "/" e[3]
    t[m] += $5; all += $5
  }
  END { for (m in t) printf "  %6.3f ms  %s\n", t[m] / 20, m; printf "  %6.3f ms  (all)\n", all / 20 }' "$BENCH_TMP/inittrace" |
  sort -rn | sed -n 1,16p

# A second harness is the agent: the runtime accepts an agent's token only from the processes
# it started for the thread and their descendants, so the harness runs the reads itself (a
# script written once the stored thread exists), writes what they print and stays running
# (an agent's token lives as long as its thread).
kill "$BENCH_SERVE_PID"; wait "$BENCH_SERVE_PID" 2>/dev/null || true
agent_sh="$BENCH_TMP/agent.sh"
printf '\n[harnesses.agent]\ncommand = ["sh", "-c", "sh %s; sleep 600"]\n' "$agent_sh" >>"$CODEXHOST_HOME/config.toml"
"$CH" serve >"$BENCH_TMP/serve.out" 2>"$BENCH_TMP/serve.err" &
BENCH_SERVE_PID=$!
for _ in $(seq 200); do grep -q "listening on" "$BENCH_TMP/serve.out" 2>/dev/null && break; sleep 0.05; done
id="$("$CH" delegate start --harness echo --task "a stored thread" | json_field id)"
"$CH" thread wait "$id" >/dev/null
cat >"$agent_sh" <<AGENT
if "$TREE" thread read $id | grep -q '"status":"completed"'; then
  "$BENCH_TMP/startcmp" -runs $runs "base=$BENCH_TMP/codexhost-base thread read $id" "tree=$TREE thread read $id" "hello=$BENCH_TMP/hello-world" >"$BENCH_TMP/agent.out" 2>&1
else
  echo "the agent cannot read the thread" >"$BENCH_TMP/agent.out"
fi
touch "$BENCH_TMP/agent.done"
AGENT
agent="$("$CH" delegate start --harness agent --task "an agent" | json_field id)"
for _ in $(seq 1200); do [ -e "$BENCH_TMP/agent.done" ] && break; sleep 0.1; done
echo "codexhost thread read of a stored thread (as an agent, inside its harness, runtime token), $runs runs each:"
cat "$BENCH_TMP/agent.out"
"$CH" thread cancel "$agent" >/dev/null || true
