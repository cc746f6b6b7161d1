#!/bin/sh
# Marker blocks on a real runtime with shell harnesses: turn completed -> created thread
# running next to delegate start, target stopped -> wait report next to watch delivery, and
# idle CPU with many waits running. Arguments go to bench/markerload, e.g.:
#   bench/marker-load.sh -creates 40 -waits 100 -idle 30s
set -eu
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/codexhost" .
go build -o "$out/markerload" ./bench/markerload
"$out/markerload" -bin "$out/codexhost" "$@"
