#!/bin/sh
# Watch engine under load: 10,000 active watches on one runtime (5,000 running threads, each
# watched by a recipient thread and by a client), then idle CPU, RSS, stop-to-notification
# latency and restart recovery. Arguments go to bench/watchload, e.g.:
#   bench/watch-load.sh -threads 2500 -idle 60s -stops 500
# Needs about 2 open files per running thread: check `ulimit -n` before raising -threads.
set -eu
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/codexhost" .
go build -o "$out/watchload" ./bench/watchload
"$out/watchload" -bin "$out/codexhost" "$@"
