#!/usr/bin/env bash
# Installs the pinned MCP Inspector (an independent MCP client, used by the tests) into an
# ignored cache folder of the repository, once. Prints the path of its mcp-inspector command.
# npm writes under HOME; the cache keeps it inside the repository's cache folder.
set -euo pipefail
version="${INSPECTOR_VERSION:-2.12.0}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${CODEXHOST_INSPECTOR_CACHE:-$root/.cache/inspector}"
dir="$cache/$version"
stamp="$dir/.installed"
bin="$dir/node_modules/.bin/mcp-inspector"

if [ ! -f "$stamp" ] || [ ! -x "$bin" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "install-inspector: npm not found; install Node.js and npm" >&2
    exit 1
  fi
  mkdir -p "$dir/home"
  echo "install-inspector: installing @modelcontextprotocol/inspector@$version into $dir" >&2
  HOME="$dir/home" npm install --no-audit --no-fund --loglevel=error --prefix "$dir" "@modelcontextprotocol/inspector@$version" >&2
  touch "$stamp"
fi
if [ ! -x "$bin" ]; then
  echo "install-inspector: no mcp-inspector under $dir" >&2
  exit 1
fi
echo "$bin"
