#!/usr/bin/env bash
# Installs the pinned official Codex CLI (which carries `codex app-server`) into an ignored
# cache folder of the repository, once. Prints the path of the native codex binary.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# The pinned version has one home: the Go constant the runtime's locator uses too.
pinned="$(sed -n 's/^const PinnedVersion = "\(.*\)"$/\1/p' "$root/runtime/appserver/pinned.go")"
if [ -z "$pinned" ]; then
  echo "install-codex: no PinnedVersion in runtime/appserver/pinned.go" >&2
  exit 1
fi
version="${CODEX_VERSION:-$pinned}"
cache="${CODEXHOST_CODEX_CACHE:-$root/.cache/codex}"
dir="$cache/$version"
stamp="$dir/.installed"

find_native() {
  # The npm package is a Node wrapper; the native binary lives in the platform package.
  find "$dir/node_modules" -path '*/vendor/*/bin/codex' -type f 2>/dev/null | head -n 1
}

if [ ! -f "$stamp" ] || [ -z "$(find_native)" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "install-codex: npm not found; install Node.js and npm, or set CODEXHOST_CODEX_BIN to a codex $version binary" >&2
    exit 1
  fi
  mkdir -p "$dir"
  echo "install-codex: installing @openai/codex@$version into $dir" >&2
  npm install --no-audit --no-fund --loglevel=error --prefix "$dir" "@openai/codex@$version" >&2
  touch "$stamp"
fi

bin="$(find_native)"
if [ -z "$bin" ]; then
  bin="$dir/node_modules/.bin/codex"
fi
if [ ! -x "$bin" ]; then
  echo "install-codex: no codex binary found under $dir" >&2
  exit 1
fi
echo "$bin"
