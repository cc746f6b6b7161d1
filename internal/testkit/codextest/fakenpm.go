package codextest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// FakeNPM is an npm for tests of the Codex install: a real shell script that does what
// `npm install --prefix DIR @openai/codex@VERSION` does to the file system (the platform
// package's native binary under DIR/node_modules, here a symlink to Target) and prints
// npm-like progress lines, without the network.
type FakeNPM struct {
	// Dir holds the script as "npm"; put it on PATH.
	Dir string
	// EnvFile receives the environment npm ran with; ArgsFile its arguments, one a line.
	EnvFile, ArgsFile string
}

// NewFakeNPM writes the script. target is what the installed codex links to (the real
// binary, so that an App Server really starts on the installed copy). With fail set, npm
// prints an error and exits 1 without installing.
func NewFakeNPM(tb testing.TB, target string, fail bool) FakeNPM {
	tb.Helper()
	dir := tb.TempDir()
	f := FakeNPM{Dir: dir, EnvFile: filepath.Join(dir, "npm.env"), ArgsFile: filepath.Join(dir, "npm.args")}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	script := fmt.Sprintf(`#!/bin/sh
env > %[1]q
printf '%%s\n' "$@" > %[2]q
prefix=""
spec=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    -*|install) shift ;;
    *) spec="$1"; shift ;;
  esac
done
echo "npm http fetch GET 200 https://registry.npmjs.org/@openai%%2fcodex 41ms (cache miss)" >&2
if [ %[5]q = "fail" ]; then
  echo "npm error code E404" >&2
  echo "npm error 404 Not Found - GET https://registry.npmjs.org/$spec" >&2
  exit 1
fi
if [ -z "$prefix" ] || [ -z "$spec" ]; then
  echo "npm error missing --prefix or package" >&2
  exit 1
fi
echo "npm http fetch GET 200 https://registry.npmjs.org/@openai/codex/-/codex-0.0.0-%[3]s.tgz 900ms (cache miss)" >&2
bin="$prefix/node_modules/@openai/codex-%[3]s/vendor/triple/bin"
mkdir -p "$bin" "$prefix/node_modules/@openai/codex/bin"
ln -s %[4]q "$bin/codex"
echo "{\"dependencies\":{\"@openai/codex\":\"$spec\"}}" > "$prefix/package.json"
echo "added 2 packages in 1s"
`, f.EnvFile, f.ArgsFile, runtime.GOOS+"-"+arch, target, map[bool]string{true: "fail", false: "ok"}[fail])
	if err := os.WriteFile(filepath.Join(dir, "npm"), []byte(script), 0o755); err != nil {
		tb.Fatal(err)
	}
	// The installer also wants the node that runs a real npm; this npm needs none.
	if err := os.WriteFile(filepath.Join(dir, "node"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		tb.Fatal(err)
	}
	return f
}
